#include "tests/actuators.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>

#include "tests/ab_stats.hpp"
#include "tests/result_keys.hpp"

namespace ds::measure {

namespace {

// The method's parameters (docs/methods.md, "Actuators"), in one place; the reads per phase are
// an option (ActuatorsOptions::reads_per_phase) and the verdict's threshold kIndependentGain.
struct ActuatorsTuning {
  std::int64_t timeout_ms = 30'000;       // a read not back by then ends the test
  // A verdict needs this many rounds; the gain's interval is Student's t over them, which is
  // wide where two rounds disagree and no wider than it must be where they agree (2.29 and 2.34
  // on a noisy /2 dual-actuator drive, whose 4 s share of a 20 s bench holds two rounds).
  std::size_t min_rounds = 2;
  std::uint32_t read_bytes = 4096;        // one 4 KiB read (or one block, when larger)
  std::uint64_t seed_mix = 0x6163747561746F72ull;  // "actuator": apart from other tests' draws
};
constexpr ActuatorsTuning kTuning{};

struct Phase {
  double iops = 0;
  std::int64_t drive_ns = 0;
};

// Two streams of random reads of `bytes`, stream s within ranges[s], each with one read
// outstanding, until `n` reads are done; the reads still in flight are then waited for.
Expected<Phase> two_streams(IoEngine& io, const std::array<LbaRange, 2>& ranges, std::size_t n,
                            std::uint32_t bytes, std::uint32_t block_bytes, Rng& rng) {
  const std::uint64_t per = bytes / block_bytes;  // blocks per read (reads are aligned to it)
  auto next = [&](std::size_t s) {
    const LbaRange& r = ranges[s];
    const std::uint64_t slots = r.lba_count / per;
    const std::uint64_t lba = r.first_lba + rng.below(slots) * per;
    return IoRequest{lba * block_bytes, bytes, false, s};
  };
  std::array<IoRequest, 2> inflight{next(0), next(1)};  // each stream's read in flight (tag = stream)
  auto sub = io.submit(inflight);
  if (!sub) return sub.error();
  if (*sub != 2) return make_error("the target took fewer than two reads at once");
  std::int64_t start = -1, nth = 0, last = 0;
  std::size_t done = 0, outstanding = 2;
  while (outstanding > 0) {
    IoCompletion c;
    auto got = io.reap({&c, 1}, 1, std::chrono::milliseconds(kTuning.timeout_ms));
    if (!got) return got.error();
    if (*got == 0)
      return make_error(fmt::format("a read did not complete within {} s", kTuning.timeout_ms / 1000), ETIMEDOUT);
    --outstanding;
    if (!c.ok())
      return make_error(fmt::format("I/O failed at {}: {}", where_text(io.info(), inflight[c.tag % 2].offset_bytes),
                                    io_errno_text(-c.result)),
                        -c.result);
    if (start < 0) start = c.submit_ns;
    start = std::min(start, c.submit_ns);
    last = std::max(last, c.complete_ns);
    if (++done == n) nth = c.complete_ns;
    if (done < n) {
      const IoRequest& r = inflight[c.tag % 2] = next(static_cast<std::size_t>(c.tag));
      auto s = io.submit({&r, 1});
      if (!s) return s.error();
      if (*s != 1) return make_error("the target refused a read");
      ++outstanding;
    }
  }
  Phase p;
  p.drive_ns = last - start;
  if (nth > start) p.iops = static_cast<double>(n) / (static_cast<double>(nth - start) * 1e-9);
  return p;
}

// The two ranges to compare: the first two reported ones that lie in the span, else the halves.
void choose_ranges(const ActuatorsOptions& opt, std::uint64_t span, ActuatorsResult& r) {
  r.reported_count = opt.reported.size();
  std::vector<LbaRange> in;
  for (const auto& x : opt.reported) {
    if (x.first_lba >= span || x.lba_count == 0) continue;
    in.push_back({x.first_lba, std::min(x.lba_count, span - x.first_lba)});
  }
  if (in.size() >= 2) {
    r.ranges = {in[0], in[1]};
    r.ranges_source = "reported";
    if (in.size() > 2) r.notes.push_back(fmt::format("the drive reports {} ranges; the first two are compared", in.size()));
    return;
  }
  r.ranges = {{0, span / 2}, {span / 2, span - span / 2}};
  r.ranges_source = "halves";
  if (opt.reported.size() == 1)
    r.notes.push_back("the drive reports one positioning range; the halves of the span are compared");
  else if (!opt.reported.empty())
    r.notes.push_back("fewer than two reported ranges lie in the span; its halves are compared");
}

}  // namespace

Expected<ActuatorsResult> run_actuators(IoEngine& io, const ActuatorsOptions& opt, const ProgressFn* progress) {
  const IoTargetInfo& info = io.info();
  const Span sp = span_of(info, opt.span_blocks);
  const std::uint32_t bb = sp.block_bytes;
  const std::uint64_t span = sp.blocks;
  const std::uint32_t bytes = std::max(kTuning.read_bytes, bb);
  if (span < 4 * (bytes / bb)) return make_error("the span is too small to hold two ranges of reads");
  ActuatorsResult r;
  choose_ranges(opt, span, r);
  for (const auto& x : r.ranges)
    if (x.lba_count < bytes / bb) return make_error("a positioning range is smaller than one read");

  Budget budget(opt.budget_s);
  Rng rng(opt.seed ^ kTuning.seed_mix);
  const LbaRange a = r.ranges[0], b = r.ranges[1];
  // Each round: both in A, one in each, both in B. The "together" phases split their range in
  // two so that the streams do not read the same sectors.
  std::vector<double> gains;
  double together_sum = 0, apart_sum = 0;
  auto halves = [](LbaRange x) {
    return std::array<LbaRange, 2>{LbaRange{x.first_lba, x.lba_count / 2},
                                   LbaRange{x.first_lba + x.lba_count / 2, x.lba_count - x.lba_count / 2}};
  };
  std::optional<Error> stopped;
  while (!budget.exhausted()) {
    std::array<double, 3> iops{};
    const std::array<std::array<LbaRange, 2>, 3> phases{halves(a), std::array<LbaRange, 2>{a, b}, halves(b)};
    for (std::size_t i = 0; i < 3 && !stopped; ++i) {
      auto p = two_streams(io, phases[i], opt.reads_per_phase, bytes, bb, rng);
      if (!p) stopped = p.error();
      else budget.charge(p->drive_ns), iops[i] = p->iops;
    }
    if (stopped) break;
    const double together = (iops[0] + iops[2]) / 2;
    if (together <= 0) break;
    together_sum += together;
    apart_sum += iops[1];
    gains.push_back(iops[1] / together);
    if (progress && *progress) (*progress)("actuators", std::min(1.0, budget.used_s() / budget.limit_s()), budget.used_s());
  }
  r.drive_time_s = budget.used_s();
  r.rounds = gains.size();
  if (stopped && gains.empty()) return *stopped;
  if (stopped) r.notes.push_back("stopped early: " + stopped->message);
  if (gains.empty()) return make_error("the budget is too small for one round (three phases of random reads)");
  r.together_iops = together_sum / static_cast<double>(gains.size());
  r.apart_iops = apart_sum / static_cast<double>(gains.size());
  r.gain = r.apart_iops / r.together_iops;
  if (gains.size() >= 2)
    r.gain_uncertainty = student_t_quantile(0.975, static_cast<double>(gains.size() - 1)) * stddev(gains) /
                         std::sqrt(static_cast<double>(gains.size()));
  if (gains.size() >= kTuning.min_rounds && r.gain_uncertainty) {
    const double u = *r.gain_uncertainty;
    r.independent = r.gain - u > kIndependentGain   ? std::optional<bool>(true)
                    : r.gain + u < kIndependentGain ? std::optional<bool>(false)
                                                    : std::nullopt;
  }
  if (!r.independent && !r.gain_uncertainty)
    r.withheld.push_back({key::actuators::independent, WithheldReason::gain_one_round,
                          {{"measured_gain", r.gain}, {"threshold", kIndependentGain}}});
  else if (!r.independent)
    r.withheld.push_back({key::actuators::independent, WithheldReason::gain_undecided,
                          {{"measured_gain", r.gain}, {"gain_hw", *r.gain_uncertainty}, {"rounds", r.rounds},
                           {"threshold", kIndependentGain}}});
  if (!r.independent && !r.gain_uncertainty)
    r.verdict = fmt::format("undecided: gain {:.2f} from one round, which has no interval (threshold {:.1f}; a larger "
                            "budget gives more rounds)", r.gain, kIndependentGain);
  else if (!r.independent)
    r.verdict = fmt::format("undecided: gain {:.2f} ± {:.2f} over {} rounds (threshold {:.1f})", r.gain,
                            *r.gain_uncertainty, r.rounds, kIndependentGain);
  else if (*r.independent)
    r.verdict = fmt::format("two independent actuators: reads in the two ranges overlap ({:.2f}× the rate of reads in one)", r.gain);
  else
    r.verdict = fmt::format("one actuator: reads in the two ranges do not overlap ({:.2f}× the rate of reads in one)", r.gain);
  return r;
}

}  // namespace ds::measure
