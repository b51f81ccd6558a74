#include "tests/smr.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>

namespace ds::measure {

namespace {

// The probe's parameters (docs/methods.md, "SMR"), in one place.
struct SmrTuning {
  // Phase 1: access_reads random reads of access_read_bytes; the sequential rate at
  // rate_positions places spread over the span, reads_per_position reads of rate_chunk_bytes
  // each (the first positions the head, the others stream).
  int access_reads = 32;
  std::uint32_t access_read_bytes = 4096;
  int rate_positions = 8;
  int reads_per_position = 5;
  std::uint32_t rate_chunk_bytes = 1u << 20;
  // Phase 2: the write rate over windows of `window` writes.
  std::size_t window = 32;
  std::size_t base_windows = 8;       // the first windows set the fast rate
  double cliff_drop = 8;              // a window this many times slower than the fast rate ...
  std::size_t cliff_windows = 2;      // ... this many times in a row is the cliff
  std::size_t min_slow = 32;          // slow writes wanted for the band estimate
  double fill_share = 0.85;           // of the budget, for filling; the rest after the cliff
  std::size_t rate_points = 100;      // points of the write-rate curve over the budget
  std::uint64_t min_span_writes = 64; // the span must hold at least this many writes
  std::uint64_t seed_mix = 0x736D72ull;  // "smr": apart from other tests' draws
};
constexpr SmrTuning kTuning{};

// One I/O at queue depth 1; its latency in ms.
Expected<double> one_io(IoEngine& io, std::uint64_t off, std::uint32_t len, bool write, std::uint64_t tag) {
  const IoRequest r{off, len, write, tag};
  auto s = io.submit({&r, 1});
  if (!s) return s.error();
  if (*s != 1) return make_error("the drive took no request");
  IoCompletion c;
  auto n = io.reap({&c, 1}, 1, std::chrono::milliseconds(60'000));
  if (!n) return n.error();
  if (*n != 1) return make_error("no completion within 60 s");
  if (!c.ok()) return make_error(fmt::format("a {} failed: {}", write ? "write" : "read", io_errno_text(-c.result)), -c.result);
  return static_cast<double>(c.latency_ns()) * 1e-6;
}

struct Ctx {
  IoEngine& io;
  const SmrProbeOptions& opt;
  const ProgressFn* progress;
  Budget budget;
  Rng rng;
  std::uint64_t span_bytes = 0;
  std::uint32_t block = 512;
  std::uint64_t tag = 0;
  std::vector<float> lat;  // every write's latency, ms, in order
  double next_point_s = 0;
  std::uint64_t point_bytes = 0;
  double point_s = 0;
  SmrProbeResult r;

  bool stopped() {
    if (opt.stop && opt.stop()) r.interrupted = true;
    return r.interrupted;
  }
  Expected<double> io_ms(std::uint64_t off, std::uint32_t len, bool write) {
    auto ms = one_io(io, off, len, write, tag++);
    if (ms) budget.charge(std::llround(*ms * 1e6));
    return ms;
  }
  std::uint64_t random_offset(std::uint32_t len) {
    const std::uint64_t slots = std::max<std::uint64_t>(1, span_bytes / len);
    return rng.below(slots) * len;
  }
  Expected<double> write_one() {
    auto ms = io_ms(random_offset(opt.write_bytes), opt.write_bytes, true);
    if (!ms) return ms;
    lat.push_back(static_cast<float>(*ms));
    ++r.writes;
    r.bytes_written += opt.write_bytes;
    r.write_drive_s += *ms * 1e-3;
    if (r.write_drive_s >= next_point_s) {  // a point of the rate over time
      const double dt = r.write_drive_s - point_s;
      r.rate.push_back({r.write_drive_s, static_cast<double>(r.bytes_written) / 1e6,
                        dt > 0 ? static_cast<double>(r.bytes_written - point_bytes) / 1e6 / dt : 0});
      point_s = r.write_drive_s;
      point_bytes = r.bytes_written;
      next_point_s = r.write_drive_s + opt.budget_s / kTuning.rate_points;
      if (progress && *progress) (*progress)("smr", std::min(1.0, budget.used_s() / opt.budget_s), budget.used_s());
    }
    return ms;
  }
};

double window_mb_s(const std::vector<float>& lat, std::size_t w, std::uint32_t bytes) {
  double s = 0;
  for (std::size_t i = w * kTuning.window; i < (w + 1) * kTuning.window; ++i) s += lat[i];
  return s > 0 ? static_cast<double>(kTuning.window * bytes) / 1e3 / s : 0;
}

// Phase 1: the random-read access time and the sequential rate across the span.
std::optional<Error> read_phase(Ctx& c) {
  std::vector<double> acc;
  for (int i = 0; i < kTuning.access_reads && !c.stopped(); ++i) {
    auto ms = c.io_ms(c.random_offset(kTuning.access_read_bytes), kTuning.access_read_bytes, false);
    if (!ms) return ms.error();
    acc.push_back(*ms);
  }
  if (!acc.empty()) c.r.read_access_ms = median(acc);
  const std::uint32_t kChunk = kTuning.rate_chunk_bytes;
  const int reads = kTuning.reads_per_position;
  // The last position leaves room for its reads and one chunk more.
  const std::uint64_t room = static_cast<std::uint64_t>(reads + 1) * kChunk;
  std::vector<double> rates;
  for (int p = 0; p < kTuning.rate_positions && !c.stopped(); ++p) {
    if (c.span_bytes < room) break;
    const std::uint64_t at = (c.span_bytes - room) / static_cast<std::uint64_t>(kTuning.rate_positions - 1) *
                             static_cast<std::uint64_t>(p) / c.block * c.block;
    double ms_sum = 0;
    for (int k = 0; k < reads; ++k) {  // the first positions the head, the others stream
      auto ms = c.io_ms(at + static_cast<std::uint64_t>(k) * kChunk, kChunk, false);
      if (!ms) return ms.error();
      if (k > 0) ms_sum += *ms;
    }
    rates.push_back(static_cast<double>(reads - 1) * kChunk / 1e3 / ms_sum);
  }
  if (!rates.empty()) {
    double inv = 0;
    for (const double x : rates) inv += 1 / x;
    c.r.sequential_mb_s = static_cast<double>(rates.size()) / inv;
    c.r.median_sequential_mb_s = median(rates);
  }
  return std::nullopt;
}

// Phase 2: random writes until the cliff (two windows in a row far below the fast rate), the
// budget's fill share, or a stop. Returns the first window of the cliff, if any. The fast write
// time is the median of the windows' mean latencies before the cliff: a window's mean, not a
// write's median, so that a write cache taking a burst of writes at once does not count as fast
// when the media behind it is not.
Expected<std::optional<std::size_t>> fill_phase(Ctx& c) {
  std::vector<double> window_ms;  // mean latency of each window
  std::size_t slow_run = 0;
  std::optional<std::size_t> cliff;
  while (!c.stopped() && c.budget.used_s() < kTuning.fill_share * c.opt.budget_s) {
    auto ms = c.write_one();
    if (!ms) return ms.error();
    if (c.lat.size() % kTuning.window) continue;
    const std::size_t w = c.lat.size() / kTuning.window - 1;
    window_ms.push_back(static_cast<double>(c.opt.write_bytes) / 1e3 / window_mb_s(c.lat, w, c.opt.write_bytes));
    if (w + 1 < kTuning.base_windows) continue;
    if (w + 1 == kTuning.base_windows) c.r.fast_write_ms = median(window_ms);
    slow_run = window_ms.back() > kTuning.cliff_drop * c.r.fast_write_ms ? slow_run + 1 : 0;
    if (slow_run == kTuning.cliff_windows) {
      cliff = w + 1 - kTuning.cliff_windows;
      break;
    }
  }
  const std::size_t before = cliff ? *cliff : window_ms.size();
  if (before > 0) c.r.fast_write_ms = median(std::vector<double>(window_ms.begin(), window_ms.begin() + static_cast<std::ptrdiff_t>(before)));
  else if (!c.lat.empty()) c.r.fast_write_ms = median(std::vector<double>(c.lat.begin(), c.lat.end()));
  return cliff;
}

// After the cliff: the cache estimate, enough slow writes for the band, the slow rate.
std::optional<Error> after_cliff(Ctx& c, std::size_t cliff_window) {
  const double slow_ms = kSlowFactor * c.r.fast_write_ms;
  std::size_t first_slow = cliff_window * kTuning.window;
  while (first_slow < c.lat.size() && c.lat[first_slow] <= slow_ms) ++first_slow;
  c.r.cliff = true;
  c.r.cache_bytes_estimate = static_cast<std::uint64_t>(first_slow) * c.opt.write_bytes;
  auto slow_count = [&] {
    return static_cast<std::size_t>(std::count_if(c.lat.begin() + static_cast<std::ptrdiff_t>(first_slow), c.lat.end(),
                                                   [slow_ms](float v) { return v > slow_ms; }));
  };
  while (slow_count() < kTuning.min_slow && !c.stopped() && !c.budget.exhausted()) {
    auto ms = c.write_one();
    if (!ms) return ms.error();
  }
  std::vector<double> slow;
  double t = 0;
  for (std::size_t i = first_slow; i < c.lat.size(); ++i) {
    t += c.lat[i];
    if (c.lat[i] > slow_ms) slow.push_back(c.lat[i]);
  }
  const std::size_t after = c.lat.size() - first_slow;
  c.r.after_cliff_mb_s = t > 0 ? static_cast<double>(after * c.opt.write_bytes) / 1e3 / t : 0;
  if (slow.empty()) {
    c.r.withheld.push_back({"band_bytes_estimate", WithheldReason::smr_no_slow_writes, {}});
    return std::nullopt;
  }
  c.r.slow_write_ms = median(slow);
  // A forced clean: to the band, read it, turn, write it, back to the cache. Less the two trips
  // (each about a random access), what is left is the band at the media rate twice.
  const double clean_s = (c.r.slow_write_ms - 2 * c.r.read_access_ms) * 1e-3;
  // The median clean is that of a band at the median place, so at the median of the rates.
  if (c.r.median_sequential_mb_s > 0 && clean_s > 0)
    c.r.band_bytes_estimate = static_cast<std::uint64_t>(clean_s * c.r.median_sequential_mb_s * 1e6 / 2);
  else
    c.r.withheld.push_back({"band_bytes_estimate", WithheldReason::smr_clean_unresolved,
                            {{"slow_write_ms", c.r.slow_write_ms}, {"read_access_ms", c.r.read_access_ms},
                             {"median_sequential_mb_s", c.r.median_sequential_mb_s}}});
  c.r.writes_per_slow = static_cast<double>(after) / static_cast<double>(slow.size());
  return std::nullopt;
}

// Phase 3: idle, then time writes again. After the cliff one write in writes_per_slow waits for a
// clean (every one, when each band holds one cached write; one in tens, when the cache held tens of
// writes per band). A drive that cleaned while idle has made room: the run of fast writes after
// the pause is far longer than that. The run is followed up to 8 times the gap before (at least 32
// writes) and counts as cleaning from 6 times the gap (at least 16): by chance alone, with a slow
// write one time in g, a run of 6g fast writes comes about once in e^6 ≈ 400.
std::optional<Error> idle_phase(Ctx& c) {
  const double slow_ms = kSlowFactor * c.r.fast_write_ms;
  const double gap = std::max(1.0, c.r.writes_per_slow);
  const auto limit = static_cast<std::size_t>(std::max(32.0, std::ceil(8 * gap)));
  c.io.idle(std::chrono::nanoseconds(std::llround(c.opt.idle_s * 1e9)));
  // The first write may wait for a clean still under way when it comes (a drive that cleans while
  // idle need not drop a band half done): it is written, not counted.
  if (auto first = c.write_one(); !first) return first.error();
  for (std::size_t i = 0; i < limit && !c.stopped() && !c.budget.exhausted(); ++i) {
    auto ms = c.write_one();
    if (!ms) return ms.error();
    ++c.r.checked_after_idle;
    if (*ms > slow_ms) break;
    ++c.r.fast_run_after_idle;
  }
  const bool ended = c.r.fast_run_after_idle < c.r.checked_after_idle || c.r.checked_after_idle == limit;
  if (!ended) return std::nullopt;  // interrupted or out of budget: not judged
  c.r.cleans_when_idle = static_cast<double>(c.r.fast_run_after_idle) >= std::max(16.0, 6 * gap);
  return std::nullopt;
}

std::string mb(double bytes) {
  return bytes >= 1e9 ? fmt::format("{:.1f} GB", bytes / 1e9) : fmt::format("{:.0f} MB", bytes / 1e6);
}

void judge(SmrProbeResult& r, std::uint32_t write_bytes) {
  const double read_ops = r.read_access_ms > 0 ? 1e3 / r.read_access_ms : 0;
  const double write_ops = r.fast_write_ms > 0 ? 1e3 / r.fast_write_ms : 0;
  r.write_vs_read = read_ops > 0 ? write_ops / read_ops : 0;
  const std::string kib = fmt::format("{} KiB", write_bytes / 1024);
  if (r.cliff) {
    r.verdict = "dm-smr";
    r.evidence.push_back(fmt::format("random {} writes ran at {:.1f} ms each ({:.0f}x the random-read rate) for {}, then "
                                     "fell to {:.2f} MB/s with writes of {:.0f} ms: a persistent media cache filled and "
                                     "bands had to be cleaned",
                                     kib, r.fast_write_ms, r.write_vs_read, mb(static_cast<double>(r.cache_bytes_estimate)),
                                     r.after_cliff_mb_s, r.slow_write_ms));
  } else if (r.writes < kTuning.base_windows * kTuning.window) {
    r.verdict = "unknown";
    r.evidence.push_back(fmt::format("only {} writes timed: too few to judge", r.writes));
  } else if (r.write_vs_read > kLogLikeRatio) {
    r.verdict = "unknown";
    r.evidence.push_back(fmt::format("random {} writes ran at {:.0f}x the random-read rate over {} without a cliff: "
                                     "something absorbs them (a media cache larger than that, or a large write cache)",
                                     kib, r.write_vs_read, mb(static_cast<double>(r.bytes_written))));
  } else {
    r.verdict = "cmr";
    r.evidence.push_back(fmt::format("no sign of SMR: {} of random {} writes ran at about the random-access rate "
                                     "({:.1f} ms each, reads {:.1f} ms), with no cliff",
                                     mb(static_cast<double>(r.bytes_written)), kib, r.fast_write_ms, r.read_access_ms));
  }
  if (r.cleans_when_idle)
    r.evidence.push_back(fmt::format("after the cliff one write in {:.1f} waited for a clean; after {:.0f} s idle, {} fast "
                                     "writes in a row{}: the drive {} while idle",
                                     r.writes_per_slow, r.idle_s, r.fast_run_after_idle,
                                     r.fast_run_after_idle == r.checked_after_idle ? " (all that were timed)" : "",
                                     *r.cleans_when_idle ? "cleans" : "does not clean"));
}

}  // namespace

Expected<SmrProbeResult> run_smr_probe(IoEngine& io, const SmrProbeOptions& opt, const ProgressFn* progress) {
  const IoTargetInfo& info = io.info();
  if (!info.writable) return make_error("the smr write probe needs a target opened for writing");
  const Span sp = span_of(info, opt.span_blocks);
  if (opt.write_bytes == 0 || opt.write_bytes % sp.block_bytes)
    return make_error("the probe's write size must be a multiple of the logical block size");
  Ctx c{io, opt, progress, Budget(opt.budget_s), Rng(opt.seed ^ kTuning.seed_mix)};
  c.block = sp.block_bytes;
  c.span_bytes = sp.bytes();
  if (c.span_bytes < kTuning.min_span_writes * opt.write_bytes) return make_error("the span is too small for the smr probe");
  if (auto e = read_phase(c)) return *e;
  auto cliff = fill_phase(c);
  if (!cliff) return cliff.error();
  if (*cliff) {
    if (auto e = after_cliff(c, **cliff)) return *e;
    if (opt.idle_s > 0 && !c.stopped() && !c.budget.exhausted())
      if (auto e = idle_phase(c)) return *e;
    if (opt.idle_s <= 0) c.r.withheld.push_back({"cleans_when_idle", WithheldReason::smr_idle_not_asked, {}});
    else if (!c.r.cleans_when_idle)
      c.r.withheld.push_back({"cleans_when_idle", WithheldReason::smr_idle_not_judged, {}});
  } else {
    for (const char* figure : {"band_bytes_estimate", "cleans_when_idle"})
      c.r.withheld.push_back({figure, WithheldReason::smr_no_cliff, {}});
  }
  c.r.idle_s = opt.idle_s;
  if (c.r.interrupted) c.r.notes.push_back("interrupted: the results cover what ran until then");
  judge(c.r, opt.write_bytes);
  c.r.drive_time_s = c.budget.used_s();
  return std::move(c.r);
}

}  // namespace ds::measure
