#include "tests/stream_probe.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace ds::measure {

namespace {

// The probes' parameters (docs/methods.md, "Track structure from completion stamps").
struct StreamTuning {
  // choose_stream: two read sizes follow the media when their sector times agree this well (4 %
  // where the stream found surfaces of their own density: the variants spread them by ±3 %).
  double size_agreement = 0.005, per_surface_agreement = 0.04;
  double fallback_agreement = 0.02;  // two media-bound sizes, where none agreed within size_agreement
  std::size_t steady_stretches = 16;  // a stream's steady rate: its least delayed stamp in each
};
constexpr StreamTuning kTuning{};

// A stream's rate without its track structure: the slope of the line through the least delayed
// stamp of each of up to 16 stretches of its steady part (least squares over those stamps). A host
// only ever delays a completion, never hands it over early, so the stamp of a stretch that lies
// lowest against the stream's line is the one nearest to when the drive finished. Through QEMU the
// delay wandered between 0 and ~18 ms over a stream and often fell to nothing over its last reads:
// a line through every stamp (least squares within 3 robust deviations) then came out +0.36 % fast
// on average over 256 streams of 0.3-0.5 s, one in eight over 1 % and up to +2.7 %, enough for a
// 16-zone drive to give a zone its outer neighbour's rate; the lowest stamps came within
// -0.04 ± 0.23 % (at most 0.9 % off) of the served drive's own rate (docs/serve.md). A rate
// between the end stamps alone moves by their whole delays (+3.4 ± 2.2 %). The steady part
// leaves out the warm-up, the burst of reads submitted together as the stream started (through
// QEMU their completions came up to 23 ms late, falling off over the next eight or so reads) and,
// on a long stream, its first quarter.
double steady_rate(const std::vector<std::int64_t>& c, unsigned qd, std::uint64_t bytes_per_read) {
  const std::size_t from = std::max<std::size_t>(2 + qd, c.size() / 4);
  if (c.size() < from + 8) return 0;
  const double per = static_cast<double>(c.back() - c[from]) / static_cast<double>(c.size() - 1 - from);
  if (!(per > 0)) return 0;
  const std::size_t n = c.size() - from, stretches = std::min<std::size_t>(kTuning.steady_stretches, n / 2);
  auto resid = [&](std::size_t i) { return static_cast<double>(c[i] - c[from]) - per * static_cast<double>(i - from); };
  std::vector<double> x, y;
  for (std::size_t b = 0; b < stretches; ++b) {
    std::size_t best = from + b * n / stretches;
    for (std::size_t i = best + 1; i < from + (b + 1) * n / stretches; ++i)
      if (resid(i) < resid(best)) best = i;
    x.push_back(static_cast<double>(best - from));
    y.push_back(static_cast<double>(c[best] - c[from]));
  }
  const LineFit f = fit_line(x, y);
  return f.slope > 0 ? static_cast<double>(bytes_per_read) / (f.slope * 1e-9) : 0;
}

// The in-order prefix of completion stamps of a stream.
std::vector<std::int64_t> prefix_stamps(const RunResult& r) {
  std::vector<std::int64_t> c;
  for (std::size_t i = 0; i < r.done.size() && r.done[i]; ++i) c.push_back(r.samples[i].complete_ns);
  return c;
}

// A stream ends when its in-order prefix covers its time; but a drive may hold one queued read
// back while it serves the reads behind it (pure SPTF with no age limit: on the full DiskSim
// RZ26 model a 1.5 s structure stream waited on read 184 and ran transfer's whole share, 68 s,
// leaving no rate sample). So no stream may take, on the engine's clock from its first
// submission, more than a tenth of the budget it draws on (nor less than four times its own
// time): one stream cannot starve the rest of the test.
constexpr double kStreamBudgetShare = 0.1;
constexpr std::int64_t kHeldReadFloor = 4;

bool held_too_long(IoEngine& io, const RunResult& r, std::int64_t max_ns, const Budget& budget) {
  const auto cap = std::max(kHeldReadFloor * max_ns, static_cast<std::int64_t>(kStreamBudgetShare * budget.limit_s() * 1e9));
  return !r.done.empty() && r.done[0] && io.now_ns() - r.samples[0].submit_ns >= cap;
}

}  // namespace

std::uint64_t max_stream_read_bytes(const IoEngine& io) {
  const std::uint32_t c = io.info().max_command_bytes;
  return c >= 4096 ? std::min<std::uint64_t>(512 * 1024, c) : 512 * 1024;
}

