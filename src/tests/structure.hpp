// Track structure from a stream of small sequential reads (a Skippy / DIG-style analysis).
//
// With several reads queued, a drive streaming from the media completes each read as soon as its
// last sector has passed under the head, so the completion stamps follow the platter: reads
// inside a track complete every m·s (m sectors of s seconds each); the read that crosses a track
// boundary is late by the switch time the layout leaves for it (the track skew, covering a head
// switch), and every H-th boundary by the larger or smaller cylinder skew (a one-cylinder seek).
// From the stamps alone this gives: the sector time s (media rate), the sectors per track (the
// period of the late reads, pinned to an integer by intersecting the position constraints of
// every boundary), the rotation period spt·s, the number of tracks per cylinder H (the period of
// the odd gaps: surfaces), and the sustained rate over whole cylinders.
// Talagala et al., "Microbenchmark-based extraction of local and global disk characteristics"
// (Skippy, 1999); Schindler & Ganger, "Automated disk drive characterization" (DIXtrac, 1999).
#pragma once
#include <cstdint>
#include <span>
#include <vector>

namespace ds::measure {

struct TrackStructure {
  bool media_bound = false;        // boundaries were seen: the stamps follow the media
  double sector_ns = 0;            // media time of one logical block
  std::uint32_t sectors_per_track = 0;  // 0: unknown (the mean over surfaces when per_surface)
  std::uint32_t cylinder_sectors = 0;   // logical sectors per cylinder (0: unknown)
  bool per_surface = false;        // no one track size fits: the surfaces differ, the cylinder fits
  double spt_uncertainty = 0;      // half-width of the feasible integer range
  std::uint64_t first_track_lba = 0;    // an LBA where a track starts (valid when spt > 0)
  double track_gap_ns = 0;         // median extra time at a head (track) switch
  double cyl_gap_ns = 0;           // median extra time at a cylinder switch (0: not told apart)
  unsigned surfaces = 0;           // tracks per cylinder; 0: could not be told
  double surfaces_confidence = 0;  // share of cylinder periods that agree with `surfaces`
  // Every multiple of `surfaces` up to the surfaces a drive plausibly has (24) could have shown in
  // this stream, and none did: the count is no part of a longer pattern (a stream that goes on
  // until it stands waits for this).
  bool surfaces_settled = false;
  bool surfaces_by_rate = false;   // `surfaces` from the tracks' sector times (switches all alike)
  unsigned rate_period_untold = 0;  // sector times repeat with this period, too few tracks to
                                    // rule out its multiples: not a surface count
  std::size_t boundaries = 0;      // track boundaries seen
  double reads_per_track = 0;      // median reads between boundaries (0: fewer than 3 boundaries)
  double rotation_ns = 0;          // spt · sector_ns (0 when spt unknown)
  double media_bytes_s = 0;        // block bytes / sector time
  double sustained_bytes_s = 0;    // whole cylinders (or tracks) including switch gaps
  // The same had no switch overrun its skew (lost revolutions counted as the usual gap): what a
  // zone's outlier test judges a sample by, since a lost revolution is the drive's (a quiet AAM
  // level's slowed switch), not a fault of the sample.
  double lossless_bytes_s = 0;
  double track_gap_lossless_ns = 0, cyl_gap_lossless_ns = 0;
  double raw_bytes_s = 0;          // plain bytes / time over the stream (always set when n ≥ 3)
  // Switches whose kinds were not told apart (no period), some of which lost whole revolutions:
  // which loss belongs to which kind is unknown, so the sustained rate above may misweigh them
  // (the transfer test then takes the stream's own rate).
  bool mixed_losses = false;
  // Share of the spacings that are 0 (completions handed over in one batch). Above 5 % the stream
  // is timed only as a whole: no boundaries are looked for (media_bound false).
  double tied_share = 0;
};

// `complete_ns[i]` is the completion stamp of read i, which covered blocks
// [first_lba + i·blocks_per_read, first_lba + (i+1)·blocks_per_read). The first `warmup` reads are
// ignored (positioning, queue filling). With `rotation_hint_ns` (a rotation measured elsewhere: it
// is the same in every zone) the track size is looked for only within 0.5 % of rotation / sector
// time: reads too coarse to pin it from the boundaries alone can still confirm or refute it.
TrackStructure analyse_stream(std::span<const std::int64_t> complete_ns, std::uint64_t first_lba,
                              std::uint32_t blocks_per_read, std::uint32_t block_bytes,
                              std::size_t warmup = 2, unsigned surfaces_hint = 0,
                              double rotation_hint_ns = 0);

// A stream in which every command pays the same extra time on top of its media time (a slow
// region: retries or remapped sectors on every access). Its completions are spaced cost + m·s
// (+ a switch gap at a boundary), and with a cost of tens of milliseconds the switch gaps drown in
// it. One read size cannot tell the cost from the media time, two can: the stream starts with
// `n_small` reads of `m_small` blocks and goes on with reads of `m_large` blocks; the median
// spacings of the two kinds differ by (m_large − m_small)·s, which gives s and then the cost.
// Taking j·cost off the stamp of the j-th large read leaves the stamps of a media-bound stream,
// analysed by analyse_stream. `fitted` is false when the stamps do not follow read size + a fixed
// cost: no positive sector time, or a read that took less than half its media time once the cost
// is taken off (a cache hit, or a cost that varies); the caller must then report no structure.
struct CostStream {
  TrackStructure t;        // of the large reads, per-command cost removed
  double command_ns = 0;   // fitted per-command time beyond the media time
  bool fitted = false;
};
CostStream analyse_cost_stream(std::span<const std::int64_t> complete_ns, std::uint64_t first_lba,
                               std::uint32_t m_small, std::size_t n_small, std::uint32_t m_large,
                               std::uint32_t block_bytes, unsigned surfaces_hint = 0,
                               double rotation_hint_ns = 0);

// Pure helpers, exposed for unit tests.
// Split values into two clusters (1-D, maximal between-class separation); returns the threshold
// between them, or a negative value when the values do not form two clearly separated groups.
double two_cluster_threshold(std::vector<double> v, double min_rel_separation);
// The smallest integer period p (within [lo, hi]) such that boundary j lies in
// [pos_lo[j], pos_hi[j]] for pos = base + k[j]·p; returns 0 when none fits, and writes the
// feasible range width to `range`.
std::uint32_t fit_period(std::span<const std::int64_t> pos_lo, std::span<const std::int64_t> pos_hi,
                         std::span<const std::int64_t> k, std::uint32_t lo, std::uint32_t hi,
                         std::int64_t* base = nullptr, std::uint32_t* range = nullptr);

// As fit_period, for boundaries of which a few may be wrong: the smallest period p whose best base
// admits the most boundaries, at least `min_fit` of them; 0 when no period does. `range` is the
// width of the run of periods, from p on, that admit as many.
std::uint32_t fit_period_consensus(std::span<const std::int64_t> pos_lo, std::span<const std::int64_t> pos_hi,
                                   std::span<const std::int64_t> k, std::uint32_t lo, std::uint32_t hi,
                                   std::size_t min_fit, std::int64_t* base = nullptr, std::uint32_t* range = nullptr);

}  // namespace ds::measure
