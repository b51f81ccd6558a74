#include "tests/transfer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <map>

#include "tests/result_keys.hpp"
#include "tests/stream_probe.hpp"

namespace ds::measure {

namespace {

// The method's parameters (docs/methods.md, "transfer").
struct TransferTuning {
  double search_share = 0.4;         // of what is left, for the read-size search
  double first_stream_s = 1.5;       // the long structure stream at the outer edge (at most)
  double first_stream_share = 0.05;  // … of the budget
  unsigned first_stream_cyls = 4;    // … until it has seen this many cylinder switches
  double more_streams_s = 1.0, more_streams_share = 0.03;  // the two more, mid-span and inner
  unsigned more_streams_cyls = 3;
  std::uint32_t raw_read_bytes = 262144;  // the read size where no track structure shows
  // A rate sample without track structure: its shortest and longest run (steady_rate firms up
  // with the stream's length where the host times completions coarsely).
  double min_rate_sample_s = 0.3, max_rate_sample_s = 1.0;
  double rev_guess_ns = 8.33e6;           // a revolution assumed where none was measured
  double rate_guess_bytes_s = 100e6;      // a rate assumed where none was measured
  double sample_warmup_revs = 3.5;        // a sample: one cylinder switch plus warm-up
  unsigned default_surfaces = 4;          // … H assumed where not told
  double min_sample_reads = 12;           // … and at least this many reads
  double seek_allowance_s = 0.025;        // per sample, for its seek
  double samples_share = 0.6;             // of what is left, for the samples
  double min_points = 8;
  double sample_len_margin = 1.5;         // LBAs a sample may read: its expected span times this
  std::uint64_t sample_len_reads = 64;    // … plus this many reads
  std::uint64_t fresh_gap = 4096;         // blocks between what a probe read and the next probe
  // Samples in a slow region (probe_cost_stream).
  std::uint32_t cost_track_div = 8;       // reads of 1/8 of the outer track
  double cost_min_left_s = 3.0;           // budget a costly retry needs
  std::uint64_t cost_backoff = 65536;     // blocks before the sample: out of its read-ahead
  double cost_stream_s = 3.0;
  unsigned cost_extra_switches = 2;       // boundaries wanted: H and this many more
  double with_spt_share = 0.6;            // samples with a structure that make the rest anomalies
  // Rates only: a sample this much faster than the one outside it, or slower than the one inside
  // it, is read twice more nearby (recheck_odd_rates).
  double odd_rate_share = 0.01;
  unsigned odd_offset_div = 4;            // … a quarter of the grid step either side
  // Rates only: neighbouring samples of a disk differ by a zone step at most (a few %; the whole
  // disk spans 1.5-3x). One under this share of the last sample kept outside it is no zone but a
  // slow region or a stall (mark_slow_samples).
  double slow_sample_share = 0.6;
  double slow_noise_multiple = 4;         // … and further below than this many median neighbour steps
  double edge_reach = 0.25;  // an edge's rate needs a sample starting within this share of the span
                             // of it (of where the last sample may start, for the inner edge)
  double refine_revs = 7;                 // a boundary-refinement probe, in revolutions
  double rotation_floor = 1e-4;           // stated resolution of the samples' median revolution
  int long_stream_votes = 4;              // a long stream's surface count is worth this many samples
  int min_surface_votes = 8;              // two long streams' worth: one place is not enough
  int platter_range_div = 5;              // values voted for by a fifth of the samples widen the range
};
constexpr TransferTuning kTuning{};

std::uint32_t block_bytes(const IoEngine& io) {
  return io.info().logical_block_bytes ? io.info().logical_block_bytes : 512;
}

// The test's state from one phase to the next.
struct TransferRun {
  IoEngine& io;
  const TransferOptions& opt;
  const ProgressFn* progress;
  TransferResult res;
  Budget budget;
  std::uint32_t lb;
  std::uint64_t span;
  unsigned qd;
  ProbeChoice pc;
  std::uint32_t m = 0;            // blocks per read of the structure streams and samples
  std::uint64_t fresh = 0;        // the structure probes read [0, fresh)
  double rev_ns = 0;
  unsigned H = 0;
  std::vector<SurfaceVote> long_votes;  // surfaces told by the long structure streams
  double rev_guess = 0, sample_s = 0;
  unsigned P = 0;
  std::uint64_t room = 0;         // where a sample may start
  Rng rng{opt.seed};
  std::uint32_t m_cost = 0;
  unsigned cost_tried = 0, cost_ok = 0, cost_none = 0;  // cost_none: of cost_ok, no slow region
  std::vector<double> cost_ms, rots;

