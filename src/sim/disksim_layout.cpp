// DiskSim's layout (dm_layout_g1 and its zones in a drive's .model) to the model's zones and
// format /2's layout keys: the rules "zones", "spares", "track sparing", "spares per cylinder"
// and "zone angles" of docs/disk-model.md, "Importing DiskSim's parameters". DiskSim 4.0's
// layout_g1.c is where each rule's behaviour is taken from.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "sim/disksim_reader.hpp"

namespace ds::sim::disksim::detail {

namespace {

// Rule: spares. DiskSim's sparing scheme 3 keeps the last `Number of spares` sectors of every
// track free (layout_g1.c, g1_ltop_sectpertrackspare: a track holds Blocks per track − spares
// LBAs, and the spare sectors pass under the head like any other). With the same count in every
// zone that is format /2's spares.per_track; the result, or 0 where the layout has no such
// spares (other schemes are dropped: the capacity is Block count).
std::uint32_t per_track_spares(const Params& layout, const std::vector<Value>& zones) {
  const Param* scheme = layout.raw().find("Sparing scheme used");
  if (!scheme || scheme->value.kind != Value::Kind::number || scheme->value.number != 3) return 0;
  double n = -1;
  for (const auto& item : zones) {
    const Param* p = item.kind == Value::Kind::block ? item.block->find("Number of spares") : nullptr;
    const Param* spt = item.kind == Value::Kind::block ? item.block->find("Blocks per track") : nullptr;
    if (!p || p->value.kind != Value::Kind::number || (n >= 0 && p->value.number != n)) return 0;
    if (!spt || spt->value.kind != Value::Kind::number || p->value.number >= spt->value.number) return 0;
    n = p->value.number;
  }
  return n > 0 && n == std::floor(n) ? static_cast<std::uint32_t>(n) : 0;
}

// DiskSim's sparing scheme number, or -1 where the layout has none that is a number.
int sparing_scheme(const Params& layout) {
  const Param* p = layout.raw().find("Sparing scheme used");
  if (!p || p->value.kind != Value::Kind::number || p->value.number != std::floor(p->value.number)) return -1;
  return static_cast<int>(p->value.number);
}

// A zone's list of whole non-negative numbers (`slips`, `defects`), or nothing where the
// parameter is not such a list.
std::optional<std::vector<std::int64_t>> whole_list(const Block& zone, std::string_view name) {
  const Param* p = zone.find(name);
  if (!p) return std::vector<std::int64_t>{};
  if (p->value.kind != Value::Kind::list) return std::nullopt;
  std::vector<std::int64_t> out;
  for (const auto& v : p->value.items) {
    if (v.kind != Value::Kind::number || v.number < 0 || v.number != std::floor(v.number) || v.number > 1e12)
      return std::nullopt;
    out.push_back(static_cast<std::int64_t>(v.number));
  }
  return out;
}

// Rule: track sparing (DiskSim's sparing scheme 1; layout_g1.c, g1_ltop_trackspare and
// dm_layout_g1_compute_blksinband). A zone's LBAs start `Empty space at zone front` sectors in;
// its track number (counted from the zone's first track, front included) moves one track on for
// each of its `slips` at or below it, taken in the list's order; the zone holds `Number of
// spares` tracks fewer than it has. The model's zones[i].track_sparing says the same with the
// physical tracks that no LBA lands on (before the last that holds one) as slipped_tracks: they
// are the slips themselves for a sorted list, computed here from DiskSim's rule for any other.
// Nothing when the zone's values cannot be said so (`why` says why).
std::optional<TrackSparing> track_sparing(const Block& zone, double cylinders, std::uint32_t surfaces, double spt,
                                          std::string& why) {
  auto num = [&](std::string_view n) -> std::optional<double> {
    const Param* p = zone.find(n);
    if (!p) return 0.0;
    if (p->value.kind != Value::Kind::number || p->value.number < 0 || p->value.number != std::floor(p->value.number))
      return std::nullopt;
    return p->value.number;
  };
  const auto front = num("Empty space at zone front");
  const auto spares = num("Number of spares");
  const auto slips = whole_list(zone, "slips");
  const double tracks = cylinders * surfaces;
  if (!slips) {
    why = "its slips are not a list of whole numbers";
    return std::nullopt;
  }
  if (!front || !spares || *spares > tracks || *front + *spares * spt >= tracks * spt) {
    why = "its empty front or spares are not whole numbers the zone holds";
    return std::nullopt;
  }
  // The tracks logical track t (0 .. tracks − spares − 1) lands on, by DiskSim's rule.
  const auto used = static_cast<std::int64_t>(tracks - *spares);
  std::vector<bool> hit(static_cast<std::size_t>(tracks), false);
  std::int64_t last = -1;
  for (std::int64_t t = 0; t < used; ++t) {
    std::int64_t p = t;
    for (std::int64_t s : *slips)
      if (s <= p) ++p;
    if (p >= static_cast<std::int64_t>(tracks)) {
      why = "its slips push LBAs beyond the zone";
      return std::nullopt;
    }
    hit[static_cast<std::size_t>(p)] = true;
    last = std::max(last, p);
  }
  TrackSparing ts;
  ts.front_sectors = static_cast<std::uint64_t>(*front);
  ts.spare_tracks = static_cast<std::uint32_t>(*spares);
  const auto first_lba_track = static_cast<std::int64_t>(*front / spt);
  for (std::int64_t p = 0; p < last; ++p)
    if (!hit[static_cast<std::size_t>(p)]) {
      if (p < first_lba_track) {
        // A slip inside the empty front pushes the front on: the model's front has no such slip.
        why = "a slip inside the empty front";
        return std::nullopt;
      }
      ts.slipped_tracks.push_back(static_cast<std::uint32_t>(p));
    }
  if (ts.slipped_tracks.size() > ts.spare_tracks) {
    why = "more slips than spares";
    return std::nullopt;
  }
  return ts;
}

// Rule: zone angles. DiskSim starts each zone's sectors at its `Offset of first block`
// (dm_layout_g1_zone's loader: (int) offset × the sector width, in sectors as the skews;
// layout_g1.c, g1_map_pbn_skew starts the zone's angles there), which is the model's
// zones[i].first_sector_offset. Kept for sparing schemes 1 and 2 only, whose LBAs the model puts
// where DiskSim has them (with the angles alone the other schemes' models move away from DiskSim,
// docs/validation.md); nothing where the offset is not below the zone's sectors per track.
std::optional<std::uint32_t> first_sector_offset(const Block& zone, double spt) {
  const Param* p = zone.find("Offset of first block");
  if (!p || p->value.kind != Value::Kind::number || !(p->value.number >= 0)) return std::nullopt;
  const double n = std::trunc(p->value.number);
  if (n >= spt) return std::nullopt;
  return static_cast<std::uint32_t>(n);
}

// Rule: spares per cylinder. DiskSim's sparing scheme 2 keeps the last `Number of spares`
// sectors of every cylinder free (layout_g1.c, g1_ltop_sectpercylspare), which is format /2's
// spares.per_cylinder; only with the same count in every zone, below a cylinder's sectors, and no
// empty zone front (the model has none for this scheme). 0 otherwise.
std::uint32_t per_cylinder_spares(const std::vector<Value>& zones, std::uint32_t surfaces) {
  double n = -1;
  for (const auto& item : zones) {
    if (item.kind != Value::Kind::block) return 0;
    const Param* p = item.block->find("Number of spares");
    const Param* spt = item.block->find("Blocks per track");
    const Param* front = item.block->find("Empty space at zone front");
    if (!p || p->value.kind != Value::Kind::number || (n >= 0 && p->value.number != n)) return 0;
    if (!spt || spt->value.kind != Value::Kind::number || p->value.number >= spt->value.number * surfaces) return 0;
    if (front && (front->value.kind != Value::Kind::number || front->value.number != 0)) return 0;
    n = p->value.number;
  }
  return n > 0 && n == std::floor(n) ? static_cast<std::uint32_t>(n) : 0;
}

// What the layout as a whole says about its zones: the sparing scheme and the keys it gives.
struct LayoutRules {
  int scheme = -1;
  bool conventional = true;      // DiskSim's mapping 0: track 0..H-1 of a cylinder, then the next
  std::uint32_t spares = 0;      // per track (scheme 3)
  std::uint32_t cyl_spares = 0;  // per cylinder (scheme 2)
  bool angles = false;           // zone angles kept (schemes 1 and 2)
};

struct ZoneIn {
  double first = 0, last = 0;  // DiskSim's cylinder numbers
  Zone zone;
  std::optional<TrackSparing> sparing;
  std::optional<std::uint32_t> offset;
};

// What the zones left out, said once for all of them.
struct ZoneReport {
  std::set<std::string> dropped, unknown;
  std::map<std::string, std::vector<std::size_t>> not_kept;  // why track sparing is not kept -> zones
  bool fractional_skew = false;
};

// One dm_layout_g1_zone: its cylinders, sectors per track and skews, and the layout keys the
// rules keep for it.
Expected<ZoneIn> read_zone(const Value& item, const LayoutRules& k, std::uint32_t surfaces, std::size_t index,
                           ZoneReport& rep) {
  if (item.kind != Value::Kind::block) return make_error(item.where() + ": a zone must be a block");
  Params z(*item.block, "zone");
  if (k.spares) z.get("Number of spares");
  auto first = z.whole("First cylinder number", 0, 1e7);
  if (!first) return first.error();
  auto last = z.whole("Last cylinder number", *first, 1e7);
  if (!last) return last.error();
  auto spt = z.whole("Blocks per track", 1, 1e6);
  if (!spt) return spt.error();
  auto ts = z.number_or("Skew for track switch", 0);
  if (!ts) return ts.error();
  auto cs = z.number_or("Skew for cylinder switch", 0);
  if (!cs) return cs.error();
  if (*ts < 0 || *cs < 0) return make_error(item.where() + ": a zone's skews must not be negative");
  rep.fractional_skew = rep.fractional_skew || *ts != std::floor(*ts) || *cs != std::floor(*cs);
  ZoneIn zone;
  zone.first = *first;
  zone.last = *last;
  zone.zone.cylinders = static_cast<std::uint32_t>(*last - *first + 1);
  zone.zone.sectors_per_track = static_cast<std::uint32_t>(*spt);
  zone.zone.track_skew_sectors = static_cast<std::uint32_t>(std::lround(*ts));
  zone.zone.cylinder_skew_sectors = static_cast<std::uint32_t>(std::lround(*cs));
  const auto defects = whole_list(*item.block, "defects");
  const bool no_defects = defects && defects->empty();
  if (k.scheme == 1 && k.conventional) {
    std::string why;
    zone.sparing = track_sparing(*item.block, *last - *first + 1, surfaces, *spt, why);
    if (zone.sparing)
      for (auto n : {"Empty space at zone front", "Number of spares", "slips"}) z.get(n);
    else
      rep.not_kept[why].push_back(index);
  }
  if (k.cyl_spares) {
    z.get("Number of spares");
    z.get("Empty space at zone front");
  }
  // An empty defect list says nothing the model lacks; DiskSim's remapped tracks it cannot say.
  if (no_defects && (zone.sparing || k.cyl_spares)) z.get("defects");
  if (k.angles) {
    zone.offset = first_sector_offset(*item.block, *spt);
    if (zone.offset) z.get("Offset of first block");
  }
  ImportResult tmp;
  z.report(tmp);
  for (auto& n : tmp.not_represented) rep.dropped.insert(n);
  for (auto& n : tmp.unknown) rep.unknown.insert(n);
  return zone;
}

// The zones outermost first into the model, with their per-zone layout keys; the cylinders no
// zone maps are counted (rule: zones).
Expected<double> place_zones(std::vector<ZoneIn>& zones, const std::string& where, Params& layout, DiskModel& m) {
  std::stable_sort(zones.begin(), zones.end(), [](const ZoneIn& a, const ZoneIn& b) { return a.first < b.first; });
  double unmapped = zones.front().first;
  bool any_sparing = false, any_offset = false;
  for (std::size_t i = 0; i < zones.size(); ++i) {
    if (i && zones[i].first <= zones[i - 1].last)
      return make_error(where + ": zones overlap at cylinder " + std::to_string(std::lround(zones[i].first)));
    if (i) unmapped += zones[i].first - zones[i - 1].last - 1;
    m.zones.push_back(zones[i].zone);
    any_sparing = any_sparing || zones[i].sparing.has_value();
    any_offset = any_offset || zones[i].offset.has_value();
  }
  if (any_sparing || any_offset) {
    layout.get("Sparing scheme used");
    m.format_version = 2;  // track sparing and zone angles are /2 keys
    for (const auto& z : zones) {
      if (any_sparing) m.layout_spec.track_sparing.push_back(z.sparing);
      if (any_offset) m.layout_spec.first_sector_offset.push_back(z.offset);
    }
  }
  return unmapped;
}

}  // namespace

// The zones of dm_layout_g1: outermost first, their cylinders counted; cylinders between zones
// that no zone maps are dropped (rule: zones). Spares, slips, the empty zone front and the zone
// angles are kept where format /2 can say them as DiskSim lays them out (rules: spares, track
// sparing, spares per cylinder, zone angles), else dropped and named (capacity is Block count).
std::optional<Error> layout_zones(Params& layout, DiskModel& m, ImportResult& r) {
  auto zs = layout.need("Zones");
  if (!zs) return zs.error();
  if ((*zs)->kind != Value::Kind::list || (*zs)->items.empty())
    return make_error((*zs)->where() + ": `Zones` must be a list of dm_layout_g1_zone blocks");
  LayoutRules k;
  k.scheme = sparing_scheme(layout);
  const Param* mapping = layout.raw().find("LBN-to-PBN mapping scheme");
  k.conventional = !mapping || (mapping->value.kind == Value::Kind::number && mapping->value.number == 0);
  k.spares = per_track_spares(layout, (*zs)->items);
  k.cyl_spares = k.scheme == 2 && k.conventional ? per_cylinder_spares((*zs)->items, m.surfaces) : 0;
  k.angles = k.conventional && (k.scheme == 1 || k.scheme == 2);
  if (k.spares || k.cyl_spares) {
    layout.get("Sparing scheme used");
    m.format_version = 2;  // spares are a /2 key
    m.layout_spec.spares_given = true;
    m.layout_spec.spares_per_track = k.spares;
    m.layout_spec.spares_per_cylinder = k.cyl_spares;
  }
  ZoneReport rep;
  std::vector<ZoneIn> zones;
  for (const auto& item : (*zs)->items) {
    auto z = read_zone(item, k, m.surfaces, zones.size(), rep);
    if (!z) return z.error();
    zones.push_back(std::move(*z));
  }
  auto unmapped = place_zones(zones, (*zs)->where(), layout, m);
  if (!unmapped) return unmapped.error();
  for (const auto& [why, which] : rep.not_kept) {
    std::string list;
    for (auto i : which) list += (list.empty() ? "" : ", ") + std::to_string(i);
    r.notes.push_back((which.size() == 1 ? "zone " : "zones ") + list + ": track sparing not kept (" + why + ")");
  }
  for (const auto& n : rep.dropped) r.not_represented.push_back(n + " (every zone)");
  for (const auto& n : rep.unknown) r.unknown.push_back(n);
  if (*unmapped > 0)
    r.notes.push_back(std::to_string(std::lround(*unmapped)) + " cylinders no zone maps are left out of the zones");
  if (rep.fractional_skew) r.notes.push_back("fractional zone skews are rounded to whole sectors");
  return std::nullopt;
}

}  // namespace ds::sim::disksim::detail
