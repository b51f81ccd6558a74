// The track-structure analysis's own parts (tests/structure.cpp), shared with what its switches
// tell (tests/structure_switches.cpp: the kinds of switch, the surface count, what each kind costs).
// Not an interface of the measurement library: tests/structure.hpp is.
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "tests/structure.hpp"

namespace ds::measure::structure_detail {

// The track-structure fit's parameters (docs/methods.md, "transfer").
struct StructureTuning {
  unsigned max_surfaces = 64;  // tracks per cylinder looked for (drives have had up to ~30)
  double rate_f = 30;  // surfaces from sector times: between/within variance ratio
  // Surfaces a drive plausibly has, for the sector-time period: 3.5-inch drives of the 2020s carry
  // 9-11 platters (18-22 heads); the bound leaves room above that.
  unsigned plausible_surfaces = 24;
  // A real kernel hands over every completion that came in while the reader was not looking in one
  // batch (a late wake-up, a guest's slow interrupt path), and AioEngine stamps a batch once: tied
  // stamps, spacings of 0 and then of two reads. Through QEMU's TCG on a loaded host 7-50 % of a
  // stream's spacings were 0 (docs/serve.md); the "boundaries" such stamps show are the batches,
  // not the tracks, and once gave a sustained rate 24 % above the media's. Beyond this share of
  // tied spacings the stamps say when the host looked, not when each read ended.
  double max_tied_share = 0.05;
  double lost_revolution_tolerance = 0.15;  // a step of n revolutions, ± this share of one
};
inline constexpr StructureTuning kTuning{};

// A straight line through the stamps of reads [from, to): one track, or part of one. Its slope is
// the median spacing inside the range (the time of one read on that track's surface), its level
// the median of what is left once the slope is taken off. Medians, because a host's completion
// latency puts an independent, positive error on every single stamp: a stamp late by a host
// hiccup moves neither.
struct Line {
  double slope = 0, level = 0;
  double at(std::size_t i) const { return level + slope * static_cast<double>(i); }
};
Line fit_line_at(std::span<const std::int64_t> c, std::size_t from, std::size_t to, double fallback_slope);

// A track boundary in a stream's stamps.
struct Boundary {
  std::size_t read = 0;  // index of the read that crossed the boundary
  double gap_ns = 0;     // how far the stamps' line steps up there
};

// The tracks per cylinder a period of the switches' costs tells, and at which phase the cylinder
// switches come (find_surfaces).
struct Period {
  unsigned H = 0, phase = 0;
  double conf = 0;
};

// The tracks per cylinder: the smallest period H (with a phase) such that the boundaries at
// k ≡ phase (mod H) have gaps on one side of a cut and all the others on the other side, for at
// least 85 % of each group, with two or more in the periodic group. Medians and shares, so a lost
// revolution or a pause at one switch does not move it. A period one of whose classes mixes two
// kinds of switch is skipped (class_mixes_kinds). Returns 0 when no period holds.
Period find_surfaces(const std::vector<Boundary>& bs, const std::vector<std::int64_t>& k, double min_sep,
                     double rev_ns);

// Whether a period H could be told from its multiples in a stream that can test periods up to
// `testable`: its largest multiple up to plausible_surfaces was among them.
bool multiples_testable(unsigned H, unsigned testable);

// Switches alike: the surfaces may still show in their sector times. Returns the period that
// groups the tracks for the per-surface fit (0: none). An ambiguous period still groups them (a
// multiple of it would group them as well) but is not reported as the surface count.
// t: where the switches told nothing (null when the switch costs were weighed by a surface count
// told elsewhere: the period then only groups the tracks).
unsigned surfaces_by_rate(std::span<const std::int64_t> c, const std::vector<Boundary>& bs,
                          const std::vector<std::int64_t>& k, double b, TrackStructure* t);

// What head and cylinder switches cost (t.track_gap_ns, t.cyl_gap_ns), by the period found, or
// else by the surface count told elsewhere when the gaps form two groups. Returns the surface
// count the sustained rate is to use (0: none).
unsigned weigh_switches(const std::vector<Boundary>& bs, const std::vector<std::int64_t>& k, const Period& per,
                        unsigned surfaces_hint, double rev_ns, TrackStructure& t);

}  // namespace ds::measure::structure_detail
