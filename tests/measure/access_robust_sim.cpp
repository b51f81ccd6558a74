// The access test's one-cylinder seek, slow regions, spikes and intervals on simulated drives
// (the judge looks at the model; the measurement sees only the IoEngine), and its pure parts.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "noisy_io.hpp"
#include "sim/drive.hpp"
#include "sim/sim.hpp"
#include "tests/access.hpp"
#include "tests/bench.hpp"
#include "tests/slow_regions.hpp"
#include "tests/surface_scan.hpp"
#include "tests/track_seek.hpp"

using namespace ds::measure;

TEST_CASE("sawtooth_foot finds the foot of a latency sawtooth, and refuses noise") {
  const double rev = 8.0, K = 1.7, wrap = 0.37;
  std::vector<PhaseSample> s;
  for (int i = 0; i < 40; ++i) {
    const double ph = i / 40.0;
    s.push_back({ph, K + rev * (ph - wrap - std::floor(ph - wrap))});
  }
  SawtoothFoot f = sawtooth_foot(s, rev);
  REQUIRE(f.k_ms > 0);
  CHECK(std::fabs(f.k_ms - K) <= f.half_width_ms);
  CHECK(f.half_width_ms <= rev / 40);
  // Latencies that do not depend on the phase: no sawtooth.
  std::vector<PhaseSample> flat;
  ds::measure::Rng rng(3);
  for (int i = 0; i < 40; ++i) flat.push_back({i / 40.0, 2 + rev * rng.uniform()});
  CHECK(sawtooth_foot(flat, rev).k_ms == 0);
}

TEST_CASE("LatencyModel: a read is slow only beyond the median at its distance plus half a turn") {
  std::vector<std::pair<std::uint64_t, double>> dm;
  for (int i = 0; i < 50; ++i) dm.emplace_back(1000, 5.0 + (i % 10) * 0.1), dm.emplace_back(1000000, 12.0 + (i % 10) * 0.1);
  LatencyModel m(dm, 4.0, 1.5);
  CHECK_FALSE(m.slow(1000, 9.0));
  CHECK(m.slow(1000, 12.0));
  CHECK_FALSE(m.slow(1000000, 17.0));
  CHECK(m.slow(1000000, 19.0));
  CHECK(m.slow(10, 12.0));  // shorter than any bin: the shortest bin bounds it
}

namespace {

ds::sim::DiskModel model_of(const char* preset) {
  auto m = ds::sim::preset(preset);
  REQUIRE(m.ok());
  return *m;
}

AccessResult access_on(ds::IoEngine& io, std::uint64_t seed, double budget = 40) {
  AccessOptions o;
  o.seed = seed;
  o.budget_s = budget;
  auto a = run_access(io, o);
  REQUIRE(a.ok());
  return *a;
}

// A preset with its noise seeded, benched with `tests`: the drive (the judge's truth) and the
// access result.
struct Benched {
  ds::sim::SimTarget target;
  AccessResult access;
};
Benched bench_preset(const char* preset, std::uint64_t seed, std::vector<std::string> tests, double budget) {
  auto m = model_of(preset);
  m.noise.seed = seed;
  auto t = ds::sim::open(m);
  REQUIRE(t.ok());
  BenchOptions o;
  o.tests = std::move(tests);
  o.seed = seed;
  o.budget_s = budget;
  auto r = run_bench(*t->io, o);
  REQUIRE(r.ok());
  REQUIRE(r->access);
  return {std::move(*t), *r->access};
}

}  // namespace

TEST_CASE("track to track within 15 % of the one-cylinder seek: 3 drives x 3 seeds") {
  for (const char* p : {"raptor", "7k400", "maxline3"})
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
      const auto b = bench_preset(p, seed, {"transfer", "access"}, 60);
      const double truth = b.target.drive->seek_curve().ms(1);
      const auto& f = b.access.track_to_track_ms;
      INFO(p << " seed " << seed << ": " << f.value << " ± " << f.uncertainty << " vs " << truth);
      CHECK(std::fabs(f.value - truth) <= 0.15 * truth);
    }
}

