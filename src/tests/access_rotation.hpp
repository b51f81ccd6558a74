// The access test's rotation probes: chains of backward steps (their line, or their median where
// the host's jitter drowns the line) and, where the drive's buffer answered most steps, the
// spread of rotational waits of reads a fixed distance apart. What they find is evidence for the
// arbiter (rotation.hpp). Internal to the access test: access.cpp includes it, nothing else.
#pragma once
#include <cstddef>
#include <string>
#include <optional>

#include "tests/access_io.hpp"
#include "tests/common.hpp"
#include "tests/rotation.hpp"
#include "tests/withheld.hpp"

namespace ds::measure::access_detail {

// A read that took no longer than a cache hit and this much was served by the drive's buffer:
// the backward steps' rule, and the sweep's for its anchor re-reads.
inline constexpr double kBufferedMarginMs = 0.5;

// What the rotation probes found.
struct RotationProbe {
  RotationEvidence evidence;  // hit_ms, buffered, step_fit or step_median_ms, waits
  double sector_ms = 0;       // one block's media time from the step line (0: no plausible line)
  std::size_t buffered_steps = 0, steps = 0;  // backward steps the buffer served, of all completed
};

// The probes on `rc` (its budget, its failure), a cache hit costing `hit_ms`.
RotationProbe probe_rotation(Ctx& rc, Rng& rng, double hit_ms);

// How a standing revolution was found, in words, where the probe that decided it did not already
// say so (the phase lock and the step line report themselves): none for those, nor where no
// revolution stands (rotation_withheld says why).
std::optional<std::string> rotation_note(RotationReason reason, const RotationEvidence& e);
// Why no revolution stands (rotation_ms, and with it the rpm and the seek figures, null); none
// where one does or where a seed still waits for the phase lock.
std::optional<Withheld> rotation_withheld(RotationReason reason, const RotationEvidence& e);

}  // namespace ds::measure::access_detail
