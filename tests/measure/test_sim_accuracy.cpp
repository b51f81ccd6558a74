// Accuracy of the measurement modules on every simulated drive (the DiskSim model files and the
// presets), against the ground truth — the criteria of issue 4. The modules see only the
// block-I/O engine; the judge (tools/accuracy) computes the truth from the model JSON alone
// (tools/truth), independently of the simulator.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "accuracy_lib.hpp"
#include "report/measure_report.hpp"
#include "sim/model.hpp"
#include "sim/sim.hpp"
#include "tests/blocksize.hpp"
#include "tests/result_keys.hpp"
#include "tests/stream_probe.hpp"
#include "tests/transfer.hpp"
#include "truth.hpp"

namespace {

struct Run {
  truth::Truth truth;
  ds::measure::BenchResult result;
  std::vector<accuracy::Outcome> checks;
};

// Each drive is measured once (transfer, access, cache; seed 1, default budget) and shared by the cases.
const std::vector<Run>& runs() {
  static const std::vector<accuracy::Subject> subjects = accuracy::subjects(DS_TEST_DATA);
  static const std::vector<Run> all = [] {
    std::vector<Run> v;
    for (const auto& s : subjects) {
      accuracy::RunSpec spec;
      spec.subject = &s;
      auto r = accuracy::run_one(spec, accuracy::kIssue4);
      REQUIRE_MESSAGE(r.ok(), s.source << ": " << r.message);
      v.push_back({r.truth, std::move(*r.bench), r.outcomes});
    }
    return v;
  }();
  return all;
}

// One drive of the data set and the presets, by name (tools/accuracy's subjects).
const accuracy::Subject& subject_named(const std::string& name) {
  static const std::vector<accuracy::Subject> subjects = accuracy::subjects(DS_TEST_DATA);
  for (const auto& s : subjects)
    if (s.name == name) return s;
  FAIL("no drive named " << name);
  throw std::logic_error("unreachable");
}

bool zone_criterion(const std::string& c) { return c.rfind("zone-middle", 0) == 0 || c.rfind("significant zones", 0) == 0; }

}  // namespace

TEST_CASE("every simulated drive: rpm, access, seeks, slow regions, zones, ratio, burst") {
  for (const auto& r : runs()) {
    INFO(r.truth.name);
    CHECK(r.result.errors.empty());
    CHECK(r.result.drive_time_s <= 120.0);
    for (const auto& c : r.checks) {
      if (!c.counts || c.criterion.rfind("surfaces", 0) == 0) continue;  // surfaces: the 3/4 case below
      INFO(c.criterion << ": measured " << c.shown_measured << ", truth " << c.shown_truth);
      CHECK(c.pass);
    }
  }
}

// Surfaces where the timing shows them, null with the reason where it does not (issue "Real
// drives are not clean"): a wrong count on no drive, and every null explained. (This asked for an
// exact count on three quarters of the drives, nulls counted as misses, and allowed a quarter to
// be wrong; with exos2x14 judged, whose head and cylinder switches cost the same, 14 of 19 were
// exact, 5 null with a reason, none wrong.)
TEST_CASE("surface count: never wrong, and a null always says why") {
  int exact = 0, null = 0;
  for (const auto& r : runs()) {
    INFO(r.truth.name);
    REQUIRE(r.result.transfer);
    const auto& t = *r.result.transfer;
    if (t.surfaces_estimate == 0) {
      ++null;
      CHECK(ds::measure::withholds(t.withheld, ds::measure::key::transfer::surfaces_estimate));
      continue;
    }
    CHECK(t.surfaces_estimate == r.truth.surfaces);
    exact += t.surfaces_estimate == r.truth.surfaces;
  }
  MESSAGE("surfaces exact on " << exact << "/" << runs().size() << ", not told on " << null);
}

