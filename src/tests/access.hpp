// access: random single-block reads (writes only when allowed), rotation from timing, command
// overhead from cache hits, average / full-stroke / track-to-track seek, the seek curve, and an
// access-time map with slow regions located by extra sampling. See docs/methods.md.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "drivescope/io.hpp"
#include "tests/common.hpp"
#include "tests/rotation.hpp"
#include "tests/withheld.hpp"

namespace ds::measure {

struct AccessOptions {
  std::uint64_t span_blocks = 0;  // 0: the whole target
  double budget_s = 40;
  unsigned samples = 0;           // random reads; 0: as many as ~half the budget allows (≤ 1500)
  std::uint64_t seed = 1;
  bool allow_write = false;       // also time random writes (the target must be writable)
  // Where to measure the one-cylinder seek: a zone the transfer test found (first..last LBA, 0/0:
  // the middle of the span), and its surface count (0: told by the access test's own probe).
  std::uint64_t zone_first_lba = 0, zone_last_lba = 0;
  unsigned surfaces = 0;
  // A revolution the transfer test fitted across zones, spare sectors counted (0: none), and the
  // spare sectors per track it found (-1: not told).
  double rotation_ns = 0, rotation_uncertainty_ns = 0;
  int spares_per_track = -1;
  // The time the logical sectors of the transfer test's tracks pass (spt · sector time, 0: no
  // tracks): its surfaces and spares are taken only where these fill the revolution that stands.
  double track_ns = 0, track_uncertainty_ns = 0;
  // The positioning ranges the drive reports (ATA log 47h, SCSI VPD B9h). With two or more, each
  // range has a positioner of its own: a read's seek starts where the last read of its range
  // left that range's head, and the full stroke is measured inside one range.
  std::vector<LbaRange> positioning_ranges;
};

struct LatencyStats {
  std::size_t n = 0;
  double mean_ms = 0, p50_ms = 0, p99_ms = 0, stderr_ms = 0;
};

struct SeekBin {
  std::uint64_t max_distance = 0;  // LBA distance, upper edge of the bin
  std::size_t n = 0;
  // mean access − rotation/2 − overhead − one block; nullopt when the bin has too few reads for
  // its mean to resolve the track-to-track seek (access.cpp, step 7)
  std::optional<double> seek_ms;
};

struct RegionStat {
  std::uint64_t first_lba = 0, last_lba = 0;
  std::size_t n = 0;
  double mean_ms = 0;
  bool slow = false;
};

// A single slow LBA (a remapped sector): slow when read again, its neighbours normal.
struct SlowSpike {
  std::uint64_t lba = 0;
  double mean_ms = 0;
};

struct SlowRegion {
  std::uint64_t first_lba = 0, last_lba = 0;
  double mean_ms = 0;
  double location_uncertainty_blocks = 0;  // each edge is known to within this
};

// One timed random read of the access sweep: where it landed and how long it took.
struct ReadSample {
  std::uint64_t lba = 0;
  double ms = 0;
};

// The per-read samples kept in the result are bounded (a report draws them, a JSON file carries
// them): with more reads than this, an even stride through them is kept.
inline constexpr std::size_t kMaxReadSamples = 4000;

struct AccessResult {
  LatencyStats read;
  std::vector<ReadSample> reads;  // the random reads of the sweep, in issue order (≤ kMaxReadSamples)
  double slow_threshold_ms = 0;   // the highest per-distance slow threshold (full-stroke distance)
  std::optional<LatencyStats> write;
  Figure rotation_ms;
  Figure rpm;
  // Where rotation_ms came from, and why it is what it is (rotation.hpp's arbiter): tests assert
  // on these codes, the notes say the same in words.
  RotationSource rotation_source = RotationSource::none;
  RotationReason rotation_reason = RotationReason::no_steps;
  Figure overhead_ms;     // cache-hit latency of one block: command overhead + its transfer
  Figure sector_ms;       // media time of one block, from the rotation fit
  Figure avg_seek_ms;
  Figure full_stroke_ms;
  Figure track_to_track_ms;
  // Surfaces the track-to-track probe found (0: none): the track offset whose move is the
  // one-cylinder seek on the same head, where the probe was not told them.
  unsigned probe_surfaces = 0;
  std::vector<SeekBin> seek_curve;
  std::vector<RegionStat> map;
  std::vector<SlowRegion> slow_regions;
  std::vector<SlowSpike> slow_spikes;
  std::size_t outliers = 0;        // reads slow once and normal when read again (stalls, pauses)
  double outlier_excess_ms = 0;    // their median time beyond the slow threshold
  double drive_time_s = 0;
  std::vector<std::string> notes;
  std::vector<Withheld> withheld;  // why a figure is null (tests/withheld.hpp); track to track's too
  std::uint32_t block_bytes = 512;  // size of every single-block read: the logical block
};

Expected<AccessResult> run_access(IoEngine& io, const AccessOptions& opt,
                                  const ProgressFn* progress = nullptr);

}  // namespace ds::measure
