// The revolution: the backward-step fit, the plausibility bound, and the arbiter over the
// estimates (rotation.hpp).
#include "tests/rotation.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>
#include <vector>

namespace ds::measure {

bool plausible_rotation_ms(double rotation_ms, double hit_ms) {
  // A backward step waits most of a revolution, which on any disk is many times a cache hit
  // (overhead plus one block).
  return spindle_revolution_ms(rotation_ms) && rotation_ms >= 4 * hit_ms;
}

std::pair<double, double> fit_rotation(const std::vector<std::pair<unsigned, double>>& kl) {
  std::map<unsigned, std::vector<double>> by_k;
  for (auto& [k, l] : kl)
    if (l > 0) by_k[k].push_back(l);
  std::vector<double> xs, ys;
  for (auto& [k, v] : by_k) {
    xs.push_back(k);
    ys.push_back(median(v));
  }
  if (xs.size() < 2) return {0, 0};
  LineFit f = fit_line(xs, ys);
  if (f.slope >= 0 || f.intercept <= 0) return {0, 0};
  return {f.intercept, -f.slope};
}

const char* rotation_source_name(RotationSource s) {
  switch (s) {
    case RotationSource::step_fit: return "backward steps";
    case RotationSource::wait_width: return "rotational waits";
    case RotationSource::phase_lock: return "phase lock";
    case RotationSource::transfer_zones: return "transfer zones";
    case RotationSource::track_stream: return "track stream";
    case RotationSource::none:
    case RotationSource::step_seed: break;
  }
  return nullptr;
}

namespace {

RotationVerdict verdict(RotationSource s, RotationReason r, RotationEstimate e = {}) {
  return {s, r, e};
}

// A revolution fitted from a layout (zones, a stream) is exact to a few parts per million when its
// track size is right; kStreamRotationFloor is its stated resolution.
RotationEstimate floored(const RotationEstimate& e) {
  return {e.ms, with_systematic(e.half_width_ms, kStreamRotationFloor * e.ms)};
}

// The transfer test's revolution replaces the step line when it is one a disk can have, agrees
// with the line (their difference inside the two 95 % half-widths combined, not 1.96 times one
// that is already 95 %) and is the more exact of the two.
bool transfer_refines(const RotationEstimate& t, const RotationEstimate& fit, double hit_ms) {
  return t.ms > 0 && plausible_rotation_ms(t.ms, hit_ms) &&
         std::fabs(t.ms - fit.ms) <= std::hypot(fit.half_width_ms, t.half_width_ms) &&
         t.half_width_ms < fit.half_width_ms;
}

}  // namespace

RotationVerdict arbitrate_rotation(const RotationEvidence& e) {
  using S = RotationSource;
  using R = RotationReason;
  // 1. Combs one revolution apart are exact to parts per million whatever the layout, the cache
  //    or a zero-latency read: the lock stands over everything else.
  if (e.lock) return verdict(S::phase_lock, R::locked, *e.lock);
  // 2. Where the buffer answered most steps, whatever line the few others make is not trusted,
  //    and no layout fit vouches for a finer revolution than the waits' (docs/methods.md).
  if (e.buffered) {
    if (e.waits && e.waits->ms > 0 && plausible_rotation_ms(e.waits->ms, e.hit_ms))
      return verdict(S::wait_width, R::buffered_waits, *e.waits);
    return verdict(S::none, R::buffered_no_waits);
  }
  // 3. A line: a revolution only if a disk could have it (else a line through noise on a device
  //    without platters), then refined by the zones' or the stream's when they stand.
  if (e.step_fit) {
    if (!plausible_rotation_ms(e.step_fit->ms, e.hit_ms)) return verdict(S::none, R::step_line_implausible);
    if (e.transfer && transfer_refines(*e.transfer, *e.step_fit, e.hit_ms))
      return verdict(S::transfer_zones, R::finer_transfer, floored(*e.transfer));
    if (e.stream && e.stream->ms > 0) return verdict(S::track_stream, R::finer_stream, floored(*e.stream));
    return verdict(S::step_fit, R::step_line, *e.step_fit);
  }
  // 4. No line (host jitter over the k-block differences): each step still waits about one
  //    revolution, so their median seeds the lock; it never stands as this rough figure.
  if (e.step_median_ms) {
    if (!(*e.step_median_ms > 0) || !plausible_rotation_ms(*e.step_median_ms, e.hit_ms))
      return verdict(S::none, R::seed_implausible);
    if (e.lock_tried) return verdict(S::none, R::seed_not_confirmed);
    return verdict(S::step_seed, R::seed_awaits_lock, {*e.step_median_ms, 0});
  }
  return verdict(S::none, R::no_steps);
}

namespace {
double slack(const RotationEstimate& a, const RotationEstimate& b) {
  return (a.half_width_ms + b.half_width_ms) / b.ms + kTrackRotationSlack;
}
}  // namespace

bool tracks_fill_revolution(const RotationEstimate& tracks, const RotationEstimate& spindle) {
  if (!(tracks.ms > 0) || !(spindle.ms > 0)) return true;  // nothing to judge by
  const double unread = (spindle.ms - tracks.ms) / spindle.ms;
  const double s = slack(tracks, spindle);
  return unread >= -s && unread <= kMaxSpareShare + s;
}

bool revolution_agrees(const RotationEstimate& tracks_with_spares, const RotationEstimate& spindle) {
  if (!(tracks_with_spares.ms > 0) || !(spindle.ms > 0)) return true;
  return std::fabs(tracks_with_spares.ms - spindle.ms) <= slack(tracks_with_spares, spindle) * spindle.ms;
}

bool independent_of_transfer(RotationSource s) {
  return s == RotationSource::phase_lock || s == RotationSource::wait_width || s == RotationSource::step_fit ||
         s == RotationSource::track_stream;
}

}  // namespace ds::measure