// Inside a slow region every command costs tens of milliseconds more (the 7200.7 preset: 15 % of
// the disk, +42 ms), which hides the track structure from one read size; the transfer test fits
// that cost out with two read sizes. The zones there must be rated and bounded like any other,
// and the samples there must say that they were measured that way.
TEST_CASE("zones under a slow region") {
  int drives = 0;
  for (const auto& r : runs()) {
    if (r.truth.defects.empty()) continue;
    ++drives;
    INFO(r.truth.name);
    for (const auto& c : r.checks)
      if (zone_criterion(c.criterion)) {
        INFO(c.criterion << ": measured " << c.shown_measured << ", truth " << c.shown_truth);
        CHECK(c.pass);
      }
    REQUIRE(r.result.transfer);
    int inside = 0, costly = 0;
    for (const auto& p : r.result.transfer->points)
      for (const auto& d : r.truth.defects)
        if (p.lba >= d.first_lba && p.lba < d.first_lba + d.sectors) {
          ++inside;
          costly += p.command_ms > 0;
        }
    CHECK(inside > 0);
    CHECK(costly == inside);
  }
  CHECK(drives > 0);
}

// A sample whose tracks only a second read size showed lies in a slow region only where its
// commands cost more than their media time: on sim:raptor as /2 two samples fitted 0 ms and the
// note said they lay "where every command costs 0 ms more than its media time (a slow region)".
TEST_CASE("no slow region told in the transfer test where the drive has none") {
  for (const auto& r : runs()) {
    INFO(r.truth.name);
    REQUIRE(r.result.transfer);
    for (const auto& p : r.result.transfer->points) {
      bool in_defect = false;
      for (const auto& d : r.truth.defects) in_defect |= p.lba >= d.first_lba && p.lba < d.first_lba + d.sectors;
      if (!in_defect) CHECK_MESSAGE(p.command_ms == 0, "LBA " << p.lba << ": " << p.command_ms << " ms a command");
    }
    if (r.truth.defects.empty())
      for (const auto& n : r.result.transfer->notes) CHECK_MESSAGE(n.find("slow region)") == std::string::npos, n);
  }
}

TEST_CASE("bench JSON has the documented paths") {
  const auto& r = runs().front();
  auto j = ds::report::bench_to_json(r.result);
  for (const char* p : {"/access/read/mean_ms", "/access/read/p50_ms", "/access/read/p99_ms",
                        "/access/rpm_estimate", "/access/rotation_ms", "/access/avg_seek_ms",
                        "/access/track_to_track_ms", "/access/full_stroke_ms", "/access/slow_regions",
                        "/access/drive_time_s", "/transfer/points", "/transfer/zones", "/transfer/outer_mb_s",
                        "/transfer/inner_mb_s", "/transfer/outer_inner_ratio", "/transfer/surfaces_estimate",
                        "/transfer/platters_estimate", "/transfer/bytes_per_platter_estimate",
                        "/transfer/drive_time_s", "/cache/burst_mb_s", "/cache/size_bytes_estimate"}) {
    INFO(p);
    CHECK(j.contains(nlohmann::json::json_pointer(p)));
  }
  CHECK(j["transfer"]["zones"][0].contains("first_lba"));
  CHECK(j["transfer"]["points"][0].contains("mb_s"));
  auto text = ds::report::bench_to_text(r.result);
  CHECK(text.find("transfer") != std::string::npos);
  CHECK(text.find("rpm") != std::string::npos);
}

TEST_CASE("the default bench with all four tests stays within 120 s of drive time on a large drive") {
  auto t = ds::sim::open("sim:modern8tb");
  REQUIRE(t.ok());
  auto b = ds::measure::run_bench(*t->io, {});
  REQUIRE(b.ok());
  CHECK(b->errors.empty());
  CHECK(b->drive_time_s <= 120.0);
  REQUIRE(b->blocksize);
  CHECK(b->blocksize->rows.size() == 12);  // 512 B … 1 MiB
  CHECK(b->blocksize->rows.back().read_mb_s > b->blocksize->rows.front().read_mb_s);
}

