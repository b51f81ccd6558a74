// The access test's rotation probes (access_rotation.hpp; docs/methods.md, "Rotation, rpm").
#include "tests/access_rotation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <utility>
#include <vector>

#include "tests/result_keys.hpp"
#include "tests/wait_width.hpp"

namespace ds::measure::access_detail {

namespace {

// The probes' parameters (docs/methods.md, "Rotation, rpm").
struct ProbeTuning {
  std::array<unsigned, 5> chain_steps{1, 2, 3, 5, 8};  // blocks per step of the backward chains
  int rotation_reps = 3;                // chains per step size, every step read from the media
  int rotation_max_reps = 24;           // … and at most, on a drive whose buffer serves most steps
  unsigned chain_length = 10;
  std::uint64_t chain_margin = 1000;    // chains start this far inside the span
  std::size_t min_chain_steps = 3;      // a chain's median needs this many media steps
  double rotation_fit_floor = 0.01;     // stated resolution of the backward-step fit
  // Reads a fixed distance apart (the revolution from the spread of their waits).
  std::uint64_t wait_reads = 400;
  std::uint64_t wait_distance_div = 50;  // the distance: this share of the span
  std::uint64_t wait_step = 262144;      // blocks each place creeps per pair (half of it: the offset)
};
constexpr ProbeTuning kProbe{};

// Chains of backward steps x, x−k, x−2k, … Each step finds the wanted block just passed, so it
// waits one revolution less k blocks; the fit over k gives both (fit_rotation).
// A drive that reads a track from wherever the head lands (zero-latency read) or keeps the track
// serves most steps from its buffer: a step that took no longer than a cache hit and a margin was
// buffered, and a media read after it starts at an unknown phase. Only steps read from the media
// right after another media read count; such a drive leaves about one a chain, so more chains are
// read (they are cheap: the buffered steps cost a cache hit each) until every step size has three.
struct BackwardSteps {
  std::vector<std::pair<unsigned, double>> kl;  // step size, latency in ns
  std::size_t buffered = 0, steps = 0;
};

// The steps of one chain (latencies `l` in ns, negative: failed) that count: read from the media
// (no faster than `buffered_ns`) right after another media read. Every completed step is counted
// in `out`, and so is each one the buffer served.
std::vector<double> media_steps(const std::vector<double>& l, double buffered_ns, BackwardSteps& out) {
  std::vector<double> steps;
  for (std::size_t i = 1; i < l.size(); ++i) {
    if (l[i] < 0) continue;
    ++out.steps;
    const bool buffered = l[i] < buffered_ns;
    out.buffered += buffered;
    if (!buffered && l[i - 1] >= buffered_ns) steps.push_back(l[i]);
  }
  return steps;
}

BackwardSteps backward_steps(Ctx& rc, Rng& rng, double hit_ns) {
  const auto& k_ = kProbe;
  // Per step size, the chain with the lowest median: a chain that crosses a slow (defect) region
  // only ever reads slower, so it must not pull the fit (one did: 2315 rpm for 7200). Chains with
  // fewer than three counted steps pool theirs.
  std::map<unsigned, double> best;
  std::map<unsigned, std::vector<double>> pool;
  auto settled = [&] {
    for (unsigned k : k_.chain_steps)
      if (!best.count(k) && pool[k].size() < k_.min_chain_steps) return false;
    return true;
  };
  BackwardSteps out;
  const double buffered_ns = hit_ns + kBufferedMarginMs / kMsPerNs;
  for (int rep = 0; rep < k_.rotation_max_reps && !rc.budget.exhausted() && (rep < k_.rotation_reps || !settled()); ++rep) {
    for (unsigned k : k_.chain_steps) {
      const std::uint64_t x = k_.chain_margin + rng.below(rc.span - 2 * k_.chain_margin);
      std::vector<std::uint64_t> chain;
      for (unsigned i = 0; i < k_.chain_length; ++i) chain.push_back(x - i * k);
      auto l = qd1(rc, chain, false, nullptr, true);
      if (rc.err) return out;
      const std::vector<double> steps = media_steps(l, buffered_ns, out);
      if (steps.size() >= k_.min_chain_steps) {
        const double m = median(steps);
        if (!best.count(k) || m < best[k]) best[k] = m;
      } else {
        pool[k].insert(pool[k].end(), steps.begin(), steps.end());
      }
      if (rc.spent) break;
    }
  }
  for (unsigned k : k_.chain_steps) {
    if (best.count(k)) out.kl.emplace_back(k, best[k]);
    else if (pool[k].size() >= k_.min_chain_steps) out.kl.emplace_back(k, median(pool[k]));
  }
  return out;
}

// Reads alternating between two places a fixed distance apart, each at a random sector: the
// rotational wait of each is uniform over a revolution and the seek about the same
// (wait_width.hpp). The random offset spans many tracks: over two or three the phases wrap
// unevenly and the waits are not uniform (a 7200 rpm drive came out 3 % short with 2048 blocks).
// Both places creep forward every pair, onto blocks no read before them brought into the buffer.
std::vector<double> forward_waits(Ctx& rc, Rng& rng) {
  const auto& k = kProbe;
  const std::uint64_t D = rc.span / k.wait_distance_div;
  const std::uint64_t step = std::min<std::uint64_t>(k.wait_step, rc.span / (4 * k.wait_reads));
  std::vector<std::uint64_t> chain;
  const std::uint64_t a0 = rng.below(rc.span - D - k.wait_reads * step);
  for (std::uint64_t i = 0; i < k.wait_reads; ++i)
    chain.push_back(a0 + (i / 2) * step + (i % 2 ? D : 0) + rng.below(step / 2));
  auto l = qd1(rc, chain);
  std::vector<double> ms;
  for (std::size_t i = 1; i < l.size(); ++i)
    if (l[i] >= 0 && l[i - 1] >= 0) ms.push_back(l[i] * kMsPerNs);
  return ms;
}

// The step line's revolution and its interval: the spread of the per-chain estimates latency +
// k·sector, plus the fit's systematic error, which on the simulated drives reaches 1 % (a chain's
// median is off by part of a sector).
RotationEstimate step_line(const BackwardSteps& bs, double rot_ns, double sec_ns) {
  std::vector<double> est;
  for (auto& [step, l] : bs.kl) est.push_back(l + step * sec_ns);
  const double u = with_systematic(kZ95 * kMadToSigma * mad(est) / std::sqrt(static_cast<double>(est.size())),
                                   kProbe.rotation_fit_floor * rot_ns);
  return {rot_ns * kMsPerNs, u * kMsPerNs};
}

}  // namespace

// Backward steps first. Where the buffer, not the platter, answered most of them, whatever line
// the few others make is not trusted: the spread of the rotational waits of reads a fixed
// distance apart (wait_width.hpp) gives the revolution, to a few per cent but calibrated (its
// interval held the truth on 130 of 136 simulated zero-latency runs). Without a falling line (the
// steps' k·sector differences drowned in the host's jitter, 2 of 11 runs through a QEMU guest, or
// no platter), each step still waits about a revolution: their median less a hit.
RotationProbe probe_rotation(Ctx& rc, Rng& rng, double hit_ms) {
  RotationProbe p;
  p.evidence.hit_ms = hit_ms;
  const BackwardSteps bs = backward_steps(rc, rng, hit_ms / kMsPerNs);
  p.buffered_steps = bs.buffered;
  p.steps = bs.steps;
  if (rc.err) return p;
  const auto [rot_ns, sec_ns] = fit_rotation(bs.kl);
  p.evidence.buffered = 2 * bs.buffered > bs.steps;
  if (p.evidence.buffered) {
    const WaitWidth ww = wait_width_fit(forward_waits(rc, rng));
    if (!rc.err && ww.rev_ms > 0) p.evidence.waits = RotationEstimate{ww.rev_ms, ww.half_width_ms};
    p.evidence.wait_sigma_ms = ww.sigma_ms;
  } else if (rot_ns > 0) {
    p.evidence.step_fit = step_line(bs, rot_ns, sec_ns);
    if (plausible_rotation_ms(rot_ns * kMsPerNs, hit_ms)) p.sector_ms = sec_ns * kMsPerNs;
  } else {
    std::vector<double> l;
    for (auto& [step, ns] : bs.kl) l.push_back(ns);
    p.evidence.step_median_ms = l.empty() ? 0 : median(l) * kMsPerNs - hit_ms;
  }
  return p;
}

std::optional<std::string> rotation_note(RotationReason reason, const RotationEvidence& e) {
  using R = RotationReason;
  switch (reason) {
    case R::buffered_waits:
      return std::string(fmt::format("rotation: most backward steps were served from the drive's buffer; from the "
                                      "spread of rotational waits of reads a fixed distance apart (noise σ {:.3f} ms)",
                                      e.wait_sigma_ms));
    case R::seed_awaits_lock:
      return std::string(fmt::format("rotation: the backward-step latencies do not fit a line (host jitter over their "
                                      "k-block differences?); their median, {:.3f} ms less a cache hit, only seeds the "
                                      "phase lock", *e.step_median_ms));
    case R::finer_transfer:
      return std::string("rotation: from the transfer test's zones (track size and sector time, spare sectors "
                          "per track fitted)");
    case R::finer_stream:
      return std::string("rotation: from the track stream of the track-to-track probe (track size x sector time)");
    case R::locked:
    case R::step_line:
    case R::no_steps:
    case R::buffered_no_waits:
    case R::step_line_implausible:
    case R::seed_implausible:
    case R::seed_not_confirmed:
      break;
  }
  return std::nullopt;
}

std::optional<Withheld> rotation_withheld(RotationReason reason, const RotationEvidence& e) {
  using R = RotationReason;
  const char* figure = key::access::rotation_ms;
  switch (reason) {
    case R::buffered_no_waits:
      return Withheld{figure, WithheldReason::rotation_buffered_no_waits, {}};
    case R::step_line_implausible:
      return Withheld{figure, WithheldReason::rotation_not_a_disk, {{"step_ms", e.step_fit->ms}, {"hit_ms", e.hit_ms}}};
    case R::seed_implausible:
      return Withheld{figure, WithheldReason::rotation_no_line, {}};
    case R::seed_not_confirmed:
      return Withheld{figure, WithheldReason::rotation_not_confirmed, {}};
    default:
      return std::nullopt;
  }
}

}  // namespace ds::measure::access_detail
