// Whether a target positions mechanically: the one verdict per target that every figure assuming
// mechanics (zones, surfaces, rotation, seeks, a reordering gain) rests on (docs/methods.md,
// "Mechanical positioning").
//
// A rotating drive makes every random read wait for its sector to come round: on average half a
// revolution, 2 ms on the fastest spindles sold (15 000 rpm), plus its seek. A RAM disk, an SSD,
// a file in the page cache or a loop device over one answers a random read in microseconds to a
// fraction of a millisecond, wherever it lands. The median of a round of depth-1 random reads over
// the span tells the two apart with room on both sides. A host can hold completions back but
// never hands one over early, and on a busy machine it holds whole stretches back (a loop
// device's worker waiting for a CPU: 64 reads in a row at a 4 ms median), so the probe reads in
// rounds spread over time and judges by the least delayed round.
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "drivescope/expected.hpp"
#include "drivescope/io.hpp"

namespace ds::measure {

// The verdict from depth-1 random-read latencies in rounds (pure): mechanical when even the round
// with the smallest median took at least the floor. nullopt: no round of kPositioningRoundReads.
struct PositioningVerdict {
  std::optional<bool> mechanical;
  std::size_t reads = 0;
  double p10_ms = 0, p50_ms = 0, p90_ms = 0;  // over all the reads
  double least_round_median_ms = 0;           // what decides
  std::string evidence;                       // one sentence with the numbers
};
PositioningVerdict judge_positioning(std::span<const std::vector<double>> rounds_ms);

// The shortest median a round of random reads over a rotating drive's span can have, in ms: an
// eighth of a revolution of the fastest spindle (15 000 rpm, 4 ms a turn). Even with no seek at
// all, a read lands under it with probability 1/8, and half of a round of 16 do so with
// probability 3e-4 (binomial), so six rounds call a drive flat less than once in 500.
inline constexpr double kMechanicalMedianFloorMs = 0.5;
// Reads a round; a round of fewer judges nothing.
inline constexpr std::size_t kPositioningRoundReads = 16;

struct PositioningOptions {
  std::uint64_t span_blocks = 0;  // 0: the whole capacity
  std::uint64_t seed = 1;
  std::size_t rounds = 6;         // of kPositioningRoundReads reads each
  double gap_s = 0.3;             // idle between rounds (wall time, no drive time)
  double budget_s = 1.0;          // drive time at most
};

struct PositioningResult {
  PositioningVerdict verdict;
  double drive_time_s = 0;
};

// Rounds of depth-1 single-block random reads over the span, then judge_positioning.
Expected<PositioningResult> run_positioning(IoEngine& io, const PositioningOptions& opt);

}  // namespace ds::measure
