// The spindle's revolution from the phase of repeated media reads of the same blocks.
//
// A single-block read from the media completes when its sector has passed under the head (plus a
// fixed transfer and the host's latency), whenever the command arrived: the drive waits for the
// sector to come round. So the completion stamps of reads of one block x, read again and again
// from the media, lie on one comb: t = φ(x) + n·T, whatever the seek, the zone, the layout
// (serpentine or not), spare or slipped sectors, a zero-latency read or a whole revolution lost
// to a recalibration. Given a revolution T0 known to a few per cent, the T whose comb the stamps of
// a few such "anchor" blocks fit best, over tens of seconds, is the revolution to parts per
// million: a phase-locked count of revolutions. A cache hit (the block still in the buffer)
// completes at no particular phase and is left out by its latency; a host stall puts a stamp off
// the comb, and is left out by its residual.
#pragma once
#include <cstdint>
#include <vector>

namespace ds::measure {

// One completed read of an anchor block.
struct AnchorRead {
  unsigned anchor = 0;         // which block (index into the caller's anchor list)
  std::int64_t complete_ns = 0;
};

struct SpindleTuning {
  double scan_rel = 0.05;        // the revolution is looked for within T0 · (1 ± this) at least
  double phase_step = 1.0 / 16;  // scan step: this share of a turn over the reads' time span
  double min_coherence = 0.6;    // mean resultant length of the phases at the best T
  double outlier_sigmas = 5;     // a stamp this many robust σ off its comb is left out
  std::size_t min_reads = 32;    // reads on the comb, in all
  double rel_floor = 2e-6;       // stated resolution: the clock and the rounding of a stamp
};

struct SpindleFit {
  double revolution_ns = 0;      // 0: not found (too few reads, or no comb)
  double half_width_ns = 0;      // 95 % interval of the revolution
  double coherence = 0;          // mean resultant length at the best scanned T
  double residual_sd_ns = 0;     // robust σ of the stamps about their combs
  std::size_t used = 0, outliers = 0;
  double span_s = 0;             // first to last stamp used
};

// Pure: the revolution the anchor stamps lock onto, searched within t0_ns · (1 ± max(rel,
// tuning.scan_rel)).
SpindleFit fit_spindle(const std::vector<AnchorRead>& reads, double t0_ns, double rel,
                       const SpindleTuning& tuning = {});

}  // namespace ds::measure
