// Ground truth from a model file and the format spec alone; every reading of the spec that the
// spec leaves open is listed in docs/accuracy.md ("Ground truth").
#include "truth.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>

#include "model.hpp"
#include "seek.hpp"

namespace truth {
namespace {

using detail::Model;
using detail::Run;
using detail::SeekFn;

constexpr double kHostSigma = 0.5;        // lognormal σ of the host latency (spec)
constexpr double kBytesPerMbMs = 1000.0;  // bytes per ms in one MB/s (MB = 10^6 bytes)

// One pass over every track in LBA order: the LBAs each physical cylinder and zone hold and the
// summed media time of one sector over all LBAs.
struct Walk {
  std::vector<double> cyl_lbas;         // per physical cylinder
  std::vector<std::vector<double>> range_cyl_lbas;  // the same per positioning range (when asked)
  std::vector<std::uint64_t> zone_lbas;
  long double sector_ms_sum = 0;
  std::uint64_t capacity = 0;
};

struct Walker {
  const Model& m;
  double rot_ms;
  Walk w;
  std::uint64_t phys = 0;  // physical sector number: every sector of every track, in fill order
  std::uint64_t cap = std::numeric_limits<std::uint64_t>::max();
  std::vector<std::uint64_t> range_ends;  // positioning ranges' ends (LBAs, ascending); empty: none

  // LBAs [w.capacity, w.capacity + n) of cylinder cyl, shared out among the ranges they fall in.
  void add_to_ranges(std::uint64_t cyl, std::uint64_t n) {
    std::uint64_t lba = w.capacity, left = n;
    for (std::size_t k = 0; k < range_ends.size() && left > 0; ++k) {
      if (lba >= range_ends[k]) continue;
      const std::uint64_t here = std::min(left, range_ends[k] - lba);
      w.range_cyl_lbas[k][cyl] += static_cast<double>(here);
      lba += here;
      left -= here;
    }
  }

  void track(std::size_t zone, std::uint64_t cyl, unsigned surface) {
    const auto& z = m.zones[zone];
    const std::uint32_t spt = z.spt[surface];
    std::int64_t user = static_cast<std::int64_t>(spt) - m.spares_per_track;
    if (surface + 1 == m.surfaces) user -= m.spares_per_cylinder;  // the cylinder's last track
    const std::uint64_t first = phys;
    phys += spt;
    if (user <= 0) return;
    // A slipped sector among the track's user sectors takes one LBA away (one on a spare: none).
    const auto lo = std::lower_bound(m.slipped.begin(), m.slipped.end(), first);
    const auto hi = std::lower_bound(m.slipped.begin(), m.slipped.end(), first + static_cast<std::uint64_t>(user));
    std::uint64_t lbas = static_cast<std::uint64_t>(user) - static_cast<std::uint64_t>(hi - lo);
    lbas = std::min(lbas, cap - w.capacity);
    if (!range_ends.empty()) add_to_ranges(cyl, lbas);
    w.capacity += lbas;
    w.cyl_lbas[cyl] += static_cast<double>(lbas);
    w.zone_lbas[zone] += lbas;
    w.sector_ms_sum += static_cast<long double>(lbas) * rot_ms / spt;
  }

  // Serpentine: within a band each surface is filled across the whole band, the first surface
  // travelling outward (from the band's inner edge), the next inward, and so on.
  void zone_serpentine(std::size_t zi, std::uint64_t c0) {
    const std::uint64_t n = m.zones[zi].cylinders;
    for (std::uint64_t b0 = 0; b0 < n; b0 += m.band_cylinders) {
      const std::uint64_t band = std::min<std::uint64_t>(m.band_cylinders, n - b0);
      for (unsigned s = 0; s < m.surfaces; ++s)
        for (std::uint64_t i = 0; i < band; ++i) track(zi, c0 + b0 + (s % 2 == 0 ? band - 1 - i : i), s);
    }
  }