TEST_CASE("track to track where head and cylinder switches look alike: the same-head one-cylinder seek") {
  // Cheetah 15K.3 (a 0.2 ms seek under a 0.3 ms head switch) and MAS3735 (both 0.3 ms): streaming
  // shows head and cylinder switches alike, so the stream cannot count the surfaces; the
  // track-offset scan measures the move to the same head one cylinder on, the one-cylinder seek
  // alone. Where that is faster than the head switch (Cheetah) its offset is the surface count,
  // which the bench then reports; where both cost the same (MAS3735) no timing tells it.
  for (const char* p : {"cheetah15k3", "mas3735"}) {
    auto m = model_of(p);
    m.noise.seed = 2;
    auto t = ds::sim::open(m);
    REQUIRE(t.ok());
    BenchOptions o;
    o.tests = {"transfer", "access"};
    o.seed = 2;
    o.budget_s = 60;
    auto r = run_bench(*t->io, o);
    REQUIRE(r.ok());
    REQUIRE(r->access);
    REQUIRE(r->transfer);
    const double truth = t->drive->seek_curve().ms(1);
    const auto& f = r->access->track_to_track_ms;
    INFO(p << ": " << f.value << " ± " << f.uncertainty << " vs " << truth);
    CHECK(std::fabs(f.value - truth) <= 0.15 * truth);
    CHECK(std::fabs(f.value - truth) <= f.uncertainty);
    if (m.head_switch_ms > truth * 1.2) {
      CHECK(r->transfer->surfaces_estimate == m.surfaces);
      CHECK(r->transfer->surfaces_source == "same-head probe");
    } else {
      CHECK(r->transfer->surfaces_estimate == 0);
    }
  }
}

TEST_CASE("pin_track_size: two track starts far apart leave one track size") {
  // Starts 61 tracks of 993 apart, each seen to within 3 sectors: 992 and 994 miss by 61.
  CHECK(pin_track_size(6359172, 6359172 + 61 * 993 + 3, 992, 1.0, 9) == 993);
  CHECK(pin_track_size(6359172 + 61 * 993 - 2, 6359172, 993, 0.0, 9) == 993);
  // Two tracks apart: every candidate within ±2 fits; none is told.
  CHECK(pin_track_size(1000, 1000 + 2 * 993, 993, 1.0, 9) == 0);
}

TEST_CASE("edge_fit: the foot of a blurred uniform, its 95 % interval calibrated over draws") {
  // Latencies K + N(0, σ) + U(0, rev) with a stall and a cache hit among them, as random
  // one-cylinder moves give on a drive whose overhead jitters. The lowest latency is low by
  // about 2.5σ; the fit's interval must contain K in at least 90 % of 40 draws and be narrower
  // than a tenth of a revolution.
  const double K = 2.9, rev = 11.1;
  std::uint64_t st = 99;
  auto uni = [&st] {
    st = st * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<double>(st >> 11) / 9007199254740992.0;
  };
  int covered = 0, lowest_covered = 0;
  double worst = 0;
  for (int draw = 0; draw < 40; ++draw) {
    const double sigma = 0.05 + 0.2 * uni();
    std::vector<double> l;
    for (int i = 0; i < 200; ++i) {
      const double n = sigma * std::sqrt(-2 * std::log(std::max(1e-12, uni()))) * std::cos(6.283185307 * uni());
      l.push_back(K + n + rev * uni());
    }
    l[17] += 40;  // a stall
    l[42] = 0.4;  // a cache hit
    const SawtoothFoot f = edge_fit(l, rev);
    REQUIRE(f.k_ms > 0);
    covered += std::fabs(f.k_ms - K) <= f.half_width_ms;
    worst = std::max(worst, f.half_width_ms);
    std::vector<double> rest(l.begin(), l.end());
    rest.erase(rest.begin() + 42);
    lowest_covered += std::fabs(*std::min_element(rest.begin(), rest.end()) - K) <= 0.1;
  }
  INFO("covered " << covered << "/40, widest ± " << worst << " ms; the bare lowest within 0.1 ms: " << lowest_covered);
  CHECK(covered >= 36);
  CHECK(worst <= 0.1 * rev);
  CHECK(lowest_covered < covered);  // the point of fitting the blur
}

TEST_CASE("find_dip: the one offset clearly faster than the rest, and none in noise") {
  std::vector<SawtoothFoot> feet;
  for (unsigned j = 1; j <= 24; ++j) {
    SawtoothFoot f;
    f.k_ms = 0.40 + 0.004 * ((j * 7) % 5) / 4.0;  // scatter of a few µs
    f.half_width_ms = 0.005;
    feet.push_back(f);
  }
  CHECK(find_dip(feet).offset == 0);
  feet[7].k_ms = 0.30;  // offset 8: a 0.1 ms faster move
  const DipFinding d = find_dip(feet);
  CHECK(d.offset == 8);
  CHECK(d.k_mode_ms == doctest::Approx(0.402).epsilon(0.01));
  feet[7].k_ms = 0.39;  // 12 µs below: within the resolution, not a dip
  CHECK(find_dip(feet).offset == 0);
  // The same head 1, 2 and 3 cylinders on (offsets 8, 16, 24), seeks all faster than the head
  // switch; noise puts the lowest foot at 16: the one-cylinder move is still offset 8.
  feet[7].k_ms = 0.305;
  feet[15].k_ms = 0.30;
  feet[23].k_ms = 0.31;
  CHECK(find_dip(feet).offset == 8);
  // Feet that scatter by ±0.03 ms across offsets (host noise): a 0.09 ms dip at 8, 16 and 24 is
  // within the scatter test alone, but the three together, a comb of the multiples of 8, are not.
  for (unsigned j = 1; j <= 24; ++j) feet[j - 1].k_ms = 0.40 + 0.03 * std::sin(2.3 * j);
  for (unsigned j : {8u, 16u, 24u}) feet[j - 1].k_ms = 0.31;
  const DipFinding c = find_dip(feet);
  CHECK(c.offset == 8);
  CHECK(c.dips == 3);
  feet[15].k_ms = 0.40;  // 16 does not dip: no comb, and 8 and 24 alone are within the scatter
  CHECK(find_dip(feet).offset == 0);
}

