// Stage 3 of `drivescope model`, the miss transfer: what a read miss costs per block beyond the one
// it needs first. The draft sets the two rates a miss's data passes through (the media's, from
// the zones; the interface's, from the cache test's burst), but not how they combine: a drive may
// send each block as soon as it is read, or wait until a share of the request is buffered
// (DiskSim's high-water mark: HP C2247A's drive waits for three quarters, so each block of a miss
// costs 0.17 ms of bus after 0.09 of media, where a pipelined twin pays the slower of the two),
// and where the transfer test saw no track structure the draft's one zone is at a pace that may
// include the switches. Reads of one block and of 64 KiB at random places show the difference
// directly: their mean service times differ by the large read's transfer alone, seek, rotation
// and overhead being alike on average. Only for a one-zone draft (fit_miss_transfer says why).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "app/twin_stages.hpp"
#include "tests/stats.hpp"

namespace ds::app {

using nlohmann::json;

measure::Trace size_workload(std::uint64_t capacity_blocks, std::uint32_t block_bytes, std::uint64_t seed) {
  measure::Trace t;
  t.format = measure::TraceFormat::fio_iolog;
  t.timing = measure::TraceTiming::after_completion;
  std::mt19937_64 rng(seed);
  const std::uint32_t large = std::max(1u, kSizeWorkloadLargeBytes / block_bytes);
  std::uniform_int_distribution<std::uint64_t> at(0, capacity_blocks > large ? capacity_blocks - large : 0);
  // Alternating, so that drift (a warming host, a drive's background work) falls on both sizes alike.
  for (std::size_t i = 0; i < 2 * kSizeWorkloadPairs; ++i)
    t.requests.push_back({at(rng) * block_bytes, (i % 2 ? large : 1u) * block_bytes, false, 0, {}, {}, i + 1});
  return t;
}

namespace {

struct Gap {
  double ms = NAN, se = NAN;
};

// Of each read, its service time in `ms` less that in `less` (the twin's less the drive's); the
// large reads' mean of it less the one-block reads', and its standard error. The reads are at the
// same places on both, so their seeks largely cancel read by read and the rotational waits are
// what is left of the noise. A fortieth of each tail of a size's differences is left out (a
// retry, a slow region: not the transfer). `less` empty: the large-over-small gap of `ms` itself.
Gap excess(const std::vector<double>& ms, const std::vector<double>& less, const measure::Trace& w) {
  std::vector<double> by[2];
  const std::uint32_t small = w.requests.empty() ? 0 : w.requests.front().length_bytes;
  for (std::size_t i = 0; i < ms.size() && i < w.requests.size(); ++i)
    by[w.requests[i].length_bytes == small ? 0 : 1].push_back(ms[i] - (less.empty() ? 0 : less[i]));
  measure::MeanSe m[2];
  for (int k = 0; k < 2; ++k) {
    const std::size_t cut = by[k].size() / 40;
    if (by[k].size() < 10 + 2 * cut) return {};
    m[k] = measure::trimmed_mean_se(std::move(by[k]), cut, cut);
  }
  return {m[1].mean - m[0].mean, std::hypot(m[0].se, m[1].se)};
}

// The twin with the miss-transfer knob at theta. theta > 0: a read that waits for the media
// takes the bus back once a share theta of it is buffered (controller.read_reconnect), the
// zones as drafted. theta < 0 (only for a one-zone draft): the zone's media pace quickened to
// 1/(1 + theta) of its sectors per track's time, its cylinders fewer to hold the same,
// its skews as long.
// The gap grows with theta on both sides, which the search below relies on.
json with_miss_knob(const json& model, double theta) {
  json m = model;
  if (theta > 0) {
    m["controller"]["read_reconnect"] = {{"high_water", theta}, {"by_request_size", true}};
  } else if (theta < 0) {
    json& z = m["zones"][0];
    const double spt0 = z["sectors_per_track"].get<double>(), spt = std::round(spt0 / (1 + theta));
    z["sectors_per_track"] = static_cast<std::uint32_t>(spt);
    z["cylinders"] = static_cast<std::uint32_t>(std::ceil(z["cylinders"].get<double>() * spt0 / spt));
    // Skews keep their time (each covers a switch; shorter, every switch would lose a turn).
    for (const char* k : {"track_skew_sectors", "cylinder_skew_sectors"})
      if (z.contains(k)) z[k] = static_cast<std::uint32_t>(std::ceil(z[k].get<double>() * spt / spt0));
  }
  return m;
}

}  // namespace

std::optional<Error> fit_miss_transfer(json& model, const std::vector<double>& drive_ms, const measure::Trace& w,
                                       bool one_zone_pace, std::uint64_t seed, std::vector<std::string>& moves) {
  // Where the transfer test saw track boundaries, the host saw the media's own rhythm through the
  // interface: blocks pass as they are read (a drive holding them to a high-water mark blurs the
  // boundaries), and the zones' pace is measured. The stage is for the other drafts.
  if (!one_zone_pace || model["zones"].size() != 1 || drive_ms.size() != w.requests.size()) return std::nullopt;
  const double want = excess(drive_ms, {}, w).ms;
  if (!std::isfinite(want)) return std::nullopt;
  // The twin's read by read, averaged over three seeds, the same three for every theta (common
  // noise: the search compares knob settings, not seeds); f > 0: the twin's large reads too slow.
  auto twin_excess = [&](double theta) -> Expected<Gap> {
    const json trial = with_miss_knob(model, theta);
    std::vector<double> ms(drive_ms.size(), 0.0);
    for (std::uint64_t k = 0; k < 3; ++k) {
      auto tms = twin_times(trial, w, seed + k);
      if (!tms) return tms.error();
      if (tms->size() != ms.size()) return Gap{};
      for (std::size_t i = 0; i < ms.size(); ++i) ms[i] += (*tms)[i] / 3;
    }
    return excess(ms, drive_ms, w);
  };
  auto at0 = twin_excess(0);
  if (!at0) return at0.error();
  const double f0 = at0->ms;
  if (!std::isfinite(f0) || std::fabs(f0) <= 1.96 * at0->se) return std::nullopt;
  // A twin too quick per block waits for a share of the read (needs the bus the draft sets from
  // the burst rate); one too slow has its zone's pace quickened, up to twice.
  const bool has_bus = model.contains("controller") && model["controller"].contains("bus");
  if (f0 < 0 && !has_bus) return std::nullopt;
  double lo = f0 > 0 ? -0.5 : 0, hi = f0 < 0 ? 1 : 0;
  double best = 0, best_f = f0;
  for (int i = 0; i < 8; ++i) {
    const double mid = i == 0 ? (f0 < 0 ? hi : lo) : (lo + hi) / 2;  // the far end first
    auto g = twin_excess(mid);
    if (!g) return g.error();
    const double f = g->ms;
    if (std::fabs(f) < std::fabs(best_f)) best = mid, best_f = f;
    if (i == 0 && f * f0 > 0) break;  // even the far end leaves the gap on the same side
    (f < 0 ? lo : hi) = mid;
  }
  // A knob the twin's gap did not follow (by less than a quarter of what it lacked) is not what
  // the twin lacks: its media behind a slower bus, say, where no pace changes a miss.
  if (std::fabs(best_f) > 0.75 * std::fabs(f0)) {
    moves.push_back(fmt::format("miss transfer: not moved (64 KiB read over a one-block one: drive {:.3f} ms, "
                                "twin {:+.3f} ± {:.3f} from it; the knob moved that by {:.3f})",
                                want, f0, 1.96 * at0->se, f0 - best_f));
    return std::nullopt;
  }
  model = with_miss_knob(model, best);
  const std::string knob = best > 0 ? fmt::format("controller.read_reconnect.high_water {:.3f}", best)
                                    : fmt::format("zone pace: {} sectors a track", model["zones"][0]["sectors_per_track"].get<std::uint32_t>());
  moves.push_back(fmt::format("miss transfer: {} (64 KiB read over a one-block one: drive {:.3f} ms, twin {:+.3f} "
                              "± {:.3f} from it -> {:+.3f})",
                              knob, want, f0, 1.96 * at0->se, best_f));
  return std::nullopt;
}

}  // namespace ds::app
