#include "tests/bench.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>

#include "tests/result_keys.hpp"

namespace ds::measure {

namespace {

// Keeps a test's result, or its error under its name.
template <class T>
void keep(BenchResult& r, const char* name, Expected<T>&& e, std::optional<T>& slot) {
  if (e) slot = std::move(*e);
  else r.errors.emplace_back(name, e.error());
}

// Keeps a result that may end with an error (what was measured before a failed I/O): the
// result stays, the failure still counts (exit 5/3).
template <class T>
void keep_partial(BenchResult& r, const char* name, Expected<T>&& e, std::optional<T>& slot) {
  if (e && e->error) r.errors.emplace_back(name, *e->error);
  keep(r, name, std::move(e), slot);
}

// One runner per test: the test's options from the bench's, its share of the budget, and its
// result (or error) into r.
using TestRunner = void (*)(IoEngine& io, const BenchOptions& opt, double budget_s, const ProgressFn* pf,
                            BenchResult& r);

void bench_transfer(IoEngine& io, const BenchOptions& opt, double budget_s, const ProgressFn* pf, BenchResult& r) {
  TransferOptions o;
  o.span_blocks = r.span_blocks;
  o.budget_s = budget_s;
  o.rates_only = opt.transfer_rates_only;
  o.seed = opt.seed;
  keep(r, "transfer", run_transfer(io, o, pf), r.transfer);
}

// The time the logical sectors of a track pass (spt · sector time), over the samples that told both.
double logical_track_ms(const TransferResult& x, std::uint32_t block_bytes) {
  std::vector<double> v;
  for (const auto& p : x.points)
    if (!p.anomalous && p.sectors_per_track && p.media_mb_s > 0)
      v.push_back(p.sectors_per_track * block_bytes / (p.media_mb_s * 1e3));
  return v.empty() ? 0 : median(v);
}

void bench_access(IoEngine& io, const BenchOptions& opt, double budget_s, const ProgressFn* pf, BenchResult& r) {
  AccessOptions o;
  o.span_blocks = r.span_blocks;
  o.budget_s = budget_s;
  o.seed = opt.seed;
  o.allow_write = opt.allow_write;
  o.positioning_ranges = opt.positioning_ranges;
  if (r.transfer) {
    // The one-cylinder seek is measured inside the largest zone with a known track size.
    std::uint64_t best = 0;
    for (auto& z : r.transfer->zones)
      if (z.sectors_per_track && z.last_lba - z.first_lba > best) {
        best = z.last_lba - z.first_lba;
        o.zone_first_lba = z.first_lba;
        o.zone_last_lba = z.last_lba;
      }
    o.surfaces = r.transfer->surfaces_estimate ? r.transfer->surfaces_estimate : r.transfer->surfaces_hint;
    o.track_ns = logical_track_ms(*r.transfer, r.block_bytes) * 1e6;
    o.track_uncertainty_ns = r.transfer->rotation_ms.uncertainty * 1e6;
    if (r.transfer->spares_per_track >= 0) {
      o.rotation_ns = r.transfer->rotation_ms.value * 1e6;
      o.rotation_uncertainty_ns = r.transfer->rotation_ms.uncertainty * 1e6;
      o.spares_per_track = r.transfer->spares_per_track;
    }
  }
  keep(r, "access", run_access(io, o, pf), r.access);
}

void bench_cache(IoEngine& io, const BenchOptions& opt, double budget_s, const ProgressFn* pf, BenchResult& r) {
  CacheOptions o;
  o.budget_s = budget_s;
  o.seed = opt.seed;
  o.span_blocks = r.span_blocks;
  keep(r, "cache", run_cache(io, o, pf), r.cache);
}

void bench_blocksize(IoEngine& io, const BenchOptions& opt, double budget_s, const ProgressFn* pf,
                     BenchResult& r) {
  BlocksizeOptions o;
  o.budget_s = budget_s;
  o.allow_write = opt.allow_write;
  o.span_blocks = r.span_blocks;
  keep_partial(r, "blocksize", run_blocksize(io, o, pf), r.blocksize);
}

// The options every sampling test shares: its budget, the plan's seed, the span, and leave to
// write where the test has writes of its own.
template <class Options>
Options sampling_options(const BenchOptions& opt, double budget_s, const BenchResult& r) {
  Options o;
  o.budget_s = budget_s;
  o.seed = opt.seed;
  o.span_blocks = r.span_blocks;
  if constexpr (requires { o.allow_write; }) o.allow_write = opt.allow_write;
  return o;
}

void bench_queue(IoEngine& io, const BenchOptions& opt, double budget_s, const ProgressFn* pf, BenchResult& r) {
  keep_partial(r, "queue", run_queue(io, sampling_options<QueueOptions>(opt, budget_s, r), pf), r.queue);
}

void bench_patterns(IoEngine& io, const BenchOptions& opt, double budget_s, const ProgressFn* pf, BenchResult& r) {
  keep(r, "patterns", run_patterns(io, sampling_options<PatternsOptions>(opt, budget_s, r), pf), r.patterns);
}

void bench_actuators(IoEngine& io, const BenchOptions& opt, double budget_s, const ProgressFn* pf,
                     BenchResult& r) {
  auto o = sampling_options<ActuatorsOptions>(opt, budget_s, r);
  o.reported = opt.positioning_ranges;
  keep(r, "actuators", run_actuators(io, o, pf), r.actuators);
}

void bench_rmw(IoEngine& io, const BenchOptions& opt, double budget_s, const ProgressFn* pf, BenchResult& r) {
  auto o = sampling_options<RmwOptions>(opt, budget_s, r);
  o.claimed_physical_bytes = opt.claimed_physical_bytes;
  o.claimed_by = opt.claimed_by;
  keep(r, "rmw", run_rmw(io, o, pf), r.rmw);
}

struct BenchTest {
  const char* name;
  // Share of the drive-time budget; transfer and access need the most (sampling the surface,
  // enough random reads for a 1 % standard error of the mean access time).
  double weight;
  TestRunner run;
};

// In running order: access reads the zones and the rotation the transfer test found.
constexpr BenchTest kTests[] = {
    {"transfer", 50, bench_transfer},   {"access", 45, bench_access}, {"cache", 5, bench_cache},
    {"blocksize", 15, bench_blocksize}, {"queue", 15, bench_queue},   {"patterns", 60, bench_patterns},
    {"actuators", 15, bench_actuators}, {"rmw", 25, bench_rmw},
};

// The tests with figures that assume mechanical positioning.
constexpr std::array<const char*, 4> kMechanicalTests{"transfer", "access", "queue", "actuators"};
// The positioning verdict's drive time, on top of the tests': a hundredth of the budget, within
// [0.25, 1] s. One round of 16 reads (0.25 s on a 5400 rpm drive) already tells a drive, which
// cannot have a round under the floor; a device without mechanics runs all its rounds in
// milliseconds, and it is there that more rounds matter (the host's stretches of delay).
constexpr double kPositioningBudgetShare = 0.01, kPositioningMinS = 0.25, kPositioningMaxS = 1.0;

// A test the user's stop request (Ctrl-C) cut short is partial: it goes under errors, so the
// report does not show it as complete (its figures so far are kept).
void note_interrupted(const char* name, bool stopped, BenchResult& r) {
  if (!stopped) return;
  for (const auto& [n, e] : r.errors)
    if (n == name) return;
  r.errors.emplace_back(name, make_error("interrupted: the stop request came while it ran; its figures cover what ran until then", ECANCELED));
}

// Watches what the tests' reads meet on their way through: the first failure of the device
// itself (a completion with EIO, ENODEV or ENXIO, or an engine that fails a reap the same way).
// A test that met one and still returned figures (a partial result with a note) is a device
// failure all the same: note_device_failure puts it under errors, so the bench exits 5 and says
// where, whatever the test made of it.
class FailureWatch final : public ForwardingIo {
 public:
  explicit FailureWatch(IoEngine& inner) : ForwardingIo(inner) {}
  Expected<std::size_t> submit(std::span<const IoRequest> reqs) override {
    auto n = inner_.submit(reqs);
    if (n)
      for (std::size_t i = 0; i < *n; ++i) inflight_.push_back({reqs[i].tag, reqs[i].offset_bytes});
    return n;
  }
  Expected<std::size_t> reap(std::span<IoCompletion> out, std::size_t min_events,
                             std::chrono::milliseconds timeout) override {
    auto n = inner_.reap(out, min_events, timeout);
    if (!n) {
      if (failed_errno(n.error().code)) keep(n.error());
      return n;
    }
    for (std::size_t i = 0; i < *n; ++i) {
      // The request's offset, found by its tag among those in flight (a short list: the depth).
      std::uint64_t offset = 0;
      for (std::size_t k = 0; k < inflight_.size(); ++k)
        if (inflight_[k].first == out[i].tag) {
          offset = inflight_[k].second;
          inflight_[k] = inflight_.back();
          inflight_.pop_back();
          break;
        }
      if (!out[i].ok() && failed_errno(-out[i].result))
        keep(make_error(fmt::format("I/O failed at {}: {}", where_text(info(), offset), io_errno_text(-out[i].result)),
                        -out[i].result));
    }
    return n;
  }