TEST_CASE("slow regions at the start, the middle and the end, located within 1 % of capacity") {
  auto m = model_of("cheetah15k3");
  const std::uint64_t cap = m.capacity();
  m.defects = {{cap / 200, cap / 100, 15}, {cap / 2, cap / 50, 10}, {cap - cap / 40, cap / 40, 15}};
  auto t = ds::sim::open(m);
  REQUIRE(t.ok());
  AccessResult a = access_on(*t->io, 2);
  REQUIRE(a.slow_regions.size() == 3);
  for (std::size_t i = 0; i < 3; ++i) {
    const auto& d = m.defects[i];
    INFO("region " << i << ": " << a.slow_regions[i].first_lba << "-" << a.slow_regions[i].last_lba);
    CHECK(std::fabs(static_cast<double>(a.slow_regions[i].first_lba) - d.first_lba) <= 0.01 * cap);
    CHECK(std::fabs(static_cast<double>(a.slow_regions[i].last_lba) - (d.first_lba + d.sectors - 1)) <= 0.01 * cap);
  }
  // The region at the end is not a longer stroke: full stroke within 10 % of the model's.
  const double fs = t->drive->seek_curve().ms(t->drive->layout().cylinders() - 1);
  CHECK(std::fabs(a.full_stroke_ms.value - fs) <= 0.1 * fs);
  // The region in the middle third is not command overhead.
  CHECK(a.overhead_ms.value < m.command_overhead_ms + 1.0);
}

TEST_CASE("remapped single LBAs are spikes, not regions") {
  // A small drive (HP C2490A, 2 GB) with 20000 scattered single slow LBAs (0.5 % of it), so that
  // the random reads hit some of them.
  auto t0 = ds::sim::open(std::string(DS_TEST_DATA) + "/disk-models/hp_c2490a.json");
  REQUIRE(t0.ok());
  auto m = t0->model;
  const std::uint64_t cap = m.capacity(), step = cap / 20001;
  for (std::uint64_t i = 1; i <= 20000; ++i) m.defects.push_back({step * i + 17, 1, 14});
  auto t = ds::sim::open(m);
  REQUIRE(t.ok());
  AccessResult a = access_on(*t->io, 1);
  CHECK(a.slow_regions.empty());
  REQUIRE_FALSE(a.slow_spikes.empty());
  for (auto& s : a.slow_spikes) {
    INFO("spike at " << s.lba);
    CHECK(s.lba >= 17);
    CHECK((s.lba - 17) % step == 0);
  }
}

TEST_CASE("host stalls and recalibration pauses invent no slow region and are counted") {
  std::size_t outliers = 0;
  for (std::uint64_t seed = 1; seed <= 2; ++seed) {
    auto t = ds::sim::open(model_of("raptor"));
    REQUIRE(t.ok());
    testing::HostNoise n;
    n.seed = seed;
    n.stall_prob = 0.01;
    n.recal_every_s = 10;
    testing::NoisyIo io(*t->io, n);
    AccessResult a = access_on(io, seed);
    CHECK(a.slow_regions.empty());
    CHECK(a.slow_spikes.empty());
    outliers += a.outliers;
  }
  CHECK(outliers > 0);
}

TEST_CASE("the rpm interval holds the model's rpm over seeds, and is not wider than 2 %") {
  int covered = 0, runs = 0;
  for (const char* p : {"raptor", "7k400", "maxline3", "atlas15k"})
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
      auto m = model_of(p);
      m.noise.seed = seed;
      auto t = ds::sim::open(m);
      REQUIRE(t.ok());
      AccessResult a = access_on(*t->io, seed);
      ++runs;
      // The truth is the speed the spindle turns at (rpm_actual of the /2 presets), not the nominal.
      const double rpm = m.spindle_rpm();
      INFO(p << " seed " << seed << ": " << a.rpm.value << " ± " << a.rpm.uncertainty << " vs " << rpm);
      CHECK(a.rpm.uncertainty <= 0.02 * rpm);
      covered += std::fabs(a.rpm.value - rpm) <= a.rpm.uncertainty;
    }
  MESSAGE("rpm interval covers the model's rpm in " << covered << "/" << runs);
  CHECK(covered * 10 >= runs * 9);
}

