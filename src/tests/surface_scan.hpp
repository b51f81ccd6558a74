// Where the surfaces are not told, the track-to-track probe finds the one-cylinder move among the
// moves to the next 24 tracks: each offset's sawtooth foot from its own sweep; the move to the
// same head one cylinder on is the offset (and its multiples) whose foot dips below the head
// switches', or where the seek outlasts a switch the offset from which the feet step up; feet that
// rise from the first offset on are a serpentine band. See docs/methods.md.
#pragma once
#include <cstdint>
#include <vector>

#include "tests/track_sweep.hpp"

namespace ds::measure {

// Pure: the track offsets whose feet lie clearly below the others' (their median): the moves to
// the same head 1, 2 … cylinders on, at multiples of the surface count, when surfaces were not
// told. `offset` is their greatest common divisor (the one-cylinder move); 0 when none dips.
struct DipFinding {
  unsigned offset = 0;                  // 1-based track offset of the one-cylinder move (0: none)
  double k_mode_ms = 0, hw_mode_ms = 0;  // the median foot and half-width (0: fewer than 3 feet)
  double threshold_ms = 0;              // the largest separation any offset had to clear
  double dip_threshold_ms = 0;          // the separation `offset` had to clear
  unsigned dips = 0;                    // offsets that dip (all multiples of `offset`)
  bool offset_dips = false;             // `offset` itself is one of them
};
DipFinding find_dip(const std::vector<SawtoothFoot>& feet);

namespace t2t {

// Tracks the scan of offset j reads (its sweeps and the gap below them).
std::uint64_t scan_tracks(unsigned j);

// The scan from `top` down over offsets 1..max_j, its verdict on the surfaces and the seek into `res`.
void offset_scan(IoEngine& io, Budget& budget, const TrackSeekInput& in, const Track& tk, std::uint64_t top,
                 unsigned max_j, Rng& rng, TrackSeekResult& res);

}  // namespace t2t

}  // namespace ds::measure
