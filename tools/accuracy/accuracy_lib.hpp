// Ground truth of a simulated drive and the accuracy checks of issue 4, shared by the test
// (tests/measure/test_sim_accuracy.cpp) and the report generator (tools/accuracy/accuracy.cpp).
// This side may look at the model: it is the judge, not the measurement.
#pragma once
#include <cmath>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/drive.hpp"
#include "sim/sim.hpp"
#include "tests/bench.hpp"

namespace accuracy {

struct TruthZone {
  std::uint64_t first = 0, end = 0;
  double seq_mb_s = 0;
};

struct Truth {
  std::string name;
  double rpm = 0, rotation_ms = 0;
  std::vector<TruthZone> zones;
  double outer = 0, inner = 0, ratio = 0;
  double avg_seek_ms = 0, full_stroke_ms = 0, mean_access_ms = 0;
  unsigned surfaces = 0, platters = 0;
  double interface_mb_s = 0;
  std::uint64_t capacity = 0;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> defects;  // [first, end)
};

// Truth from the simulated drive's own layout and seek curve; the truth file's figures, when
// there is one, take precedence (they are what the data set publishes).
inline Truth truth_for(const ds::sim::SimTarget& t, const std::string& truth_file = {}) {
  Truth tr;
  const auto& m = t.model;
  const auto& L = t.drive->layout();
  tr.name = m.name;
  tr.rpm = m.rpm;
  tr.rotation_ms = 60000.0 / m.rpm;
  tr.capacity = L.capacity();
  tr.surfaces = m.surfaces;
  tr.platters = m.platters;
  tr.interface_mb_s = m.interface_mb_s;
  const double lb = m.logical_sector_bytes;
  for (const auto& z : L.zones()) {
    if (z.first_lba >= z.end_lba) continue;
    // User sectors of a band (a cylinder in the cylinder layout) over the time to stream it.
    const double seq = static_cast<double>(z.band_user_sectors) * lb / z.band_ns * 1e3;  // bytes/ns → MB/s
    tr.zones.push_back({z.first_lba, z.end_lba, std::min(seq, m.interface_mb_s)});
  }
  tr.outer = tr.zones.front().seq_mb_s;
  tr.inner = tr.zones.back().seq_mb_s;
  tr.ratio = tr.outer / tr.inner;
  const auto& sc = t.drive->seek_curve();
  tr.avg_seek_ms = sc.mean_random_pair_ms();
  tr.full_stroke_ms = sc.ms(L.cylinders() - 1);
  for (auto& d : m.defects) tr.defects.emplace_back(d.first_lba, d.first_lba + d.sectors);
  // Mean random single-sector read: seek between random LBAs + half a turn + overhead + one
  // sector, plus the defects' share (Monte Carlo, fixed seed).
  std::uint64_t s = 12345;
  auto rnd = [&]() {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return (s >> 11) % tr.capacity;
  };
  double sum = 0;
  const int N = 400000;
  for (int i = 0; i < N; ++i) {
    auto a = L.locate(rnd());
    std::uint64_t bl = rnd();
    auto b = L.locate(bl);
    double ms = sc.ms(a.cyl > b.cyl ? a.cyl - b.cyl : b.cyl - a.cyl);
    ms += tr.rotation_ms / 2 + m.command_overhead_ms + L.sector_ns(b.zone, b.head) * 1e-6;
    for (auto& d : m.defects)
      if (bl >= d.first_lba && bl < d.first_lba + d.sectors) ms += d.extra_ms;
    sum += ms;
  }
  tr.mean_access_ms = sum / N;
  if (!truth_file.empty()) {
    std::ifstream f(truth_file);
    if (f) {
      auto j = nlohmann::json::parse(f, nullptr, false);
      if (!j.is_discarded()) {
        tr.avg_seek_ms = j.value("avg_seek_ms", tr.avg_seek_ms);
        tr.full_stroke_ms = j.value("full_stroke_ms", tr.full_stroke_ms);
        tr.mean_access_ms = j.value("mean_random_read_access_ms", tr.mean_access_ms);
        tr.ratio = j.value("outer_inner_ratio_sequential", tr.ratio);
        tr.outer = j.value("outer_sequential_mb_s", tr.outer);
        tr.inner = j.value("inner_sequential_mb_s", tr.inner);
        if (j.contains("zones") && j["zones"].size() == tr.zones.size())
          for (std::size_t i = 0; i < tr.zones.size(); ++i)
            tr.zones[i].seq_mb_s = j["zones"][i].value("sequential_mb_s", tr.zones[i].seq_mb_s);
      }
    }
  }
  return tr;
}

struct Check {
  std::string criterion;
  std::string measured, truth;
  bool pass = false;
  bool counts = true;  // false: reported, not a pass/fail criterion (e.g. surfaces: 3/4 rule)
};

inline double rel(double a, double b) { return b != 0 ? std::fabs(a - b) / std::fabs(b) : 1e9; }

inline std::vector<Check> evaluate(const ds::measure::BenchResult& r, const Truth& t) {
  std::vector<Check> c;
  const double cap = static_cast<double>(t.capacity);
  if (r.access) {
    const auto& a = *r.access;
    c.push_back({"rpm within 1 %", fmt::format("{:.1f}", a.rpm.value), fmt::format("{:.0f}", t.rpm),
                 rel(a.rpm.value, t.rpm) <= 0.01});
    c.push_back({"mean access within 3 %", fmt::format("{:.3f} ms", a.read.mean_ms),
                 fmt::format("{:.3f} ms", t.mean_access_ms), rel(a.read.mean_ms, t.mean_access_ms) <= 0.03});
    c.push_back({"average seek within 10 %", fmt::format("{:.3f} ms", a.avg_seek_ms.value),
                 fmt::format("{:.3f} ms", t.avg_seek_ms), rel(a.avg_seek_ms.value, t.avg_seek_ms) <= 0.10});
    c.push_back({"full stroke within 10 %", fmt::format("{:.3f} ms", a.full_stroke_ms.value),
                 fmt::format("{:.3f} ms", t.full_stroke_ms), rel(a.full_stroke_ms.value, t.full_stroke_ms) <= 0.10});
    // Slow regions: every defect found within 1 % of capacity at both edges; none elsewhere.
    bool ok = true;
    std::string meas, tru;
    for (auto& s : a.slow_regions) meas += fmt::format("{}–{} ", s.first_lba, s.last_lba);
    for (auto& [f, e] : t.defects) {
      tru += fmt::format("{}–{} ", f, e - 1);
      bool found = false;
      for (auto& s : a.slow_regions)
        found |= std::fabs(static_cast<double>(s.first_lba) - f) <= 0.01 * cap &&
                 std::fabs(static_cast<double>(s.last_lba) - (e - 1)) <= 0.01 * cap;
      ok &= found;
    }
    for (auto& s : a.slow_regions) {
      bool real = false;
      for (auto& [f, e] : t.defects) real |= s.first_lba < e && s.last_lba + 0.01 * cap >= f;
      ok &= real;
    }
    c.push_back({"slow regions", meas.empty() ? "none" : meas, tru.empty() ? "none" : tru, ok});
  }
  if (r.transfer) {
    const auto& x = *r.transfer;
    auto zone_at = [&](std::uint64_t lba) -> const ds::measure::TransferZone* {
      for (auto& z : x.zones)
        if (z.first_lba <= lba && lba <= z.last_lba) return &z;
      return nullptr;
    };
    int bad = 0;
    double worst = 0;
    for (auto& z : t.zones) {
      auto* m = zone_at(z.first + (z.end - z.first) / 2);
      double e = m ? rel(m->mb_s, z.seq_mb_s) : 1;
      worst = std::max(worst, e);
      bad += e > 0.03;
    }
    c.push_back({"zone-middle rate within 3 %", fmt::format("worst {:.2f} %", worst * 100),
                 fmt::format("{} zones", t.zones.size()), bad == 0});
    // Significant zones (> 3 % from each neighbour) must be zones of their own, edges within 1 %.
    int sig = 0, found = 0;
    double worst_edge = 0;
    for (std::size_t i = 0; i < t.zones.size(); ++i) {
      const auto& z = t.zones[i];
      bool s = true;
      if (i > 0) s &= rel(z.seq_mb_s, t.zones[i - 1].seq_mb_s) > 0.03;
      if (i + 1 < t.zones.size()) s &= rel(z.seq_mb_s, t.zones[i + 1].seq_mb_s) > 0.03;
      if (!s || t.zones.size() == 1) continue;
      ++sig;
      auto* m = zone_at(z.first + (z.end - z.first) / 2);
      if (!m) continue;
      double e1 = i > 0 ? std::fabs(static_cast<double>(m->first_lba) - z.first) / cap : 0;
      double e2 = i + 1 < t.zones.size() ? std::fabs(static_cast<double>(m->last_lba) - (z.end - 1)) / cap : 0;
      worst_edge = std::max({worst_edge, e1, e2});
      found += e1 <= 0.01 && e2 <= 0.01;
    }
    c.push_back({"significant zones found, edges within 1 %",
                 fmt::format("{}/{} (worst edge {:.3f} %)", found, sig, worst_edge * 100),
                 fmt::format("{} zones", x.zones.size()), found == sig});
    c.push_back({"outer/inner ratio within 3 %", fmt::format("{:.4f}", x.outer_inner_ratio.value),
                 fmt::format("{:.4f}", t.ratio), rel(x.outer_inner_ratio.value, t.ratio) <= 0.03});
    c.push_back({"surfaces exact (3/4 of models)", fmt::format("{}", x.surfaces_estimate),
                 fmt::format("{}", t.surfaces), x.surfaces_estimate == t.surfaces, false});
    c.push_back({"platters", fmt::format("{}", x.platters_estimate), fmt::format("{}", t.platters),
                 x.platters_estimate == t.platters, false});
  }
  if (r.cache) {
    c.push_back({"cache burst within 5 % of interface", fmt::format("{:.2f} MB/s", r.cache->burst_mb_s.value),
                 fmt::format("{:.0f} MB/s", t.interface_mb_s), rel(r.cache->burst_mb_s.value, t.interface_mb_s) <= 0.05});
  }
  return c;
}

// Every simulated drive the checks run on: the model files, then the presets.
struct Subject {
  std::string spec, truth_file;
};
inline std::vector<Subject> subjects(const std::string& data_dir) {
  std::vector<Subject> s;
  for (const char* n : {"dec_rz26", "hp_c2247a", "hp_c2249a", "hp_c2490a", "quantum_qm39100td_atlas3",
                        "seagate_st34501n_cheetah4lp", "seagate_st39102lw_cheetah9lp", "seagate_st41601n"})
    s.push_back({data_dir + "/disk-models/" + n + ".json", data_dir + "/disk-models/" + n + ".truth.json"});
  for (auto& p : ds::sim::preset_names()) s.push_back({"sim:" + p, ""});
  return s;
}

}  // namespace accuracy