  // The first device failure since the last call, and the watch cleared for the next test.
  std::optional<Error> take() {
    auto e = std::move(first_);
    first_.reset();
    return e;
  }

 private:
  // device_errno() less ETIMEDOUT: a run that timed out has said so itself, as its error.
  static bool failed_errno(int e) { return e == EIO || e == ENODEV || e == ENXIO; }
  void keep(Error e) {
    if (!first_) first_ = std::move(e);
  }
  std::vector<std::pair<std::uint64_t, std::uint64_t>> inflight_;  // (tag, offset) of each request out
  std::optional<Error> first_;
};

// The bench's drive time, measured where every test's I/O passes: the union of the intervals
// with at least one request outstanding (common.hpp's definition), from each submission to the
// completion that leaves nothing outstanding. The tests' own figures only add up to it when each
// returns one: a test that fails returns none, and its drive time (all of transfer's share when a
// held-back read stretched its streams) went missing from the total.
class DriveTimeMeter final : public ForwardingIo {
 public:
  explicit DriveTimeMeter(IoEngine& inner) : ForwardingIo(inner) {}
  Expected<std::size_t> submit(std::span<const IoRequest> reqs) override {
    const bool was_idle = inner_.in_flight() == 0;
    const std::int64_t t = was_idle ? inner_.now_ns() : 0;
    auto n = inner_.submit(reqs);
    if (n && *n > 0 && was_idle) busy_since_ = t;
    return n;
  }
  Expected<std::size_t> reap(std::span<IoCompletion> out, std::size_t min_events,
                             std::chrono::milliseconds timeout) override {
    auto n = inner_.reap(out, min_events, timeout);
    if (n && *n > 0 && inner_.in_flight() == 0) {
      std::int64_t last = busy_since_;
      for (std::size_t i = 0; i < *n; ++i) last = std::max(last, out[i].complete_ns);
      busy_ns_ += last - busy_since_;
    }
    return n;
  }
  // Drive time so far, the interval still open up to now included.
  double busy_s() {
    const std::int64_t open = inner_.in_flight() > 0 ? inner_.now_ns() - busy_since_ : 0;
    return static_cast<double>(busy_ns_ + open) * 1e-9;
  }

