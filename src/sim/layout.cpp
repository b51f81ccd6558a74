#include "sim/layout.hpp"

#include <algorithm>
#include <cmath>

namespace ds::sim {

namespace {

// Skew sectors just covering a switch of t ns on a zone whose sector lasts sector_ns.
std::uint32_t cover(std::int64_t t, double sector_ns) {
  if (t <= 0) return 0;
  return static_cast<std::uint32_t>(std::ceil(static_cast<double>(t) / sector_ns - 1e-9));
}

// Stream units a switch really costs: the skew, plus whole revolutions while the switch is
// slower than the skew (the next track's first sector has then just gone by).
std::uint64_t effective(std::uint32_t skew, std::uint32_t spt, std::int64_t switch_ns, std::int64_t rot_ns) {
  std::uint64_t units = skew;
  // skew·rot/spt < switch  ⇔  skew·rot < switch·spt
  while (static_cast<unsigned __int128>(units) * rot_ns <
         static_cast<unsigned __int128>(switch_ns) * spt)
    units += spt;
  return units;
}

}  // namespace

Expected<Layout> Layout::build(const DiskModel& m, std::int64_t head_switch_ns, std::int64_t seek1_worst_ns) {
  Layout l;
  l.heads_ = m.surfaces;
  l.rot_ns_ = std::llround(60e9 / m.rpm);
  l.capacity_ = m.capacity();
  if (l.capacity_ == 0) return make_error("zones: hold no sectors");
  std::uint64_t lba = 0;
  std::uint32_t cyl = 0;
  for (std::size_t i = 0; i < m.zones.size() && lba < l.capacity_; ++i) {
    const Zone& z = m.zones[i];
    ZoneGeometry g;
    g.first_lba = lba;
    g.first_cyl = cyl;
    g.spt = z.sectors_per_track;
    const std::uint64_t per_cyl = std::uint64_t{m.surfaces} * z.sectors_per_track;
    const std::uint64_t zone_end = lba + per_cyl * z.cylinders;
    g.end_lba = std::min(zone_end, l.capacity_);
    // Cylinders actually holding user data (the capacity cut drops the rest).
    g.cylinders = static_cast<std::uint32_t>((g.end_lba - lba + per_cyl - 1) / per_cyl);
    const double sector_ns = static_cast<double>(l.rot_ns_) / g.spt;
    g.track_skew = z.track_skew_sectors ? *z.track_skew_sectors
                   : m.track_skew_sectors ? *m.track_skew_sectors
                                          : cover(head_switch_ns, sector_ns);
    g.cylinder_skew = z.cylinder_skew_sectors ? *z.cylinder_skew_sectors
                      : m.cylinder_skew_sectors ? *m.cylinder_skew_sectors
                                                : cover(std::max(seek1_worst_ns, head_switch_ns), sector_ns);
    l.zones_.push_back(g);
    lba = g.end_lba;
    cyl += g.cylinders;
  }
  l.cylinders_ = cyl;
  return l;
}

void Layout::set_switch_times(std::int64_t head_switch_ns, std::int64_t cylinder_switch_ns) {
  std::int64_t s = 0;
  for (std::size_t i = 0; i < zones_.size(); ++i) {
    ZoneGeometry& g = zones_[i];
    g.track_units = g.spt + effective(g.track_skew, g.spt, head_switch_ns, rot_ns_);
    const std::uint64_t cyl_switch = effective(g.cylinder_skew, g.spt, cylinder_switch_ns, rot_ns_);
    g.cylinder_units = (heads_ - 1) * g.track_units + g.spt + cyl_switch;
    if (i == 0) {
      g.s0_ns = 0;
    } else {
      // Crossing into a new zone is a cylinder switch with the new zone's skew.
      const ZoneGeometry& p = zones_[i - 1];
      const std::uint64_t tracks = (p.end_lba - p.first_lba + p.spt - 1) / p.spt;  // ≥ 1
      const std::uint64_t last_track = tracks - 1;
      const std::uint64_t units_end =
          (last_track / heads_) * p.cylinder_units + (last_track % heads_) * p.track_units + p.spt;
      s = p.s0_ns + units_to_ns(units_end, p.spt);
      g.s0_ns = s + units_to_ns(cyl_switch, g.spt);
    }
  }
}

std::uint32_t Layout::zone_of(std::uint64_t lba) const {
  auto it = std::upper_bound(zones_.begin(), zones_.end(), lba,
                             [](std::uint64_t x, const ZoneGeometry& g) { return x < g.first_lba; });
  return static_cast<std::uint32_t>((it - zones_.begin()) - 1);
}

Chs Layout::locate(std::uint64_t lba) const {
  if (lba >= capacity_) lba = capacity_ - 1;
  const std::uint32_t z = zone_of(lba);
  const ZoneGeometry& g = zones_[z];
  const std::uint64_t local = lba - g.first_lba;
  const std::uint64_t track = local / g.spt;
  Chs c;
  c.zone = z;
  c.sector = static_cast<std::uint32_t>(local - track * g.spt);
  c.cyl = g.first_cyl + static_cast<std::uint32_t>(track / heads_);
  c.head = static_cast<std::uint32_t>(track % heads_);
  return c;
}

std::int64_t Layout::stream_ns(std::uint64_t lba) const {
  if (lba >= capacity_) {
    const ZoneGeometry& g = zones_.back();
    const std::uint64_t local = capacity_ - 1 - g.first_lba, track = local / g.spt;
    const std::uint64_t u = (track / heads_) * g.cylinder_units + (track % heads_) * g.track_units +
                            (local - track * g.spt) + 1;
    return g.s0_ns + units_to_ns(u, g.spt);
  }
  const ZoneGeometry& g = zones_[zone_of(lba)];
  const std::uint64_t local = lba - g.first_lba, track = local / g.spt;
  const std::uint64_t u = (track / heads_) * g.cylinder_units + (track % heads_) * g.track_units +
                          (local - track * g.spt);
  return g.s0_ns + units_to_ns(u, g.spt);
}

std::uint64_t Layout::lba_at_stream_ns(std::int64_t s) const {
  if (s <= 0) return 0;
  auto it = std::upper_bound(zones_.begin(), zones_.end(), s,
                             [](std::int64_t x, const ZoneGeometry& g) { return x < g.s0_ns; });
  const ZoneGeometry& g = *(it - 1);
  const std::uint64_t units = static_cast<std::uint64_t>(
      (static_cast<unsigned __int128>(s - g.s0_ns) * g.spt) / static_cast<std::uint64_t>(rot_ns_));
  std::uint64_t cyl = units / g.cylinder_units;
  const std::uint64_t rem = units - cyl * g.cylinder_units;
  std::uint64_t head = std::min<std::uint64_t>(rem / g.track_units, heads_ - 1);
  std::uint64_t sec = rem - head * g.track_units;
  if (sec >= g.spt) {  // in a skew gap: about to read the next track's first sector
    sec = 0;
    if (++head == heads_) {
      head = 0;
      ++cyl;
    }
  }
  const std::uint64_t lba = g.first_lba + (cyl * heads_ + head) * g.spt + sec;
  return std::min(lba, g.end_lba);  // end_lba: the next zone's first sector (or capacity)
}

}  // namespace ds::sim
