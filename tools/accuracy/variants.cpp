#include "variants.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace accuracy {
namespace {

using nlohmann::json;

// Ranges of the imperfections (the "plausible" drive; docs/accuracy.md).
constexpr double kRpmOff = 0.003;                 // rpm_actual within ±0.3 % of rpm
constexpr double kJitterPct[] = {1, 3};           // seek jitter sd, %
constexpr double kOverheadJitter[] = {0.10, 0.20};  // sd of the controller time, share of it
constexpr double kHostUs[] = {10, 40};            // median host latency
constexpr double kStallProbability = 0.001;
constexpr double kStallMs[] = {2, 5};
constexpr int kRemapped = 3;
constexpr double kRemapMs[] = {8, 20};
constexpr int kSlipped = 4;
constexpr double kSurfaceSpread = 0.03;           // per-surface sectors per track within ±3 %
constexpr double kRecalEveryS[] = {200, 600};
constexpr double kRecalMs[] = {50, 150};
// Drawn from a stream of their own, so that the draws above stay what they were before these were
// added (the same seed gives the same drive plus these), each on about half the seeds.
constexpr std::uint64_t kLayoutStream = 0x5E12;
constexpr double kBandCylinders[] = {100, 400};   // surface-serpentine bands, and at most
constexpr double kBandShare = 0.01;               // this share of the drive's cylinders: drives
                                                  // of fewer than 10 000 (the 1990s) get none

class Rng {
 public:
  explicit Rng(std::uint64_t seed) : s_(seed * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull) {}
  std::uint64_t next() {  // splitmix64
    std::uint64_t z = (s_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  double uniform(double a, double b) { return a + (b - a) * static_cast<double>(next() >> 11) * 0x1.0p-53; }
  double uniform(const double (&r)[2]) { return uniform(r[0], r[1]); }
  std::uint64_t below(std::uint64_t n) { return n ? next() % n : 0; }
  bool coin() { return next() & 1; }

 private:
  std::uint64_t s_;
};

double rounded(double v, int places) {
  const double f = std::pow(10.0, places);
  return std::round(v * f) / f;
}

std::uint64_t spt_of(const json& zone, unsigned surface) {
  const json& s = zone["sectors_per_track"];
  return (s.is_array() ? s[surface] : s).get<std::uint64_t>();
}

// Adaptive formatting: each surface's density off by its own factor in every zone.
void per_surface_spt(json& m, Rng& rng) {
  const unsigned surfaces = m.value("surfaces", 1u);
  std::vector<double> factor(surfaces);
  for (auto& f : factor) f = 1 + rng.uniform(-kSurfaceSpread, kSurfaceSpread);
  for (auto& z : m["zones"]) {
    if (!z["sectors_per_track"].is_number()) continue;
    const double spt = z["sectors_per_track"].get<double>();
    json list = json::array();
    for (double f : factor) list.push_back(std::max(1.0, std::round(spt * f)));
    z["sectors_per_track"] = list;
  }
}

// User sectors the zones hold with the spares taken out (before slips and the capacity cut).
std::uint64_t zone_user_sectors(const json& m, unsigned per_track) {
  const unsigned surfaces = m.value("surfaces", 1u);
  std::uint64_t total = 0;
  for (const auto& z : m["zones"]) {
    std::uint64_t per_cyl = 0;
    for (unsigned i = 0; i < surfaces; ++i) {
      const auto spt = spt_of(z, i);
      per_cyl += spt > per_track ? spt - per_track : 0;
    }
    total += per_cyl * z.value("cylinders", 0ull);
  }
  return total;
}

// A physical sector number (every sector of every track, spares included, in fill order) of a
// user sector, in a zone that lies within the capacity: a slip never lands on a spare.
std::uint64_t user_sector(const json& m, Rng& rng, unsigned per_track, std::uint64_t capacity) {
  const unsigned surfaces = m.value("surfaces", 1u);
  std::vector<std::uint64_t> base{0};  // physical number of each zone's first sector
  std::uint64_t users = 0;
  std::size_t zones = 0;
  for (const auto& z : m["zones"]) {
    std::uint64_t phys = 0, user = 0;
    for (unsigned i = 0; i < surfaces; ++i) {
      phys += spt_of(z, i);
      user += spt_of(z, i) - per_track;
    }
    users += user * z.value("cylinders", 0ull);
    if (users > capacity) break;
    base.push_back(base.back() + phys * z.value("cylinders", 0ull));
    ++zones;
  }
  const std::size_t zi = rng.below(std::max<std::size_t>(zones, 1));
  const json& z = m["zones"][zi];
  std::uint64_t at = base[zi];
  std::uint64_t per_cyl = 0;
  for (unsigned i = 0; i < surfaces; ++i) per_cyl += spt_of(z, i);
  const std::uint64_t cyl = rng.below(z.value("cylinders", 1ull));
  const unsigned surface = static_cast<unsigned>(rng.below(surfaces));
  const std::uint64_t band = m.value("layout", "cylinder") == "surface_serpentine" ? m.value("band_cylinders", 0ull) : 0;
  if (band == 0) {  // cylinder layout: a cylinder's tracks one after the other
    at += cyl * per_cyl;
    for (unsigned i = 0; i < surface; ++i) at += spt_of(z, i);
  } else {  // serpentine: a band holds each surface's tracks across it, one surface after the other
    const std::uint64_t b0 = cyl / band * band;
    const std::uint64_t len = std::min<std::uint64_t>(band, z.value("cylinders", 1ull) - b0);
    at += b0 * per_cyl;
    for (unsigned i = 0; i < surface; ++i) at += len * spt_of(z, i);
    at += (cyl - b0) * spt_of(z, surface);
  }
  return at + rng.below(spt_of(z, surface) - per_track);
}

void defects(json& m, Rng& rng, unsigned per_track, std::uint64_t capacity) {
  std::vector<std::uint64_t> slipped;
  while (slipped.size() < static_cast<std::size_t>(kSlipped)) {
    const std::uint64_t p = user_sector(m, rng, per_track, capacity);
    if (std::find(slipped.begin(), slipped.end(), p) == slipped.end()) slipped.push_back(p);
  }
  std::sort(slipped.begin(), slipped.end());
  m["slipped"] = slipped;
  m["remapped"] = json::array();
  for (int i = 0; i < kRemapped; ++i)
    m["remapped"].push_back({{"lba", rng.below(capacity - kSlipped)}, {"extra_ms", rounded(rng.uniform(kRemapMs), 2)}});
}

}  // namespace

json make_variant(const json& model, std::uint64_t seed, bool layout) {
  json m = model;
  Rng rng(seed);
  m["format"] = "drivescope-disk-model/2";
  if (layout) {
    // A read landing mid-track reads from the head on (zero-latency read, most drives since the
    // late 1990s); surface-serpentine bands (most drives of the 2010s on).
    Rng layout_rng(seed ^ kLayoutStream);
    if (layout_rng.coin() && m.contains("cache") && m["cache"].is_object()) m["cache"]["zero_latency_read"] = true;
    std::uint64_t cylinders = 0;
    for (const auto& z : m["zones"]) cylinders += z.value("cylinders", 0ull);
    const double widest = std::min(kBandCylinders[1], kBandShare * static_cast<double>(cylinders));
    const bool serpentine = layout_rng.coin();
    const double band = layout_rng.uniform(kBandCylinders[0], std::max(kBandCylinders[0], widest));
    if (serpentine && widest >= kBandCylinders[0]) {
      m["layout"] = "surface_serpentine";
      m["band_cylinders"] = static_cast<std::uint64_t>(rounded(band, 0));
    }
  }
  const double rpm = m.value("rpm", 7200.0);
  m["rpm_actual"] = rounded(rpm * (1 + rng.uniform(-kRpmOff, kRpmOff)), 2);
  json& noise = m["noise"];
  if (!noise.is_object()) noise = json::object();
  noise["seek_jitter_pct"] = rounded(rng.uniform(kJitterPct), 2);
  noise["overhead_jitter_ms"] = rounded(m.value("command_overhead_ms", 0.1) * rng.uniform(kOverheadJitter), 4);
  noise["host_latency_us"] = rounded(rng.uniform(kHostUs), 1);
  noise["host_stall"] = {{"probability", kStallProbability}, {"ms", rounded(rng.uniform(kStallMs), 2)}};
  if (rng.coin()) per_surface_spt(m, rng);
  const unsigned per_track = rng.coin() ? static_cast<unsigned>(1 + rng.below(2)) : 0;
  if (per_track) m["spares"] = {{"per_track", per_track}, {"per_cylinder", 0}};
  // Spares and thinner surfaces take user sectors away: the capacity shrinks to what is left.
  std::uint64_t capacity = zone_user_sectors(m, per_track) - kSlipped;
  if (m.contains("capacity_sectors") && m["capacity_sectors"].is_number())
    capacity = std::min(capacity, m["capacity_sectors"].get<std::uint64_t>());
  // Positioning ranges given as a list keep their count and their shares of the capacity (the
  // last one ending with it): a list over the old capacity would reach beyond the new one.
  if (m.contains("actuators") && m["actuators"].is_array() && !m["actuators"].empty()) {
    json& a = m["actuators"];
    const auto old_cap = static_cast<double>(m.value("capacity_sectors", capacity));
    auto at = [&](std::uint64_t lba) {
      return std::min(capacity, static_cast<std::uint64_t>(static_cast<double>(lba) / old_cap * static_cast<double>(capacity)));
    };
    for (std::size_t i = 0; i < a.size(); ++i) {
      const std::uint64_t first = at(a[i].value("first_lba", 0ull));
      const std::uint64_t end = i + 1 == a.size() ? capacity : at(a[i + 1].value("first_lba", 0ull));
      a[i]["first_lba"] = first;
      a[i]["lba_count"] = end - first;
    }
  }
  m["capacity_sectors"] = capacity;
  // A slow region the shrunken capacity would cut keeps its size and moves in from the end.
  if (m.contains("defects") && m["defects"].is_array())
    for (auto& d : m["defects"]) {
      const auto first = d.value("first_lba", 0ull), sectors = d.value("sectors", 0ull);
      if (first + sectors > capacity && sectors <= capacity) d["first_lba"] = capacity - sectors;
    }
  defects(m, rng, per_track, capacity);
  m["recalibration"] = {{"every_s", rounded(rng.uniform(kRecalEveryS), 0)},
                        {"duration_ms", rounded(rng.uniform(kRecalMs), 0)}};
  return m;
}

}  // namespace accuracy
