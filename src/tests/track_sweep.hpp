// The track-to-track probe's parts that its two files share: track_seek.cpp (the zone's layout,
// the aimed one-cylinder sweep, the random moves) and surface_scan.cpp (the scan over track
// offsets where the surfaces are not told). Internal to the probe: nothing else includes it.
#pragma once
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>

#include "drivescope/io.hpp"
#include "tests/common.hpp"
#include "tests/track_seek.hpp"

namespace ds::measure::t2t {

// The track-to-track probe's parameters (docs/methods.md, "access").
struct Tuning {
  int grid = 2000;  // candidate wrap phases per revolution
  unsigned coarse = 24;  // coarse sweep: one sample per 1/24 revolution
  unsigned fine = 16;  // fine sweep inside the coarse gap that holds the foot
  unsigned scan_coarse = 16;  // each offset of the surface scan: a coarser pair of sweeps
  unsigned scan_fine = 12;
  // Track offsets the scan tries when surfaces are not told: more than any drive has had (22
  // heads, 11 platters, in 2026).
  unsigned max_offset = 24;
  std::uint64_t random_pairs = 200;  // random one-cylinder moves (random_moves, edge_fit)
  std::size_t min_random_pairs = 24;
  double edge_outlier = 0.002;  // edge_fit: floor density, a share of a uniform over a revolution
  int edge_sigmas = 24;  // edge_fit: noise levels tried, 0 .. edge_max_sigma revolutions
  double edge_max_sigma = 0.12;
  double dip_separation = 1.5;  // a dip: below the median foot by 1.5× both half-widths
  double dip_scatter = 4;  // and by 4 robust deviations of the feet across offsets
  double min_inliers = 0.6;  // share of samples on the sawtooth for it to be believed
  double rotation_agreement = 0.03;  // the stream's revolution against the rotation fit
  std::size_t min_rising_feet = 8;  // feet a rise with the offset is judged on
  double rising_correlation = 0.6;  // their rank correlation with the offset
};
inline constexpr Tuning kTuning{};

inline double frac(double x) { return x - std::floor(x); }

// Where a sweep reads: sources at top, top − step, top − 2·step, …; each target `delta` sectors
// from its source (one cylinder up, or j tracks down in the surface scan).
struct Aim {
  std::uint64_t top = 0, step = 0;
  std::int64_t delta = 0;
};

// The zone's track as the sweeps see it.
struct Track {
  std::uint32_t spt = 0, slots = 0;  // logical sectors; sector slots a revolution passes (+ spares)
  int spares = 0;
  double rev_ms = 0;
};

struct FootRun {
  SawtoothFoot f;  // k_ms ≤ 0: no sawtooth
  std::optional<Error> err;
};

// A coarse sweep finds the gap of the wrap to 1/coarse of a revolution, a fine sweep of that gap
// (a little wider on each side) the foot inside it. The two use 2·(coarse + fine) reads below `top`.
FootRun find_foot(IoEngine& io, Budget& budget, Aim aim, const Track& tk, unsigned coarse, unsigned fine, Rng& rng);

// The seek is the foot less the command overhead and one sector's media time. 95 % half-width:
// where the foot can lie, the overhead's own uncertainty, and a whole sector of quantisation: the
// head reads from the first sector start after the seek ends, so where within that sector the seek
// ended is not seen, and the foot's phase is read to a sector either way (on a noise-free drive
// the half-sector term left a steady 1.3 % offset outside the interval).
void set_seek(TrackSeekResult& res, const SawtoothFoot& f, const TrackSeekInput& in, const Track& tk);

}  // namespace ds::measure::t2t
