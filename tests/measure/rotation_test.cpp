// The rotation arbiter (src/tests/rotation.*): its precedence table, one case a row, on evidence
// written out by hand.
#include <doctest/doctest.h>

#include <string>

#include "tests/rotation.hpp"

using namespace ds::measure;

namespace {

using S = RotationSource;
using R = RotationReason;

// A 10 000 rpm drive whose cache hit costs 0.2 ms.
RotationEvidence drive() {
  RotationEvidence e;
  e.hit_ms = 0.2;
  return e;
}

}  // namespace

TEST_CASE("rotation arbiter: the step line stands alone, with its own interval") {
  RotationEvidence e = drive();
  e.step_fit = RotationEstimate{6.02, 0.06};
  const RotationVerdict v = arbitrate_rotation(e);
  CHECK(v.source == S::step_fit);
  CHECK(v.reason == R::step_line);
  CHECK(v.estimate.ms == 6.02);
  CHECK(v.estimate.half_width_ms == 0.06);
  CHECK(v.stands());
  CHECK(std::string(rotation_source_name(v.source)) == "backward steps");
}

TEST_CASE("rotation arbiter: the phase lock beats every other estimate, the buffer's waits included") {
  RotationEvidence e = drive();
  e.step_fit = RotationEstimate{6.02, 0.06};
  e.transfer = RotationEstimate{6.0001, 0.0001};
  e.stream = RotationEstimate{6.0002, 0.0005};
  e.lock_tried = true;
  e.lock = RotationEstimate{6.00003, 0.00001};
  CHECK(arbitrate_rotation(e).source == S::phase_lock);
  RotationEvidence b = drive();
  b.buffered = true;
  b.waits = RotationEstimate{5.9, 0.15};
  b.lock_tried = true;
  b.lock = RotationEstimate{6.00003, 0.00001};
  const RotationVerdict v = arbitrate_rotation(b);
  CHECK(v.reason == R::locked);
  CHECK(v.estimate.ms == 6.00003);
}

TEST_CASE("rotation arbiter: a buffered drive's revolution comes from the waits only") {
  RotationEvidence e = drive();
  e.buffered = true;
  e.step_fit = RotationEstimate{6.3, 0.06};   // the few media steps' line: not trusted
  e.transfer = RotationEstimate{6.0, 0.001};  // no layout fit vouches for a finer one either
  e.stream = RotationEstimate{6.0, 0.001};
  e.waits = RotationEstimate{5.9, 0.15};
  RotationVerdict v = arbitrate_rotation(e);
  CHECK(v.source == S::wait_width);
  CHECK(v.estimate.ms == 5.9);
  e.waits.reset();
  v = arbitrate_rotation(e);
  CHECK(v.source == S::none);
  CHECK(v.reason == R::buffered_no_waits);
  CHECK_FALSE(v.stands());
  e.waits = RotationEstimate{0.5, 0.1};  // waits of about a hit: no platter
  CHECK(arbitrate_rotation(e).reason == R::buffered_no_waits);
}

TEST_CASE("rotation arbiter: the transfer test's revolution replaces the line only when it agrees and is finer") {
  RotationEvidence e = drive();
  e.step_fit = RotationEstimate{6.03, 0.06};
  e.transfer = RotationEstimate{6.0, 0.00001};
  RotationVerdict v = arbitrate_rotation(e);
  CHECK(v.source == S::transfer_zones);
  CHECK(v.estimate.half_width_ms == doctest::Approx(0.00001 + 6.0 * kStreamRotationFloor));  // + resolution
  e.transfer = RotationEstimate{6.2, 0.001};  // 0.17 ms off: outside both intervals combined
  CHECK(arbitrate_rotation(e).source == S::step_fit);
  e.transfer = RotationEstimate{6.0, 0.08};  // agrees, but no finer than the line
  CHECK(arbitrate_rotation(e).source == S::step_fit);
  e.transfer = RotationEstimate{0.7, 0.0001};  // a revolution of a few hits: no disk
  e.step_fit = RotationEstimate{0.7, 0.06};
  CHECK(arbitrate_rotation(e).reason == R::step_line_implausible);
}

