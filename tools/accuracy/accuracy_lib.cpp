#include "accuracy_lib.hpp"

#include <atomic>
#include <cmath>
#include <ctime>
#include <fstream>
#include <mutex>
#include <thread>

#include <fmt/format.h>

#include "probe/ata_logs.hpp"
#include "sim/model.hpp"
#include "sim/sim.hpp"
#include "variants.hpp"

namespace accuracy {
namespace {

constexpr double kZ95 = 1.96;             // a standard error → a 95 % half-width
constexpr double kLocateShare = 0.01;     // slow regions and zone edges: within 1 % of capacity

double rel(double a, double b) { return b != 0 ? std::fabs(a - b) / std::fabs(b) : (a == 0 ? 0 : 1e9); }

// A figure against the truth within a relative tolerance; covered when value ± half contains it.
Outcome figure(std::string name, double value, double half, double truth, double tol, int places) {
  Outcome o;
  o.criterion = std::move(name);
  o.measured = value;
  o.truth = truth;
  o.error = rel(value, truth);
  o.pass = o.error <= tol;
  o.covered = std::fabs(value - truth) <= half;
  o.shown_measured = fmt::format("{:.{}f} ± {:.{}f}", value, places, half, places);
  o.shown_truth = fmt::format("{:.{}f}", truth, places);
  return o;
}

std::string pct(double tol) { return fmt::format("{:g} %", tol * 100); }

const ds::measure::TransferZone* zone_at(const ds::measure::TransferResult& x, std::uint64_t lba) {
  for (const auto& z : x.zones)
    if (z.first_lba <= lba && lba <= z.last_lba) return &z;
  return nullptr;
}

Outcome zone_middles(const ds::measure::TransferResult& x, const truth::Truth& t, double tol) {
  Outcome o;
  o.criterion = "zone-middle rates ±" + pct(tol);
  bool all_covered = true;
  o.intervals = 0;
  for (const auto& z : t.zones) {
    const auto* m = zone_at(x, z.first_lba + z.sectors / 2);
    const double e = m ? rel(m->mb_s, z.sequential_mb_s) : 1;
    const bool in = m && std::fabs(m->mb_s - z.sequential_mb_s) <= m->mb_s_uncertainty;
    all_covered &= in;
    ++o.intervals;
    o.intervals_covered += in;
    if (e >= o.error) {
      o.error = e;
      o.measured = m ? m->mb_s : 0;
      o.truth = z.sequential_mb_s;
    }
  }
  o.pass = o.error <= tol;
  o.covered = all_covered;
  o.shown_measured = fmt::format("worst {:.3f} MB/s", o.measured);
  o.shown_truth = fmt::format("{:.3f} MB/s ({} zones)", o.truth, t.zones.size());
  return o;
}

// Zones more than 3 % from both neighbours must be zones of their own, edges within 1 %.
Outcome zone_edges(const ds::measure::TransferResult& x, const truth::Truth& t, bool counts) {
  const double cap = static_cast<double>(t.capacity);
  int sig = 0, found = 0;
  double worst = 0;
  for (std::size_t i = 0; i < t.zones.size() && t.zones.size() > 1; ++i) {
    const auto& z = t.zones[i];
    bool s = true;
    if (i > 0) s &= rel(z.sequential_mb_s, t.zones[i - 1].sequential_mb_s) > 0.03;
    if (i + 1 < t.zones.size()) s &= rel(z.sequential_mb_s, t.zones[i + 1].sequential_mb_s) > 0.03;
    if (!s) continue;
    ++sig;
    const auto* m = zone_at(x, z.first_lba + z.sectors / 2);
    if (!m) continue;
    const double last = static_cast<double>(z.first_lba + z.sectors - 1);
    const double e1 = i > 0 ? std::fabs(static_cast<double>(m->first_lba) - z.first_lba) / cap : 0;
    const double e2 = i + 1 < t.zones.size() ? std::fabs(static_cast<double>(m->last_lba) - last) / cap : 0;
    worst = std::max({worst, e1, e2});
    found += e1 <= kLocateShare && e2 <= kLocateShare;
  }
  Outcome o;
  o.criterion = "significant zones found, edges within 1 %";
  o.measured = found;
  o.truth = sig;
  o.error = sig - found;
  o.pass = found == sig;
  o.counts = counts;
  o.shown_measured = fmt::format("{}/{} (worst edge {:.3f} %)", found, sig, worst * 100);
  o.shown_truth = fmt::format("{} zones", t.zones.size());
  return o;
}

// Every defect region found with both edges within 1 % of capacity, and no slow region that is
// neither near a defect region nor a remapped LBA (a remapped LBA is a real slow spot).
Outcome slow_regions(const ds::measure::AccessResult& a, const truth::Truth& t) {
  const double near = kLocateShare * static_cast<double>(t.capacity);
  bool ok = true;
  int missed = 0, invented = 0;
  for (const auto& d : t.defects) {
    bool found = false;
    for (const auto& s : a.slow_regions)
      found |= std::fabs(static_cast<double>(s.first_lba) - static_cast<double>(d.first_lba)) <= near &&
               std::fabs(static_cast<double>(s.last_lba) - static_cast<double>(d.first_lba + d.sectors - 1)) <= near;
    missed += !found;
  }
  for (const auto& s : a.slow_regions) {
    bool real = false;
    for (const auto& d : t.defects) real |= s.first_lba < d.first_lba + d.sectors && s.last_lba + near >= d.first_lba;
    for (const auto& r : t.remapped)
      real |= static_cast<double>(s.first_lba) <= static_cast<double>(r.lba) + near &&
              static_cast<double>(s.last_lba) + near >= static_cast<double>(r.lba);
    invented += !real;
  }
  ok = missed == 0 && invented == 0;
  Outcome o;
  o.criterion = "slow regions within 1 %, none invented";
  o.measured = static_cast<double>(a.slow_regions.size());
  o.truth = static_cast<double>(t.defects.size());
  o.error = missed + invented;
  o.pass = ok;
  o.shown_measured = fmt::format("{} found ({} missed, {} invented)", a.slow_regions.size(), missed, invented);
  o.shown_truth = fmt::format("{} regions, {} remapped LBAs", t.defects.size(), t.remapped.size());
  return o;
}

Outcome count_exact(std::string name, unsigned measured, unsigned truth, bool counts) {
  Outcome o;
  o.criterion = std::move(name);
  o.measured = measured;
  o.truth = truth;
  o.observable = measured != 0;
  o.error = std::fabs(static_cast<double>(measured) - truth);
  o.pass = measured == truth;
  o.counts = counts && o.observable;
  o.shown_measured = measured ? fmt::format("{}", measured) : "not observable";
  o.shown_truth = fmt::format("{}", truth);
  return o;
}

void access_outcomes(const ds::measure::AccessResult& a, const truth::Truth& t, const Criteria& c,
                     std::vector<Outcome>& out) {
  auto half = [](const ds::measure::Figure& f) { return f.uncertainty; };
  out.push_back(figure("rpm ±" + pct(c.rpm), a.rpm.value, half(a.rpm), t.rpm, c.rpm, 1));
  out.push_back(figure("mean access ±" + pct(c.mean_access), a.read.mean_ms, kZ95 * a.read.stderr_ms,
                       t.mean_random_read_access_ms, c.mean_access, 3));
  const double seek_truth = c.seek_truth_uniform ? t.avg_seek_ms : t.avg_seek_random_lba_ms;
  out.push_back(figure("average seek ±" + pct(c.avg_seek), a.avg_seek_ms.value, half(a.avg_seek_ms), seek_truth,
                       c.avg_seek, 3));
  out.push_back(figure("full stroke ±" + pct(c.full_stroke), a.full_stroke_ms.value, half(a.full_stroke_ms),
                       t.full_stroke_ms, c.full_stroke, 3));
  if (c.track_to_track >= 0)
    out.push_back(figure("track-to-track ±" + pct(c.track_to_track), a.track_to_track_ms.value,
                         half(a.track_to_track_ms), t.track_to_track_ms, c.track_to_track, 3));
  out.push_back(slow_regions(a, t));
}

void transfer_outcomes(const ds::measure::TransferResult& x, const truth::Truth& t, const Criteria& c,
                       std::vector<Outcome>& out) {
  out.push_back(zone_middles(x, t, c.zone_middle));
  out.push_back(zone_edges(x, t, c.zone_edges_count));
  out.push_back(figure("outer/inner ratio ±" + pct(c.ratio), x.outer_inner_ratio.value,
                       x.outer_inner_ratio.uncertainty, t.outer_inner_ratio_sequential, c.ratio, 4));
  out.push_back(count_exact("surfaces exact where observable", x.surfaces_estimate, t.surfaces, true));
  out.push_back(count_exact("platters (reported)", x.platters_estimate, t.platters, false));
  Outcome lay;  // a layout said must be the model's; not told is not observable
  lay.criterion = "layout right where told";
  lay.observable = !x.layout.empty();
  lay.counts = lay.observable;
  lay.pass = x.layout == (t.serpentine ? "serpentine" : "cylinder");
  lay.error = lay.pass ? 0 : 1;
  lay.shown_measured = lay.observable ? x.layout : "not told";
  lay.shown_truth = t.serpentine ? "serpentine" : "cylinder";
  out.push_back(lay);
}

void cache_outcomes(const ds::measure::CacheResult& k, const truth::Truth& t, const Criteria& c,
                    std::vector<Outcome>& out) {
  out.push_back(figure("burst ±" + pct(c.burst) + " of the interface", k.burst_mb_s.value, k.burst_mb_s.uncertainty,
                       t.interface_mb_s, c.burst, 2));
  if (c.cache_factor < 0 || t.cache_bytes <= 0) return;
  Outcome o;
  o.criterion = fmt::format("cache size ≤ {:g} × the real cache", c.cache_factor);
  o.measured = static_cast<double>(k.size_bytes_estimate);
  o.truth = t.cache_bytes;
  o.observable = k.size_bytes_estimate > 0;
  o.counts = o.observable;
  o.error = o.measured / o.truth;
  o.pass = o.measured <= c.cache_factor * o.truth;
  o.shown_measured = o.observable ? fmt::format("{:.0f} KiB", o.measured / 1024) : "not observable";
  o.shown_truth = fmt::format("{:.0f} KiB", o.truth / 1024);
  out.push_back(o);
}

// A test that produced nothing fails every criterion it owns (it is not "not observable").
void missing(const std::string& test, std::vector<Outcome>& out) {
  Outcome o;
  o.criterion = test + " result present";
  o.error = 1;
  o.shown_measured = "missing";
  o.shown_truth = "a result";
  out.push_back(o);
}

double thread_cpu_s() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

}  // namespace

std::vector<Outcome> evaluate(const ds::measure::BenchResult& r, const truth::Truth& t, const Criteria& c) {
  std::vector<Outcome> out;
  if (r.access) access_outcomes(*r.access, t, c, out);
  else missing("access", out);
  if (r.transfer) transfer_outcomes(*r.transfer, t, c, out);
  else missing("transfer", out);
  if (r.cache) cache_outcomes(*r.cache, t, c, out);
  else missing("cache", out);
  return out;
}

std::vector<Subject> subjects(const std::string& data_dir) {
  std::vector<Subject> s;
  for (const char* n : {"dec_rz26", "hp_c2247a", "hp_c2249a", "hp_c2490a", "quantum_qm39100td_atlas3",
                        "seagate_st34501n_cheetah4lp", "seagate_st39102lw_cheetah9lp", "seagate_st41601n"}) {
    const std::string path = data_dir + "/disk-models/" + n + ".json";
    std::ifstream f(path);
    auto j = nlohmann::json::parse(f, nullptr, false);
    s.push_back({n, path, j.is_discarded() ? nlohmann::json() : j});
  }
  for (const auto& p : ds::sim::preset_names()) {
    auto m = ds::sim::preset(p);
    s.push_back({p, "sim:" + p, m ? nlohmann::json::parse(ds::sim::model_to_json(*m)) : nlohmann::json()});
  }
  return s;
}

nlohmann::json run_model(const Subject& s, const std::string& variant, std::uint64_t seed) {
  nlohmann::json m = variant == "v1" ? s.model : make_variant(s.model, seed, variant == "v2x");
  if (!m["noise"].is_object()) m["noise"] = nlohmann::json::object();
  m["noise"]["seed"] = seed;
  return m;
}

namespace {
// The positioning ranges the drive reports (ATA log 47h), read as drivescope bench reads them, so
// that a multi-actuator drive is measured as the CLI measures it.
std::vector<ds::measure::LbaRange> reported_ranges(ds::Device& dev) {
  std::vector<ds::measure::LbaRange> out;
  const auto g = ds::probe::probe_gpl(dev);
  if (g.positioning_ranges)
    for (const auto& r : g.positioning_ranges->ranges) out.push_back({r.lowest_lba, r.lba_count});
  return out;
}
}  // namespace

RunResult run_one(const RunSpec& spec, const Criteria& c) {
  RunResult r;
  r.spec = spec;
  const auto model = run_model(*spec.subject, spec.variant, spec.seed);
  auto t = truth::compute(model);
  if (!t) {
    r.message = "truth: " + t.error().message;
    return r;
  }
  r.truth = *t;
  auto dm = ds::sim::parse_model(model.dump());
  if (!dm) {
    r.skipped = spec.variant != "v1";
    r.message = "the simulator rejects the model: " + dm.error().message;
    return r;
  }
  auto target = ds::sim::open(std::move(*dm), {});
  if (!target) {
    r.message = "open: " + target.error().message;
    return r;
  }
  ds::measure::BenchOptions o;
  o.positioning_ranges = reported_ranges(*target->device);
  o.tests = spec.tests;
  o.seed = spec.seed;
  o.budget_s = spec.budget_s;
  const double cpu0 = thread_cpu_s();
  auto b = ds::measure::run_bench(*target->io, o);
  r.cpu_s = thread_cpu_s() - cpu0;
  if (!b) {
    r.message = "bench: " + b.error().message;
    return r;
  }
  r.outcomes = evaluate(*b, r.truth, c);
  r.bench = std::move(*b);
  return r;
}

std::vector<RunResult> run_many(const std::vector<RunSpec>& specs, const Criteria& c, unsigned jobs,
                                const RunDone& done) {
  std::vector<RunResult> results(specs.size());
  std::atomic<std::size_t> next{0};
  std::size_t finished = 0;
  std::mutex m;
  auto worker = [&] {
    for (std::size_t i; (i = next++) < specs.size();) {
      results[i] = run_one(specs[i], c);
      std::lock_guard<std::mutex> lock(m);
      ++finished;
      if (done) done(results[i], finished, specs.size());
    }
  };
  std::vector<std::thread> pool;
  for (unsigned j = 0; j < std::min<std::size_t>(std::max(1u, jobs), specs.size()); ++j) pool.emplace_back(worker);
  for (auto& t : pool) t.join();
  return results;
}

}  // namespace accuracy
