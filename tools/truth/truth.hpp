// Ground truth of a disk model (formats drivescope-disk-model/1 and /2), computed from the model
// JSON and the format's written semantics alone (docs/accuracy.md, "Ground truth").
//
// This is the judge of the accuracy checks, so it must not share anything with the simulator it
// judges: it neither includes nor links src/sim and parses the model JSON itself. The accuracy
// tooling and the tests link it (CMake target ds_truth); src/ never does.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "drivescope/expected.hpp"

namespace truth {

struct ZoneTruth {
  std::uint64_t first_lba = 0;
  std::uint64_t sectors = 0;      // user LBAs in the zone (after the capacity cut)
  double bytes_per_track = 0;     // user bytes of one track, mean over the surfaces
  double media_mb_s = 0;          // rate inside a track, mean over the surfaces, capped by the bus
  double sequential_mb_s = 0;     // a long sequential read, switches paid, capped by the bus
  double stream_mb_s = 0;         // the same before the bus: the pace of the media (read-ahead)
};

struct DefectTruth {
  std::uint64_t first_lba = 0, sectors = 0;
  double extra_ms = 0;
};

struct RemapTruth {
  std::uint64_t lba = 0;
  double extra_ms = 0;
};

// One positioning range of a multi-actuator model ("actuators"): its LBAs and its own seeks.
struct RangeTruth {
  std::uint64_t first_lba = 0, lba_count = 0;
  double full_stroke_ms = 0;          // between the range's outermost and innermost cylinder
  double avg_seek_random_lba_ms = 0;  // random LBAs of the range
};

struct Truth {
  std::string name;
  double rpm_nominal = 0;           // the model's "rpm" (what IDENTIFY reports)
  double rpm = 0;                   // the spindle's real speed: rpm_actual, else rpm
  double rotation_ms = 0;
  std::vector<ZoneTruth> zones;     // zones holding user capacity, outermost first
  double outer_sequential_mb_s = 0, inner_sequential_mb_s = 0;
  // The read-ahead's pace at a random LBA, as the cache test means it: the zones' stream rates
  // (switches paid, before the bus) averaged over the LBAs, i.e. every user sector over the time
  // to stream them all.
  double read_ahead_mb_s = 0;
  double outer_inner_ratio_sequential = 0, outer_inner_ratio_media = 0;
  unsigned surfaces = 0, platters = 0;
  bool serpentine = false;          // layout "surface_serpentine"
  std::uint64_t capacity = 0;       // user sectors
  std::uint32_t sector_bytes = 512;
  double bytes_per_platter = 0;
  double bytes_per_track = 0;       // the outer zone's
  double avg_seek_ms = 0;           // uniform pairs of cylinders holding user capacity
  double avg_seek_random_lba_ms = 0;
  double track_to_track_ms = 0;
  double full_stroke_ms = 0;        // outermost to innermost cylinder holding user capacity
  double mean_random_read_access_ms = 0;
  double cache_bytes = 0;
  double interface_mb_s = 0;
  bool reorders = false;
  std::vector<DefectTruth> defects;
  std::vector<RemapTruth> remapped;
  // With two or more positioning ranges: each range's seeks; then avg_seek_random_lba_ms and
  // avg_seek_ms are the ranges' weighted by their LBAs, full_stroke_ms the largest range's.
  std::vector<RangeTruth> positioning_ranges;
};

// The truth of one model (format /1 or /2). Errors name the offending key.
ds::Expected<Truth> compute(const nlohmann::json& model);
ds::Expected<Truth> compute_file(const std::string& path);

// The truth as JSON: the keys of the data set's *.truth.json files (rounded like them) plus
// rpm_actual, rpm_nominal, track_to_track_ms, bytes_per_track, cache_bytes, interface_mb_s,
// capacity, defects and remapped; zones also carry first_lba.
nlohmann::json to_json(const Truth& t);

}  // namespace truth