StreamProbe probe_stream(IoEngine& io, std::uint64_t lba, std::uint32_t blocks, Budget& budget,
                         const StreamOptions& opt) {
  StreamProbe p;
  const Span whole = span_of(io.info(), 0);
  const std::uint32_t lb = whole.block_bytes;
  const std::uint64_t end_lba = std::min<std::uint64_t>(opt.end_lba, whole.blocks);
  const unsigned qd = opt.queue_depth, want_cyl = opt.want_cyl_switches, hint = opt.surfaces_hint;
  const std::uint64_t read_bytes = static_cast<std::uint64_t>(blocks) * lb;
  // Enough reads for max_s even at 2 GB/s; the keep-going test ends the stream on time.
  const double cap_reads = std::min(2e9 * opt.max_s / static_cast<double>(read_bytes) + 16, 400000.0);
  auto plan = sequential_plan(lba, blocks, static_cast<std::size_t>(cap_reads), end_lba);
  if (plan.size() < 6) {
    p.error = make_error("span too short for a sequential stream");
    return p;
  }
  std::size_t checked = 0, n = 0;
  const auto max_ns = static_cast<std::int64_t>(opt.max_s * 1e9);
  KeepGoing kg = [&](const RunResult& r) {
    if (held_too_long(io, r, max_ns, budget)) return false;
    while (n < r.done.size() && r.done[n]) ++n;  // the completed prefix only grows
    if (n < 2) return true;
    // The analysis reads the in-order prefix: the stream goes on until that covers max_s.
    if (r.samples[n - 1].complete_ns - r.samples[0].submit_ns >= max_ns) return false;
    if (want_cyl && n >= checked + 256) {
      checked = n;
      auto c = prefix_stamps(r);
      TrackStructure t = analyse_stream(c, lba, blocks, lb);
      // A count stands once its multiples could have shown (twelve surfaces whose sizes repeat
      // every third one showed 3 in the first 16 tracks), and the cylinder switches were seen;
      // with a count told elsewhere (hint), the stream's own only has to show the switches.
      if (t.surfaces && (t.surfaces_settled || hint) && t.boundaries >= (want_cyl + 1) * t.surfaces) return false;
    }
    return true;
  };
  RunOptions ro;
  ro.queue_depth = qd;
  ro.first_alone = true;
  RunResult r = run_plan(io, plan, ro, budget, kg);
  p.drive_ns = r.drive_ns;
  auto c = prefix_stamps(r);
  p.end_lba = lba + c.size() * blocks;
  if (r.error && c.size() < 6) p.error = r.error;
  p.t = analyse_stream(c, lba, blocks, lb, 2, hint);
  p.steady_bytes_s = steady_rate(c, qd, read_bytes);
  return p;
}

CostProbe probe_cost_stream(IoEngine& io, std::uint64_t lba, std::uint32_t m_large, Budget& budget,
                            const CostStreamOptions& opt) {
  CostProbe p;
  const Span whole = span_of(io.info(), 0);
  const std::uint32_t lb = whole.block_bytes;
  const std::uint64_t end_lba = std::min<std::uint64_t>(opt.end_lba, whole.blocks);
  const double rotation_ns = opt.rotation_ns;
  const unsigned hint = opt.surfaces_hint;
  m_large = std::max<std::uint32_t>(m_large, 2);
  const std::uint32_t m_small = m_large / 2;
  constexpr std::size_t n_small = 10;
  std::vector<PlanEntry> plan;
  std::uint64_t a = lba;
  for (std::size_t i = 0; i < n_small + 4000; ++i) {
    const std::uint32_t b = i < n_small ? m_small : m_large;
    if (a + b > end_lba) break;
    plan.push_back({a, b, false});
    a += b;
  }
  if (plan.size() < n_small + 8) {
    p.error = make_error("span too short for a sequential stream");
    return p;
  }
  const auto max_ns = static_cast<std::int64_t>(opt.max_s * 1e9);
  std::size_t checked = 0, n = 0;
  KeepGoing kg = [&](const RunResult& r) {
    if (held_too_long(io, r, max_ns, budget)) return false;
    while (n < r.done.size() && r.done[n]) ++n;
    if (n < 2) return true;
    if (r.samples[n - 1].complete_ns - r.samples[0].submit_ns >= max_ns) return false;
    if (n >= n_small + 12 && n >= checked + 2) {
      checked = n;
      auto c = prefix_stamps(r);
      CostStream cs = analyse_cost_stream(c, lba, m_small, n_small, m_large, lb, hint, rotation_ns);
      if (cs.fitted && cs.t.sectors_per_track && cs.t.boundaries >= opt.want_boundaries) return false;
    }
    return true;
  };
  // Queue depth 2: the next command is always waiting in the drive (the stream goes on), and
  // stopping leaves only one more read to finish (each may cost tens of milliseconds).
  RunOptions ro;
  ro.queue_depth = 2;
  ro.first_alone = true;
  RunResult r = run_plan(io, plan, ro, budget, kg);
  p.drive_ns = r.drive_ns;
  auto c = prefix_stamps(r);
  p.end_lba = c.empty() ? lba : plan[c.size() - 1].lba + plan[c.size() - 1].blocks;
  if (r.error && c.size() < n_small + 8) p.error = r.error;
  p.s = analyse_cost_stream(c, lba, m_small, n_small, m_large, lb, hint, rotation_ns);
  const auto& t = p.s.t;
  p.consistent = p.s.fitted && t.sectors_per_track && rotation_ns > 0 &&
                 std::fabs(t.rotation_ns - rotation_ns) <= 0.01 * rotation_ns;
  if (!p.consistent) p.s.t.sectors_per_track = 0;
  return p;
}

