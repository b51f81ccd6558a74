// Stage 4 of `drivescope model`, first part: how far the read-ahead reaches and where it stops,
// asked of the drive with a workload whose service times depend on both: a short run of reads,
// a pause long enough for any read-ahead to reach a place some distance on, and a read there,
// which is a hit where the read-ahead covered it.
// - The extent, where the cache test did not tell it. Its read-ahead probe runs after its size
//   probe, on what that leaves of its share of the bench's budget; on a drive with a large cache
//   (the 8 TB archive drive's 128 MiB) it can be left nothing, and the draft then assumes no
//   read-ahead: a twin that misses every read a stream makes (35-55 % off on sequential traces).
// - Where it stops. The cache test measures how far the read-ahead reached from a read at a random
//   place; a drive whose read-ahead ends with the track (DiskSim's "Buffer continuous read" 1, or
//   4, one track ahead) reaches from a few sectors to a track, and a stream that crosses the track
//   end loses a revolution there, where the draft's read-ahead, which runs on to its extent, would
//   not (the DEC RZ26's, Atlas III's and Cheetah 9LP's DiskSim models: `database` 7-15 % off). At
//   a distance within a track the far read hits on such a drive only where the track goes on.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <numeric>
#include <random>

#include "app/twin_stages.hpp"
#include "report/json_read.hpp"
#include "tests/demerit.hpp"

