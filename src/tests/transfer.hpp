// transfer: sequential read rate across the span, sampled (ZCAV-style), with zones, outer/inner
// ratio, bytes per track and the surface / platter inference (see docs/methods.md).
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "drivescope/io.hpp"
#include "tests/common.hpp"
#include "tests/structure.hpp"
#include "tests/withheld.hpp"

namespace ds::measure {

struct TransferOptions {
  std::uint64_t span_blocks = 0;  // 0: the whole target
  double budget_s = 60;           // drive time this test may use
  unsigned points = 64;           // ZCAV sample positions (fewer when the budget is short)
  unsigned queue_depth = 8;
  double boundary_precision = 0.0025;  // refine zone boundaries to this share of the span
  // Look for no track structure: rates only (bench --rates-only). For a host whose completion
  // stamps are known not to follow the media: through a QEMU guest they are late by one to three
  // of the replies that follow, in batches, and the structure they seemed to show at a quiet
  // moment was the host's (docs/serve.md).
  bool rates_only = false;
  // Where in its cell of the ZCAV grid each rate sample lies (stratified at random): another seed
  // samples other places of the same zones.
  std::uint64_t seed = 1;
};

struct TransferPoint {
  std::uint64_t lba = 0;
  double mb_s = 0;          // sustained rate over whole cylinders (or the raw rate)
  double lossless_mb_s = 0; // the same without the switches' lost revolutions (= mb_s where not told)
  bool lossless_told = false;  // lossless_mb_s is the structure's (not mb_s for want of one)
  double media_mb_s = 0;    // rate while reading inside a track
  std::uint32_t sectors_per_track = 0;
  double spt_uncertainty = 0;
  unsigned surfaces = 0;
  bool surfaces_settled = false;  // its multiples up to 24 surfaces could have shown (TrackStructure)
  bool per_surface = false; // the surfaces differ in track size: spt is their mean
  unsigned rate_period_untold = 0;  // sector times repeat with this period; multiples not testable
  bool anomalous = false;   // no track structure where the neighbours have one (defect, noise)
  double command_ms = 0;    // per-command time fitted out of the stamps (slow region), else 0
};

struct TransferZone {
  std::uint64_t first_lba = 0, last_lba = 0;
  double mb_s = 0;
  double mb_s_uncertainty = 0;
  double media_mb_s = 0;
  std::uint32_t sectors_per_track = 0;
  std::uint64_t bytes_per_track = 0;
};

struct TransferResult {
  std::vector<TransferPoint> points;
  std::vector<TransferZone> zones;
  Figure outer_mb_s, inner_mb_s, outer_inner_ratio;
  std::uint64_t bytes_per_track_outer = 0;
  Figure rotation_ms;               // (spt + spares) · sector time over the samples (0: unknown)
  int spares_per_track = -1;        // unused sectors on every track, fitted across zones (-1: not told)
  unsigned surfaces_estimate = 0;   // 0: could not be told from timing
  double surfaces_confidence = 0;   // share of samples agreeing (0 where the probe told them)
  // What told surfaces_estimate: "streams" (the switches' pattern, this test), "same-head probe"
  // (the access test's track-to-track probe, set by the bench where the streams could not tell:
  // head and cylinder switches that cost the same). Empty: not told.
  std::string surfaces_source;
  // The period one place alone showed, when that is all there was: not reported, only a hint for
  // the track-to-track probe's aim (which checks it against its own timing).
  unsigned surfaces_hint = 0;
  // "cylinder" where the track switches repeat a head-switch pattern every `surfaces` tracks;
  // empty: not told (a surface-serpentine layout and a cylinder one with equal switch times
  // both show switches all alike). The notes say which.
  std::string layout;
  unsigned platters_estimate = 0;
  unsigned platters_low = 0, platters_high = 0;  // plausible range
  double bytes_per_platter_estimate = 0;
  std::uint32_t read_blocks = 0;    // read size used for the structure streams
  double drive_time_s = 0;
  std::vector<std::string> notes;
  std::vector<Withheld> withheld;  // why a figure is null or not told (tests/withheld.hpp)
};

// The value with the most votes, the smallest among ties (votes not empty).
unsigned most_voted(const std::map<unsigned, int>& votes);

// A surface count told by one stream, worth `weight` votes; settled: TrackStructure::surfaces_settled.
struct SurfaceVote {
  unsigned H = 0;
  bool settled = false;
  int weight = 1;
};
// The votes for each count, and the counts some stream settled. A period that divides a settled
// count, told where its multiples could not show, is no vote against that count, nor one for
// itself: twelve surfaces whose sizes repeat every third one show 3 in a sample's ten tracks, and
// 12 in a long stream.
struct SurfaceVotes {
  std::map<unsigned, int> votes;
  int told = 0;
  std::set<unsigned> settled;
};
SurfaceVotes tally_surfaces(const std::vector<SurfaceVote>& told);

// Two samples belong to the same zone: both show a track structure and their media rates (the
// sector time inside a track, the most precise figure of a sample) agree within 0.25 %.
bool same_zone(const TransferPoint& a, const TransferPoint& b);

// The pure part: group points into zones (by sectors per track when known, else by rate: a step
// must exceed rel_rate_step and three times the sample-to-sample noise; a sample faster than the
// last one kept outside it, where the rate comes back within two, then a lone sample between two
// agreeing neighbours and one slower than the sample inside it are spikes, left out; a flat noisy
// target is one zone).
std::vector<TransferZone> zones_from_points(const std::vector<TransferPoint>& pts,
                                            std::uint64_t span_blocks, std::uint32_t block_bytes,
                                            double rel_rate_step = 0.015);
// The share of a sample's time spent reading rather than waiting out lost revolutions (a switch
// that overran its skew), pooled over every sample that told both rates: the mean of
// mb_s/lossless_mb_s over samples of about equal duration is the drive's reading time over all
// their time, and its 95 % half-width (Student t over the samples). (The mean of lossless/mb_s − 1
// weighs a lossy sample as if it had read as much as the others: on a quiet wd1200jd it read the
// outer zone 1.5 % low.) Losses are the drive's, at about one chance per track (each track a
// revolution and a switch), so one share holds across the surface, and a zone of three samples
// need not rest on the few losses those met.
struct LossShare {
  double reading = 1, half_width = 0;
  std::size_t samples = 0;  // samples pooled (0: none told both rates)
};
LossShare pooled_loss_share(const std::vector<const TransferPoint*>& points);

// The invariant every reported zone list keeps: zones in LBA order, each non-empty, the first from
// LBA 0, each starting right after the one before, the last ending at span_blocks − 1.
bool zones_tile_span(const std::vector<TransferZone>& zones, std::uint64_t span_blocks);

// The spares per track the zones allow, and the revolution from them (a note where not told);
// the layout (cylinder) where the surfaces were told from the switches' period. Both work on a
// result whose zones and surfaces are set (transfer_zones.cpp).
void fit_spares(TransferResult& res, std::uint32_t block_bytes);
void tell_layout(TransferResult& res);

Expected<TransferResult> run_transfer(IoEngine& io, const TransferOptions& opt,
                                      const ProgressFn* progress = nullptr);

}  // namespace ds::measure
