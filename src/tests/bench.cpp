#include "tests/bench.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>

#include "tests/result_keys.hpp"

namespace ds::measure {

namespace {

double r3(double v) { return std::round(v * 1000) / 1000; }
double r4(double v) { return std::round(v * 10000) / 10000; }

}  // namespace

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
    x->rotation_ms = {};
    x->spares_per_track = -1;
    x->surfaces_estimate = x->surfaces_hint = 0;
    x->surfaces_confidence = 0;
    x->surfaces_source.clear();
    x->layout.clear();
    x->platters_estimate = x->platters_low = x->platters_high = 0;
    x->bytes_per_platter_estimate = 0;
    x->bytes_per_track_outer = 0;
    for (auto& p : x->points) p.sectors_per_track = 0;
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
    q->verdict.evidence = r.positioning->verdict.evidence;
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

namespace {

using nlohmann::json;

// A figure the test could not measure (0) is null, not 0.
json fig(const Figure& f) { return f.value > 0 ? json(r4(f.value)) : json(nullptr); }
json unc(const Figure& f) { return f.value > 0 ? json(r4(f.uncertainty)) : json(nullptr); }

json access_json(const AccessResult& a) {
  namespace K = key::access;
  json j;
  auto lat = [](const LatencyStats& s) {
    namespace L = key::latency;
    return json{{L::mean_ms, r4(s.mean_ms)}, {L::p50_ms, r4(s.p50_ms)}, {L::p99_ms, r4(s.p99_ms)},
                {L::mean_uncertainty_ms, r4(s.stderr_ms)}, {L::samples, s.n}};
  };
  j[K::block_bytes] = a.block_bytes;  // every read of this test is one logical block
  j[K::read] = lat(a.read);
  if (a.write) j[K::write] = lat(*a.write);
  j[K::rpm_estimate] = a.rpm.value > 0 ? json(std::round(a.rpm.value * 10) / 10) : json(nullptr);
  j[K::rpm_uncertainty] = unc(a.rpm);
  j[K::rotation_ms] = fig(a.rotation_ms);
  j[K::rotation_uncertainty_ms] = unc(a.rotation_ms);
  const char* source = rotation_source_name(a.rotation_source);
  j[K::rotation_source] = source ? json(source) : json(nullptr);
  j[K::command_overhead_ms] = fig(a.overhead_ms);
  j[K::avg_seek_ms] = fig(a.avg_seek_ms);
  j[K::avg_seek_uncertainty_ms] = unc(a.avg_seek_ms);
  j[K::track_to_track_ms] = fig(a.track_to_track_ms);
  j[K::track_to_track_uncertainty_ms] = unc(a.track_to_track_ms);
  j[K::full_stroke_ms] = fig(a.full_stroke_ms);
  j[K::full_stroke_uncertainty_ms] = unc(a.full_stroke_ms);
  j[K::slow_regions] = json::array();
  namespace SR = key::slow_region;
  for (auto& s : a.slow_regions)
    j[K::slow_regions].push_back({{SR::first_lba, s.first_lba}, {SR::last_lba, s.last_lba},
                                  {SR::mean_ms, r3(s.mean_ms)},
                                  {SR::location_uncertainty_sectors, s.location_uncertainty_blocks}});
  j[K::slow_spikes] = json::array();
  namespace SS = key::slow_spike;
  for (auto& s : a.slow_spikes) j[K::slow_spikes].push_back({{SS::lba, s.lba}, {SS::mean_ms, r3(s.mean_ms)}});
  j[K::outliers] = {{key::outliers::count, a.outliers},
                    {key::outliers::median_excess_ms, a.outliers ? json(r3(a.outlier_excess_ms)) : json(nullptr)}};
  j[K::seek_curve] = json::array();
  namespace SB = key::seek_bin;
  for (auto& b : a.seek_curve)
    j[K::seek_curve].push_back({{SB::max_distance_sectors, b.max_distance}, {SB::samples, b.n}, {SB::seek_ms, b.seek_ms ? json(r3(*b.seek_ms)) : json(nullptr)}});
  j[K::map] = json::array();
  namespace M = key::map_region;
  for (auto& m : a.map)
    j[K::map].push_back({{M::first_lba, m.first_lba}, {M::last_lba, m.last_lba}, {M::samples, m.n},
                         {M::mean_ms, r3(m.mean_ms)}, {M::slow, m.slow}});
  // Per-read samples as two parallel arrays (compact: up to kMaxReadSamples reads).
  json lba = json::array(), ms = json::array();
  for (const auto& s : a.reads) lba.push_back(s.lba), ms.push_back(r4(s.ms));
  j[K::reads] = {{key::reads::lba, std::move(lba)}, {key::reads::ms, std::move(ms)}};
  j[K::slow_threshold_ms] = a.slow_threshold_ms > 0 ? json(r3(a.slow_threshold_ms)) : json(nullptr);
  j[K::drive_time_s] = r3(a.drive_time_s);
  j[K::notes] = a.notes;
  return j;
}

json transfer_json(const TransferResult& x, std::uint32_t block_bytes) {
  namespace K = key::transfer;
  json j;
  j[K::points] = json::array();
  namespace P = key::transfer_point;
  for (auto& p : x.points) {
    json pj{{P::lba, p.lba}, {P::mb_s, r3(p.mb_s)}};
    if (p.sectors_per_track) pj[P::sectors_per_track] = p.sectors_per_track;
    if (p.anomalous) pj[P::anomalous] = true;
    j[K::points].push_back(pj);
  }
  j[K::zones] = json::array();
  namespace Z = key::zone;
  for (auto& z : x.zones) {
    json zj{{Z::first_lba, z.first_lba}, {Z::last_lba, z.last_lba}, {Z::mb_s, r3(z.mb_s)},
            {Z::mb_s_uncertainty, r3(z.mb_s_uncertainty)}};
    if (z.sectors_per_track) {
      zj[Z::sectors_per_track] = z.sectors_per_track;
      zj[Z::bytes_per_track] = z.bytes_per_track;
    }
    j[K::zones].push_back(zj);
  }
  j[K::outer_mb_s] = fig(x.outer_mb_s);
  j[K::inner_mb_s] = fig(x.inner_mb_s);
  j[K::outer_inner_ratio] = fig(x.outer_inner_ratio);
  j[K::outer_inner_ratio_uncertainty] = unc(x.outer_inner_ratio);
  j[K::bytes_per_track] = x.bytes_per_track_outer ? json(x.bytes_per_track_outer) : json(nullptr);
  j[K::rotation_ms] = fig(x.rotation_ms);
  j[K::surfaces_estimate] = x.surfaces_estimate ? json(x.surfaces_estimate) : json(nullptr);
  j[K::surfaces_confidence] = r3(x.surfaces_confidence);
  j[K::surfaces_source] = x.surfaces_source.empty() ? json(nullptr) : json(x.surfaces_source);
  j[K::layout] = x.layout.empty() ? json(nullptr) : json(x.layout);
  j[K::platters_estimate] = x.platters_estimate ? json(x.platters_estimate) : json(nullptr);
  j[K::platters_range] = x.platters_estimate ? json::array({x.platters_low, x.platters_high}) : json(nullptr);
  j[K::bytes_per_platter_estimate] =
      x.platters_estimate ? json(std::llround(x.bytes_per_platter_estimate)) : json(nullptr);
  j[K::read_size_bytes] = x.read_blocks * block_bytes;
  j[K::drive_time_s] = r3(x.drive_time_s);
  j[K::notes] = x.notes;
  return j;
}

json cache_json(const CacheResult& c) {
  namespace K = key::cache;
  return {{K::burst_mb_s, fig(c.burst_mb_s)}, {K::burst_uncertainty_mb_s, unc(c.burst_mb_s)},
           {K::hit_overhead_ms, r4(c.hit_overhead_ms.value)},
           {K::size_bytes_estimate, c.size_bytes_estimate ? json(c.size_bytes_estimate) : json(nullptr)},
           {K::size_at_least, c.size_at_least},
           {K::segment_bytes_estimate, c.segment_bytes_estimate ? json(c.segment_bytes_estimate) : json(nullptr)},
           {K::largest_hit_bytes, c.largest_hit_bytes},
           {K::read_ahead, c.read_ahead ? json(*c.read_ahead) : json(nullptr)},
           {K::read_ahead_bytes_estimate, c.read_ahead ? json(c.read_ahead_bytes_estimate) : json(nullptr)},
           {K::read_ahead_after_sequential_reads,
            c.read_ahead_after_sequential_reads ? json(*c.read_ahead_after_sequential_reads) : json(nullptr)},
           {K::drive_time_s, r3(c.drive_time_s)}, {K::notes, c.notes}};
}

json blocksize_json(const BlocksizeResult& b) {
  namespace K = key::blocksize;
  namespace R = key::blocksize_row;
  json rows = json::array();
  for (auto& row : b.rows) {
    json rj{{R::block_bytes, row.block_bytes}, {R::read_mb_s, r3(row.read_mb_s)},
            {R::read_iops, std::round(row.read_iops)}};
    if (row.write_mb_s) rj[R::write_mb_s] = r3(*row.write_mb_s);
    rows.push_back(rj);
  }
  return {{K::queue_depth, 4}, {K::rows, rows}, {K::drive_time_s, r3(b.drive_time_s)}, {K::notes, b.notes}};
}

json positioning_json(const PositioningResult& p) {
  namespace K = key::positioning;
  const PositioningVerdict& v = p.verdict;
  const bool judged = v.mechanical.has_value();
  return {{K::mechanical, judged ? json(*v.mechanical) : json(nullptr)}, {K::reads, v.reads},
          {K::p10_ms, judged ? json(r4(v.p10_ms)) : json(nullptr)},
          {K::p50_ms, judged ? json(r4(v.p50_ms)) : json(nullptr)},
          {K::p90_ms, judged ? json(r4(v.p90_ms)) : json(nullptr)},
          {K::least_round_median_ms, judged ? json(r4(v.least_round_median_ms)) : json(nullptr)},
          {K::evidence, v.evidence}, {K::drive_time_s, r3(p.drive_time_s)}};
}

}  // namespace

nlohmann::json bench_to_json(const BenchResult& r) {
  namespace K = key::tests;
  json t = json::object();
  if (r.access) t[K::access] = access_json(*r.access);
  if (r.transfer) t[K::transfer] = transfer_json(*r.transfer, r.block_bytes);
  if (r.cache) t[K::cache] = cache_json(*r.cache);
  if (r.blocksize) t[K::blocksize] = blocksize_json(*r.blocksize);
  if (r.queue) t[K::queue] = queue_to_json(*r.queue);
  if (r.patterns) t[K::patterns] = patterns_to_json(*r.patterns);
  if (r.actuators) t[K::actuators] = actuators_to_json(*r.actuators);
  if (r.rmw) t[K::rmw] = rmw_to_json(*r.rmw);
  if (r.positioning) t[K::positioning] = positioning_json(*r.positioning);
  if (!r.errors.empty()) {
    t[K::errors] = json::object();
    for (auto& [name, e] : r.errors) t[K::errors][name] = e.message;
  }
  t[K::drive_time_s] = r3(r.drive_time_s);
  return t;
}

std::string bench_to_text(const BenchResult& r) {
  std::string o;
  auto line = [&](std::string_view k, const std::string& v) { o += fmt::format("  {:<28} {}\n", k, v); };
  auto pm = [](const Figure& f, const char* unit, int prec = 2) {
    if (f.value <= 0) return std::string("-");
    return fmt::format("{:.{}f} ± {:.{}f} {}", f.value, prec, f.uncertainty, prec, unit);
  };
  o += fmt::format("bench {}: {:.1f} GB, {} B blocks, span {:.1f} GB, drive time {:.1f} s\n", r.target,
                   r.capacity_bytes / 1e9, r.block_bytes, r.span_blocks * 1.0 * r.block_bytes / 1e9,
                   r.drive_time_s);
  // Said once, first: where it says no, the mechanical figures below are null.
  if (r.positioning && r.positioning->verdict.mechanical == false)
    o += fmt::format("\npositioning: {}; zones, surfaces, rotation, seeks and reordering are not told\n",
                     r.positioning->verdict.evidence);
  if (r.transfer) {
    const auto& x = *r.transfer;
    o += fmt::format("\ntransfer ({:.1f} s)\n", x.drive_time_s);
    auto rate = [](const Figure& f) { return f.value > 0 ? fmt::format("{:.2f}", f.value) : std::string("-"); };
    line("outer / inner", fmt::format("{} / {} MB/s, ratio {}", rate(x.outer_mb_s), rate(x.inner_mb_s),
                                      pm(x.outer_inner_ratio, "", 3)));
    line("rotation (from tracks)", pm(x.rotation_ms, "ms", 3));
    line("bytes per track (outer)", x.bytes_per_track_outer ? std::to_string(x.bytes_per_track_outer) : "-");
    line("surfaces", !x.surfaces_estimate ? "-"
                     : x.surfaces_source == "streams"
                         ? fmt::format("{} (confidence {:.0f} %)", x.surfaces_estimate, x.surfaces_confidence * 100)
                         : fmt::format("{} (from the {})", x.surfaces_estimate, x.surfaces_source));
    line("layout", x.layout.empty() ? "- (not told)" : x.layout);
    line("platters", x.platters_estimate ? fmt::format("{} (range {}–{}), {:.1f} GB per platter",
                                                       x.platters_estimate, x.platters_low, x.platters_high,
                                                       x.bytes_per_platter_estimate / 1e9) : "-");
    o += fmt::format("  {:>4} {:>14} {:>14} {:>10} {:>8}\n", "zone", "first LBA", "last LBA", "MB/s", "spt");
    for (std::size_t i = 0; i < x.zones.size(); ++i) {
      const auto& z = x.zones[i];
      o += fmt::format("  {:>4} {:>14} {:>14} {:>10.2f} {:>8}\n", i, z.first_lba, z.last_lba, z.mb_s,
                       z.sectors_per_track ? std::to_string(z.sectors_per_track) : "-");
    }
    for (auto& n : x.notes) o += "  note: " + n + "\n";
  }
  if (r.access) {
    const auto& a = *r.access;
    o += fmt::format("\naccess ({:.1f} s, {} reads of {} B)\n", a.drive_time_s, a.read.n, a.block_bytes);
    line("read mean / p50 / p99", fmt::format("{:.2f} / {:.2f} / {:.2f} ms", a.read.mean_ms, a.read.p50_ms, a.read.p99_ms));
    if (a.write)
      line("write mean / p50 / p99", fmt::format("{:.2f} / {:.2f} / {:.2f} ms", a.write->mean_ms, a.write->p50_ms, a.write->p99_ms));
    const char* rotation_source = rotation_source_name(a.rotation_source);
    line("rotation", pm(a.rotation_ms, "ms", 3) + (rotation_source ? fmt::format(" (from the {})", rotation_source) : ""));
    line("rpm", pm(a.rpm, "", 0));
    line("command overhead", pm(a.overhead_ms, "ms", 3));
    line("average seek", pm(a.avg_seek_ms, "ms"));
    line("track to track", pm(a.track_to_track_ms, "ms"));
    line("full stroke", pm(a.full_stroke_ms, "ms"));
    if (a.slow_regions.empty()) line("slow regions", "none");
    for (auto& s : a.slow_regions)
      line("slow region", fmt::format("LBA {}–{}, {:.1f} ms", s.first_lba, s.last_lba, s.mean_ms));
    for (auto& s : a.slow_spikes) line("slow LBA (spike)", fmt::format("LBA {}, {:.1f} ms", s.lba, s.mean_ms));
    if (a.outliers)
      line("outliers", fmt::format("{} read{} slow once, normal when read again (host stalls, pauses; median {:.1f} ms over)",
                                   a.outliers, a.outliers == 1 ? "" : "s", a.outlier_excess_ms));
    for (auto& n : a.notes) o += "  note: " + n + "\n";
  }
  if (r.cache) {
    const auto& c = *r.cache;
    o += fmt::format("\ncache ({:.1f} s)\n", c.drive_time_s);
    line("burst (interface)", pm(c.burst_mb_s, "MB/s", 1));
    line("cache size estimate", c.size_bytes_estimate ? fmt::format("{}{} KiB", c.size_at_least ? "at least " : "",
                                                                    c.size_bytes_estimate / 1024) : "-");
    if (c.segment_bytes_estimate) line("segment size", fmt::format("{} KiB", c.segment_bytes_estimate / 1024));
    const unsigned after = c.read_ahead_after_sequential_reads.value_or(0);
    line("read-ahead", !c.read_ahead ? std::string("not measured")
                       : *c.read_ahead ? fmt::format("yes, ≥ {} KiB{}", c.read_ahead_bytes_estimate / 1024,
                                                     after == 0   ? std::string()
                                                     : after == 1 ? std::string(", only once a read has continued another")
                                                                  : fmt::format(", only once {} reads in a row have each "
                                                                                "continued the one before", after))
                                       : std::string("none (the next block missed, also after reads in a row)"));
    for (auto& n : c.notes) o += "  note: " + n + "\n";
  }
  if (r.blocksize) {
    o += fmt::format("\nblocksize, queue depth 4 ({:.1f} s)\n", r.blocksize->drive_time_s);
    o += fmt::format("  {:>10} {:>12} {:>12}\n", "block", "read MB/s", "write MB/s");
    for (auto& b : r.blocksize->rows)
      o += fmt::format("  {:>10} {:>12.2f} {:>12}\n", b.block_bytes, b.read_mb_s,
                       b.write_mb_s ? fmt::format("{:.2f}", *b.write_mb_s) : "-");
  }
  if (r.queue) o += "\n" + queue_to_text(*r.queue);
  if (r.patterns) o += "\n" + patterns_to_text(*r.patterns);
  if (r.actuators) o += "\n" + actuators_to_text(*r.actuators);
  if (r.rmw) o += "\n" + rmw_to_text(*r.rmw);
  for (auto& [n, e] : r.errors) o += fmt::format("\n{}: error: {}\n", n, e.message);
  return o;
}

}  // namespace ds::measure