TEST_CASE("rotation arbiter: the track stream refines the line where the zones do not") {
  RotationEvidence e = drive();
  e.step_fit = RotationEstimate{6.03, 0.06};
  e.transfer = RotationEstimate{6.2, 0.001};  // disagrees
  e.stream = RotationEstimate{6.0, 6.0 / 1000};
  RotationVerdict v = arbitrate_rotation(e);
  CHECK(v.source == S::track_stream);
  CHECK(v.reason == R::finer_stream);
  CHECK(v.estimate.half_width_ms == doctest::Approx(0.006 + 6.0 * kStreamRotationFloor));
  e.transfer = RotationEstimate{6.0001, 0.0005};  // agrees and is finer: the zones first
  CHECK(arbitrate_rotation(e).source == S::transfer_zones);
}

TEST_CASE("rotation arbiter: a line that is no revolution condemns the steps, whatever else was told") {
  RotationEvidence e = drive();
  e.step_fit = RotationEstimate{0.45, 0.01};  // about two hits: a line through noise
  e.stream = RotationEstimate{6.0, 0.006};
  const RotationVerdict v = arbitrate_rotation(e);
  CHECK(v.source == S::none);
  CHECK(v.reason == R::step_line_implausible);
  CHECK(rotation_source_name(v.source) == nullptr);
}

TEST_CASE("rotation arbiter: without a line, the steps' median seeds the lock and stands only once locked") {
  RotationEvidence e = drive();
  e.step_median_ms = 6.1;
  RotationVerdict v = arbitrate_rotation(e);
  CHECK(v.source == S::step_seed);
  CHECK(v.reason == R::seed_awaits_lock);
  CHECK(v.estimate.ms == 6.1);  // the lock scans around it …
  CHECK_FALSE(v.stands());      // … but it is no figure
  CHECK(rotation_source_name(v.source) == nullptr);
  e.lock_tried = true;
  v = arbitrate_rotation(e);
  CHECK(v.source == S::none);
  CHECK(v.reason == R::seed_not_confirmed);
  e.lock = RotationEstimate{6.00001, 0.00001};
  CHECK(arbitrate_rotation(e).source == S::phase_lock);
  RotationEvidence flat = drive();
  flat.step_median_ms = 0.3;  // a hit and a half: solid state
  CHECK(arbitrate_rotation(flat).reason == R::seed_implausible);
  CHECK(arbitrate_rotation(drive()).reason == R::no_steps);
}

TEST_CASE("rotation: tracks are the platter's only where they fill the revolution but for a few spares") {
  const RotationEstimate spindle{5.9803, 0};
  // A track's logical sectors that leave 2 % of the turn to spares, or none: tracks.
  CHECK(tracks_fill_revolution({5.86, 0.002}, spindle));
  CHECK(tracks_fill_revolution({5.9803, 0.002}, spindle));
  // Up to a tenth of the turn unread, with both half-widths and 0.5 % of slack.
  CHECK(tracks_fill_revolution({5.9803 * 0.897, 0.0}, spindle));
  CHECK_FALSE(tracks_fill_revolution({5.9803 * 0.89, 0.0}, spindle));
  // A host path's pace (the Cheetah 4LP behind 4.8 MB/s: 3.46 ms "tracks"), tracks longer than
  // the turn (38 ms on 8.35), or a little longer than the slack allows: no tracks.
  CHECK_FALSE(tracks_fill_revolution({3.46, 0.01}, spindle));
  CHECK_FALSE(tracks_fill_revolution({38.02, 2.6}, {8.3493, 0}));
  CHECK_FALSE(tracks_fill_revolution({5.9803 * 1.01, 0.002}, spindle));
  // Nothing to judge by: they stand.
  CHECK(tracks_fill_revolution({0, 0}, spindle));
  CHECK(tracks_fill_revolution({3.46, 0.01}, {0, 0}));
}

TEST_CASE("rotation: a revolution with its spares counted agrees with the spindle's, or the count is wrong") {
  const RotationEstimate spindle{5.9803, 0};
  CHECK(revolution_agrees({5.9810, 0.002}, spindle));
  // One spare sector too many on 195 (the repository's Cheetah 4LP): 6.014 ± 0.002.
  CHECK_FALSE(revolution_agrees({6.0142, 0.0019}, spindle));
  // Two spares not fitted on 56 sectors (a DEC RZ26 /2 variant): 10.76 ± 0.005 for 11.19.
  CHECK_FALSE(revolution_agrees({10.7636, 0.0052}, {11.1888, 0}));
  CHECK(independent_of_transfer(S::phase_lock));
  CHECK(independent_of_transfer(S::track_stream));
  CHECK_FALSE(independent_of_transfer(S::transfer_zones));
  CHECK_FALSE(independent_of_transfer(S::none));
}