TEST_CASE("backward steps drowned in host jitter: the phase lock, seeded by their median, finds the rpm or none") {
  // A host adding a lognormal 0.3 ms (σ 1) to every read, as through a QEMU guest: the 1-8 block
  // differences of the backward steps (a few µs each) no longer make a falling line on most
  // seeds. Their median seeds the phase lock, which must then find the revolution to 0.1 %, or
  // leave the rpm and the seek figures unmeasured (with 1 ms of jitter the re-reads blur over the
  // revolution: so far no lock there).
  int seeded_runs = 0, locked_from_seed = 0;
  for (double median_ms : {0.3, 1.0})
    for (std::uint64_t seed = 1; seed <= (median_ms < 0.5 ? 6u : 2u); ++seed) {
      auto t = ds::sim::open(model_of("raptor"));
      REQUIRE(t.ok());
      testing::HostNoise n;
      n.seed = seed;
      n.host_median_ms = median_ms;
      n.host_sigma = 1.0;
      testing::NoisyIo io(*t->io, n);
      AccessResult a = access_on(io, seed);
      bool seeded = false;
      for (auto& note : a.notes) seeded |= note.find("only seeds the phase lock") != std::string::npos;
      INFO(median_ms << " ms, seed " << seed << ": rpm " << a.rpm.value << " ± " << a.rpm.uncertainty);
      if (!seeded) continue;
      ++seeded_runs;
      if (a.rpm.value > 0) {
        ++locked_from_seed;
        CHECK(std::fabs(a.rpm.value - 10000) <= 10);
        CHECK(a.rotation_source == RotationSource::phase_lock);
      } else {
        CHECK(a.rotation_ms.value == 0);
        CHECK(a.avg_seek_ms.value == 0);
        CHECK(a.rotation_reason == RotationReason::seed_not_confirmed);
      }
    }
  MESSAGE(locked_from_seed << " of " << seeded_runs << " seeded runs locked");
  CHECK(seeded_runs >= 4);
  CHECK(locked_from_seed >= 2);
}

TEST_CASE("seek curve: a bin has a seek time only when its reads resolve the track-to-track seek") {
  // Per bin, the rotational wait alone leaves a 95 % half-width of 1.96 rev / sqrt(12 n): a bin is
  // given a seek only when that is within the track-to-track seek (access.cpp, step 7). Before,
  // a bin of 3 reads on sim:raptor came out at 0.23 ms, under the drive's 0.6 ms
  // track-to-track time, and the report drew it (issue 32).
  int resolved = 0, unresolved = 0, below = 0;
  for (const char* p : {"raptor", "7k400", "cheetah15k3"})
    for (std::uint64_t seed = 1; seed <= 4; ++seed) {
      const auto bp = bench_preset(p, seed, {"access"}, 20);
      const auto& a = bp.access;
      const double rev = a.rotation_ms.value, t2t = a.track_to_track_ms.value;
      REQUIRE(rev > 0);
      const double resolve = t2t > 0 ? t2t : 1.0;
      const double one_cylinder = bp.target.drive->seek_curve().ms(1);
      for (const auto& b : a.seek_curve) {
        const double hw = 1.96 * rev / std::sqrt(12.0 * static_cast<double>(b.n));
        INFO(p << " seed " << seed << ": bin up to " << b.max_distance << ", " << b.n << " reads, half-width " << hw
               << " ms, track to track " << t2t);
        // The rule, both ways (a bin of 2 reads or fewer never resolves anything).
        CHECK(b.seek_ms.has_value() == (hw <= resolve * (1 + 1e-9) && b.n >= 2));
        if (!b.seek_ms) {
          ++unresolved;
          continue;
        }
        ++resolved;
        // No seek is shorter than the one-cylinder move: a resolved bin under it by more than
        // its own half-width is a miss (at most 2.5 % of bins by chance; the bins are far longer
        // seeks than one cylinder, so far fewer).
        if (*b.seek_ms < one_cylinder - hw) ++below;
      }
    }
  MESSAGE(resolved << " bins resolved, " << unresolved << " null, " << below << " below the one-cylinder seek");
  CHECK(resolved > 20);
  CHECK(unresolved > 0);
  CHECK(below <= resolved / 20);
}
