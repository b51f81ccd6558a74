// The layout keys of format drivescope-disk-model/2 (sim/layout_spec.hpp): per-surface sectors per
// track, the surface-serpentine layout, spares and slipped sectors. Kept apart from
// model_json.cpp, which calls parse_layout_keys() once the zones are read and
// layout_keys_to_json() when writing. Errors name the field, as there.
#include <nlohmann/json.hpp>
#include <string>

#include "sim/layout.hpp"
#include "sim/model.hpp"

namespace ds::sim {

using nlohmann::json;

namespace {

constexpr std::uint64_t kMaxSpt = 1'000'000;
constexpr std::uint64_t kMaxCylinders = 10'000'000;
constexpr std::string_view kCylinder = "cylinder";
constexpr std::string_view kSerpentine = "surface_serpentine";

// A JSON number holding a whole non-negative value (9.0 counts), else nothing.
std::optional<std::uint64_t> whole(const json& v) {
  if (v.is_number_unsigned()) return v.get<std::uint64_t>();
  if (v.is_number_float()) {
    const double d = v.get<double>();
    if (d >= 0 && d <= 9.0e18 && d == static_cast<double>(static_cast<std::uint64_t>(d)))
      return static_cast<std::uint64_t>(d);
  }
  return std::nullopt;
}

Error field_error(const std::string& field, const std::string& what) { return make_error(field + ": " + what); }

// zones[i].sectors_per_track given as a list: one entry per surface.
std::optional<Error> parse_spt_lists(const json& doc, DiskModel& m) {
  const json& zs = doc.at("zones");
  for (std::size_t i = 0; i < zs.size() && i < m.zones.size(); ++i) {
    auto it = zs[i].find("sectors_per_track");
    if (it == zs[i].end() || !it->is_array()) continue;
    const std::string path = "zones[" + std::to_string(i) + "].sectors_per_track";
    if (it->size() != m.surfaces)
      return field_error(path, "needs one entry per surface (" + std::to_string(m.surfaces) + ")");
    std::vector<std::uint32_t> spt;
    for (std::size_t h = 0; h < it->size(); ++h) {
      const auto v = whole((*it)[h]);
      if (!v || *v == 0 || *v > kMaxSpt)
        return field_error(path + "[" + std::to_string(h) + "]", "must be a positive integer of at most " + std::to_string(kMaxSpt));
      spt.push_back(static_cast<std::uint32_t>(*v));
    }
    m.zones[i].sectors_per_track = spt[0];
    m.zones[i].spt_per_surface = std::move(spt);
  }
  return std::nullopt;
}

std::optional<Error> parse_spares(const json& doc, LayoutSpec& ls) {
  auto it = doc.find("spares");
  if (it == doc.end() || it->is_null()) return std::nullopt;
  if (!it->is_object()) return field_error("spares", "must be an object");
  ls.spares_given = true;
  for (auto [key, dst] : {std::pair{"per_track", &ls.spares_per_track}, std::pair{"per_cylinder", &ls.spares_per_cylinder}}) {
    auto v = it->find(key);
    if (v == it->end() || v->is_null()) continue;
    const auto n = whole(*v);
    if (!n || *n > kMaxSpt) return field_error(std::string("spares.") + key, "must be a non-negative integer");
    *dst = static_cast<std::uint32_t>(*n);
  }
  return std::nullopt;
}

std::optional<Error> parse_slipped(const json& doc, LayoutSpec& ls) {
  auto it = doc.find("slipped");
  if (it == doc.end() || it->is_null()) return std::nullopt;
  if (!it->is_array()) return field_error("slipped", "must be an array of physical sector numbers");
  for (std::size_t k = 0; k < it->size(); ++k) {
    const auto n = whole((*it)[k]);
    if (!n) return field_error("slipped[" + std::to_string(k) + "]", "must be a non-negative integer");
    ls.slipped.push_back(*n);
  }
  return std::nullopt;
}

// zones[i].track_sparing: {"front_sectors": N, "spare_tracks": N, "slipped_tracks": [t, ...]}
// (sim/layout_spec.hpp, TrackSparing).
std::optional<Error> parse_track_sparing(const json& doc, DiskModel& m) {
  const json& zs = doc.at("zones");
  for (std::size_t i = 0; i < zs.size() && i < m.zones.size(); ++i) {
    auto it = zs[i].find("track_sparing");
    if (it == zs[i].end() || it->is_null()) continue;
    const std::string path = "zones[" + std::to_string(i) + "].track_sparing";
    if (!it->is_object()) return field_error(path, "must be an object");
    TrackSparing t;
    const std::uint64_t tracks = std::uint64_t{m.zones[i].cylinders} * m.surfaces;
    if (auto v = it->find("front_sectors"); v != it->end() && !v->is_null()) {
      const auto n = whole(*v);
      if (!n) return field_error(path + ".front_sectors", "must be a non-negative integer");
      t.front_sectors = *n;
    }
    if (auto v = it->find("spare_tracks"); v != it->end() && !v->is_null()) {
      const auto n = whole(*v);
      if (!n || *n > tracks) return field_error(path + ".spare_tracks", "must be a non-negative integer of at most the zone's tracks");
      t.spare_tracks = static_cast<std::uint32_t>(*n);
    }
    if (auto v = it->find("slipped_tracks"); v != it->end() && !v->is_null()) {
      if (!v->is_array()) return field_error(path + ".slipped_tracks", "must be an array of track numbers");
      for (std::size_t k = 0; k < v->size(); ++k) {
        const auto n = whole((*v)[k]);
        const std::string f = path + ".slipped_tracks[" + std::to_string(k) + "]";
        if (!n || *n >= tracks) return field_error(f, "must be a track number of the zone (below " + std::to_string(tracks) + ")");
        if (!t.slipped_tracks.empty() && *n <= t.slipped_tracks.back()) return field_error(f, "must be above the one before");
        t.slipped_tracks.push_back(static_cast<std::uint32_t>(*n));
      }
    }
    if (t.slipped_tracks.size() > t.spare_tracks)
      return field_error(path + ".slipped_tracks", "more slipped tracks than spare_tracks");
    m.layout_spec.track_sparing.resize(m.zones.size());
    m.layout_spec.track_sparing[i] = std::move(t);
  }
  return std::nullopt;
}

// zones[i].first_sector_offset: a whole number of sectors below the zone's sectors per track.
std::optional<Error> parse_first_sector_offsets(const json& doc, DiskModel& m) {
  const json& zs = doc.at("zones");
  for (std::size_t i = 0; i < zs.size() && i < m.zones.size(); ++i) {
    auto it = zs[i].find("first_sector_offset");
    if (it == zs[i].end() || it->is_null()) continue;
    const auto n = whole(*it);
    if (!n || *n >= m.zones[i].sectors_per_track)
      return field_error("zones[" + std::to_string(i) + "].first_sector_offset",
                         "must be a non-negative integer below the zone's sectors_per_track");
    m.layout_spec.first_sector_offset.resize(m.zones.size());
    m.layout_spec.first_sector_offset[i] = static_cast<std::uint32_t>(*n);
  }
  return std::nullopt;
}

std::optional<Error> parse_kind(const json& doc, LayoutSpec& ls) {
  if (auto it = doc.find("layout"); it != doc.end() && !it->is_null()) {
    if (!it->is_string()) return field_error("layout", "must be a string");
    const auto s = it->get<std::string>();
    if (s == kCylinder) ls.kind = LayoutKind::cylinder;
    else if (s == kSerpentine) ls.kind = LayoutKind::surface_serpentine;
    else return field_error("layout", "unknown value \"" + s + "\" (expected \"cylinder\" or \"surface_serpentine\")");
    ls.layout_given = true;
  }
  if (auto it = doc.find("band_cylinders"); it != doc.end() && !it->is_null()) {
    const auto n = whole(*it);
    if (!n || *n == 0 || *n > kMaxCylinders) return field_error("band_cylinders", "must be a positive integer");
    ls.band_cylinders = static_cast<std::uint32_t>(*n);
  } else if (ls.kind == LayoutKind::surface_serpentine) {
    return field_error("band_cylinders", "missing (the surface_serpentine layout needs it)");
  }
  return std::nullopt;
}

bool has_layout_keys(const DiskModel& m) {
  const LayoutSpec& ls = m.layout_spec;
  if (ls.layout_given || ls.spares_given || !ls.slipped.empty() || ls.band_cylinders || !ls.track_sparing.empty() ||
      !ls.first_sector_offset.empty())
    return true;
  for (const auto& z : m.zones)
    if (!z.spt_per_surface.empty()) return true;
  return false;
}

}  // namespace

std::optional<Error> parse_layout_keys(const json& doc, DiskModel& m) {
  if (doc.value("format", std::string()) != kModelFormat2) {
    // A /1 file: these keys are unknown there (ignored), and a list is no sectors_per_track.
    const json& zs = doc.at("zones");
    for (std::size_t i = 0; i < zs.size(); ++i)
      if (auto it = zs[i].find("sectors_per_track"); it != zs[i].end() && it->is_array())
        return field_error("zones[" + std::to_string(i) + "].sectors_per_track", "must be a positive integer");
    return std::nullopt;
  }
  if (auto e = parse_spt_lists(doc, m)) return e;
  if (auto e = parse_kind(doc, m.layout_spec)) return e;
  if (auto e = parse_spares(doc, m.layout_spec)) return e;
  if (auto e = parse_slipped(doc, m.layout_spec)) return e;
  if (auto e = parse_track_sparing(doc, m)) return e;
  if (auto e = parse_first_sector_offsets(doc, m)) return e;
  if (!has_layout_keys(m)) return std::nullopt;
  // What needs the layout itself (spares leaving no user sector, a slipped sector beyond the
  // zones, on a spare or listed twice): switch times play no part in these.
  if (auto l = Layout::build(m, 0, 0); !l) return l.error();
  return std::nullopt;
}

std::uint64_t layout_user_sectors(const DiskModel& m) {
  const LayoutSpec& ls = m.layout_spec;
  std::uint64_t n = 0;
  for (const auto& z : m.zones) {
    std::uint64_t per_cyl = 0;
    for (std::uint32_t h = 0; h < m.surfaces; ++h) {
      const std::uint64_t spt = z.spt_per_surface.empty() ? z.sectors_per_track : z.spt_per_surface[h];
      const std::uint64_t spares = ls.spares_per_track + (h + 1 == m.surfaces ? ls.spares_per_cylinder : 0);
      per_cyl += spt > spares ? spt - spares : 0;
    }
    n += per_cyl * z.cylinders;
  }
  // Track sparing: the front sectors and every spare track, slipped-over or unused, hold no LBA.
  for (std::size_t i = 0; i < ls.track_sparing.size() && i < m.zones.size(); ++i)
    if (const auto& t = ls.track_sparing[i]) {
      const std::uint64_t off = t->front_sectors + std::uint64_t{t->spare_tracks} * m.zones[i].sectors_per_track;
      n = n > off ? n - off : 0;
    }
  return n > ls.slipped.size() ? n - ls.slipped.size() : 0;
}

void layout_keys_to_json(const DiskModel& m, json& j) {
  if (!has_layout_keys(m)) return;
  const LayoutSpec& ls = m.layout_spec;
  j["format"] = std::string(kModelFormat2);
  for (std::size_t i = 0; i < m.zones.size(); ++i)
    if (!m.zones[i].spt_per_surface.empty()) j["zones"][i]["sectors_per_track"] = m.zones[i].spt_per_surface;
  if (ls.layout_given || ls.kind != LayoutKind::cylinder)
    j["layout"] = std::string(ls.kind == LayoutKind::cylinder ? kCylinder : kSerpentine);
  if (ls.band_cylinders) j["band_cylinders"] = ls.band_cylinders;
  if (ls.spares_given || ls.spares_per_track || ls.spares_per_cylinder)
    j["spares"] = {{"per_track", ls.spares_per_track}, {"per_cylinder", ls.spares_per_cylinder}};
  if (!ls.slipped.empty()) j["slipped"] = ls.slipped;
  for (std::size_t i = 0; i < ls.track_sparing.size() && i < m.zones.size(); ++i)
    if (const auto& t = ls.track_sparing[i])
      j["zones"][i]["track_sparing"] = {
          {"front_sectors", t->front_sectors}, {"spare_tracks", t->spare_tracks}, {"slipped_tracks", t->slipped_tracks}};
  for (std::size_t i = 0; i < ls.first_sector_offset.size() && i < m.zones.size(); ++i)
    if (const auto& o = ls.first_sector_offset[i]) j["zones"][i]["first_sector_offset"] = *o;
}

}  // namespace ds::sim
