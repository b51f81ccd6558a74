#include "report.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

namespace accuracy {
namespace {

std::string run_name(const RunResult& r) {
  return fmt::format("{} {} seed {}", r.spec.subject->name, r.spec.variant, r.spec.seed);
}

struct Tally {
  int counted = 0, passed = 0, unobservable = 0, with_interval = 0, covered = 0;
  int reported = 0, reported_passed = 0;  // observable runs of a criterion that does not count
  const RunResult* worst_run = nullptr;
  const Outcome* worst = nullptr;
};

// Criteria in the order they first appear, each with its tally over the given runs.
std::vector<std::pair<std::string, Tally>> tally(const std::vector<const RunResult*>& runs) {
  std::vector<std::pair<std::string, Tally>> out;
  for (const auto* r : runs)
    for (const auto& o : r->outcomes) {
      auto it = std::find_if(out.begin(), out.end(), [&](auto& p) { return p.first == o.criterion; });
      if (it == out.end()) it = out.insert(out.end(), {o.criterion, Tally{}});
      Tally& t = it->second;
      if (!o.observable) ++t.unobservable;
      if (o.covered) {
        t.with_interval += o.intervals;
        t.covered += o.intervals > 1 ? o.intervals_covered : *o.covered;
      }
      if (!o.counts) {
        t.reported += o.observable;
        t.reported_passed += o.observable && o.pass;
        continue;
      }
      ++t.counted;
      t.passed += o.pass;
      // The worst case: a failing run before a passing one, then the largest error.
      if (!t.worst || (!o.pass && t.worst->pass) || (o.pass == t.worst->pass && o.error > t.worst->error)) {
        t.worst = &o;
        t.worst_run = r;
      }
    }
  return out;
}

std::string rate(int n, int of) { return of ? fmt::format("{:.0f} % ({}/{})", 100.0 * n / of, n, of) : "–"; }

std::string criteria_table(const std::vector<const RunResult*>& runs) {
  std::string s =
      "| criterion | pass rate | ≥ 95 %? | interval coverage | ≥ 90 %? | not observable | worst case (drive, variant, seed: measured / truth) |\n"
      "|---|---|---|---|---|---|---|\n";
  for (const auto& [name, t] : tally(runs)) {
    const bool met = t.counted && t.passed >= kRequiredPassRate * t.counted;
    std::string worst = t.worst ? fmt::format("{}: {} / {}", run_name(*t.worst_run), t.worst->shown_measured,
                                              t.worst->shown_truth)
                                : "–";
    const std::string pass = t.counted ? rate(t.passed, t.counted)
                             : t.reported ? "(reported) " + rate(t.reported_passed, t.reported) : "–";
    const std::string cover_met = !t.with_interval ? "–"
                                  : t.covered >= kRequiredCoverage * t.with_interval ? "yes" : "**no**";
    s += fmt::format("| {} | {} | {} | {} | {} | {} | {} |\n", name, pass,
                     t.counted ? (met ? "yes" : "**no**") : "–", rate(t.covered, t.with_interval), cover_met,
                     t.unobservable ? std::to_string(t.unobservable) : "0", worst);
  }
  return s;
}

// The judged set is v1 and v2; a trial set (v2x) is v1 with v2x in place of v2.
bool in_set(const RunResult& r, bool trial) {
  return r.spec.variant == "v1" || r.spec.variant == (trial ? "v2x" : "v2");
}

std::string budget_table(const std::vector<RunResult>& runs, const std::vector<double>& budgets) {
  std::map<double, std::vector<const RunResult*>> by;
  for (const auto& r : runs)
    if (r.ok() && in_set(r, false)) by[r.spec.budget_s].push_back(&r);
  std::vector<std::pair<std::string, std::vector<std::string>>> rows;
  for (double b : budgets)
    for (const auto& [name, t] : tally(by[b])) {
      const std::string& criterion = name;  // clang 14 cannot capture a structured binding
      auto it = std::find_if(rows.begin(), rows.end(), [&](auto& p) { return p.first == criterion; });
      if (it == rows.end()) it = rows.insert(rows.end(), {name, std::vector<std::string>(budgets.size(), "–")});
      const auto col = static_cast<std::size_t>(std::find(budgets.begin(), budgets.end(), b) - budgets.begin());
      it->second[col] = t.counted ? rate(t.passed, t.counted) : "(reported) " + rate(t.reported_passed, t.reported);
    }
  std::string s = "| criterion |";
  for (double b : budgets) s += fmt::format(" {:g} s |", b);
  s += "\n|---|";
  for (std::size_t i = 0; i < budgets.size(); ++i) s += "---|";
  s += "\n";
  for (const auto& [name, cells] : rows) {
    s += "| " + name + " |";
    for (const auto& c : cells) s += " " + c + " |";
    s += "\n";
  }
  return s;
}

std::string drive_table(const std::vector<RunResult>& runs, double budget) {
  std::vector<std::pair<std::string, std::vector<const RunResult*>>> by;
  for (const auto& r : runs) {
    if (r.spec.budget_s != budget) continue;
    const std::string key = r.spec.subject->name + " " + r.spec.variant;
    auto it = std::find_if(by.begin(), by.end(), [&](auto& p) { return p.first == key; });
    if (it == by.end()) it = by.insert(by.end(), {key, {}});
    it->second.push_back(&r);
  }
  std::string s = "| drive | variant | runs | skipped | criteria failed (runs) | mean drive time s | mean bench CPU s |\n"
                  "|---|---|---|---|---|---|---|\n";
  for (const auto& [key, rs] : by) {
    std::vector<const RunResult*> ok;
    int skipped = 0;
    double drive = 0, cpu = 0;
    for (const auto* r : rs) {
      if (r->skipped) ++skipped;
      if (!r->ok()) continue;
      ok.push_back(r);
      drive += r->bench->drive_time_s;
      cpu += r->cpu_s;
    }
    std::string fails;
    for (const auto& [name, t] : tally(ok))
      if (t.passed < t.counted) fails += fmt::format("{}{} ({}/{})", fails.empty() ? "" : "; ", name,
                                                     t.counted - t.passed, t.counted);
    const auto& r0 = *rs.front();
    const double n = ok.empty() ? 1 : static_cast<double>(ok.size());
    s += fmt::format("| {} | {} | {} | {} | {} | {:.1f} | {:.2f} |\n", r0.spec.subject->name, r0.spec.variant, rs.size(),
                     skipped, fails.empty() ? (ok.empty() ? "–" : "none") : fails, drive / n, cpu / n);
  }
  return s;
}

const char* kVariants = R"(## The /2 variants

Each seed draws its own variant of every drive (tools/accuracy/variants.cpp, deterministic from
the seed): `rpm_actual` within ±0.3 % of `rpm`; `noise` with `seek_jitter_pct` 1–3,
`overhead_jitter_ms` 10–20 % of the command overhead, `host_latency_us` 10–40 and `host_stall`
{probability 0.001, 2–5 ms}; three `remapped` LBAs (+8–20 ms each); four `slipped` sectors; on
about half the seeds `spares.per_track` 1–2; on about half per-surface `sectors_per_track` (each
surface's density off by its own factor within ±3 %, the same in every zone);
`recalibration` {every 200–600 s, 50–150 ms}. The capacity shrinks to what the spares and thinner
surfaces leave (a slow region the cut would shorten moves in from the end). Not drawn in v2:
`layout: surface_serpentine` and `cache.zero_latency_read` (drawn in v2x, the trial below), AAM
`short_seek_cylinders`, the queue `window` and `max_wait_ms` (the bench tests measured here do
not queue). The seed also sets the measurement plan's seed and the model's `noise.seed`.
)";

const char* kTrial = R"(The v2x variant of a drive is its v2 variant (the same draws) plus, on about half the seeds
each, `cache.zero_latency_read` and `layout: surface_serpentine` with `band_cylinders` 100–400
(at most 1 % of the drive's cylinders: drives of fewer than 10 000 cylinders, the 1990s DiskSim
ones, get no serpentine bands; a zero-latency read on any drive with a cache). These runs are judged
by the same criteria but are not yet part of the judged set above nor of the ctest; the tables
below say which criteria hold on them and which fall short (a `**no**`).

)";

const char* kLeftOut = R"(## What the simulator still leaves out

Against a real drive the simulated one is still clean in ways that flatter the measurement:
- the /2 variants draw their imperfections from a few plausible ranges (above), one set per seed;
  AAM short seeks and queue windows are never drawn (the bench tests measured here do not queue),
  zero-latency reads and surface-serpentine layouts only in the v2x trial (its own section above:
  what holds on them is there), and host latency is the simulator's lognormal, not a real kernel's
  (for that: `drivescope serve` in a QEMU guest, docs/serve.md);
- seek times follow one smooth curve per distance (plus symmetric jitter): no direction, no
  dependence on the start cylinder, no settling that varies with temperature;
- the controller overhead is one constant per command (no dependence on the command's size,
  the cache state or the previous command); caching is a plain segmented LRU;
- no thermal or vibration events, no background media scans, no power-management spin-downs;
- every drive of one model is identical: no unit-to-unit spread of zone tables or seek curves.
- the dual-actuator preset `exos2x14` is judged with each positioning range's own seeks
  (docs/truth.md, "Positioning ranges"); that its ranges overlap in time is the actuators test's
  to judge (`bench --tests actuators`, tests/measure/actuators_sim.cpp). The simulator moves
  each range's positioner over its own range's cylinders, where a real MACH.2 gives each actuator
  half of the heads over the full stroke (docs/simulator.md).
)";

}  // namespace