TEST_CASE("a span limits every test to the first part of the disk") {
  auto t = ds::sim::open("sim:7k400");
  REQUIRE(t.ok());
  ds::measure::BenchOptions o;
  o.tests = {"access", "transfer"};
  o.span_bytes = 50'000'000'000ull;
  auto b = ds::measure::run_bench(*t->io, o);
  REQUIRE(b.ok());
  const std::uint64_t span = 50'000'000'000ull / 512;
  for (auto& p : b->transfer->points) CHECK(p.lba < span);
  CHECK(b->transfer->zones.back().last_lba < span);
  // Short-stroking: the mean access over 50 GB is lower than over the whole disk (seed 000).
  auto full = ds::measure::run_bench(*t->io, {{"access"}});
  REQUIRE(full.ok());
  CHECK(b->access->read.mean_ms < full->access->read.mean_ms);
}

TEST_CASE("unknown test names are refused before any I/O") {
  auto t = ds::sim::open("sim:raptor");
  REQUIRE(t.ok());
  ds::measure::BenchOptions o;
  o.tests = {"access", "nonsense"};
  auto b = ds::measure::run_bench(*t->io, o);
  CHECK_FALSE(b.ok());
}

TEST_CASE("blocksize: the large sizes, all limited by the media, read alike on every preset (one zone)") {
  // Each size starts where the one before stopped reading. It used to start past what it had
  // planned, so the large sizes read inner zones: sim:raptor gave 72.6 MB/s at 8 KiB, 70.7 at
  // 64 KiB and 68.9 at 1 MiB (issue 15: large blocks looked slower than they are).
  for (const char* preset : {"raptor", "7200.7", "7k400", "maxline3", "wd1200jd", "atlas15k", "cheetah15k3",
                             "mas3735", "modern8tb", "exos2x14", "archive8tb-smr"}) {
    CAPTURE(preset);
    auto t = ds::sim::open(std::string("sim:") + preset);
    REQUIRE(t.ok());
    auto b = ds::measure::run_blocksize(*t->io, {});
    REQUIRE(b.ok());
    double lo = 1e300, hi = 0;
    for (const auto& r : b->rows)
      if (r.block_bytes >= 65536) lo = std::min(lo, r.read_mb_s), hi = std::max(hi, r.read_mb_s);
    REQUIRE(hi > 0);
    CHECK(hi / lo < 1.01);
  }
}

// A drive that holds a queued read back (the HP C2247A's model: TCQ of 64 by pure SPTF, no age
// limit) while it serves the 512-byte reads behind it: the completed prefix stopped growing, and
// the size ran its whole plan (669 s of drive time on a 14 s share). The share is now counted on
// the engine's clock; the rate still covers every read of the size.
TEST_CASE("blocksize: a read held back does not stretch a size beyond its share") {
  auto t = ds::sim::open(std::string(DS_TEST_DATA) + "/disk-models/hp_c2247a.json");
  REQUIRE(t.ok());
  ds::measure::BlocksizeOptions o;
  o.budget_s = 12;
  auto b = ds::measure::run_blocksize(*t->io, o);
  REQUIRE(b.ok());
  // Per size: its share (1 s), plus its first read's seek and the reads in flight at the end
  // (at most 4 of 1 MiB at about 3.8 MB/s: 1.1 s).
  CHECK(b->drive_time_s <= o.budget_s + b->rows.size() * 1.2);
  for (const auto& r : b->rows) {
    CAPTURE(r.block_bytes);
    CHECK(r.read_mb_s > 0);
  }
}

