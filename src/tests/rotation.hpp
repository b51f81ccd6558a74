// The revolution of a drive: the backward-step fit, the plausibility bound, and the one arbiter
// that decides which of the access test's rotation estimates (and the transfer test's) stands.
// See docs/methods.md, "Rotation".
#pragma once
#include <optional>
#include <utility>
#include <vector>

#include "tests/common.hpp"

namespace ds::measure {

// Chains of backward steps: latency(k) = rotation − k·sector (mod rotation). Returns
// {rotation_ns, sector_ns}; zeros when the fit fails.
std::pair<double, double> fit_rotation(const std::vector<std::pair<unsigned, double>>& k_lat_ns);
// A fitted revolution is believed only if a disk could turn that fast or slow (2-40 ms) and it is
// many cache hits long (`hit_ms`): a device without platters gives a noise fit of about a hit.
bool plausible_rotation_ms(double rotation_ms, double hit_ms);

// Where a revolution comes from.
enum class RotationSource {
  none,           // no revolution: no rpm, no seek figures
  step_fit,       // the backward steps' line (access test, rotation phase)
  step_seed,      // the backward steps' median less a hit: only steers the phase lock
  wait_width,     // the spread of rotational waits, where the buffer answered the steps
  phase_lock,     // the anchors' re-reads on combs one revolution apart (spindle.hpp)
  transfer_zones, // the transfer test's fit across zones, agreeing with the step fit
  track_stream,   // the track-to-track probe's stream: track size × sector time
};

// Why the verdict is what it is: one code per branch of the precedence table.
enum class RotationReason {
  locked,                 // the phase lock found the revolution
  buffered_waits,         // the buffer served most steps; the waits' spread gave it
  buffered_no_waits,      // … and the waits showed no rotational wait either
  step_line,              // the step fit, no finer estimate in its place
  finer_transfer,         // the transfer test's agrees with the step fit and is more exact
  finer_stream,           // the track probe's stream
  step_line_implausible,  // the step line is no revolution a disk can have (no platters)
  seed_awaits_lock,       // no step line; their median seeds the lock
  seed_not_confirmed,     // … and the lock did not confirm it
  seed_implausible,       // no step line, and their median is no revolution either
  no_steps,               // nothing measured
};

struct RotationEstimate {
  double ms = 0, half_width_ms = 0;  // the revolution and its 95 % half-width
};

// What the access test (and the transfer test before it) found out about the revolution; each
// estimate is present only once its probe ran and gave one.
struct RotationEvidence {
  double hit_ms = 0;        // a cache hit: overhead and one block
  bool buffered = false;    // the drive's buffer answered most backward steps
  std::optional<RotationEstimate> step_fit;  // the backward steps' line (intercept > 0)
  std::optional<double> step_median_ms;      // their median less a hit, where no line fits
  std::optional<RotationEstimate> waits;     // wait_width.hpp, measured only where buffered
  double wait_sigma_ms = 0;                  // … and the waits' noise (0: not read)
  bool lock_tried = false;                   // the phase lock has had its chance …
  std::optional<RotationEstimate> lock;      // … and this is what it found
  std::optional<RotationEstimate> transfer;  // told by the transfer test (its fit across zones)
  std::optional<RotationEstimate> stream;    // the track probe's stream (half-width: 1/spt)
};

struct RotationVerdict {
  RotationSource source = RotationSource::none;
  RotationReason reason = RotationReason::no_steps;
  RotationEstimate estimate;  // zero where the source is none
  // A figure to report (not a seed): the rpm, seek figures and track probe rest on it.
  bool stands() const { return source != RotationSource::none && source != RotationSource::step_seed; }
};

// The name of a standing revolution's source in bench JSON (`rotation_source`); nullptr for none
// and for a seed, which never stands.
const char* rotation_source_name(RotationSource s);

// The stated resolution of a stream's or the zones' revolution, a share of itself, added to its
// half-width (stats.hpp, with_systematic).
inline constexpr double kStreamRotationFloor = 1e-4;

// The precedence, rotation first: the phase lock; where the buffer served the steps, the waits'
// spread alone; the step line, replaced by the transfer test's revolution when they agree and it
// is more exact, else by the track stream's; without a line, a seed that stands only once locked.
RotationVerdict arbitrate_rotation(const RotationEvidence& e);

// Whether tracks read off a stream are the platter's, judged by a revolution from other
// evidence (`spindle`: the lock, the waits, the step line, a probe's own stream). A track's
// logical sectors (`tracks`: spt · sector time) fill a revolution but for its spare sectors,
// which drives keep to a few a track: at most kMaxSpareShare of it, with both half-widths and
// kTrackRotationSlack of slack. A stream paced by a host path slower than the media shows
// "tracks" of the pacing's period instead (docs/methods.md, "Which revolution stands").
inline constexpr double kMaxSpareShare = 0.10;
inline constexpr double kTrackRotationSlack = 0.005;  // beyond both intervals: drift, rounding
bool tracks_fill_revolution(const RotationEstimate& tracks, const RotationEstimate& spindle);
// Whether a revolution that counts the spares ((spt + spares) · sector time) is the spindle's,
// within the same margin: else the spare count was wrong.
bool revolution_agrees(const RotationEstimate& tracks_with_spares, const RotationEstimate& spindle);
// Sources whose revolution rests on no stream of the transfer test (all but transfer_zones).
bool independent_of_transfer(RotationSource s);

}  // namespace ds::measure