  Walk run() {
    std::uint64_t cylinders = 0;
    for (const auto& z : m.zones) cylinders += z.cylinders;
    w.cyl_lbas.assign(cylinders, 0.0);
    w.range_cyl_lbas.assign(range_ends.size(), std::vector<double>(cylinders, 0.0));
    w.zone_lbas.assign(m.zones.size(), 0);
    if (m.capacity_sectors) cap = *m.capacity_sectors;
    std::uint64_t c0 = 0;
    for (std::size_t zi = 0; zi < m.zones.size(); ++zi) {
      if (m.serpentine) zone_serpentine(zi, c0);
      else
        for (std::uint64_t c = 0; c < m.zones[zi].cylinders; ++c)
          for (unsigned s = 0; s < m.surfaces; ++s) track(zi, c0 + c, s);
      c0 += m.zones[zi].cylinders;
    }
    return std::move(w);
  }
};

// Time a switch costs while streaming: its skew (given, or just enough sectors to cover
// `cover_time`, the slowest that kind of switch may be), plus whole revolutions while the skew is
// shorter than the switch.
double switch_ms(std::optional<double> skew_sectors, std::uint32_t spt_next, double switch_time, double rot,
                 double cover_time) {
  const double sector = rot / spt_next;
  const double skew = skew_sectors ? *skew_sectors * sector : std::ceil(cover_time / sector - 1e-9) * sector;
  if (skew >= switch_time) return skew;
  return skew + std::ceil((switch_time - skew) / rot - 1e-9) * rot;
}

struct Rates {
  double media = 0, sequential = 0, bytes_per_track = 0;
  double stream = 0;  // sequential before the bus: the pace the head reads a long run at
};

// The rate blocks cross to the host at: the slowest of the interface rate, the bus's block time
// and the bulk sector time (docs/disk-model.md, "bus"); the interface rate alone without them.
double host_block_ms(const Model& m) {
  return std::max({m.sector_bytes / (m.interface_mb_s * kBytesPerMbMs), m.bus_block_ms, m.bulk_sector_ms});
}
double host_rate_mb_s(const Model& m) { return m.sector_bytes / host_block_ms(m) / kBytesPerMbMs; }

// The controller's share of a random read: the read-miss overhead after a read and the read
// completion where the model has DiskSim's overheads (command_overhead_ms otherwise); with a bus,
// the reconnection (reselect, data preparation) and the block's crossing after the head read it.
double random_read_controller_ms(const Model& m) {
  double ms = m.miss_overhead_ms.value_or(m.overhead_ms);
  if (m.has_bus) ms += m.reconnect_ms + host_block_ms(m);
  return ms;
}

Rates zone_rates(const Model& m, const detail::Zone& z, const SeekFn& seek, double rot) {
  const unsigned H = m.surfaces;
  const auto track_skew = z.track_skew ? z.track_skew : m.track_skew;
  const auto cyl_skew = z.cylinder_skew ? z.cylinder_skew : m.cylinder_skew;
  double spt_mean = 0;
  for (auto s : z.spt) spt_mean += static_cast<double>(s) / H;
  const double user_per_cyl = H * (spt_mean - m.spares_per_track) - m.spares_per_cylinder;
  double user = user_per_cyl, ms = H * rot;  // every physical sector passes: one turn per track
  // Derived skews cover the slowest switch (docs/disk-model.md): a head switch at the jitter's
  // bound; a cylinder switch as the slower of that and the 1-cylinder seek at the quietest AAM
  // level and the jitter's bound.
  const double track_cover = m.head_switch_ms * m.jitter_cover;
  const double cyl_cover = std::max(seek.ms(1) * m.quiet_cover * m.jitter_cover, track_cover);
  for (unsigned s = 1; s < H; ++s) ms += switch_ms(track_skew, z.spt[s], m.head_switch_ms, rot, track_cover);
  if (!m.serpentine) {
    ms += switch_ms(cyl_skew, z.spt[0], std::max(seek.ms(1), m.head_switch_ms), rot, cyl_cover);
  } else {
    // Per band: one 1-cylinder seek per track move along a surface, a head switch per surface
    // change, and the seek to the next band's first track (the head switch overlapping it).
    const std::uint32_t band = std::min(m.band_cylinders, z.cylinders);
    ms = H * band * rot + (ms - H * rot);
    for (unsigned s = 0; s < H; ++s) ms += (band - 1) * switch_ms(cyl_skew, z.spt[s], seek.ms(1), rot, cyl_cover);
    const double to_next = H % 2 == 0 ? band : 2.0 * band - 1;
    ms += switch_ms(cyl_skew, z.spt[0], std::max(seek.ms(to_next), m.head_switch_ms), rot, cyl_cover);
    user = band * user_per_cyl;
  }
  Rates r;
  const double host = host_rate_mb_s(m);
  r.media = std::min(host, spt_mean * m.sector_bytes / rot / kBytesPerMbMs);
  r.stream = user * m.sector_bytes / ms / kBytesPerMbMs;
  r.sequential = std::min(host, r.stream);
  r.bytes_per_track = (spt_mean - m.spares_per_track) * m.sector_bytes;
  return r;
}

std::vector<Run> runs_of(const std::vector<double>& w, std::uint64_t n) {
  std::vector<Run> runs;
  for (std::uint64_t c = 0; c < n; ++c) {
    if (!runs.empty() && runs.back().weight == w[c]) ++runs.back().count;
    else runs.push_back({c, 1, w[c]});
  }
  return runs;
}

// What the host and the drive's own pauses add to a random read on average (spec, /2).
double host_and_pauses_ms(const Model& m, std::uint64_t capacity) {
  double ms = m.host_latency_us * 1e-3 * std::exp(kHostSigma * kHostSigma / 2);
  ms += m.stall_probability * m.stall_ms;
  for (const auto& r : m.remapped)
    if (r.lba < capacity) ms += r.extra_ms / static_cast<double>(capacity);
  // A read arriving at a random time meets a recalibration with probability duration/period
  // and then waits half of it on average.
  if (m.recal_every_s > 0) ms += m.recal_ms * m.recal_ms / (2 * m.recal_every_s * 1000);
  return ms;
}

// The positioning ranges of a model with "actuators" over its capacity (none with one positioner).
std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges_of(const Model& m, std::uint64_t capacity) {
  if (!m.actuator_ranges.empty()) return m.actuator_ranges.size() > 1 ? m.actuator_ranges : decltype(m.actuator_ranges){};
  std::vector<std::pair<std::uint64_t, std::uint64_t>> out;
  const std::uint64_t n = m.actuator_count;
  if (n < 2) return out;
  for (std::uint64_t i = 0; i < n; ++i)
    out.emplace_back(i * (capacity / n), i + 1 == n ? capacity - i * (capacity / n) : capacity / n);
  return out;
}

// Seek truths with a positioner per range: at depth 1 a read's seek starts where the last read of
// its range left that range's head, an independent random LBA of the same range; so the random-LBA
// average is each range's own, weighted by its LBAs. The full stroke is the largest range's (the
// access test strokes inside it); the uniform average is weighted like the random one.
void range_seeks(const Walk& w, const SeekFn& seek,
                 const std::vector<std::pair<std::uint64_t, std::uint64_t>>& ranges, Truth& t) {
  t.avg_seek_random_lba_ms = t.avg_seek_ms = 0;
  std::uint64_t largest = 0;
  for (std::size_t k = 0; k < ranges.size(); ++k) {
    const auto& cyl = w.range_cyl_lbas[k];
    std::uint64_t lo = 0, hi = cyl.size();
    while (lo < hi && cyl[lo] == 0) ++lo;
    while (hi > lo && cyl[hi - 1] == 0) --hi;
    RangeTruth r{ranges[k].first, ranges[k].second, 0, 0};
    if (hi > lo) {
      r.full_stroke_ms = seek.ms(static_cast<double>(hi - 1 - lo));
      r.avg_seek_random_lba_ms = detail::mean_seek(runs_of(cyl, hi), seek);
      const double share = static_cast<double>(r.lba_count) / static_cast<double>(w.capacity);
      t.avg_seek_random_lba_ms += share * r.avg_seek_random_lba_ms;
      t.avg_seek_ms += share * detail::mean_seek({{lo, hi - lo, 1.0}}, seek);
    }
    if (r.lba_count > largest) largest = r.lba_count, t.full_stroke_ms = r.full_stroke_ms;
    t.positioning_ranges.push_back(r);
  }
}

Truth assemble(const Model& m) {
  Truth t;
  t.name = m.name;
  t.rpm_nominal = m.rpm;
  t.rpm = m.rpm_actual;
  t.rotation_ms = 60000.0 / m.rpm_actual;
  t.surfaces = m.surfaces;
  t.serpentine = m.serpentine;
  t.platters = m.platters;
  t.sector_bytes = m.sector_bytes;
  t.cache_bytes = m.cache_bytes;
  t.interface_mb_s = host_rate_mb_s(m);
  t.reorders = m.reorders;
  Walk w = Walker{m, t.rotation_ms, {}}.run();
  const auto ranges = ranges_of(m, w.capacity);
  if (!ranges.empty()) {
    // Again, now that the capacity is known, with the LBAs of each range counted apart.
    Walker again{m, t.rotation_ms, {}};
    for (const auto& [first, count] : ranges) again.range_ends.push_back(first + count);
    w = again.run();
  }
  t.capacity = w.capacity;
  const SeekFn seek(m, w.cyl_lbas.size());
  std::uint64_t first = 0;
  for (std::size_t i = 0; i < m.zones.size(); ++i) {
    if (w.zone_lbas[i] == 0) continue;
    const Rates r = zone_rates(m, m.zones[i], seek, t.rotation_ms);
    t.zones.push_back({first, w.zone_lbas[i], r.bytes_per_track, r.media, r.sequential, r.stream});
    first += w.zone_lbas[i];
  }
  if (t.zones.empty()) return t;
  double stream_ms = 0;  // Σ sectors / pace: the time to stream every user sector
  for (const auto& z : t.zones) stream_ms += static_cast<double>(z.sectors) * m.sector_bytes / z.stream_mb_s;
  t.read_ahead_mb_s = static_cast<double>(t.capacity) * m.sector_bytes / stream_ms;
  t.outer_sequential_mb_s = t.zones.front().sequential_mb_s;
  t.inner_sequential_mb_s = t.zones.back().sequential_mb_s;
  t.outer_inner_ratio_sequential = t.outer_sequential_mb_s / t.inner_sequential_mb_s;
  t.outer_inner_ratio_media = t.zones.front().media_mb_s / t.zones.back().media_mb_s;
  t.bytes_per_track = t.zones.front().bytes_per_track;
  t.bytes_per_platter = static_cast<double>(t.capacity) * m.sector_bytes / m.platters;
  std::uint64_t used = w.cyl_lbas.size();
  while (used > 0 && w.cyl_lbas[used - 1] == 0) --used;
  // Track to track as the spec and datasheets mean it: the one-cylinder seek. (A move on the same
  // head costs it alone; the head switch matters only where the head changes.)
  t.track_to_track_ms = seek.ms(1);
  t.full_stroke_ms = seek.ms(static_cast<double>(used - 1));
  t.avg_seek_ms = detail::mean_seek({{0, used, 1.0}}, seek);
  t.avg_seek_random_lba_ms = detail::mean_seek(runs_of(w.cyl_lbas, used), seek);
  if (!ranges.empty()) range_seeks(w, seek, ranges, t);
  const double cap = static_cast<double>(t.capacity);
  double access = t.avg_seek_random_lba_ms + t.rotation_ms / 2 + random_read_controller_ms(m) +
                  static_cast<double>(w.sector_ms_sum / static_cast<long double>(cap));
  for (const auto& d : m.defects) {
    const std::uint64_t end = std::min(t.capacity, d.first + d.sectors);
    if (d.first < end) access += static_cast<double>(end - d.first) / cap * d.extra_ms;
    t.defects.push_back({d.first, d.sectors, d.extra_ms});
  }
  for (const auto& r : m.remapped) t.remapped.push_back({r.lba, r.extra_ms});
  t.mean_random_read_access_ms = access + host_and_pauses_ms(m, t.capacity);
  return t;
}

double round_to(double v, int places) {
  const double f = std::pow(10.0, places);
  return std::round(v * f) / f;
}

}  // namespace

ds::Expected<Truth> compute(const nlohmann::json& model) {
  auto m = detail::parse(model);
  if (!m) return m.error();
  Truth t = assemble(*m);
  if (t.zones.empty()) return ds::make_error("the model holds no user capacity");
  return t;
}

ds::Expected<Truth> compute_file(const std::string& path) {
  std::ifstream f(path);
  if (!f) return ds::make_error(path + ": cannot open");
  auto j = nlohmann::json::parse(f, nullptr, false);
  if (j.is_discarded()) return ds::make_error(path + ": not valid JSON");
  auto t = compute(j);
  if (!t) return ds::make_error(path + ": " + t.error().message);
  return t;
}

nlohmann::json to_json(const Truth& t) {
  nlohmann::json j;
  j["rotation_ms"] = round_to(t.rotation_ms, 4);
  j["rpm"] = round_to(t.rpm, 3);
  j["rpm_actual"] = round_to(t.rpm, 3);
  j["rpm_nominal"] = t.rpm_nominal;
  j["zones"] = nlohmann::json::array();
  for (const auto& z : t.zones)
    j["zones"].push_back({{"media_mb_s", round_to(z.media_mb_s, 3)},
                          {"sequential_mb_s", round_to(z.sequential_mb_s, 3)},
                          {"bytes_per_track", round_to(z.bytes_per_track, 1)},
                          {"sectors", z.sectors},
                          {"first_lba", z.first_lba}});
  j["outer_sequential_mb_s"] = round_to(t.outer_sequential_mb_s, 3);
  j["inner_sequential_mb_s"] = round_to(t.inner_sequential_mb_s, 3);
  j["outer_inner_ratio_sequential"] = round_to(t.outer_inner_ratio_sequential, 4);
  j["outer_inner_ratio_media"] = round_to(t.outer_inner_ratio_media, 4);
  j["surfaces"] = t.surfaces;
  j["platters"] = t.platters;
  j["capacity"] = t.capacity;
  j["bytes_per_platter"] = std::floor(t.bytes_per_platter);
  j["bytes_per_track"] = round_to(t.bytes_per_track, 1);
  j["avg_seek_ms"] = round_to(t.avg_seek_ms, 3);
  j["avg_seek_random_lba_ms"] = round_to(t.avg_seek_random_lba_ms, 3);
  j["track_to_track_ms"] = round_to(t.track_to_track_ms, 3);
  j["full_stroke_ms"] = round_to(t.full_stroke_ms, 3);
  j["mean_random_read_access_ms"] = round_to(t.mean_random_read_access_ms, 3);
  j["reorders"] = t.reorders;
  j["cache_bytes"] = t.cache_bytes;
  j["interface_mb_s"] = t.interface_mb_s;
  j["defects"] = nlohmann::json::array();
  for (const auto& d : t.defects)
    j["defects"].push_back({{"first_lba", d.first_lba}, {"sectors", d.sectors}, {"extra_ms", d.extra_ms}});
  j["positioning_ranges"] = nlohmann::json::array();
  for (const auto& r : t.positioning_ranges)
    j["positioning_ranges"].push_back({{"first_lba", r.first_lba},
                                       {"lba_count", r.lba_count},
                                       {"full_stroke_ms", round_to(r.full_stroke_ms, 3)},
                                       {"avg_seek_random_lba_ms", round_to(r.avg_seek_random_lba_ms, 3)}});
  j["remapped"] = nlohmann::json::array();
  for (const auto& r : t.remapped) j["remapped"].push_back({{"lba", r.lba}, {"extra_ms", r.extra_ms}});
  return j;
}

}  // namespace truth