// Twelve surfaces whose densities alternate high and low: the ten tracks a sample covers show a
// period of 2 in their sector times. Before, that period was printed as "surfaces 2 (confidence
// 100 %)", and a zone's track size was the mean of its samples' sizes with the samples that had
// none counted as 0 (2809 sectors for 4213). Now the count is 12 or not told, and every track size
// printed is within 2 % of the zone's mean over its surfaces.
TEST_CASE("alternating surface densities: no period taken for the surface count, no size made up") {
  const std::string path = std::string(DS_TEST_DATA) + "/structure/alternating-surfaces.json";
  auto truth = truth::compute_file(path);
  REQUIRE(truth.ok());
  for (std::uint64_t seed : {1, 2, 3}) {
    INFO("seed " << seed);
    auto t = ds::sim::open("sim:" + path);
    REQUIRE(t.ok());
    ds::measure::TransferOptions o;
    o.budget_s = 60;
    o.seed = seed;
    auto r = ds::measure::run_transfer(*t->io, o);
    REQUIRE(r.ok());
    CHECK((r->surfaces_estimate == 0 || r->surfaces_estimate == truth->surfaces));
    if (r->bytes_per_track_outer)
      CHECK(std::abs(static_cast<double>(r->bytes_per_track_outer) / truth->bytes_per_track - 1) <= 0.02);
    int sized = 0;
    for (const auto& z : r->zones) {
      if (!z.sectors_per_track) continue;
      const std::uint64_t mid = z.first_lba + (z.last_lba - z.first_lba) / 2;
      const truth::ZoneTruth* tz = &truth->zones.front();
      for (const auto& c : truth->zones)
        if (c.first_lba <= mid) tz = &c;
      INFO("zone at LBA " << z.first_lba << ": " << z.sectors_per_track << " sectors");
      CHECK(std::abs(z.sectors_per_track * 512.0 / tz->bytes_per_track - 1) <= 0.02);
      ++sized;
    }
    MESSAGE("seed " << seed << ": surfaces " << r->surfaces_estimate << ", " << sized << " of " << r->zones.size()
                    << " zones sized");
  }
}

// Rates only (no track structure: --rates-only, or a stream whose stamps show none), on the
// 7200.7 preset, whose inner 15 % costs 42 ms more a command. Its samples there read 5.4 MB/s
// beside 39, and were the inner zone: outer/inner 11.9 ± 0.14 for 1.80. No zone steps like that:
// those samples are anomalies, and the inner rate and the ratio are not told (or, where the
// samples missed the region, right).
TEST_CASE("rates only: a slow region at the inner edge is no zone, and the inner rate is not made of it") {
  auto m = ds::sim::preset("7200.7");
  REQUIRE(m);
  auto truth = truth::compute(nlohmann::json::parse(ds::sim::model_to_json(*m)));
  REQUIRE(truth.ok());
  for (std::uint64_t seed : {1, 2, 3}) {
    INFO("seed " << seed);
    auto t = ds::sim::open("sim:7200.7");
    REQUIRE(t.ok());
    ds::measure::TransferOptions o;
    o.rates_only = true;
    o.seed = seed;
    auto r = ds::measure::run_transfer(*t->io, o);
    REQUIRE(r.ok());
    CHECK(r->outer_mb_s.value == doctest::Approx(truth->outer_sequential_mb_s).epsilon(0.02));
    if (r->inner_mb_s.value > 0) {
      CHECK(r->inner_mb_s.value == doctest::Approx(truth->inner_sequential_mb_s).epsilon(0.02));
    } else {
      CHECK(r->outer_inner_ratio.value == 0);
      CHECK((ds::measure::has_reason(r->withheld, ds::measure::WithheldReason::edge_not_sampled) ||
             ds::measure::has_reason(r->withheld, ds::measure::WithheldReason::slow_samples)));
    }
    for (const auto& z : r->zones) CHECK(z.mb_s > 0.6 * truth->inner_sequential_mb_s);
  }
}

