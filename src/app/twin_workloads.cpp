// Stages 4 to 6 of `drivescope model`: workloads run on the drive that show what the bench's
// probes cannot pin (the cache's segments, the seek curve between the bench's three figures), and
// the twin's model fitted to their service times.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "app/io_wrappers.hpp"
#include "app/target.hpp"
#include "app/twin.hpp"
#include "app/twin_stages.hpp"
#include "sim/seek.hpp"
#include "sim/sim.hpp"
#include "tests/demerit.hpp"
#include "tests/replay.hpp"
#include "tests/stats.hpp"

namespace ds::app {

using nlohmann::json;

// The cache workload: what the cache test's probes cannot pin (how many segments, how large,
// how they are shared between streams) shows in how a mixed stream is served. A few phases, each
// with its own number of interleaved sequential streams (1 to 12, so that some phases have more
// streams than the drive has segments), reads of 1 to 64 blocks (log-uniform), a stream jumping
// elsewhere now and then, and think times that let the read-ahead run. Pure, from its seed.
measure::Trace cache_workload(std::uint64_t capacity_blocks, std::uint32_t block_bytes, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  measure::Trace t;
  t.format = measure::TraceFormat::fio_iolog;
  t.timing = measure::TraceTiming::after_completion;
  const std::uint64_t hi = capacity_blocks > 256 ? capacity_blocks - 256 : 1;
  std::uniform_int_distribution<std::uint64_t> anywhere(0, hi);
  std::uniform_real_distribution<double> u(0, 1);
  std::exponential_distribution<double> think_ms(1.0 / 2.0);
  for (unsigned streams : {1u, 2u, 3u, 4u, 6u, 8u, 12u, 2u, 5u}) {
    std::vector<std::uint64_t> at(streams);
    for (auto& a : at) a = anywhere(rng);
    for (int i = 0; i < 160; ++i) {
      auto& a = at[std::uniform_int_distribution<unsigned>(0, streams - 1)(rng)];
      if (u(rng) < 0.08) a = anywhere(rng);
      const auto blocks = static_cast<std::uint32_t>(std::floor(std::exp(u(rng) * std::log(64.0)))) + 0u;
      const std::uint32_t n = std::max(1u, blocks);
      if (a + n >= capacity_blocks) a = 0;
      t.requests.push_back({a * block_bytes, n * block_bytes, false,
                            static_cast<std::int64_t>(think_ms(rng) * 1e6), {}, {}, t.requests.size() + 1});
      a += n;
    }
  }
  return t;
}

namespace {

// The service times of a workload on an engine. A run cut short (a failed read, a vanished
// device, Ctrl-C: ECANCELED) is its error, never a shorter list of times taken for the whole.
Expected<std::vector<double>> workload_ms(IoEngine& io, const measure::Trace& w, unsigned depth = 1) {
  measure::ReplayOptions ro;
  ro.wrap = true;
  ro.queue_depth = depth;
  auto r = measure::replay(io, w, ro);
  if (!r) return r.error();
  if (r->stopped) return *r->stopped;
  std::vector<double> ms;
  // Two or more outstanding: when each completed (ms from the first submit), which says how long
  // the drive took between completions; one at a time: each read's service time.
  for (const auto& q : r->requests) ms.push_back(q.service_ms + (depth > 1 ? static_cast<double>(q.submit_ns) / 1e6 : 0));
  return ms;
}

}  // namespace

// The service times of a workload on the twin (simulated time).
Expected<std::vector<double>> twin_times(const json& model, const measure::Trace& w, std::uint64_t seed,
                                         unsigned depth) {
  auto dm = sim::parse_model(model.dump());
  if (!dm) return dm.error();
  sim::SimOptions so;
  so.seed = seed;
  auto st = sim::open(std::move(*dm), so);
  if (!st) return st.error();
  return workload_ms(*st->io, w, depth);
}

// Stage 4: the cache's segments and their size, fitted to the workload's service times on the
// drive (the demerit of the twin's against them, over a grid of segment counts and sizes around
// what the cache test saw). The read-ahead stays as the cache test (or fit_read_ahead) left it.
std::optional<Error> fit_cache(json& model, const std::vector<double>& drive_ms, const measure::Trace& w,
                               std::uint64_t seed, std::vector<std::string>& moves) {
  if (drive_ms.empty() || model["cache"].value("bytes", 0.0) <= 0) return std::nullopt;
  const double lbs = model["logical_sector_bytes"].get<double>();
  auto score = [&](const json& trial) {
    const auto ms = twin_times(trial, w, seed);
    return ms && ms->size() == drive_ms.size() ? measure::demerit_pct(*ms, drive_ms) : HUGE_VAL;
  };
  double best = score(model);
  json& cache = model["cache"];
  const double segment_floor = segment_floor_bytes(model);
  const double seg0 = cache["bytes"].get<double>() / std::max(1.0, cache.value("segments", 1.0));
  const double start = best;
  json best_cache = cache;
  for (unsigned n : {1u, 2u, 3u, 4u, 5u, 6u, 8u, 10u, 12u, 16u, 24u, 32u})
    for (int k = -4; k <= 8; ++k) {
      const double seg = std::max(lbs, std::round(seg0 * std::pow(2.0, k / 4.0) / lbs) * lbs);
      if (seg < segment_floor) continue;
      json trial = model;
      trial["cache"]["segments"] = n;
      trial["cache"]["bytes"] = static_cast<std::uint64_t>(seg * n);
      const double s = score(trial);
      if (s < best) {
        best = s;
        best_cache = trial["cache"];
      }
    }
  if (best_cache != cache)
    moves.push_back(fmt::format("cache: {} segments of {:.0f} bytes -> {} of {:.0f} (mixed-stream workload's demerit "
                                "{:.2f} % -> {:.2f} %)",
                                cache["segments"].get<double>(), seg0, best_cache["segments"].get<double>(),
                                best_cache["bytes"].get<double>() / best_cache["segments"].get<double>(), start, best));
  cache = best_cache;
  return std::nullopt;
}

SeekWorkload seek_workload(std::uint64_t capacity_blocks, double cyl_blocks, std::uint64_t step_blocks,
                           std::uint64_t seed) {
  SeekWorkload w;
  std::mt19937_64 rng(seed);
  w.trace.format = measure::TraceFormat::fio_iolog;
  w.trace.timing = measure::TraceTiming::after_completion;
  const int per_group = 100;  // a group's mean is then within about ±0.1 revolution (95 %)
  const std::uint32_t bytes = 512;  // one block: positioning, hardly any transfer
  for (double d = 1; d * cyl_blocks < 0.9 * static_cast<double>(capacity_blocks); d *= 2) {
    const auto dist = static_cast<std::uint64_t>(d * cyl_blocks);
    const std::uint64_t room = capacity_blocks - dist - per_group * step_blocks - 1;
    const std::uint64_t a = std::uniform_int_distribution<std::uint64_t>(0, room)(rng);
    std::uniform_int_distribution<std::uint64_t> jitter(0, step_blocks / 2);
    const int g = static_cast<int>(w.cylinders.size());
    w.cylinders.push_back(d);
    for (int i = 0; i < per_group; ++i) {
      const std::uint64_t lba = a + (i % 2 ? dist : 0) + static_cast<std::uint64_t>(i / 2) * step_blocks + jitter(rng);
      w.trace.requests.push_back({lba * 512, bytes, false, 0, {}, {}, w.trace.requests.size() + 1});
      w.group.push_back(i == 0 ? -1 : g);
    }
  }
  return w;
}

namespace {

// Each group's mean service time and the standard error of that mean, with the slowest 5 % of a
// group left out (a stall, a retry: what the seek curve must not absorb). Reads in `avoid` (slow
// regions, remapped LBAs: modelled apart) are left out on both sides.
struct GroupStat {
  double mean = NAN, se = NAN;
};
std::vector<GroupStat> group_means(const std::vector<double>& ms, const SeekWorkload& w,
                                   const std::vector<std::pair<std::uint64_t, std::uint64_t>>& avoid) {
  std::vector<std::vector<double>> by(w.cylinders.size());
  for (std::size_t i = 0; i < ms.size() && i < w.group.size(); ++i) {
    if (w.group[i] < 0) continue;
    const std::uint64_t lba = w.trace.requests[i].offset_bytes / 512;
    bool skip = false;
    for (const auto& [lo, hi] : avoid) skip = skip || (lba >= lo && lba <= hi);
    if (!skip) by[w.group[i]].push_back(ms[i]);
  }
  std::vector<GroupStat> out(by.size());
  for (std::size_t g = 0; g < by.size(); ++g) {
    const std::size_t slowest = by[g].size() / 20;
    if (by[g].size() < 10 + slowest) continue;
    const auto m = measure::trimmed_mean_se(std::move(by[g]), 0, slowest);
    out[g] = {m.mean, m.se};
  }
  return out;
}

// Pool-adjacent-violators: the nearest non-decreasing sequence (least squares, weights w).
void make_non_decreasing(std::vector<double>& y, std::vector<double> w) {
  std::vector<double> val, wt;
  std::vector<std::size_t> len;
  for (std::size_t i = 0; i < y.size(); ++i) {
    val.push_back(y[i]);
    wt.push_back(w[i]);
    len.push_back(1);
    while (val.size() > 1 && val[val.size() - 2] > val.back()) {
      const std::size_t k = val.size() - 1;
      val[k - 1] = (val[k - 1] * wt[k - 1] + val[k] * wt[k]) / (wt[k - 1] + wt[k]);
      wt[k - 1] += wt[k];
      len[k - 1] += len[k];
      val.pop_back(), wt.pop_back(), len.pop_back();
    }
  }
  std::size_t i = 0;
  for (std::size_t b = 0; b < val.size(); ++b)
    for (std::size_t j = 0; j < len[b]; ++j) y[i++] = val[b];
}

}  // namespace

// Stage 5: the seek curve as a table at the workload's distances, started from the curve the
// simulator fits to the three figures, each point moved by the drive − twin difference of its
// group's mean (rotation, overhead and transfer are alike on both and cancel); a few rounds, as
// a point's neighbours share its moves through the interpolation.
std::optional<Error> fit_seek_curve(json& model, const sim::DiskModel& parsed, const std::vector<double>& drive_ms,
                                    const SeekWorkload& w, std::uint64_t seed, std::vector<std::string>& moves) {
  if (drive_ms.size() != w.group.size() || w.cylinders.empty()) return std::nullopt;
  auto fitted = sim::SeekCurve::build(parsed.seek, parsed.total_cylinders());
  if (!fitted) return fitted.error();
  const double total = parsed.total_cylinders();
  std::vector<std::pair<double, double>> table;
  for (double d : w.cylinders) table.emplace_back(std::min(d, total), fitted->ms(static_cast<std::uint32_t>(std::min(d, total))));
  if (table.back().first < total) table.emplace_back(total, fitted->ms(static_cast<std::uint32_t>(total)));
  // What the twin models apart: its slow regions and remapped LBAs.
  std::vector<std::pair<std::uint64_t, std::uint64_t>> avoid;
  for (const auto& d : model.value("defects", json::array()))
    avoid.emplace_back(d["first_lba"].get<std::uint64_t>(),
                       d["first_lba"].get<std::uint64_t>() + d["sectors"].get<std::uint64_t>());
  for (const auto& r : model.value("remapped", json::array()))
    avoid.emplace_back(r["lba"].get<std::uint64_t>(), r["lba"].get<std::uint64_t>());
  const auto want = group_means(drive_ms, w, avoid);
  double worst_before = 0, worst_after = 0;
  for (int round = 0; round < 4; ++round) {
    json trial = model;
    trial["seek"]["curve"] = table;
    // The twin's side averaged over three seeds (simulated time is cheap).
    std::vector<GroupStat> got(w.cylinders.size(), GroupStat{0, 0});
    for (std::uint64_t k = 0; k < 3; ++k) {
      auto tms = twin_times(trial, w.trace, seed + 10 * round + k);
      if (!tms) return tms.error();
      const auto g = group_means(*tms, w, avoid);
      for (std::size_t i = 0; i < got.size(); ++i) {
        got[i].mean += g[i].mean / 3;
        got[i].se += g[i].se * g[i].se / 9;
      }
    }
    // A point moves only where the difference is beyond the noise of the two means (95 %): where
    // the drive's reads cannot contradict the fitted curve, it stays.
    double worst = 0;
    std::vector<double> y, wts;
    for (const auto& p : table) y.push_back(p.second);
    for (std::size_t g = 0; g < got.size(); ++g) {
      const double diff = want[g].mean - got[g].mean;
      const double hw = 1.96 * std::sqrt(want[g].se * want[g].se + got[g].se);
      if (!std::isfinite(diff) || !std::isfinite(hw)) continue;
      worst = std::max(worst, std::fabs(diff));
      if (std::fabs(diff) > hw) {
        y[g] = std::max(0.05, y[g] + diff);
      }
    }
    for (std::size_t i = 0; i < y.size(); ++i) wts.push_back(i < want.size() && std::isfinite(want[i].se) && want[i].se > 0 ? 1 / (want[i].se * want[i].se) : 1e6);
    make_non_decreasing(y, wts);
    for (std::size_t i = 0; i < y.size(); ++i) table[i].second = y[i];
    if (round == 0) worst_before = worst;
    worst_after = worst;
  }
  model["seek"]["curve"] = table;
  moves.push_back(fmt::format("seek.curve: {} points fitted to the alternating-reads workload (largest group "
                              "difference {:.3f} ms at the first round, {:.3f} ms at the last)",
                              table.size(), worst_before, worst_after));
  return std::nullopt;
}

// Drive time a workload took: its service times and the pauses between its requests.
double busy_ms(const std::vector<double>& ms, const measure::Trace& w) {
  double t = 0;
  for (double x : ms) t += x;
  for (std::size_t i = 0; i < ms.size() && i < w.requests.size(); ++i) t += w.requests[i].delay_ns / 1e6;
  return t;
}

// The workload on the drive itself (its drive time counts in the budget), stopped by Ctrl-C.
Expected<std::vector<double>> drive_workload(const ModelRequest& req, const measure::Trace& w, unsigned depth) {
  OpenOptions oo;
  oo.want_io = true;
  oo.seed = req.seed;
  oo.device = req.device;
  auto t = open_target(req.target, oo);
  if (!t) return t.error();
  StoppableIo io(*t->io, req.stop);
  return workload_ms(io, w, depth);
}

// Stage 6's workload: random one-block reads, all there at once, replayed two outstanding.
measure::Trace queued_workload(std::uint64_t capacity_blocks, std::uint32_t block_bytes, std::uint64_t seed) {
  measure::Trace t;
  t.format = measure::TraceFormat::fio_iolog;
  t.timing = measure::TraceTiming::at_time;
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::uint64_t> at(0, capacity_blocks - 1);
  for (std::size_t i = 0; i < kQueuedReads; ++i)
    t.requests.push_back({at(rng) * block_bytes, block_bytes, false, 0, {}, {}, i + 1});
  return t;
}

namespace {

// The mean time between completions (from completion times in any order) and its standard error.
measure::MeanSe gap_mean_se(std::vector<double> done) {
  std::sort(done.begin(), done.end());
  std::vector<double> gap;
  for (std::size_t i = 1; i < done.size(); ++i) gap.push_back(done[i] - done[i - 1]);
  return measure::mean_se(gap);
}

// The twin's read-miss overhead as a controller table: a hit costs the measured overhead, a miss
// `extra` more (or less); writes as before (the twin is read-only).
void set_miss_overhead(json& model, double extra) {
  const double o = model.value("command_overhead_ms", 0.0);
  json t = json::object();
  for (const char* k : {"read_hit_after_read", "read_hit_after_write", "write_hit_after_read", "write_hit_after_write",
                        "write_miss_after_read", "write_miss_after_write"})
    t[k] = o;
  t["read_miss_after_read"] = t["read_miss_after_write"] = std::max(0.0, o + extra);
  t["read_completion"] = t["write_completion"] = 0.0;
  if (!model.contains("controller") || !model["controller"].is_object()) model["controller"] = json::object();
  model["controller"]["overheads_ms"] = t;
}

}  // namespace

// Stage 6: the share of a read miss's time that a queued command overlaps. At depth 1 a miss
// costs overhead + seek + rotation + transfer and the stages before saw only the sum: the
// access test's overhead is a hit's, so the seek workload's fit put the rest of a miss's
// overhead into the seek curve (or took it out, where a miss costs less than a hit). A queued
// command is decoded while the mechanism serves the one before it (the simulator decodes from
// arrival, as DiskSim's controller does); its seek, rotation and transfer wait. With the queue
// kept full, a twin whose seek carries overhead is slower per command (HP C2490A's full model:
// miss 3.6 ms, hit 1.4; its twin 18 % slow on `qd8` with depth-1 times alike), and the waits in
// the queue multiply it. With two reads outstanding the time between completions lacks the
// overhead: the twin's mean time between completions over the drive's (on the same reads) is
// the miss overhead the twin lacks. It is moved out of the seek curve into a miss
// overhead, and the seek curve refitted to the drive's seek workload, so that depth-1 times
// stay as they were.
std::optional<Error> fit_miss_overhead(json& model, const std::vector<double>& drive_ms, const measure::Trace& q,
                                       const std::vector<double>& seek_ms, const SeekWorkload& sw,
                                       std::uint64_t seed, std::vector<std::string>& moves) {
  if (model["queue"]["protocol"] == "none" || drive_ms.size() != q.requests.size() || drive_ms.size() < 10 ||
      !model.contains("seek") || !model["seek"].contains("curve"))
    return std::nullopt;
  const auto want = gap_mean_se(drive_ms);
  const double hit = model.value("command_overhead_ms", 0.0);
  double extra = 0, last_diff = 0, last_step = 0;
  json before = model;
  for (unsigned round = 0; round < 4; ++round) {
    // The twin's side over three seeds (simulated time is cheap).
    double got = 0, got_var = 0;
    for (std::uint64_t k = 0; k < 3; ++k) {
      auto tms = twin_times(model, q, seed + 10 * round + k, 2);
      if (!tms) return tms.error();
      if (tms->size() != drive_ms.size()) return std::nullopt;
      const auto g = gap_mean_se(*tms);
      got += g.mean / 3;
      got_var += g.se * g.se / 9;
    }
    const double diff = got - want.mean, hw = 1.96 * std::sqrt(want.se * want.se + got_var);
    // A move beyond the noise that the twin's queued reads did not follow (by less than a quarter
    // of it) was not the overhead: what the twin lacks there is elsewhere (its geometry, its seek
    // curve where the seek workload could not place it), and the move is undone.
    if (round > 0 && std::fabs(last_step) > hw && (last_diff - diff) / last_step < 0.25) {
      model = before;
      moves.push_back(fmt::format("read miss overhead: {:+.4f} -> {:+.4f} ms undone (the twin's time between "
                                  "completions moved {:.3f} ms of the {:.3f})",
                                  extra, extra - last_step, last_diff - diff, last_step));
      break;
    }
    if (std::fabs(diff) <= hw || round == 3) break;
    // A miss costs no less than nothing; and every miss pays the overhead, the shortest moves'
    // too, so the seek curve gives up no more than its shortest move holds (down to 0.05 ms):
    // beyond that the twin's reads at depth 1 would slow down where the drive's do not.
    json& curve = model["seek"]["curve"];
    double least = INFINITY;
    for (const auto& p : curve) least = std::min(least, p[1].get<double>());
    const double after = std::clamp(extra + diff, -hit, extra + std::max(0.0, least - 0.05));
    if (std::fabs(after - extra) < 0.005) break;
    before = model;
    last_diff = diff;
    last_step = after - extra;
    for (auto& p : curve) p[1] = p[1].get<double>() - last_step;
    json& s = model["seek"];
    s["track_to_track_ms"] = curve.front()[1];
    s["full_stroke_ms"] = curve.back()[1];
    s["average_ms"] = std::max(0.05, s["average_ms"].get<double>() - last_step);
    set_miss_overhead(model, after);
    moves.push_back(fmt::format("read miss overhead: {:+.4f} -> {:+.4f} ms against a hit's {:.4f} (two reads "
                                "outstanding: drive {:.3f} ms between completions, twin {:.3f})",
                                extra, after, hit, want.mean, got));
    extra = after;
    auto dm = sim::parse_model(model.dump());
    if (!dm) return dm.error();
    if (auto e = fit_seek_curve(model, *dm, seek_ms, sw, seed + 41 + round, moves)) return *e;
  }
  return std::nullopt;
}

}  // namespace ds::app
