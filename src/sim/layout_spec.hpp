// The layout keys of format drivescope-disk-model/2 (spec: disk-model.md, "Format
// drivescope-disk-model/2"): how LBAs are laid on the surfaces, spare sectors, slipped sectors.
// Per-surface sectors per track live in Zone::spt_per_surface. All of them are off by default,
// and a model without them lays out exactly as a /1 model (sim/layout.hpp).
// Parsed, validated and written by model_json_layout.cpp.
#pragma once
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "drivescope/expected.hpp"

namespace ds::sim {

struct DiskModel;

enum class LayoutKind : std::uint8_t {
  cylinder,            // a track, the next surface of the cylinder, the next cylinder
  surface_serpentine,  // within a band: a surface across the band, the next surface back
};

struct LayoutSpec {
  LayoutKind kind = LayoutKind::cylinder;
  std::uint32_t band_cylinders = 0;   // surface_serpentine: cylinders per band (> 0)
  std::uint32_t spares_per_track = 0;     // at the end of every track
  std::uint32_t spares_per_cylinder = 0;  // at the end of the last surface's track of a cylinder
  std::vector<std::uint64_t> slipped;     // physical sector numbers (fill order, sim/layout.hpp), as given
  bool spares_given = false;              // written back only when given
  bool layout_given = false;
};

// User sectors of the zones: physical sectors minus spares and slipped ones (before
// capacity_sectors cuts them).
std::uint64_t layout_user_sectors(const DiskModel& m);

// The /2 layout keys of a model document (zones[i].sectors_per_track given as a list, "layout",
// "band_cylinders", "spares", "slipped") into m, whose surfaces and zones are already read.
// Returns the first error, naming its field ("zones[1].sectors_per_track: needs one entry per
// surface (4)").
std::optional<Error> parse_layout_keys(const nlohmann::json& doc, DiskModel& m);
// Writes those keys into j (a model written by model_to_json), and the /2 format when any is set.
void layout_keys_to_json(const DiskModel& m, nlohmann::json& j);

}  // namespace ds::sim