// A short bench of a slow 1990s drive: the /2 HP C2249A of seed 10 at 60 s took two transfer
// samples, both at its outer edge, and its one zone then stood for the whole disk: outer/inner
// 1.000 ± 0.013 for 1.76. An edge's rate needs a sample near that edge.
TEST_CASE("transfer: no inner rate without a sample near the inner edge") {
  accuracy::RunSpec spec;
  spec.subject = &subject_named("hp_c2249a");
  spec.variant = "v2";
  spec.seed = 10;
  spec.budget_s = 60;
  auto r = accuracy::run_one(spec, accuracy::kIssue4);
  REQUIRE(r.ok());
  REQUIRE(r.bench->transfer);
  const auto& t = *r.bench->transfer;
  std::uint64_t last = 0;
  for (const auto& p : t.points) last = std::max(last, p.lba);
  INFO("last sample at LBA " << last << " of " << r.truth.capacity << ", ratio " << t.outer_inner_ratio.value);
  if (t.outer_inner_ratio.value > 0)
    CHECK(t.outer_inner_ratio.value == doctest::Approx(r.truth.outer_inner_ratio_sequential).epsilon(0.02));
  else
    CHECK(t.inner_mb_s.value == 0);
}

// The read-size search on a drive whose surfaces have their own density (57-60 sectors a track
// on a /2 DEC RZ26, 14 surfaces): a stream of 0.25 s reads part of a cylinder, so 8 and 16 blocks
// gave sector times 0.54 % apart and every larger read lost the media. No pair agreed within 0.5 %
// and the search went on to sizes that lose the media: in the accuracy runs of this variant it found
// no track structure (the access test's track-to-track null in 6 of 20 runs), and here, at one of
// these 8 places, it settled on 32 blocks and a track of 815 sectors. Two sizes that both follow
// the media within 2 % now count.
TEST_CASE("read-size search: surfaces of their own density still give a track structure") {
  const std::string path = std::string(DS_TEST_DATA) + "/structure/dec-rz26-per-surface.json";
  auto t = ds::sim::open("sim:" + path);
  REQUIRE(t.ok());
  const std::uint64_t span = t->io->info().capacity_bytes / 512;
  int found = 0;
  for (int i = 1; i <= 8; ++i) {
    ds::measure::Budget b(10);
    const std::uint64_t lba = span / 9 * static_cast<std::uint64_t>(i);
    const ds::measure::ProbeChoice pc = ds::measure::choose_stream(*t->io, lba, b, {.queue_depth = 8, .end_lba = span});
    INFO("at " << lba << ": " << pc.blocks << " blocks, " << pc.t.sectors_per_track << " sectors a track");
    CHECK(pc.blocks > 0);
    if (pc.t.sectors_per_track) CHECK((pc.t.sectors_per_track >= 56 && pc.t.sectors_per_track <= 61));
    found += pc.blocks > 0;
  }
  MESSAGE(found << " of 8 places gave a read size");
}

// Surfaces of their own density make head switches of their own cost. The /2 Cheetah 9LP of seed 3
// holds 248-261 sectors a track on its 12 surfaces, the larger and smaller sizes roughly every third
// surface: its switch costs repeat every 3 tracks, the cylinder switch hidden in one of the classes,
// and the transfer test printed 'surfaces 3 (confidence 100 %)' at every budget. A count must be 12
// or not told (with the reason), on every seed and budget tried here.
TEST_CASE("surfaces whose sizes repeat every third one: 12 or not told, never their period") {
  const accuracy::Subject* cheetah = &subject_named("seagate_st39102lw_cheetah9lp");
  for (std::uint64_t seed : {1, 2, 3, 4})
    for (double budget : {30.0, 60.0, 120.0}) {
      accuracy::RunSpec spec;
      spec.subject = cheetah;
      spec.variant = "v2";
      spec.seed = seed;
      spec.budget_s = budget;
      auto r = accuracy::run_one(spec, accuracy::kIssue4);
      REQUIRE(r.ok());
      REQUIRE(r.bench->transfer);
      const auto& t = *r.bench->transfer;
      INFO("seed " << seed << ", " << budget << " s: surfaces " << t.surfaces_estimate << " of " << r.truth.surfaces);
      if (t.surfaces_estimate == 0) {
        CHECK(ds::measure::withholds(t.withheld, ds::measure::key::transfer::surfaces_estimate));
      } else {
        CHECK(t.surfaces_estimate == r.truth.surfaces);
      }
    }
}