ProbeChoice choose_stream(IoEngine& io, std::uint64_t lba, Budget& budget, const StreamSearchOptions& opt) {
  // The stream follows the media only when per-command costs are hidden: then the time per
  // sector does not depend on the read size. Double the size until two sizes agree (within
  // 0.5 %) and keep the smaller one, which resolves the track boundaries best.
  ProbeChoice best;
  const std::uint32_t lb = span_of(io.info(), 0).block_bytes;
  const std::uint32_t first = std::max<std::uint32_t>(1, 4096 / lb);
  struct Prev { std::uint32_t m = 0; double s = 0; bool ok = false; TrackStructure t; } prev;
  ProbeChoice near;  // the first pair that agreed only within fallback_agreement
  for (std::uint32_t m = first; static_cast<std::uint64_t>(m) * lb <= max_stream_read_bytes(io); m *= 2) {
    if (budget.exhausted()) break;
    // Each size's stream: 0.25 s, 30 revolutions at 7200 rpm (part of a cylinder, see below).
    StreamProbe p = probe_stream(io, lba, m, budget, {.max_s = 0.25, .queue_depth = opt.queue_depth, .end_lba = opt.end_lba});
    if (p.error) break;
    lba = p.end_lba + 4096;  // fresh LBAs each time: what was just read sits in the cache
    best.end_lba = lba;
    best.t = p.t;
    // A track must hold several reads for its boundaries to be placed; the track size, when the
    // stream was long enough to fit it, must agree.
    const bool ok = p.t.media_bound && p.t.reads_per_track >= 4 &&
                    (!p.t.sectors_per_track || p.t.sectors_per_track >= 4 * m);
    // Surfaces of their own density pass their sectors at their own pace: two probes at two places
    // agree only as well as the mix of surfaces they read (a few per cent over a cylinder or two).
    const double agree = p.t.per_surface || prev.t.per_surface ? kTuning.per_surface_agreement : kTuning.size_agreement;
    if (p.t.media_bound && prev.ok && std::fabs(p.t.sector_ns - prev.s) <= agree * p.t.sector_ns) {
      best.t = prev.t;
      // Larger reads resolve the boundaries as well while a track still holds ~32 of them.
      best.blocks = std::max<std::uint32_t>(prev.m, static_cast<std::uint32_t>(prev.t.reads_per_track * prev.m / 32));
      return best;
    }
    // Surfaces of their own density that the stream did not tell apart (a stream of 0.25 s reads
    // part of a cylinder: on a /2 DEC RZ26 of 57-60 sectors a track, 8 and 16 blocks gave sector
    // times 0.54 % apart, and every larger read lost the media), or noise on the sector time: two
    // sizes that both followed the media within kTuning.fallback_agreement are kept, the smaller one,
    // should no pair agree closely. A command cost shows as a larger gap (11 % at 32 blocks there).
    if (!near.blocks && p.t.media_bound && prev.ok && std::fabs(p.t.sector_ns - prev.s) <= kTuning.fallback_agreement * p.t.sector_ns) {
      near.blocks = prev.m;
      near.t = prev.t;
    }
    prev = {m, p.t.sector_ns, ok, p.t};
  }
  if (near.blocks) {
    best.t = near.t;
    best.blocks = near.blocks;
  } else if (prev.ok) {
    best.blocks = prev.m;
  }
  return best;
}

}  // namespace ds::measure
