// Stages 2 and 7 of `drivescope model`: the twin measured by the same modules as the drive, and
// its figures moved by the difference (twin_calibrate, pure; calibrate_figures repeats it); then
// the queue's reordering chosen by IOPS by depth.
#include <fmt/format.h>

#include <cmath>
#include <utility>

#include "app/bench.hpp"
#include "app/target.hpp"
#include "app/twin.hpp"
#include "app/twin_stages.hpp"
#include "report/json_read.hpp"

namespace ds::app {

using nlohmann::json;
using report::json_number_at;

json twin_calibrate(const json& model, const json& drive, const json& twin, std::vector<std::string>& moves) {
  json m = model;
  const json& da = report::json_section(drive, {"tests", "access"});
  const json& ta = report::json_section(twin, {"tests", "access"});
  // Additive moves of a figure whose measurement is (locally) the figure plus a bias the model
  // shares: the bias cancels in drive − twin. A difference within the two measurements' combined
  // 95 % half-width is noise and moves nothing; one move is at most 30 % of the figure (a
  // measurement of the twin that went wrong must not throw the model off in one step).
  auto move = [&](const char* what, json& slot, const json& dj, const json& tj, const char* key,
                  const char* hw_key, double floor) {
    const auto want = json_number_at(dj, {key}), got = json_number_at(tj, {key});
    if (!want || !got) return;
    const double hw_w = hw_key ? json_number_at(dj, {hw_key}).value_or(0) : 0.05 * *want;
    const double hw_g = hw_key ? json_number_at(tj, {hw_key}).value_or(0) : 0.05 * *got;
    const double diff = *want - *got;
    if (std::fabs(diff) <= std::hypot(hw_w, hw_g)) return;
    const double before = slot.get<double>();
    const double cap = 0.3 * std::max(std::fabs(before), 0.01);
    const double after = std::max(floor, before + std::clamp(diff, -cap, cap));
    if (std::fabs(after - before) < 1e-4) return;
    slot = after;
    moves.push_back(fmt::format("{}: {:.4f} -> {:.4f} (drive measured {:.4f}, twin {:.4f})", what, before, after,
                                *want, *got));
  };
  move("seek.average_ms", m["seek"]["average_ms"], da, ta, "avg_seek_ms", "avg_seek_uncertainty_ms", 0.05);
  move("seek.full_stroke_ms", m["seek"]["full_stroke_ms"], da, ta, "full_stroke_ms", "full_stroke_uncertainty_ms", 0.1);
  move("seek.track_to_track_ms", m["seek"]["track_to_track_ms"], da, ta, "track_to_track_ms",
       "track_to_track_uncertainty_ms", 0.01);
  move("command_overhead_ms", m["command_overhead_ms"], da, ta, "command_overhead_ms", nullptr, 0.0);
  // Multiplicative moves of the cache's figures: the cache test's estimates need not mean what the
  // model's keys mean (its size is what it saw hold, its read-ahead what a hit after a miss
  // reached), but the same test on the twin answers in the same terms, so the ratio moves the
  // model's key until the twin answers as the drive did. Within 10 % is noise.
  const json& dc = report::json_section(drive, {"tests", "cache"});
  const json& tc = report::json_section(twin, {"tests", "cache"});
  auto scale = [&](const char* what, json& slot, const char* key, double lo, double hi) {
    const auto want = json_number_at(dc, {key}), got = json_number_at(tc, {key});
    if (!want || !got || *want <= 0 || *got <= 0) return;
    const double ratio = *want / *got;
    if (std::fabs(ratio - 1) <= 0.1) return;
    const double before = slot.get<double>();
    const double after = std::clamp(std::round(before * std::clamp(ratio, 0.25, 4.0)), lo, hi);
    if (after == before) return;
    slot = after;
    moves.push_back(fmt::format("{}: {:.0f} -> {:.0f} (drive measured {:.0f}, twin {:.0f})", what, before, after,
                                *want, *got));
  };
  // A segment's size first (it is what the segment estimate answers to), then, once that matches,
  // their number (what the size estimate answers to): one of the two per round, since each
  // changes what the other measures.
  json& cache = m["cache"];
  if (cache.value("bytes", 0.0) > 0) {
    if (cache.value("read_ahead_sectors", 0.0) > 0)
      scale("cache.read_ahead_sectors", cache["read_ahead_sectors"], "read_ahead_bytes_estimate", 1, 1e7);
    const double segs = std::max(1.0, cache.value("segments", 1.0));
    json seg = std::round(cache["bytes"].get<double>() / segs);
    const std::size_t before = moves.size();
    scale("cache segment bytes", seg, "segment_bytes_estimate", 4096, 1e9);
    seg = std::max(seg.get<double>(), std::round(segment_floor_bytes(m)));
    if (moves.size() == before) {
      json count = segs;
      const auto want = json_number_at(dc, {"size_bytes_estimate"}), got = json_number_at(tc, {"size_bytes_estimate"});
      if (want && got && *want > 0 && *got > 0 && std::fabs(*want / *got - 1) > 0.1) {
        count = std::clamp(std::round(segs * std::clamp(*want / *got, 0.25, 4.0)), 1.0, 256.0);
        if (count.get<double>() != segs)
          moves.push_back(fmt::format("cache.segments: {:.0f} -> {:.0f} (size measured {:.0f}, twin {:.0f})", segs,
                                      count.get<double>(), *want, *got));
      }
      cache["segments"] = count;
    }
    cache["bytes"] = seg.get<double>() * cache["segments"].get<double>();
  }
  move("interface_mb_s", m["interface_mb_s"], dc, tc, "burst_mb_s", "burst_uncertainty_mb_s", 1.0);
  // The seek figures must stay ordered for the simulator's fit.
  json& s = m["seek"];
  s["full_stroke_ms"] = std::max(s["full_stroke_ms"].get<double>(), s["average_ms"].get<double>() * 1.05);
  s["track_to_track_ms"] = std::min(s["track_to_track_ms"].get<double>(), s["average_ms"].get<double>() * 0.95);
  return m;
}

Expected<json> TwinBench::measure(const json& model, std::vector<std::string> tests, std::uint64_t seed) const {
  BenchRequest tb = req_;
  tb.target = "sim:twin";
  tb.tests = std::move(tests);
  tb.seed = seed;
  tb.device = {};
  tb.stop = {};
  OpenOptions oo;
  oo.want_io = true;
  oo.seed = seed;
  auto t = open_sim_model(model.dump(), tb.target, oo);
  if (!t) return make_error("the twin's model is not valid: " + t.error().message);
  auto twin = bench_target(*t, tb, {});
  if (!twin) return make_error("measuring the twin: " + twin.error().message);
  return twin->json;
}

// Stage 2, repeated: figures moved by the drive − twin difference of their measurement; a few
// rounds, as each move changes the others' measurements a little.
std::optional<Error> calibrate_figures(json& model, const json& drive, const TwinBench& tb, unsigned rounds,
                                       std::uint64_t seed, std::vector<std::string>& moves) {
  for (unsigned round = 0; round < rounds; ++round) {
    auto twin = tb.measure(model, tb.tests(), seed + 1 + round);
    if (!twin) return twin.error();
    const std::size_t before = moves.size();
    model = twin_calibrate(model, drive, *twin, moves);
    if (moves.size() == before) break;
  }
  return std::nullopt;
}

namespace {

// The mean squared log ratio of two queue tests' IOPS at the depths both ran.
double iops_distance(const json& drive_queue, const json& twin_queue) {
  double sum = 0;
  std::size_t n = 0;
  if (!drive_queue.contains("depths") || !twin_queue.contains("depths")) return INFINITY;
  for (const auto& d : drive_queue["depths"])
    for (const auto& t : twin_queue["depths"])
      if (json_number_at(d, {"depth"}) == json_number_at(t, {"depth"})) {
        const auto a = json_number_at(d, {"iops"}), c = json_number_at(t, {"iops"});
        if (a && c && *a > 0 && *c > 0) {
          sum += std::pow(std::log(*c / *a), 2);
          ++n;
        }
      }
  return n ? sum / static_cast<double>(n) : INFINITY;
}

}  // namespace

// Stage 7: how strongly the drive reorders. The simulator's SPTF looks at the oldest `window`
// commands (0: all); of in-order service and a few windows, the one whose IOPS by depth come
// closest to the drive's is kept.
std::optional<Error> fit_queue(json& model, const json& drive, const TwinBench& tb, std::uint64_t seed,
                               std::vector<std::string>& moves) {
  if (model["queue"]["protocol"] == "none" || !report::json_at(drive, {"tests", "queue"})) return std::nullopt;
  const std::vector<std::pair<const char*, unsigned>> choices = {{"fifo", 0}, {"sptf", 2},  {"sptf", 4},
                                                                 {"sptf", 8}, {"sptf", 16}, {"sptf", 0}};
  double best = INFINITY;
  json best_q = model["queue"];
  for (const auto& [policy, window] : choices) {
    json trial = model;
    trial["queue"]["policy"] = policy;
    if (window > 0) trial["queue"]["window"] = window;
    else trial["queue"].erase("window");
    auto tq = tb.measure(trial, {"queue"}, seed + 11);
    if (!tq) return tq.error();
    const double s = iops_distance(report::json_section(drive, {"tests", "queue"}), report::json_section(*tq, {"tests", "queue"}));
    if (s < best) {
      best = s;
      best_q = trial["queue"];
    }
  }
  if (best_q != model["queue"])
    moves.push_back(fmt::format("queue: {} -> {} (IOPS by depth closest to the drive's)", model["queue"].dump(),
                                best_q.dump()));
  model["queue"] = best_q;
  return std::nullopt;
}

}  // namespace ds::app