namespace ds::app {

using nlohmann::json;

namespace {

constexpr double kReachMs = 150;                 // the pause the longest distance may need at the media's pace
constexpr double kMaxReachBytes = 8.0 * 1048576;  // past the largest extent tried (4 MiB), so that it is seen
constexpr std::size_t kProbes = 160;      // where the extent is asked for
constexpr std::size_t kStopProbes = 100;  // where only the stop is
// Each probe starts with a short run of reads in a row: a drive that reads ahead only once a
// stream is established (controller.prefetch.after_sequential_reads) does it after this many,
// and one that reads ahead after any read does too.
constexpr std::uint64_t kRun = 3;
constexpr double kShortestBytes = 8192;  // half the shortest extent tried

// The longest track of the model's zones (a zone's sectors per track: one figure, or one a surface).
double longest_track(const json& model) {
  double most = 0;
  for (const auto& z : model.value("zones", json::array())) {
    const json& spt = z.value("sectors_per_track", json());
    if (spt.is_number()) most = std::max(most, spt.get<double>());
    for (const auto& t : spt.is_array() ? spt : json::array()) most = std::max(most, t.get<double>());
  }
  return most;
}

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

// A number of the model's cache object, 0 where absent.
double cache_figure(const json& model, const char* key) {
  const json* v = report::json_at(model, {"cache", key});
  return v && v->is_number() ? v->get<double>() : 0;
}

}  // namespace

bool read_ahead_untold(const json& model) {
  const json* src = report::json_at(model, {"provenance", "sources", "cache.read_ahead_sectors"});
  return src && src->is_string() && src->get<std::string>().starts_with("default:") && cache_figure(model, "bytes") > 0;
}

bool read_ahead_askable(const json& model) {
  return cache_figure(model, "bytes") > 0 && (read_ahead_untold(model) || cache_figure(model, "read_ahead_sectors") > 0);
}

ReadAheadWorkload read_ahead_workload(const json& model, std::uint64_t capacity_blocks, std::uint64_t seed) {
  ReadAheadWorkload w;
  w.trace.format = measure::TraceFormat::fio_iolog;
  w.trace.timing = measure::TraceTiming::after_completion;
  const double pace = media_pace_mb_s(model);
  const auto lbs = static_cast<std::uint32_t>(model.value("logical_sector_bytes", 512.0));
  w.extent_asked = read_ahead_untold(model);
  // Where the extent is told, only the stop is asked: distances uniform up to two of the longer
  // of a track and the extent (a track-bounded read-ahead hits in the share of them that stays
  // on the read's track); else log-uniform from 8 KiB to what the media reads in 150 ms.
  const double told = std::max(longest_track(model), cache_figure(model, "read_ahead_sectors")) * lbs;
  w.reach_bytes = pace <= 0 ? 0 : w.extent_asked ? std::min(kMaxReachBytes, pace * 1e3 * kReachMs) : 2 * told;
  if (w.reach_bytes < 4.0 * lbs || capacity_blocks * lbs < 4 * w.reach_bytes) return w;
  std::mt19937_64 rng(seed);
  const double reach_blocks = w.reach_bytes / lbs;
  std::uniform_real_distribution<double> log_d(std::log(std::max(1.0, kShortestBytes / lbs)), std::log(reach_blocks));
  std::uniform_real_distribution<double> lin_d(1, reach_blocks);
  // The run's reads an eighth of a track each, so that about one run in three crosses the end of
  // a track: there a read-ahead that goes on to the end of the next track (DiskSim's 4) reaches
  // further than one that ends with the read's own (1).
  const auto r = static_cast<std::uint64_t>(std::max(1.0, std::round(longest_track(model) / 8)));
  std::uniform_int_distribution<std::uint64_t> at(0, capacity_blocks - static_cast<std::uint64_t>(reach_blocks) - kRun * r - 1);
  for (std::size_t i = 0; i < (w.extent_asked ? kProbes : kStopProbes); ++i) {
    const auto d = static_cast<std::uint64_t>(std::max(1.0, std::round(w.extent_asked ? std::exp(log_d(rng)) : lin_d(rng))));
    const std::uint64_t x = at(rng);
    for (std::uint64_t k = 0; k < kRun; ++k)
      w.trace.requests.push_back({(x + k * r) * lbs, static_cast<std::uint32_t>(r * lbs), false, 0, {}, {}, w.trace.requests.size() + 1});
    // The pause: three times what the media takes to pass the distance (its switches, a revolution
    // lost at the start), and a millisecond.
    const double pause_ms = 1 + 3 * static_cast<double>((d + 1) * lbs) / (pace * 1e3);
    w.trace.requests.push_back({(x + kRun * r - 1 + d) * lbs, lbs, false, static_cast<std::int64_t>(pause_ms * 1e6), {},
                                {}, w.trace.requests.size() + 1});
  }
  return w;
}

namespace {

// How a trial twin's far reads compare with the drive's: first, by how many hits the two differ
// in each tenth of the probes by distance, summed (a hit costs the overhead, a miss the rest of a
// revolution in the mean; the line between them a quarter revolution above the fastest far read).
// By tenths, not probe by probe: the twin's tracks need not start where the drive's do, so that
// where the read-ahead ends with the track the same probe may hit on one and miss on the other,
// and only the share of hits at a distance is the drive's. Then, between rules alike in that, the
// demerit of the far reads' times.
struct Agreement {
  std::size_t disagree = 0;
  double demerit = HUGE_VAL;
  auto operator<=>(const Agreement&) const = default;
};
constexpr std::size_t kBins = 10;

// Each probe's last read, the one a distance on.
std::vector<double> far_reads(const std::vector<double>& ms) {
  std::vector<double> out;
  for (std::size_t i = kRun; i < ms.size(); i += kRun + 1) out.push_back(ms[i]);
  return out;
}

}  // namespace

namespace {

using Score = std::function<Expected<Agreement>(const json&)>;

// Of none and 16 KiB to 4 MiB by half-octaves (those the workload reaches), the extent whose twin
// agrees best with the drive; where longer extents serve the workload exactly alike, it did not
// tell them apart and the shortest is kept, a floor.
std::optional<Error> fit_extent(json& model, const Score& score, Agreement& best, const ReadAheadWorkload& w,
                                std::vector<std::string>& moves) {
  const double lbs = model.value("logical_sector_bytes", 512.0);
  const Agreement start = best;
  json best_model = model;
  bool plateau = false;  // a longer extent served the workload exactly as well as the one kept
  for (double kib = 16; kib * 1024 <= std::min(4.0 * 1048576, w.reach_bytes) * 1.001; kib *= std::sqrt(2.0)) {
    json trial = model;
    trial["cache"]["read_ahead_sectors"] = static_cast<std::uint32_t>(std::round(kib * 1024 / lbs));
    trial = with_segment_floor(std::move(trial));
    auto s = score(trial);
    if (!s) return s.error();
    plateau = plateau || (best_model != model && *s == best);
    if (*s < best) best = *s, best_model = std::move(trial), plateau = false;
  }
  if (best_model == model) return std::nullopt;
  moves.push_back(fmt::format("cache.read_ahead_sectors: none assumed -> {} (the cache test did not tell it; "
                              "read-ahead workload: hits unlike the drive's by distance {} -> {}, of {} far reads{})",
                              best_model["cache"]["read_ahead_sectors"].get<std::uint32_t>(), start.disagree,
                              best.disagree, w.trace.requests.size() / (kRun + 1),
                              plateau ? "; longer extents alike" : ""));
  best_model["provenance"]["sources"]["cache.read_ahead_sectors"] =
      fmt::format("measured: read-ahead workload (the cache test did not tell it; reads a distance on after a "
                  "pause, up to {:.0f} KiB){}",
                  w.reach_bytes / 1024, plateau ? ", a lower bound: longer extents served it alike" : "");
  model = std::move(best_model);
  return std::nullopt;
}

// Of the draft's stop (the extent, the segment permitting), the end of the read's track (with an
// extent of at least a track, so that the track bounds it) and the end of the next track, the
// one whose twin agrees best with the drive. A rule is changed only where it takes away at least
// one hit in twenty far reads from the tenths' differences: a read is misjudged now and then (a
// miss whose rotational wait fell short of the line), and with about ten reads a tenth the sum
// of the tenths' differences moves by about two between two runs of the same rule.
std::optional<Error> fit_stop(json& model, const Score& score, Agreement& best, std::size_t reads,
                              std::vector<std::string>& moves) {
  const double ra = cache_figure(model, "read_ahead_sectors"), track = longest_track(model);
  if (ra <= 0 || track <= 0) return std::nullopt;
  const Agreement start = best;
  json best_model = model;
  for (int stop : {1, 4}) {
    json trial = model;
    json& pf = trial["controller"]["prefetch"];
    if (!pf.is_object()) pf = json::object();
    pf["continuous_read"] = stop;
    if (stop == 1) trial["cache"]["read_ahead_sectors"] = static_cast<std::uint32_t>(std::max(ra, track));
    trial = with_segment_floor(std::move(trial));
    auto s = score(trial);
    if (!s) return s.error();
    if (*s < best) best = *s, best_model = std::move(trial);
  }
  if (best_model == model || start.disagree - best.disagree < reads / 20) {
    best = start;
    return std::nullopt;
  }
  const int stop = best_model["controller"]["prefetch"]["continuous_read"].get<int>();
  const char* where = stop == 1 ? "the end of the read's track" : "the end of the next track";
  moves.push_back(fmt::format("controller.prefetch.continuous_read: the read-ahead's extent -> {} ({}; read-ahead "
                              "workload: hits unlike the drive's by distance {} -> {}, of {} far reads)",
                              stop, where, start.disagree, best.disagree, reads));
  best_model["provenance"]["sources"]["controller.prefetch.continuous_read"] =
      fmt::format("measured: read-ahead workload (the read-ahead stops at {}: of that, the next track's end and "
                  "the extent, the one whose far reads hit and miss as the drive's)",
                  where);
  model = std::move(best_model);
  return std::nullopt;
}

}  // namespace

// The far reads only: the run before each is left out (its first read is a random miss, whose
// seek the twin has not fitted yet, stage 5, and the twin reads ahead after any read where the
// drive may wait for a stream).
std::optional<Error> fit_read_ahead(json& model, const std::vector<double>& drive_ms, const ReadAheadWorkload& w,
                                    std::uint64_t seed, std::vector<std::string>& moves) {
  if (w.trace.requests.empty() || drive_ms.size() != w.trace.requests.size()) return std::nullopt;
  const double rev_ms = 60e3 / model.value("rpm_actual", model.value("rpm", 7200.0));
  const std::vector<double> want = far_reads(drive_ms);
  const double line = *std::min_element(want.begin(), want.end()) + rev_ms / 4;
  // The probes in order of distance, cut into tenths.
  std::vector<std::size_t> by_distance(want.size());
  std::iota(by_distance.begin(), by_distance.end(), std::size_t{0});
  auto distance = [&](std::size_t i) {
    const auto& run_end = w.trace.requests[i * (kRun + 1) + kRun - 1];
    return w.trace.requests[i * (kRun + 1) + kRun].offset_bytes - (run_end.offset_bytes + run_end.length_bytes);
  };
  std::stable_sort(by_distance.begin(), by_distance.end(), [&](auto a, auto b) { return distance(a) < distance(b); });
  const Score score = [&](const json& trial) -> Expected<Agreement> {
    auto ms = twin_times(trial, w.trace, seed);
    if (!ms) return ms.error();
    if (ms->size() != drive_ms.size()) return Agreement{want.size(), HUGE_VAL};
    const std::vector<double> got = far_reads(*ms);
    Agreement a{0, measure::demerit_pct(got, want)};
    for (std::size_t b = 0; b < kBins; ++b) {
      long diff = 0;
      for (std::size_t k = b * want.size() / kBins; k < (b + 1) * want.size() / kBins; ++k)
        diff += (want[by_distance[k]] < line ? 1 : 0) - (got[by_distance[k]] < line ? 1 : 0);
      a.disagree += static_cast<std::size_t>(std::labs(diff));
    }
    return a;
  };
  auto start = score(model);
  if (!start) return start.error();
  Agreement best = *start;
  if (w.extent_asked)
    if (auto e = fit_extent(model, score, best, w, moves)) return e;
  return fit_stop(model, score, best, want.size(), moves);
}

}  // namespace ds::app
