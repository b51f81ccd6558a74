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

// DiskSim's track sparing (its sparing scheme 1; DiskSim 4.0 diskmodel/layout_g1.c,
// g1_ltop_trackspare and dm_layout_g1_compute_blksinband), per zone: the zone's LBAs start after
// `front_sectors` sectors kept for the drive's own use, skip every track of `slipped_tracks`
// (track numbers from the zone's first track, front ones included), and leave the spare tracks
// the slips did not take (`spare_tracks` less the slips) unused at the zone's end. The head does
// not pass over an unused track: a transfer that reaches one moves on to the next track that
// holds LBAs (Layout: the stream skips it), while the angle of every sector stays where its
// physical track puts it (DiskSim's g1_map_pbn_skew counts skews by physical track).
struct TrackSparing {
  std::uint64_t front_sectors = 0;
  std::uint32_t spare_tracks = 0;
  std::vector<std::uint32_t> slipped_tracks;  // sorted, each below the zone's track count
};

struct LayoutSpec {
  LayoutKind kind = LayoutKind::cylinder;
  std::uint32_t band_cylinders = 0;   // surface_serpentine: cylinders per band (> 0)
  std::uint32_t spares_per_track = 0;     // at the end of every track
  std::uint32_t spares_per_cylinder = 0;  // at the end of the last surface's track of a cylinder
  std::vector<std::uint64_t> slipped;     // physical sector numbers (fill order, sim/layout.hpp), as given
  std::vector<std::optional<TrackSparing>> track_sparing;  // per zone (empty: none anywhere)
  // Per zone (empty: none anywhere): where the zone's first physical sector starts, in sectors of
  // its tracks from the angle where the stream starts (the first zone's first physical sector
  // when that zone has none), instead of one cylinder skew after the previous zone's end. DiskSim
  // places every zone so (its "Offset of first block": layout_g1.c, g1_map_pbn_skew starts each
  // zone's angles at the zone's firstblkangle and counts skews from the zone's first cylinder).
  std::vector<std::optional<std::uint32_t>> first_sector_offset;
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