 private:
  std::int64_t busy_since_ = 0, busy_ns_ = 0;
};

// A test that met a device failure: under errors (its own error if it returned one, else the
// failure the watch saw), its figures, if any, kept.
void note_device_failure(const char* name, std::optional<Error> failure, BenchResult& r) {
  if (!failure) return;
  for (const auto& [n, e] : r.errors)
    if (n == name) return;
  r.errors.emplace_back(name, make_error(failure->message + "; its figures cover what ran until then", failure->code));
}

// Everything that rests on the track structure (track sizes, spares, the revolution from them,
// surfaces, layout, platters): gone with it, by the structure check below and by
// withhold_mechanics. The rates and the zones' boundaries are the caller's to keep.
void clear_track_structure(TransferResult& x) {
  x.rotation_ms = {};
  x.spares_per_track = -1;
  x.surfaces_estimate = x.surfaces_hint = 0;
  x.surfaces_confidence = 0;
  x.surfaces_source.clear();
  x.layout.clear();
  x.platters_estimate = x.platters_low = x.platters_high = 0;
  x.bytes_per_platter_estimate = 0;
  x.bytes_per_track_outer = 0;
  for (auto& z : x.zones) {
    z.sectors_per_track = 0;
    z.bytes_per_track = 0;
    z.media_mb_s = 0;
  }
  for (auto& p : x.points) {
    p.sectors_per_track = 0;
    p.spt_uncertainty = 0;
    p.surfaces = 0;
    p.surfaces_settled = p.per_surface = false;
    p.rate_period_untold = 0;
    p.media_mb_s = 0;
  }
}

void withhold_structure(TransferResult& x, double structure_ms, double rotation_ms) {
  // The structure's own verdicts on surfaces, spares and layout go with it.
  std::erase_if(x.withheld, [](const Withheld& w) {
    const std::string_view f = w.figure;
    return f == key::transfer::surfaces_estimate || f == key::transfer::layout || f == "spares_per_track";
  });
  x.withheld.push_back({key::transfer::bytes_per_track, WithheldReason::structure_not_rotation,
                        {{"structure_ms", structure_ms}, {"spindle_ms", rotation_ms}}});
  clear_track_structure(x);
}

// The transfer test reads tracks off a stream's completions: every spt-th read is late by a
// switch, spt · sector time is the time a track's logical sectors pass, and with the track's
// spare sectors passing unread a revolution. Where the interface or a full buffer paces the
// stream instead (a bus slower than the media: every command waits for the bytes before it), the
// same fit finds "tracks" of the pacing's period, and no spindle turns in their time (the
// Cheetah 4LP through its 4.8 MB/s host path: 32-sector "tracks" of 3.46 ms on a 5.98 ms
// spindle). The access test's revolution, where it comes from its own evidence, arbitrates
// (rotation.hpp), in two stages:
// - the tracks fill the revolution but for a few spares, or the structure is not the platter's,
//   and all that rests on it (track sizes, spares, surfaces, layout, platters) is withheld; the
//   rates stay.
// - the transfer test's revolution, (spt + spares) · sector time, is the drive's, or its spare
//   count (taken as 0 where the zones could not fit one) is wrong, and that revolution and the
//   count are withheld; the tracks stay.
void structure_against_rotation(BenchResult& r) {
  if (!r.transfer || !r.access || !independent_of_transfer(r.access->rotation_source)) return;
  auto& x = *r.transfer;
  const RotationEstimate spindle{r.access->rotation_ms.value, r.access->rotation_ms.uncertainty};
  if (!(spindle.ms > 0) || !(x.rotation_ms.value > 0)) return;
  const RotationEstimate tracks{logical_track_ms(x, r.block_bytes), x.rotation_ms.uncertainty};
  if (!tracks_fill_revolution(tracks, spindle)) return withhold_structure(x, tracks.ms, spindle.ms);
  if (revolution_agrees({x.rotation_ms.value, x.rotation_ms.uncertainty}, spindle)) return;
  std::erase_if(x.withheld, [](const Withheld& w) { return std::string_view(w.figure) == "spares_per_track"; });
  x.withheld.push_back({key::transfer::rotation_ms, WithheldReason::spares_not_rotation,
                        {{"structure_ms", x.rotation_ms.value}, {"spindle_ms", spindle.ms},
                         {"spares", x.spares_per_track >= 0 ? x.spares_per_track : 0}}});
  x.rotation_ms = {};
  x.spares_per_track = -1;
}

// Where the transfer test's streams could not tell the surfaces (head and cylinder switches that
// cost the same), the track-to-track probe's same-head move can: the track offset whose move is
// the one-cylinder seek alone is the surface count (Skippy's and DIXtrac's same-head probe).
// The platters follow as the transfer test derives them; the range is that one count's.
void surfaces_from_probe(BenchResult& r) {
  if (!r.transfer || !r.access || r.transfer->surfaces_estimate || !r.access->probe_surfaces) return;
  auto& x = *r.transfer;
  x.surfaces_estimate = r.access->probe_surfaces;
  x.surfaces_source = "same-head probe";
  x.surfaces_confidence = 0;
  x.platters_estimate = x.platters_low = x.platters_high = (x.surfaces_estimate + 1) / 2;
  x.bytes_per_platter_estimate = static_cast<double>(r.capacity_bytes) / x.platters_estimate;
  x.notes.push_back(fmt::format("surfaces: {} from the access test's track-to-track probe (the move that many tracks "
                                "on is the one-cylinder seek on the same head)", x.surfaces_estimate));
}

// No mechanical positioning: every figure that rests on platters, heads and a spindle is null,
// the outer and inner rates too (each is a zone's: with no zones, the rates by position are all
// there is, and on a busy host they swing 150 to 1000 MB/s from one sample to the next); the
// points, latencies and the cache's figures stay (they are what the device does). Said once, by
// the positioning verdict.
void withhold_mechanics(BenchResult& r) {
  if (auto& x = r.transfer) {
    x->zones.clear();
    x->outer_mb_s = x->inner_mb_s = x->outer_inner_ratio = {};
    clear_track_structure(*x);
  }
  if (auto& a = r.access) {
    a->rotation_ms = a->rpm = a->sector_ms = {};
    a->rotation_source = RotationSource::none;
    a->avg_seek_ms = a->full_stroke_ms = a->track_to_track_ms = {};
    a->seek_curve.clear();
  }
  if (auto& q = r.queue) {
    q->verdict.reorders.reset();
    q->verdict.no_positioning_cost = true;
    q->verdict.parallel_service = false;
    q->verdict.undecided = Withheld{key::queue::reorders, WithheldReason::queue_not_mechanical,
                                    {{"median_ms", r.positioning->verdict.least_round_median_ms},
                                     {"floor_ms", kMechanicalMedianFloorMs}}};
  }
  if (auto& u = r.actuators) {
    u->independent.reset();
    u->verdict = r.positioning->verdict.evidence;
  }
}

// Zones that leave the span or overlap are no result (zones_tile_span); they are dropped with an
// error rather than printed.
void check_zones(BenchResult& r) {
  if (!r.transfer || zones_tile_span(r.transfer->zones, r.span_blocks)) return;
  r.transfer->zones.clear();
  r.errors.emplace_back("transfer", make_error("internal: the zones found do not tile the span; none are reported"));
}

// A device that stopped answering (a wait that timed out) or went away during a test ends the
// run (docs/safety.md): every later test would only wait out the same timeout again, 30 s each
// on a real drive, or fail the same way at once. What it returns is the error of each test not run.
std::optional<Error> run_ending_failure(const char* name, const BenchResult& r) {
  for (const auto& [n, e] : r.errors) {
    if (n != name) continue;
    if (e.code == ETIMEDOUT) return make_error(fmt::format("not run: the device stopped answering during {}", name), e.code);
    if (e.code == ENODEV || e.code == ENXIO)
      return make_error(fmt::format("not run: the device went away during {}", name), e.code);
  }
  return std::nullopt;
}

const BenchTest* find_test(const std::string& name) {
  for (const auto& t : kTests)
    if (name == t.name) return &t;
  return nullptr;
}

}  // namespace

std::vector<std::string> bench_test_names() {
  std::vector<std::string> names;
  for (const auto& t : kTests) names.emplace_back(t.name);
  return names;
}

Expected<BenchResult> run_bench(IoEngine& target, const BenchOptions& opt, const ProgressFn& progress) {
  FailureWatch watched(target);
  DriveTimeMeter meter(watched);
  IoEngine& io = meter;
  double wsum = 0;
  for (const auto& t : opt.tests) {
    const BenchTest* test = find_test(t);
    if (!test)
      return make_error(fmt::format("unknown test '{}' (known: {})", t, fmt::join(bench_test_names(), ", ")));
    wsum += test->weight;
  }
  BenchResult r;
  const IoTargetInfo& info = io.info();
  r.target = info.name;
  r.block_bytes = info.logical_block_bytes ? info.logical_block_bytes : 512;
  r.capacity_bytes = info.capacity_bytes;
  if (r.capacity_bytes < r.block_bytes) return make_error("the target reports no capacity");
  r.span_blocks = r.capacity_bytes / r.block_bytes;
  if (opt.span_bytes) r.span_blocks = std::min(r.span_blocks, *opt.span_bytes / r.block_bytes);
  auto share = [&](const BenchTest& t) {
    // Never more than the test's own weight scaled to 120 s: fewer tests do not mean longer ones.
    return std::min(opt.budget_s * t.weight / wsum, t.weight * opt.budget_s / 115.0 * 1.3);
  };
  auto want = [&](const char* t) { return std::find(opt.tests.begin(), opt.tests.end(), t) != opt.tests.end(); };
  const ProgressFn* pf = progress ? &progress : nullptr;
  auto stopped = [&] { return opt.stop && opt.stop(); };
  std::optional<Error> ended;  // the error of each test after a run-ending failure (not run)
  for (const auto& test : kTests) {
    if (!want(test.name) || stopped()) continue;
    if (ended) {
      r.errors.emplace_back(test.name, *ended);
      continue;
    }
    test.run(io, opt, share(test), pf, r);
    note_interrupted(test.name, stopped(), r);
    note_device_failure(test.name, watched.take(), r);
    ended = run_ending_failure(test.name, r);
  }
  structure_against_rotation(r);
  surfaces_from_probe(r);
  const bool mechanical_tests = std::any_of(kMechanicalTests.begin(), kMechanicalTests.end(), want);
  if (ended && mechanical_tests) r.errors.emplace_back("positioning", *ended);
  if (!ended && !stopped() && mechanical_tests) {
    PositioningOptions po;
    po.span_blocks = r.span_blocks;
    po.seed = opt.seed;
    po.budget_s = std::clamp(kPositioningBudgetShare * opt.budget_s, kPositioningMinS, kPositioningMaxS);
    auto p = run_positioning(io, po);
    if (p) {
      r.positioning = std::move(*p);
      if (r.positioning->verdict.mechanical == false) withhold_mechanics(r);
    } else {
      r.errors.emplace_back("positioning", p.error());
    }
    note_device_failure("positioning", watched.take(), r);
  }
  check_zones(r);

  r.drive_time_s = meter.busy_s();
  return r;
}

}  // namespace ds::measure