std::string markdown(const std::vector<RunResult>& runs, const ReportSetup& setup) {
  std::string s = "# Measurement accuracy on simulated drives\n\n";
  std::string variants;
  for (const auto& v : setup.variants) variants += (variants.empty() ? "" : ", ") + v;
  std::string budgets;
  for (double b : setup.budgets) budgets += fmt::format("{}{:g} s", budgets.empty() ? "" : ", ", b);
  s += fmt::format(
      "Generated by `scripts/accuracy.sh` (tools/accuracy) with {} seeds per drive, variants {}, "
      "drive-time budget {}{}. Variant v1 is the model file as it is (the DiskSim models are format /1, the presets /2 with a fixed set of imperfections: docs/simulator.md, \"Presets\"); v2 draws a fresh set of /2 imperfections from the seed over it (tools/accuracy/variants.cpp). Each run opens the drive as a simulated target and runs "
      "`bench --tests transfer,access,cache`; the measurement code sees only the block-I/O interface. "
      "The truth is computed independently of the simulator from the same model JSON by tools/truth "
      "([truth.md](truth.md)). A criterion must hold in at least 95 % of the runs. Interval coverage: the "
      "share of runs whose measured value ± its stated half-width (Figure.uncertainty; 1.96 standard "
      "errors for the mean access) contains the truth; for the zone-middle rates, each zone's rate is its own interval, so the share is of zones (all runs' zones together), and a run passes the rate criterion only when its worst zone does. Not observable (surfaces, platters, layout, "
      "cache size): the measurement said it cannot tell (0 / null); such a run is counted in that column, not "
      "failed. A figure left null (rpm, the seek figures, the rates, the ratio, the burst) is a failure. The same v1 and v2 runs at 60 s are the ctest `accuracy_seeds`.\n\n",
      setup.seeds, variants, budgets, setup.only.empty() ? "" : ", only drives matching `" + setup.only + "`");
  const bool trial = std::any_of(runs.begin(), runs.end(), [](const RunResult& r) { return r.spec.variant == "v2x"; });
  for (bool t : {false, true}) {
    if (t && !trial) break;
    if (t) s += "## Trial: zero-latency reads and surface-serpentine layouts (v2x in place of v2)\n\n" + std::string(kTrial);
    for (double b : setup.budgets) {
      std::vector<const RunResult*> ok;
      for (const auto& r : runs)
        if (r.spec.budget_s == b && r.ok() && in_set(r, t)) ok.push_back(&r);
      if (ok.empty()) continue;
      s += fmt::format("{} Criteria at a {:g} s budget ({} runs{})\n\n", t ? "###" : "##", b, ok.size(),
                       t ? ", v1 and v2x" : "") +
           criteria_table(ok) + "\n";
    }
  }
  if (setup.budgets.size() > 1) s += "## Pass rate by budget\n\n" + budget_table(runs, setup.budgets) + "\n";
  double cpu = 0, worst_cpu = 0;
  int measured = 0;
  for (const auto& r : runs)
    if (r.ok()) {
      ++measured;
      cpu += r.cpu_s;
      worst_cpu = std::max(worst_cpu, r.cpu_s);
    }
  s += fmt::format("CPU cost: {} runs measured, bench CPU {:.1f} s in all (mean {:.2f} s, at most {:.2f} s a run; "
                   "the drive time is virtual). Computing a run's truth adds up to about 0.25 s (the 8 TB preset).\n\n",
                   measured, cpu, measured ? cpu / measured : 0.0, worst_cpu);
  s += fmt::format("## Per drive ({:g} s budget)\n\n", setup.budgets.back()) + drive_table(runs, setup.budgets.back());
  std::string errors;
  std::vector<std::pair<std::string, std::pair<int, std::string>>> skips;  // drive variant → runs, why
  for (const auto& r : runs) {
    if (r.skipped) {
      const std::string key = r.spec.subject->name + " " + r.spec.variant;
      auto it = std::find_if(skips.begin(), skips.end(), [&](auto& p) { return p.first == key; });
      if (it == skips.end()) it = skips.insert(skips.end(), {key, {0, r.message}});
      ++it->second.first;
    } else if (!r.message.empty()) {
      errors += fmt::format("- {} ({:g} s): {}\n", run_name(r), r.spec.budget_s, r.message);
    }
  }
  std::string skipped;
  for (const auto& [key, v] : skips) skipped += fmt::format("- {}: {} runs skipped: {}\n", key, v.first, v.second);
  if (!errors.empty()) s += "\n## Runs that failed to run\n\n" + errors;
  if (!skipped.empty()) s += "\n## Skipped runs\n\n" + skipped;
  s += "\n";
  s += kVariants;
  s += "\n";
  s += kLeftOut;
  return s;
}

}  // namespace accuracy
