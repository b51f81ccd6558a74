// Stage 4 of `drivescope model`, first part: the read-ahead where the cache test did not tell it.
// The cache test's read-ahead probe runs after its size probe, on what that leaves of its share
// of the bench's budget; on a drive with a large cache (the 8 TB archive drive's 128 MiB) the size
// probe can leave it nothing, and the draft then assumes no read-ahead: a twin that misses every
// read a stream makes (35-55 % off the drive on sequential traces). Rather than assume, the twin
// asks the drive the same question a different way, with a workload whose service times depend
// on the extent: a read, a pause long enough for any read-ahead to reach a place some distance
// on, and a read there. Where the distance is within the extent that read is a hit.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "app/twin_stages.hpp"
#include "report/json_read.hpp"
#include "tests/demerit.hpp"

namespace ds::app {

using nlohmann::json;

namespace {

constexpr double kReachMs = 150;                 // the pause the longest distance may need at the media's pace
constexpr double kMaxReachBytes = 8.0 * 1048576;  // past the largest extent tried (4 MiB), so that it is seen
constexpr std::size_t kProbes = 160;
// Each probe starts with a short run of one-block reads in a row: a drive that reads ahead only
// once a stream is established (controller.prefetch.after_sequential_reads) does it after this
// many, and one that reads ahead after any read does too.
constexpr std::uint64_t kRun = 3;
constexpr double kShortestBytes = 8192;  // half the shortest extent tried

// The media's pace of the draft's first (outermost) zone: its sectors per track (one figure, or one
// a surface) a revolution.
double media_pace_mb_s(const json& model) {
  const double lbs = model.value("logical_sector_bytes", 512.0);
  const double rpm = model.value("rpm_actual", model.value("rpm", 0.0));
  const json* z = report::json_at(model, {"zones"});
  if (!z || !z->is_array() || z->empty() || rpm <= 0) return 0;
  const json& spt = (*z)[0].value("sectors_per_track", json());
  double sectors = 0;
  if (spt.is_number()) sectors = spt.get<double>();
  else if (spt.is_array() && !spt.empty()) {
    for (const auto& s : spt) sectors += s.get<double>() / static_cast<double>(spt.size());
  }
  return sectors * lbs * rpm / 60 / 1e6;
}

// A trial whose segments hold a block and the read-ahead after it (segment_floor_bytes).
json with_floor(json trial) {
  json& c = trial["cache"];
  const double floor = segment_floor_bytes(trial), n = std::max(1.0, c.value("segments", 1.0));
  if (c.value("bytes", 0.0) / n < floor) c["bytes"] = static_cast<std::uint64_t>(std::ceil(floor * n));
  return trial;
}

}  // namespace

bool read_ahead_untold(const json& model) {
  const json* src = report::json_at(model, {"provenance", "sources", "cache.read_ahead_sectors"});
  return src && src->is_string() && src->get<std::string>().starts_with("default:") &&
         model["cache"].value("bytes", 0.0) > 0;
}

ReadAheadWorkload read_ahead_workload(const json& model, std::uint64_t capacity_blocks, std::uint64_t seed) {
  ReadAheadWorkload w;
  w.trace.format = measure::TraceFormat::fio_iolog;
  w.trace.timing = measure::TraceTiming::after_completion;
  const double pace = media_pace_mb_s(model);
  const auto lbs = static_cast<std::uint32_t>(model.value("logical_sector_bytes", 512.0));
  w.reach_bytes = pace > 0 ? std::min(kMaxReachBytes, pace * 1e3 * kReachMs) : 0;
  if (w.reach_bytes < 4.0 * lbs || capacity_blocks * lbs < 4 * w.reach_bytes) return w;
  std::mt19937_64 rng(seed);
  const double reach_blocks = w.reach_bytes / lbs;
  std::uniform_real_distribution<double> log_d(std::log(std::max(1.0, kShortestBytes / lbs)), std::log(reach_blocks));
  std::uniform_int_distribution<std::uint64_t> at(0, capacity_blocks - static_cast<std::uint64_t>(reach_blocks) - kRun - 1);
  for (std::size_t i = 0; i < kProbes; ++i) {
    const auto d = static_cast<std::uint64_t>(std::max(1.0, std::round(std::exp(log_d(rng)))));
    const std::uint64_t x = at(rng);
    for (std::uint64_t k = 0; k < kRun; ++k)
      w.trace.requests.push_back({(x + k) * lbs, lbs, false, 0, {}, {}, w.trace.requests.size() + 1});
    // The pause: three times what the media takes to pass the distance (its switches, a revolution
    // lost at the start), and a millisecond.
    const double pause_ms = 1 + 3 * static_cast<double>((d + 1) * lbs) / (pace * 1e3);
    w.trace.requests.push_back({(x + kRun - 1 + d) * lbs, lbs, false, static_cast<std::int64_t>(pause_ms * 1e6), {},
                                {}, w.trace.requests.size() + 1});
  }
  return w;
}

namespace {

// How a trial twin's far reads compare with the drive's: first, in how many probes one was served
// from the buffer and the other not (a hit costs the overhead, a miss the rest of a revolution in
// the mean; the line between them a quarter revolution above the fastest far read); then, between
// extents alike in that, the demerit of the far reads' times.
struct Agreement {
  std::size_t disagree = 0;
  double demerit = HUGE_VAL;
  auto operator<=>(const Agreement&) const = default;
};

// Each probe's last read, the one a distance on.
std::vector<double> far_reads(const std::vector<double>& ms) {
  std::vector<double> out;
  for (std::size_t i = kRun; i < ms.size(); i += kRun + 1) out.push_back(ms[i]);
  return out;
}

}  // namespace

// Of none and 16 KiB to 4 MiB by half-octaves (those the workload reaches), the extent whose twin
// agrees best with the drive on which far reads were hits; where longer extents serve the
// workload exactly alike, it did not tell them apart and the shortest is kept, a floor. The run
// before each is left out: its first read is a random miss, whose seek the twin has not fitted
// yet (stage 5), and the twin reads ahead after any read where the drive may wait for a stream.
std::optional<Error> fit_read_ahead(json& model, const std::vector<double>& drive_ms, const ReadAheadWorkload& w,
                                    std::uint64_t seed, std::vector<std::string>& moves) {
  if (w.trace.requests.empty() || drive_ms.size() != w.trace.requests.size()) return std::nullopt;
  const double lbs = model.value("logical_sector_bytes", 512.0);
  const double rev_ms = 60e3 / model.value("rpm_actual", model.value("rpm", 7200.0));
  const std::vector<double> want = far_reads(drive_ms);
  const double line = *std::min_element(want.begin(), want.end()) + rev_ms / 4;
  auto score = [&](const json& trial) -> Expected<Agreement> {
    auto ms = twin_times(trial, w.trace, seed);
    if (!ms) return ms.error();
    if (ms->size() != drive_ms.size()) return Agreement{want.size(), HUGE_VAL};
    const std::vector<double> got = far_reads(*ms);
    Agreement a{0, measure::demerit_pct(got, want)};
    for (std::size_t i = 0; i < want.size(); ++i) a.disagree += (want[i] < line) != (got[i] < line) ? 1 : 0;
    return a;
  };
  auto start = score(model);
  if (!start) return start.error();
  Agreement best = *start;
  json best_model = model;
  bool plateau = false;  // a longer extent served the workload exactly as well as the one kept
  for (double kib = 16; kib * 1024 <= std::min(4.0 * 1048576, w.reach_bytes) * 1.001; kib *= std::sqrt(2.0)) {
    json trial = model;
    trial["cache"]["read_ahead_sectors"] = static_cast<std::uint32_t>(std::round(kib * 1024 / lbs));
    trial = with_floor(std::move(trial));
    auto s = score(trial);
    if (!s) return s.error();
    plateau = plateau || (best_model != model && *s == best);
    if (*s < best) best = *s, best_model = std::move(trial), plateau = false;
  }
  if (best_model == model) return std::nullopt;
  const auto got = best_model["cache"]["read_ahead_sectors"].get<std::uint32_t>();
  moves.push_back(fmt::format("cache.read_ahead_sectors: none assumed -> {} (the cache test did not tell it; "
                              "read-ahead workload: hit or miss unlike the drive's in {} -> {} of {} far reads{})",
                              got, start->disagree, best.disagree, want.size(), plateau ? "; longer extents alike" : ""));
  best_model["provenance"]["sources"]["cache.read_ahead_sectors"] =
      fmt::format("measured: read-ahead workload (the cache test did not tell it; reads a distance on after a "
                  "pause, up to {:.0f} KiB){}",
                  w.reach_bytes / 1024, plateau ? ", a lower bound: longer extents served it alike" : "");
  model = std::move(best_model);
  return std::nullopt;
}

}  // namespace ds::app