  TransferRun(IoEngine& io_, const TransferOptions& o, const ProgressFn* p, std::uint32_t lb_, std::uint64_t span_)
      : io(io_), opt(o), progress(p), budget(o.budget_s), lb(lb_), span(span_),
        // QD 8: the next requests must be in the drive before the current one ends, so that
        // their command overhead overlaps with the media transfer.
        qd(std::max(2u, std::min(o.queue_depth, std::max(2u, io_.info().max_queue_depth)))) {}

  void report(double f) const {
    if (progress && *progress) (*progress)("transfer", f, budget.used_s());
  }
  bool search_read_size();
  std::optional<Error> long_streams();
  std::optional<Error> structure_streams();
  void plan_samples();
  std::optional<Error> take_samples();
  void recheck_odd_rates();
  void mark_slow_samples();
  bool inner_slow = false, outer_slow = false;  // the edge's samples were left out as slow
  void retry_costly(TransferPoint& pt);
  TransferPoint sample(std::uint64_t lba, double dur);
  // A rate sample's stream: `s` of drive time at the test's queue depth, inside the span, told the
  // surface count the structure streams found.
  StreamOptions sample_stream(double s) const {
    return {.max_s = s, .queue_depth = qd, .end_lba = span, .surfaces_hint = H};
  }
  TransferPoint rate_point(std::uint64_t lba, const StreamProbe& p) const;
  std::uint64_t grid_lba(unsigned i);
  std::vector<TransferPoint> bisect_boundaries(const std::vector<TransferPoint>& good);
  void sample_probed_zones(const std::vector<TransferPoint>& good);
  void refine_boundaries();
  void rates();
  void drop_unreached_edges();
  void surfaces();
  void note_untold_surfaces();
  void cost_note();
};

// `steady_bytes_s`: the rate of the stream timed as a whole, used in place of the structure's
// sustained rate when no structure was looked for (rates only), or when the structure's switches
// lost revolutions it cannot assign to a kind (TrackStructure::mixed_losses): the stream's own
// time counts each loss as often as the stream met it.
TransferPoint point_of(std::uint64_t lba, const TrackStructure& t, double steady_bytes_s = 0, bool rates_only = true) {
  TransferPoint pt;
  pt.lba = lba;
  const bool steady = steady_bytes_s > 0 && (rates_only || t.mixed_losses);
  pt.mb_s = (steady ? steady_bytes_s : t.sustained_bytes_s) * 1e-6;
  // Where the stream's own rate stands in for mixed losses, the structure still says what the
  // stream would have read without them.
  pt.lossless_told = !rates_only && t.lossless_bytes_s > 0;
  pt.lossless_mb_s = pt.lossless_told ? t.lossless_bytes_s * 1e-6 : pt.mb_s;
  pt.media_mb_s = t.media_bytes_s * 1e-6;
  pt.sectors_per_track = t.sectors_per_track;
  pt.spt_uncertainty = t.spt_uncertainty;
  pt.surfaces = t.surfaces;
  pt.surfaces_settled = t.surfaces_settled;
  pt.per_surface = t.per_surface;
  pt.rate_period_untold = t.rate_period_untold;
  return pt;
}

// The read-size search (at most 40 % of the budget: where no size shows a track — a file, a RAM
// disk — it tries every size, and the rate samples still need their share): the read size m and
// where fresh blocks start. Where no size follows the media, or no structure is looked for (rates
// only), m is the raw read size and a note says why; false then, no structure streams follow.
bool TransferRun::search_read_size() {
  const auto& k = kTuning;
  {
    Budget search(budget.left_s() * k.search_share);
    pc = choose_stream(io, 0, search, {.queue_depth = qd, .end_lba = span});
    budget.charge(search.used_ns());
  }
  if (opt.rates_only) pc.blocks = 0;  // the search still gives the rate guess and the host's ties
  m = pc.blocks;
  fresh = pc.end_lba;
  if (!m) {
    m = std::max<std::uint32_t>(1, std::min<std::uint64_t>(k.raw_read_bytes, max_stream_read_bytes(io)) / lb);
    res.withheld.push_back({key::transfer::bytes_per_track,
                            opt.rates_only ? WithheldReason::rates_only_asked : WithheldReason::no_track_boundaries});
    if (pc.t.tied_share > 0)
      res.notes.push_back(fmt::format("the host handed over {:.0f} % of a stream's completions together with the one "
                                      "before (one stamp for both)", pc.t.tied_share * 100));
    return false;
  }
  return true;
}

// Three long structure streams: at the outer edge, mid-span and near the inner edge, so that the
// surface count rests on several places (a ZCAV sample is too short to hold two cylinder
// switches). The first also gives the revolution and the surfaces the samples are told.
std::optional<Error> TransferRun::long_streams() {
  const auto& k = kTuning;
  StreamProbe first = probe_stream(io, pc.end_lba, m, budget,
                                   {.max_s = std::min(k.first_stream_s, opt.budget_s * k.first_stream_share),
                                    .queue_depth = qd, .want_cyl_switches = k.first_stream_cyls, .end_lba = span});
  if (first.error) return first.error;
  fresh = first.end_lba + k.fresh_gap;
  rev_ns = first.t.rotation_ns ? first.t.rotation_ns : pc.t.rotation_ns;
  H = first.t.surfaces;
  // A long stream saw several cylinder switches: its count is worth several samples'.
  if (H) long_votes.push_back({H, first.t.surfaces_settled, k.long_stream_votes});
  for (double at : {0.5, 0.9}) {
    StreamProbe q = probe_stream(io, static_cast<std::uint64_t>(span * at), m, budget,
                                 {.max_s = std::min(k.more_streams_s, opt.budget_s * k.more_streams_share),
                                  .queue_depth = qd, .want_cyl_switches = k.more_streams_cyls, .end_lba = span});
    if (!q.error && q.t.surfaces) long_votes.push_back({q.t.surfaces, q.t.surfaces_settled, k.long_stream_votes});
  }
  return std::nullopt;
}

// The read size, then the long structure streams where a size follows the media.
std::optional<Error> TransferRun::structure_streams() {
  if (!search_read_size()) return std::nullopt;
  return long_streams();
}

// How long a sample streams (one cylinder switch plus warm-up, and at least 12 reads), how many
// fit the budget, and where they may start.
void TransferRun::plan_samples() {
  const auto& k = kTuning;
  res.read_blocks = m;
  rev_guess = rev_ns > 0 ? rev_ns : k.rev_guess_ns;
  const double rate0 = pc.t.raw_bytes_s > 0 ? pc.t.raw_bytes_s : k.rate_guess_bytes_s;
  sample_s = std::max(((H ? H : k.default_surfaces) + k.sample_warmup_revs) * rev_guess * 1e-9,
                      k.min_sample_reads * m * lb / rate0);
  const double per_sample = sample_s + k.seek_allowance_s;
  P = static_cast<unsigned>(std::clamp(budget.left_s() * k.samples_share / per_sample, k.min_points,
                                       static_cast<double>(opt.points)));
  if (!pc.blocks) {
    // Rates only: no sample shorter than min_rate_sample_s, and the samples share the budget.
    P = static_cast<unsigned>(std::clamp(budget.left_s() * k.samples_share / (k.min_rate_sample_s + k.seek_allowance_s),
                                         k.min_points, static_cast<double>(opt.points)));
    sample_s = std::max(sample_s, std::min(k.max_rate_sample_s,
                                           budget.left_s() * k.samples_share / P - k.seek_allowance_s));
  }
  const auto len = static_cast<std::uint64_t>(rate0 * sample_s * k.sample_len_margin / lb) + k.sample_len_reads * m;
  room = span > len ? span - len : 0;
  // Reads of ~1/8 of the outer track keep the number of (costly) commands per slow-region sample
  // small while a track still holds several of them.
  m_cost = std::max<std::uint32_t>(2 * m, pc.t.sectors_per_track / k.cost_track_div);
}

// A sample without track structure amid samples that have one may lie in a slow region where
// every command costs far more than its media time, so that the switch gaps drown in that cost.
// It is taken again with two read sizes and the per-command cost fitted out of the stamps
// (probe_cost_stream). The point keeps no structure when the result does not agree with the
// rotation measured at the outer edge.
void TransferRun::retry_costly(TransferPoint& pt) {
  const auto& k = kTuning;
  if (!m || rev_ns <= 0 || budget.left_s() < k.cost_min_left_s) return;
  // Start a little before the sample: the drive's read-ahead has cached what follows it, and a
  // cache hit is no media timing (32 MiB of 512-byte blocks: 0.01 % of a 200 GB disk).
  const std::uint64_t from = pt.lba >= k.cost_backoff ? pt.lba - k.cost_backoff : pt.lba + k.cost_backoff;
  ++cost_tried;
  CostProbe q = probe_cost_stream(io, from, m_cost, budget,
                                  {.max_s = k.cost_stream_s, .rotation_ns = rev_ns,
                                   .want_boundaries = (H ? H : k.default_surfaces) + k.cost_extra_switches,
                                   .end_lba = span, .surfaces_hint = H});
  if (q.error || !q.consistent) return;
  const std::uint64_t lba = pt.lba;
  pt = point_of(lba, q.s.t);
  ++cost_ok;
  // Less than the read's media time is no slow region (0 ms on sim:raptor as /2: noise had hidden
  // the tracks at one read size); the structure stands.
  if (q.s.command_ns < m_cost * q.s.t.sector_ns) ++cost_none;
  else cost_ms.push_back(pt.command_ms = q.s.command_ns * 1e-6);
}

// A sample's point. Rates only (--rates-only): no structure is looked for, so none is kept. A
// stream whose stamps happened to look like tracks (a target whose rate swings) had made the
// samples without such a look anomalies.
TransferPoint TransferRun::rate_point(std::uint64_t lba, const StreamProbe& p) const {
  TransferPoint pt = point_of(lba, p.t, p.steady_bytes_s, pc.blocks == 0);
  if (opt.rates_only) {
    pt.sectors_per_track = 0;
    pt.spt_uncertainty = 0;
    pt.surfaces = 0;
    pt.surfaces_settled = false;
    pt.per_surface = false;
    pt.rate_period_untold = 0;
  }
  return pt;
}

TransferPoint TransferRun::sample(std::uint64_t lba, double dur) {
  StreamProbe p = probe_stream(io, lba, m, budget, sample_stream(dur));
  TransferPoint pt = rate_point(lba, p);
  if (!pt.sectors_per_track && cost_ok && !p.error) retry_costly(pt);
  return pt;
}

// Sample i of the grid: at a random place of its cell, the first within half a cell of the start
// (after what the structure probes read), the last within half a cell of the end. At fixed places
// every run met the same few switches: on a drive that loses a revolution at one switch in nine
// (a quiet AAM level), an A/B's rounds all read the outer zone 5.3 % slow, ± 0.04 %, for 10 %.
std::uint64_t TransferRun::grid_lba(unsigned i) {
  if (P < 2) return 0;
  const std::uint64_t cell = room / (P - 1), at = room * i / (P - 1);
  if (i == 0) return std::min(room, (fresh < room / 4 ? fresh : 0) + rng.below(cell / 2 + 1));
  if (i + 1 == P) return at - rng.below(cell / 2 + 1);
  return at - cell / 2 + rng.below(cell + 1);
}

// The grid's cells in an order whose every prefix spans the disk: both ends, then midpoints of
// what lies between, coarse to fine. A budget that runs out leaves fewer samples, not an inner
// part without any (a 60 s bench of a slow 1 GB drive had stopped before the last quarter).
std::vector<unsigned> coverage_order(unsigned P) {
  std::vector<unsigned> order;
  if (P == 0) return order;
  order.push_back(0);
  if (P > 1) order.push_back(P - 1);
  std::deque<std::pair<unsigned, unsigned>> gaps{{0, P - 1}};
  while (!gaps.empty()) {
    const auto [a, b] = gaps.front();
    gaps.pop_front();
    if (b - a < 2) continue;
    const unsigned mid = a + (b - a) / 2;
    order.push_back(mid);
    gaps.emplace_back(a, mid);
    gaps.emplace_back(mid, b);
  }
  return order;
}

// The ZCAV grid: P samples spread over the span (grid_lba, in coverage_order); those without a
// structure among many that have one are retried as costly, and what still has none is an anomaly
// (a slow region whose stamps do not fit a fixed per-command cost, a retry): kept as a point, left
// out of the zones.
std::optional<Error> TransferRun::take_samples() {
  const auto& k = kTuning;
  const std::vector<unsigned> order = coverage_order(P);
  for (unsigned n = 0; n < order.size() && !budget.exhausted(); ++n) {
    const unsigned i = order[n];
    const std::uint64_t lba = grid_lba(i);
    StreamProbe p = probe_stream(io, lba, m, budget, sample_stream(sample_s));
    if (p.error) {
      res.notes.push_back("sample at LBA " + std::to_string(lba) + ": " + p.error->message);
      if (res.points.empty()) return p.error;
      break;
    }
    if (p.t.rotation_ns > 0) rots.push_back(p.t.rotation_ns * 1e-6);
    res.points.push_back(rate_point(lba, p));
    report(0.8 * (n + 1) / P);
  }
  if (res.points.empty()) return make_error("transfer: the drive-time budget ran out before the first rate sample");
  std::sort(res.points.begin(), res.points.end(), [](auto& x, auto& y) { return x.lba < y.lba; });
  auto with_spt = [&] {
    std::size_t n = 0;
    for (auto& p : res.points) n += p.sectors_per_track > 0;
    return n;
  };
  const std::size_t told = with_spt();
  if (told && told * 10 >= res.points.size() * static_cast<std::size_t>(10 * k.with_spt_share))
    for (auto& p : res.points)
      if (!p.sectors_per_track) retry_costly(p);
  if (with_spt() * 10 >= res.points.size() * static_cast<std::size_t>(10 * k.with_spt_share))
    for (auto& p : res.points) p.anomalous = p.sectors_per_track == 0;
  return std::nullopt;
}

// Rates only: zones slow down inward, so a sample faster than the one outside it or slower than
// the one inside it says its stream was mistimed, or its neighbour's was (through QEMU, which
// hands completions over in batches, one sample in seven read 1-4 % fast, once two in a row, and
// zones_from_points cannot tell which of two such is right). Both are read twice more, a quarter
// of the grid step either side (fresh blocks: nothing the first stream brought into the drive's
// buffer), and keep the median of their three rates; the spike rules of zones_from_points remain
// for what is still odd. The samples leave the rest of the budget unused without a structure to
// refine, so this costs no sample.
void TransferRun::recheck_odd_rates() {
  const auto& k = kTuning;
  auto& pts = res.points;
  if (pc.blocks || pts.size() < 3 || P < 2) return;
  std::vector<std::size_t> odd;
  for (std::size_t i = 0; i < pts.size(); ++i) {
    const double x = pts[i].mb_s;
    const bool fast = i > 0 && x > pts[i - 1].mb_s * (1 + k.odd_rate_share);
    // The innermost sample has none inside it: one far under the one outside it (a stall, or a
    // slow region) is read again too, or a stall there would leave the inner rate untold.
    const bool slow = i + 1 < pts.size() ? x < pts[i + 1].mb_s * (1 - k.odd_rate_share)
                                         : i > 0 && x < pts[i - 1].mb_s * k.slow_sample_share;
    if (fast || slow) odd.push_back(i);
  }
  const std::uint64_t step = room / (P - 1) / k.odd_offset_div;
  unsigned rechecked = 0;
  for (std::size_t i : odd) {
    if (budget.left_s() < 2 * (sample_s + k.seek_allowance_s)) break;
    std::vector<double> r{pts[i].mb_s};
    for (const std::uint64_t lba : {pts[i].lba >= step ? pts[i].lba - step : pts[i].lba + 2 * step,
                                    std::min(room, pts[i].lba + step)}) {
      const StreamProbe p = probe_stream(io, lba, m, budget, sample_stream(sample_s));
      if (p.error || !(p.steady_bytes_s > 0)) break;
      r.push_back(p.steady_bytes_s * 1e-6);
    }
    if (r.size() < 3) continue;
    pts[i].mb_s = pts[i].lossless_mb_s = median(r);
    ++rechecked;
  }
  if (rechecked)
    res.notes.push_back(fmt::format("rates only: {} samples read faster than the one outside them or slower than the "
                                    "one inside were read twice more nearby; each keeps the median of its three",
                                    rechecked));
}

// Rates only: a sample that reads at a fraction of the last one kept outside it (the inner 15 %
// of a /2 7200.7 with +42 ms a command: 5.35 MB/s beside 39) is an anomaly, as a slow region's
// samples are on the structure path, and so is a first sample that slow beside the second. Where
// an edge's samples go, that edge's rate is not told: the zone left there is not the edge's.
void TransferRun::mark_slow_samples() {
  auto& pts = res.points;
  if (pc.blocks || pts.size() < 3) return;
  // On a target whose rate swings by itself (a RAM-backed loop device: neighbours 15-40 % apart,
  // 4 of 8 samples under 60 % of the one before) a slow sample is its noise, not a region: a
  // sample counts as slow only when it also falls further below than kTuning.slow_noise_multiple
  // times the median step between neighbours (in log rate; a disk's are zone steps of 1-3 %).
  std::vector<double> steps;
  for (std::size_t i = 1; i < pts.size(); ++i)
    if (pts[i].mb_s > 0 && pts[i - 1].mb_s > 0) steps.push_back(std::fabs(std::log(pts[i].mb_s / pts[i - 1].mb_s)));
  const double noise = steps.empty() ? 0 : median(steps);
  auto slow_beside = [&](double x, double ref) {
    return x < kTuning.slow_sample_share * ref && !(x > 0 && std::log(ref / x) <= kTuning.slow_noise_multiple * noise);
  };
  const double share = kTuning.slow_sample_share;
  if (slow_beside(pts[0].mb_s, pts[1].mb_s)) pts[0].anomalous = true;
  double last = pts[0].anomalous ? pts[1].mb_s : pts[0].mb_s;
  unsigned slow = pts[0].anomalous ? 1 : 0;
  for (std::size_t i = 1; i < pts.size(); ++i) {
    if (slow_beside(pts[i].mb_s, last)) {
      pts[i].anomalous = true;
      ++slow;
    } else if (!pts[i].anomalous) {
      last = pts[i].mb_s;
    }
  }
  if (!slow) return;
  outer_slow = pts.front().anomalous;
  inner_slow = pts.back().anomalous;
  res.withheld.push_back({key::transfer::zones, WithheldReason::slow_samples,
                          {{"samples", slow}, {"share_pct", share * 100}, {"edge", inner_slow || outer_slow ? 1 : 0}}});
}

// Every change of sectors-per-track between the samples with a structure (`good`, in LBA order)
// refined by bisection until the boundary is known to opt.boundary_precision of the span; a third
// value found in between is a zone the grid missed. The refinement probes' points, in LBA order.
std::vector<TransferPoint> TransferRun::bisect_boundaries(const std::vector<TransferPoint>& good) {
  const double refine_s = kTuning.refine_revs * rev_guess * 1e-9;
  const auto prec = static_cast<std::uint64_t>(std::max(1.0, opt.boundary_precision * span));
  std::vector<TransferPoint> extra;
  std::vector<std::pair<TransferPoint, TransferPoint>> work;
  for (std::size_t i = 1; i < good.size(); ++i)
    if (!same_zone(good[i], good[i - 1])) work.emplace_back(good[i - 1], good[i]);
  while (!work.empty() && !budget.exhausted()) {
    auto [a, b] = work.back();
    work.pop_back();
    if (b.lba - a.lba <= prec) continue;
    std::uint64_t mid = a.lba + (b.lba - a.lba) / 2;
    TransferPoint pm = sample(mid, refine_s);
    if (!pm.sectors_per_track) continue;  // no structure there: leave this boundary coarse
    extra.push_back(pm);
    if (same_zone(pm, a)) work.emplace_back(pm, b);
    else if (same_zone(pm, b)) work.emplace_back(a, pm);
    else {
      work.emplace_back(a, pm);
      work.emplace_back(pm, b);
    }
  }
  std::sort(extra.begin(), extra.end(), [](auto& x, auto& y) { return x.lba < y.lba; });
  return extra;
}

// A refinement probe is short and may miss a cylinder switch: a zone that only such probes saw
// (none of the samples in `good` lies in it) gets one full sample at its middle, whose rate
// replaces theirs when it shows the same zone.
void TransferRun::sample_probed_zones(const std::vector<TransferPoint>& good) {
  for (auto& z : zones_from_points(res.points, span, lb)) {
    bool has_full = false;
    for (auto& g : good) has_full |= g.lba >= z.first_lba && g.lba <= z.last_lba;
    if (has_full || budget.exhausted()) continue;
    TransferPoint pm = sample(z.first_lba + (z.last_lba - z.first_lba) / 2, sample_s);
    TransferPoint zp;
    zp.sectors_per_track = z.sectors_per_track;
    zp.media_mb_s = z.media_mb_s;
    zp.per_surface = pm.per_surface;
    zp.spt_uncertainty = pm.spt_uncertainty;
    if (!same_zone(pm, zp)) continue;
    // Replace the short probes' rates in this zone by the full sample's.
    for (auto& p : res.points) {
      if (p.lba < z.first_lba || p.lba > z.last_lba) continue;
      p.mb_s = pm.mb_s;
      p.lossless_mb_s = pm.lossless_mb_s;
    }
    res.points.push_back(pm);
  }
}

// The zone boundaries refined (bisect_boundaries) and the zones only the refinement saw sampled
// in full (sample_probed_zones), the points kept in LBA order.
void TransferRun::refine_boundaries() {
  std::vector<TransferPoint> good;
  for (auto& p : res.points)
    if (!p.anomalous && p.sectors_per_track) good.push_back(p);
  if (good.empty() || !m) return;
  auto by_lba = [](auto& x, auto& y) { return x.lba < y.lba; };
  for (auto& e : bisect_boundaries(good)) res.points.push_back(e);
  std::sort(res.points.begin(), res.points.end(), by_lba);
  sample_probed_zones(good);
  std::sort(res.points.begin(), res.points.end(), by_lba);
}

// An edge's rate needs a sample near that edge: the zones cover the span whatever the samples
// reached (a 60 s bench of a slow /2 HP C2249A took two samples, both at its outer edge, and
// printed outer/inner 1.000 ± 0.013 for 1.76). The outer and inner rates are taken back where no
// sample that counts reached their edge, or where that edge's samples were left out as slow.
void TransferRun::drop_unreached_edges() {
  std::uint64_t lo = span, hi = 0;
  for (const auto& p : res.points) {
    if (p.anomalous || !(p.mb_s > 0)) continue;
    lo = std::min(lo, p.lba);
    hi = std::max(hi, p.lba);
  }
  // (Samples start in [0, room]; each reads on a sample's length past its start.)
  const auto reach = static_cast<std::uint64_t>(kTuning.edge_reach * static_cast<double>(span));
  const bool outer_far = lo > reach, inner_far = hi + reach < room;
  if (outer_far || inner_far)
    res.withheld.push_back({key::transfer::outer_inner_ratio, WithheldReason::edge_not_sampled,
                            {{"reach_pct", kTuning.edge_reach * 100}, {"outer", outer_far}, {"inner", inner_far}}});
  if (outer_slow || outer_far) res.outer_mb_s = {};
  if (inner_slow || inner_far) res.inner_mb_s = {};
}

// Zones, the outer and inner rates and their ratio, the samples' revolution, spare sectors.
void TransferRun::rates() {
  res.zones = zones_from_points(res.points, span, lb);
  report(0.95);
  if (!res.zones.empty()) {
    const auto& zo = res.zones.front();
    const auto& zi = res.zones.back();
    res.outer_mb_s = {zo.mb_s, zo.mb_s_uncertainty};
    res.inner_mb_s = {zi.mb_s, zi.mb_s_uncertainty};
    drop_unreached_edges();
    if (zi.mb_s > 0 && res.outer_mb_s.value > 0 && res.inner_mb_s.value > 0) {
      double r = zo.mb_s / zi.mb_s;
      double rel = std::hypot(zo.mb_s_uncertainty / zo.mb_s, zi.mb_s_uncertainty / zi.mb_s);
      res.outer_inner_ratio = {r, r * rel};
    }
    res.bytes_per_track_outer = zo.bytes_per_track;
  }
  if (!rots.empty()) {
    // The median's 95 % half-width (it was one σ/√n, a 68 % interval). fit_spares replaces it
    // where the spares can be fitted. Open: on sim:raptor the printed revolution still misses the
    // 6.000 ms on 3 of 20 seeds, 0.1 % short (927/928 of it), a bias no spread-based interval covers.
    const double med = median(rots);
    res.rotation_ms = {med, kZ95 * median_se(rots) + med * kTuning.rotation_floor};
  } else {
    res.rotation_ms = {};
  }
  fit_spares(res, lb);
}

// No stream told a surface count: the note says what the samples did show, a period of the
// tracks' sector times too short to rule out its multiples, or switches all alike.
void TransferRun::note_untold_surfaces() {
  std::map<unsigned, int> periods;
  for (auto& p : res.points)
    if (!p.anomalous && p.rate_period_untold) ++periods[p.rate_period_untold];
  if (!periods.empty()) {
    const unsigned top = most_voted(periods);
    res.withheld.push_back({key::transfer::surfaces_estimate, WithheldReason::surfaces_period_open,
                            {{"period", top}, {"places", periods[top]}}});
  } else if (m && res.rotation_ms.value > 0) {
    res.withheld.push_back({key::transfer::surfaces_estimate, WithheldReason::switches_alike});
  }
}

// Surfaces: the most common tracks-per-cylinder among the streams that told it. One place's
// pattern is not enough: a serpentine band's end (one head switch after a band of cylinder
// switches) reads as a period in a single stream. A cylinder layout shows its period at every
// place probed, so the count must rest on two long streams' worth of votes, and on a stream that
// could have shown a multiple of it.
void TransferRun::surfaces() {
  const auto& k = kTuning;
  std::vector<SurfaceVote> all = long_votes;
  for (auto& p : res.points)
    if (!p.anomalous && p.surfaces) all.push_back({p.surfaces, p.surfaces_settled, 1});
  SurfaceVotes sv = tally_surfaces(all);
  auto& votes = sv.votes;
  int told = sv.told;
  const unsigned best = told ? most_voted(votes) : 0;
  if (told && votes[best] < k.min_surface_votes) {
    res.withheld.push_back({key::transfer::surfaces_estimate, WithheldReason::surfaces_one_place,
                            {{"votes", votes[best]}, {"told", told}, {"period", best}}});
    res.surfaces_hint = best;
    told = 0;
  } else if (told && !sv.settled.count(best)) {
    res.withheld.push_back({key::transfer::surfaces_estimate, WithheldReason::surfaces_multiple_open,
                            {{"period", best}, {"votes", votes[best]}, {"told", told}}});
    return;
  }
  if (!told) {
    note_untold_surfaces();
    return;
  }
  res.surfaces_estimate = best;
  res.surfaces_source = "streams";
  res.surfaces_confidence = static_cast<double>(votes[best]) / told;
  res.platters_estimate = (res.surfaces_estimate + 1) / 2;
  unsigned lo = res.surfaces_estimate, hi = res.surfaces_estimate;
  for (auto& [s, n] : votes)
    if (n * k.platter_range_div >= told) {  // any value a fifth of the samples voted for
      lo = std::min(lo, s);
      hi = std::max(hi, s);
    }
  res.platters_low = (lo + 1) / 2;
  res.platters_high = (hi + 1) / 2;
  res.bytes_per_platter_estimate = static_cast<double>(io.info().capacity_bytes) / res.platters_estimate;
}

void TransferRun::cost_note() {
  if (!cost_tried) return;
  std::string n = std::to_string(cost_tried) + " samples showed no track structure with one read size";
  if (!cost_ms.empty())
    n += fmt::format("; {} of them lie where every command costs {} ms more than its media time (a slow region): their "
                     "rate and structure come from two read sizes with that cost fitted out of the completion times",
                     cost_ms.size(), std::lround(median(cost_ms)));
  if (cost_none)
    n += fmt::format("; {} of them, read again with two read sizes, show their tracks and no cost beyond the media time "
                     "(no slow region: the stamps' noise had hidden the tracks)", cost_none);
  if (cost_ok < cost_tried)
    n += fmt::format("; {} could not be told (not consistent with the rotation), left out of the zones", cost_tried - cost_ok);
  res.notes.push_back(n);
}

}  // namespace

Expected<TransferResult> run_transfer(IoEngine& io, const TransferOptions& opt,
                                      const ProgressFn* progress) {
  const std::uint32_t lb = block_bytes(io);
  const std::uint64_t cap = io.info().capacity_bytes / lb;
  const std::uint64_t span = opt.span_blocks ? std::min(opt.span_blocks, cap) : cap;
  if (span < 4096) return make_error("transfer: span too small (" + std::to_string(span) + " blocks)");
  TransferRun run(io, opt, progress, lb, span);
  if (auto e = run.structure_streams()) return *e;
  run.plan_samples();
  if (auto e = run.take_samples()) return *e;
  run.recheck_odd_rates();
  run.mark_slow_samples();
  run.refine_boundaries();
  run.rates();
  run.surfaces();
  run.cost_note();
  tell_layout(run.res);
  run.res.drive_time_s = run.budget.used_s();
  if (run.budget.exhausted()) run.res.notes.push_back("drive-time budget reached");
  run.report(1.0);
  return std::move(run.res);
}

}  // namespace ds::measure
