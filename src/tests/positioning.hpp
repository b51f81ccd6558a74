// Whether a target positions mechanically: the one verdict per target that every figure assuming
// mechanics (zones, surfaces, rotation, seeks, a reordering gain) rests on (docs/methods.md,
// "Mechanical positioning").
//
// A rotating drive makes every random read wait for its sector to come round: on average half a
// revolution, 2 ms on the fastest spindles sold (15 000 rpm), plus its seek. A RAM disk, an SSD,
// a file in the page cache or a loop device over one answers a random read in microseconds to a
// fraction of a millisecond, wherever it lands. The median of depth-1 random reads over the span
// tells the two apart with room on both sides, and a median is not moved by the host's stalls
// while fewer than half the reads meet one.
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "drivescope/expected.hpp"
#include "drivescope/io.hpp"

namespace ds::measure {

// The verdict from depth-1 random-read latencies (pure). mechanical: nullopt when there are too
// few reads to judge.
struct PositioningVerdict {
  std::optional<bool> mechanical;
  std::size_t reads = 0;
  double p10_ms = 0, p50_ms = 0, p90_ms = 0;
  std::string evidence;  // one sentence with the numbers
};
PositioningVerdict judge_positioning(std::span<const double> latencies_ms);

// The shortest median a random read over a rotating drive's span can have, in ms: a quarter
// revolution of the fastest spindle (15 000 rpm, 4 ms a turn), half the least it waits on average.
inline constexpr double kMechanicalMedianFloorMs = 1.0;
// Fewer reads than this judge nothing: the median of 16 lies between the 5th and 12th of them
// with 95 % confidence (a binomial interval), well inside the room the floor leaves.
inline constexpr std::size_t kMinPositioningReads = 16;

struct PositioningOptions {
  std::uint64_t span_blocks = 0;  // 0: the whole capacity
  std::uint64_t seed = 1;
  std::size_t reads = 64;
  double budget_s = 1.0;          // drive time at most
};

struct PositioningResult {
  PositioningVerdict verdict;
  double drive_time_s = 0;
};

// Depth-1 single-block random reads over the span, then judge_positioning.
Expected<PositioningResult> run_positioning(IoEngine& io, const PositioningOptions& opt);

}  // namespace ds::measure
