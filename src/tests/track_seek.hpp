// The one-cylinder (track-to-track) seek, measured inside one zone with that zone's own track
// layout. A read of sector s of track T followed by a read of track T+H (the same surface, one
// cylinder on) at sector s+d waits for the platter: as d sweeps a revolution the latency is a
// sawtooth L(d) = K + rev·frac(c + d/spt) whose foot K — no rotational wait at all — is the
// command overhead, the seek and one sector. A coarse sweep finds the foot to within 1/24 of a
// revolution, a fine sweep of that gap to within 1/400. Where the surfaces were not told, the same
// foot is found for the move to each of the next 24 tracks; the one that is faster than the rest is
// the one-cylinder move. See docs/methods.md.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "drivescope/io.hpp"
#include "tests/common.hpp"
#include "tests/withheld.hpp"

namespace ds::measure {

struct TrackSeekInput {
  std::uint64_t first_lba = 0, last_lba = 0;  // a zone (or the span) to measure in
  double rotation_ns = 0;                      // measured elsewhere (the rotation fit)
  double overhead_ms = 0;                      // cache-hit latency of one block
  double overhead_uncertainty_ms = 0;
  unsigned surfaces = 0;                       // tracks per cylinder (0: unknown)
  int spares_per_track = -1;                   // unused sectors on every track (-1: not told: 0)
  std::uint64_t seed = 1;
  // LBA ranges to keep the sweep out of (slow regions: their extra time, modulo a revolution,
  // would shift the foot of the sawtooth).
  std::vector<std::pair<std::uint64_t, std::uint64_t>> avoid;
};

struct TrackSeekResult {
  Figure seek_ms;                  // 0: not measured (see withheld)
  std::uint32_t sectors_per_track = 0;
  int spares_per_track = -1;       // unused sectors per track the revolution implies (-1: not told)
  unsigned surfaces = 0;
  bool surfaces_found = false;     // `surfaces` is the probe's own finding (not what it was told)
  std::uint64_t at_lba = 0;        // the first source track of the sweep
  double rotation_ns = 0;          // the zone stream's revolution: track size × sector time
  std::vector<std::string> notes;
  std::vector<Withheld> withheld;  // why seek_ms is 0
  std::optional<Error> error;      // a failed I/O (not a spent budget)
};

// One point of a sweep: the phase offset d/spt of the target (in revolutions, [0,1)) and the
// latency of the target read in ms (negative: not completed).
struct PhaseSample {
  double phase = 0;
  double ms = 0;
};

// Pure: locate the foot of the sawtooth. Returns {K_ms, half_width_ms, wrap_phase_lo,
// wrap_phase_hi}; K_ms ≤ 0 when the samples show no sawtooth (no drop of most of a revolution).
struct SawtoothFoot {
  double k_ms = 0, half_width_ms = 0, lo = 0, hi = 0;
};
SawtoothFoot sawtooth_foot(const std::vector<PhaseSample>& s, double rev_ms);

// Pure: the track size that puts a whole number of tracks (within `tol` sectors) between two track
// starts seen by streams far apart, among spt ± (uncertainty + 1); 0 when none or several fit.
std::uint32_t pin_track_size(std::uint64_t start_a, std::uint64_t start_b, std::uint32_t spt,
                             double uncertainty, std::uint32_t tol);

// Pure: the foot K of latencies K + N + W, W a rotational wait uniform over `rev_ms` and N the
// per-command noise (about normal, σ unknown): the profile likelihood over (K, σ) of both edges
// of the blurred uniform, K's 95 % interval where it is within 1.92 of its top. k_ms ≤ 0: fewer
// than 8 latencies.
SawtoothFoot edge_fit(const std::vector<double>& latencies_ms, double rev_ms);

TrackSeekResult measure_track_to_track(IoEngine& io, const TrackSeekInput& in, Budget& budget);

}  // namespace ds::measure
