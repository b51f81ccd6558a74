#include "tests/rmw.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "tests/result_keys.hpp"

namespace ds::measure {

namespace {

constexpr std::uint32_t kLargest = 16384;  // the aligned baseline: a multiple of any physical sector in use

// The method's parameters (docs/methods.md, "rmw").
struct RmwTuning {
  std::int64_t media_pace_ns = 1'000'000;  // a write slower than this waited for the media
  std::size_t margin_writes = 8;           // writes past the buffer's fill before the measured ones
  std::size_t min_writes = 16;             // a kind with fewer timed writes tells nothing
};
constexpr RmwTuning kTuning{};

// One kind's block of writes at random places `unit`-aligned, plus offset, at QD1. The first write
// that takes over a millisecond (the media sets the pace, where a buffered write takes tens of
// microseconds) shows the write buffer full; `buffer` writes later (what the buffer took before the
// first kind's first slow write: the whole buffer is then this kind's) plus a margin, the
// `measured_writes` begin, whose per-write times (intervals between completions) are kept.
Expected<RmwKind> run_kind(IoEngine& io, const RmwOptions& opt, std::uint32_t bytes, std::uint32_t offset,
                           std::uint64_t span_blocks, std::mt19937_64& rng, Budget& budget,
                           std::optional<std::size_t>& buffer) {
  const std::uint32_t lb = io.info().logical_block_bytes;
  const std::uint64_t unit = std::max<std::uint64_t>(1, kLargest / lb);
  const std::uint64_t slots = span_blocks / unit - 1;  // the last one is left: offset + size fit
  std::uniform_int_distribution<std::uint64_t> pick(0, slots - 1);
  std::vector<PlanEntry> plan;
  for (std::size_t i = 0; i < opt.max_warmup_writes + opt.measured_writes; ++i)
    plan.push_back({pick(rng) * unit + offset / lb, bytes / lb, true});
  std::size_t seen = 1, begin = opt.max_warmup_writes;
  bool slow_seen = false;
  auto interval = [](const RunResult& rr, std::size_t i) {
    return rr.samples[i].complete_ns - rr.samples[i - 1].complete_ns;
  };
  const KeepGoing keep_going = [&](const RunResult& rr) {
    std::size_t n = seen;
    while (n < rr.done.size() && rr.done[n]) ++n;
    if (!rr.done[0]) return true;
    for (; seen < n && !slow_seen; ++seen)
      if (interval(rr, seen) > kTuning.media_pace_ns) {
        slow_seen = true;
        if (!buffer) buffer = seen - 1;  // acknowledged at once before it (the first has no interval)
        begin = std::min(opt.max_warmup_writes, seen + *buffer + kTuning.margin_writes);
      }
    return n < begin + opt.measured_writes;
  };
  RunOptions ro;
  ro.queue_depth = 1;
  auto run = run_plan(io, plan, ro, budget, keep_going);
  if (run.error && !budget_spent(run.error)) return *run.error;
  RmwKind k;
  k.bytes = bytes;
  k.offset_bytes = offset;
  std::vector<double> t;
  for (std::size_t i = std::max<std::size_t>(1, begin); i < run.samples.size() && i < run.done.size(); ++i)
    if (run.done[i] && run.done[i - 1]) t.push_back(static_cast<double>(interval(run, i)) * 1e-6);
  k.warmup_writes = begin;
  k.writes = t.size();
  if (!t.empty()) k.mean_ms = mean(t), k.sd_ms = stddev(t);
  // With a write buffer the intervals come in bursts (several writes taken as one destage ends), so
  // the spread of single intervals says little about the mean: its standard error comes from the
  // spread of the means of batches of 8 consecutive writes.
  std::vector<double> batches;
  for (std::size_t i = 0; i + 8 <= t.size(); i += 8) batches.push_back(mean(std::span<const double>(t).subspan(i, 8)));
  if (batches.size() >= 2) k.se_ms = stddev(batches) / std::sqrt(static_cast<double>(batches.size()));
  return k;
}

// Which kinds pay, and the physical sector size that explains them.
void judge(RmwResult& r) {
  const RmwKind* base = nullptr;
  for (const auto& k : r.kinds)
    if (k.offset_bytes == 0 && (!base || k.bytes > base->bytes)) base = &k;
  if (!base || base->writes < kTuning.min_writes) {
    r.withheld.push_back({key::rmw::physical_bytes_estimate, WithheldReason::too_few_writes,
                          {{"min_writes", kTuning.min_writes}}});
    r.verdict = "not measured: too few writes within the budget";
    return;
  }
  double max_pen = 0;
  for (auto& k : r.kinds) {
    k.penalty_ms = k.mean_ms - base->mean_ms;
    max_pen = std::max(max_pen, k.penalty_ms);
  }
  for (auto& k : r.kinds) {
    if (k.writes < kTuning.min_writes) continue;
    // Standard error of the difference of two means: the rotational waits scatter each write.
    const double se = std::hypot(k.se_ms, base->se_ms);
    k.pays = k.penalty_ms > 0.5 * max_pen && k.penalty_ms > 4 * se;
  }
  // The penalty: the mean of the kinds that pay less that of those that do not (pooled: each kind's
  // mean scatters by a good part of a millisecond).
  double paid = 0, free = 0;
  int n_paid = 0, n_free = 0;
  for (const auto& k : r.kinds) {
    if (k.writes < kTuning.min_writes) continue;
    if (k.pays) paid += k.mean_ms, ++n_paid;
    else free += k.mean_ms, ++n_free;
  }
  r.penalty_ms = n_paid && n_free ? paid / n_paid - free / n_free : 0;
  // Aligned kinds in size order: those that pay must all come before those that do not. A size
  // not timed is neither: below the first free size it leaves the sector size open (a 4 KiB-sector
  // drive whose 512 B to 4 KiB writes went untimed was once told "no read-modify-write, 512 bytes").
  std::optional<std::uint32_t> first_free;
  std::vector<std::uint32_t> untimed;
  bool ordered = true;
  for (const auto& k : r.kinds) {
    if (k.offset_bytes != 0) continue;
    if (k.writes < kTuning.min_writes) {
      if (!first_free) untimed.push_back(k.bytes);
      continue;
    }
    if (!k.pays && !first_free) first_free = k.bytes;
    if (k.pays && first_free) ordered = false;
  }
  if (ordered && first_free && !untimed.empty()) {
    r.withheld.push_back({key::rmw::physical_bytes_estimate, WithheldReason::small_writes_untimed,
                          {{"first_free", *first_free}}});
    r.verdict = fmt::format("read-modify-write not told: the {} B writes were not timed within the budget, and "
                            "{}-byte writes pay nothing (a larger --budget times them)", fmt::join(untimed, ", "), *first_free);
    return;
  }
  if (!ordered || !first_free) {
    r.withheld.push_back({key::rmw::physical_bytes_estimate, WithheldReason::sizes_unordered});
    r.verdict = "read-modify-write unclear: the write times do not fall into two groups by size";
    return;
  }
  r.physical_bytes_estimate = first_free;
  const std::string reported = r.reported_physical_bytes == 0 ? ""
                               : r.reported_physical_bytes == *first_free
                                   ? ", as the drive reports"
                                   : fmt::format(", though the drive reports {} bytes", r.reported_physical_bytes);
  if (*first_free == r.logical_bytes) {
    r.verdict = fmt::format("no read-modify-write: {}-byte writes cost no more than aligned {}-byte ones "
                            "(physical sector {} bytes{})", r.logical_bytes, base->bytes, *first_free, reported);
    return;
  }
  r.verdict = fmt::format("read-modify-write below {} bytes: a {}-byte write takes about {:.2f} ms more than an aligned one "
                          "(physical sector {} bytes{})", *first_free, r.logical_bytes, r.penalty_ms, *first_free, reported);
}

// "4096-byte physical sectors behind 512-byte logical ones (512e)".
std::string sector_words(std::uint32_t physical, std::uint32_t logical) {
  if (physical == logical) return fmt::format("{}-byte physical sectors, as its logical ones", physical);
  return fmt::format("{}-byte physical sectors behind {}-byte logical ones{}", physical, logical,
                     physical == 4096 && logical == 512 ? " (512e)" : "");
}

// What the drive and the block device say, when no write may be timed.
RmwResult claims_only(RmwResult r) {
  std::string said;
  if (r.claimed_physical_bytes) {
    said = fmt::format("{} claims {}", r.claimed_by.empty() ? "the drive" : r.claimed_by,
                       sector_words(r.claimed_physical_bytes, r.logical_bytes));
    if (r.reported_physical_bytes && r.reported_physical_bytes != r.claimed_physical_bytes)
      said += fmt::format(", though the block device reports {} bytes", r.reported_physical_bytes);
  } else if (r.reported_physical_bytes) {
    said = "the block device reports " + sector_words(r.reported_physical_bytes, r.logical_bytes);
  } else {
    said = "the drive does not say its physical sector size";
  }
  r.verdict = "not measured: " + said + "; the timing check needs writes (--write: the data at the written blocks is lost)";
  r.withheld.push_back({key::rmw::physical_bytes_estimate, WithheldReason::writes_not_allowed});
  r.notes.push_back("a claim is not a measurement: some early 512e drives claimed 512-byte physical sectors (docs/methods.md)");
  return r;
}

}  // namespace

Expected<RmwResult> run_rmw(IoEngine& io, const RmwOptions& opt, const ProgressFn* progress) {
  const IoTargetInfo& info = io.info();
  RmwResult r;
  const Span sp = span_of(info, opt.span_blocks);
  r.logical_bytes = sp.block_bytes;
  r.reported_physical_bytes = info.physical_block_bytes;
  r.claimed_physical_bytes = opt.claimed_physical_bytes;
  r.claimed_by = opt.claimed_physical_bytes ? opt.claimed_by : std::string();
  if (!opt.allow_write) return claims_only(std::move(r));
  if (!info.writable) return make_error("the rmw test writes: the target is not open for writing");
  r.measured = true;
  const std::uint64_t span = sp.blocks;
  if (span * r.logical_bytes < 4 * std::uint64_t{kLargest}) return make_error("the rmw test needs a span of at least 64 KiB");
  // Aligned sizes from one block up to 16 KiB, then 4 KiB one block off a 4 KiB boundary.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> kinds;
  for (std::uint32_t s = r.logical_bytes; s <= std::max(kLargest, r.logical_bytes); s *= 2) kinds.emplace_back(s, 0);
  if (r.logical_bytes < 4096) kinds.emplace_back(4096, r.logical_bytes);
  Budget budget(opt.budget_s);
  std::mt19937_64 rng(opt.seed);
  std::optional<std::size_t> buffer;  // writes the drive's buffer takes, from the first kind
  for (std::size_t i = 0; i < kinds.size(); ++i) {
    Budget part = budget.part(1.0 / static_cast<double>(kinds.size() - i) * budget.left_s() / budget.limit_s());
    auto k = run_kind(io, opt, kinds[i].first, kinds[i].second, span, rng, part, buffer);
    budget.charge(part.used_ns());
    if (!k) return k.error();
    r.kinds.push_back(*k);
    if (progress) (*progress)("rmw", static_cast<double>(i + 1) / static_cast<double>(kinds.size()), budget.used_s());
  }
  r.drive_time_s = budget.used_s();
  r.buffer_writes = buffer;
  judge(r);
  return r;
}

}  // namespace ds::measure
