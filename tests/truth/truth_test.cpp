// The independent ground truth (tools/truth): it must reproduce every figure the data set
// publishes for its eight DiskSim models, and follow the format spec's /2 semantics on small
// hand-made models whose truth can be worked out on paper.
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <string>

#include "truth.hpp"

namespace {

const char* const kModels[] = {"dec_rz26", "hp_c2247a", "hp_c2249a", "hp_c2490a", "quantum_qm39100td_atlas3",
                               "seagate_st34501n_cheetah4lp", "seagate_st39102lw_cheetah9lp", "seagate_st41601n"};

nlohmann::json load(const std::string& path) {
  std::ifstream f(path);
  REQUIRE_MESSAGE(f, path);
  return nlohmann::json::parse(f);
}

// The files round to `places` decimals and compute ratios from rounded rates: agree to half a
// unit of the last place, or to 0.05 %.
void close(double computed, const nlohmann::json& published, int places, const std::string& what) {
  const double want = published.get<double>();
  const double tol = std::max(0.5 * std::pow(10.0, -places) + 1e-12, 5e-4 * std::fabs(want));
  INFO(what << ": computed " << computed << ", published " << want);
  CHECK(std::fabs(computed - want) <= tol);
}

// A small /1 drive: 2 surfaces, one zone of 100 cylinders × 100 sectors, 6000 rpm (10 ms a turn,
// 0.1 ms a sector), linear seek curve 1 ms per cylinder from 1 ms at distance 1.
nlohmann::json small_drive() {
  return nlohmann::json::parse(R"({
    "format": "drivescope-disk-model/1", "name": "small", "rpm": 6000, "surfaces": 2, "platters": 1,
    "zones": [{"cylinders": 100, "sectors_per_track": 100}],
    "track_skew_sectors": 10, "cylinder_skew_sectors": 20,
    "seek": {"track_to_track_ms": 1, "average_ms": 34, "full_stroke_ms": 99, "curve": [[1, 1], [99, 99]]},
    "head_switch_ms": 0.5, "command_overhead_ms": 0.2, "interface_mb_s": 100,
    "queue": {"protocol": "none"}, "cache": {"bytes": 1000000}
  })");
}

truth::Truth of(const nlohmann::json& j) {
  auto t = truth::compute(j);
  REQUIRE_MESSAGE(t.ok(), (t.ok() ? "" : t.error().message));
  return *t;
}

}  // namespace

TEST_CASE("the truth of the eight DiskSim models matches the published truth files") {
  for (const char* name : kModels) {
    const std::string base = std::string(DS_TEST_DATA) + "/disk-models/" + name;
    INFO(name);
    auto t = truth::compute_file(base + ".json");
    REQUIRE(t.ok());
    const auto want = load(base + ".truth.json");
    close(t->rotation_ms, want["rotation_ms"], 4, "rotation_ms");
    close(t->rpm, want["rpm"], 3, "rpm");
    REQUIRE(t->zones.size() == want["zones"].size());
    for (std::size_t i = 0; i < t->zones.size(); ++i) {
      const auto& z = t->zones[i];
      const auto& w = want["zones"][i];
      close(z.media_mb_s, w["media_mb_s"], 3, "media_mb_s of zone " + std::to_string(i));
      close(z.sequential_mb_s, w["sequential_mb_s"], 3, "sequential_mb_s of zone " + std::to_string(i));
      close(z.bytes_per_track, w["bytes_per_track"], 0, "bytes_per_track of zone " + std::to_string(i));
      CHECK(z.sectors == w["sectors"].get<std::uint64_t>());
    }
    for (const char* k : {"outer_sequential_mb_s", "inner_sequential_mb_s", "avg_seek_ms", "avg_seek_random_lba_ms",
                          "track_to_track_ms", "full_stroke_ms", "mean_random_read_access_ms"}) {
      const auto j = truth::to_json(*t);
      close(j[k].get<double>(), want[k], 3, k);
    }
    close(t->outer_inner_ratio_sequential, want["outer_inner_ratio_sequential"], 4, "ratio_sequential");
    close(t->outer_inner_ratio_media, want["outer_inner_ratio_media"], 4, "ratio_media");
    CHECK(t->surfaces == want["surfaces"].get<unsigned>());
    CHECK(t->platters == want["platters"].get<unsigned>());
    close(t->bytes_per_platter, want["bytes_per_platter"], 0, "bytes_per_platter");
    CHECK(t->reorders == want["reorders"].get<bool>());
  }
}

TEST_CASE("a /1 drive worked out on paper") {
  const auto t = of(small_drive());
  CHECK(t.rotation_ms == doctest::Approx(10));
  CHECK(t.capacity == 20000);
  CHECK(t.zones.at(0).media_mb_s == doctest::Approx(100 * 512 / 10.0 / 1000));
  // One cylinder: 2 turns + a track skew (1 ms ≥ 0.5 ms switch) + a cylinder skew (2 ms ≥ 1 ms).
  CHECK(t.zones.at(0).sequential_mb_s == doctest::Approx(200 * 512 / 23.0 / 1000));
  CHECK(t.full_stroke_ms == doctest::Approx(99));
  CHECK(t.track_to_track_ms == doctest::Approx(1));
  // Seek = distance in ms: the mean distance of uniform pairs among n is (n² − 1) / (3n).
  CHECK(t.avg_seek_ms == doctest::Approx((100.0 * 100 - 1) / 300));
  CHECK(t.avg_seek_random_lba_ms == doctest::Approx(t.avg_seek_ms));
  CHECK(t.mean_random_read_access_ms == doctest::Approx(t.avg_seek_ms + 5 + 0.2 + 0.1));
  CHECK_FALSE(t.reorders);
}

TEST_CASE("DiskSim's controller keys: the bus caps the host's rate, a random read pays the miss path") {
  // docs/disk-model.md: blocks cross at the slowest of the bus's block time, the bulk sector time
  // and the interface rate; a read that needs the media pays DiskSim's read-miss overhead after a
  // read and the read completion (in place of command_overhead_ms), takes the bus back (reselect,
  // data preparation) and sends its block after the head read it.
  auto j = small_drive();
  j["controller"] = nlohmann::json::parse(R"({
    "overheads_ms": {"read_hit_after_read": 0.3, "read_hit_after_write": 0.3, "read_miss_after_read": 0.7,
                     "read_miss_after_write": 0.9, "write_hit_after_read": 1, "write_hit_after_write": 1,
                     "write_miss_after_read": 1, "write_miss_after_write": 1,
                     "read_completion": 0.05, "write_completion": 0.02},
    "bus": {"read_block_ms": 0.2, "write_block_ms": 0.25},
    "read_reconnect": {"high_water": 0.75, "first_reselect_ms": 0.1, "data_prep_ms": 0.02}
  })");
  const auto bare = of(small_drive());
  const auto t = of(j);
  CHECK(t.interface_mb_s == doctest::Approx(512 / 0.2 / 1000));  // 2.56 MB/s, below the media's 5.12
  CHECK(t.zones.at(0).media_mb_s == doctest::Approx(2.56));
  CHECK(t.zones.at(0).sequential_mb_s == doctest::Approx(2.56));
  CHECK(t.mean_random_read_access_ms ==
        doctest::Approx(bare.mean_random_read_access_ms - 0.2 + 0.7 + 0.05 + 0.1 + 0.02 + 0.2));
  // The bulk sector time alone caps it too; the overheads alone replace command_overhead_ms.
  j["controller"].erase("bus");
  j["controller"]["bulk_sector_ms"] = 0.4;
  const auto b = of(j);
  CHECK(b.interface_mb_s == doctest::Approx(512 / 0.4 / 1000));
  CHECK(b.mean_random_read_access_ms == doctest::Approx(bare.mean_random_read_access_ms - 0.2 + 0.75));
  // A model without the keys is as before.
  CHECK(bare.interface_mb_s == doctest::Approx(100));
}

TEST_CASE("a skew shorter than its switch costs a whole extra revolution") {
  auto j = small_drive();
  j["track_skew_sectors"] = 4;  // 0.4 ms < 0.5 ms head switch
  const auto t = of(j);
  CHECK(t.zones.at(0).sequential_mb_s == doctest::Approx(200 * 512 / (20 + 0.4 + 10 + 2.0) / 1000));
  j["track_skew_sectors"] = nullptr;  // derived: just enough to cover the switch, 5 sectors
  j["cylinder_skew_sectors"] = nullptr;  // max(1 ms seek, 0.5 ms switch): 10 sectors
  CHECK(of(j).zones.at(0).sequential_mb_s == doctest::Approx(200 * 512 / (20 + 0.5 + 1.0) / 1000));
}

TEST_CASE("capacity cut: full stroke and seek averages count only cylinders with user capacity") {
  auto j = small_drive();
  j["capacity_sectors"] = 10000;  // the outer 50 cylinders
  const auto t = of(j);
  CHECK(t.capacity == 10000);
  CHECK(t.full_stroke_ms == doctest::Approx(49));
  CHECK(t.avg_seek_ms == doctest::Approx((50.0 * 50 - 1) / 150));
}

TEST_CASE("a positioner per range: each range's seeks, weighted by its LBAs; the largest range's stroke") {
  auto j = small_drive();
  j["actuators"] = 2;  // LBAs 0-9999 on cylinders 0-49, 10000-19999 on 50-99
  auto t = of(j);
  REQUIRE(t.positioning_ranges.size() == 2);
  CHECK(t.positioning_ranges[1].first_lba == 10000);
  CHECK(t.positioning_ranges[1].lba_count == 10000);
  CHECK(t.positioning_ranges[0].full_stroke_ms == doctest::Approx(49));
  CHECK(t.full_stroke_ms == doctest::Approx(49));
  CHECK(t.avg_seek_random_lba_ms == doctest::Approx((50.0 * 50 - 1) / 150));
  CHECK(t.avg_seek_ms == doctest::Approx((50.0 * 50 - 1) / 150));
  CHECK(t.mean_random_read_access_ms == doctest::Approx(t.avg_seek_random_lba_ms + 5 + 0.2 + 0.1));
  // Unequal ranges as a list: 25 and 75 cylinders.
  j["actuators"] = nlohmann::json::parse(R"([{"first_lba": 0, "lba_count": 5000}, {"first_lba": 5000, "lba_count": 15000}])");
  t = of(j);
  REQUIRE(t.positioning_ranges.size() == 2);
  CHECK(t.full_stroke_ms == doctest::Approx(74));
  CHECK(t.positioning_ranges[0].full_stroke_ms == doctest::Approx(24));
  CHECK(t.avg_seek_random_lba_ms == doctest::Approx(0.25 * (25.0 * 25 - 1) / 75 + 0.75 * (75.0 * 75 - 1) / 225));
  // One range is one positioner.
  j["actuators"] = 1;
  t = of(j);
  CHECK(t.positioning_ranges.empty());
  CHECK(t.full_stroke_ms == doctest::Approx(99));
}

TEST_CASE("/2: rpm_actual, host latency, stalls, remaps and recalibration in the truth") {
  auto j = small_drive();
  const auto base = of(j);
  j["format"] = "drivescope-disk-model/2";
  j["rpm_actual"] = 5988;
  j["noise"] = {{"seed", 3}, {"host_latency_us", 20}, {"host_stall", {{"probability", 0.001}, {"ms", 4}}}};
  j["remapped"] = {{{"lba", 100}, {"extra_ms", 10}}, {{"lba", 19999}, {"extra_ms", 10}}};
  j["recalibration"] = {{"every_s", 300}, {"duration_ms", 120}};
  const auto t = of(j);
  CHECK(t.rpm == doctest::Approx(5988));
  CHECK(t.rpm_nominal == doctest::Approx(6000));
  CHECK(t.rotation_ms == doctest::Approx(60000.0 / 5988));
  const double extra = 0.020 * std::exp(0.125) + 0.001 * 4 + 2 * 10.0 / 20000 + 120.0 * 120 / (2 * 300 * 1000);
  const double rotation = (t.rotation_ms - base.rotation_ms) * (0.5 + 1.0 / 100);
  CHECK(t.mean_random_read_access_ms == doctest::Approx(base.mean_random_read_access_ms + extra + rotation));
  CHECK(t.remapped.size() == 2);
}

TEST_CASE("/2: spares and slipped sectors take LBAs away; per-surface sectors per track") {
  auto j = small_drive();
  j["format"] = "drivescope-disk-model/2";
  j["spares"] = {{"per_track", 2}, {"per_cylinder", 3}};
  j["slipped"] = {5, 700};
  auto t = of(j);
  CHECK(t.capacity == 100 * (2 * 98 - 3) - 2);
  CHECK(t.bytes_per_track == doctest::Approx(98 * 512));
  // The spares still pass under the head: same time per cylinder, fewer user bytes.
  CHECK(t.zones.at(0).sequential_mb_s == doctest::Approx(193 * 512 / 23.0 / 1000));
  j["slipped"] = {98, 99, 100};  // track 0's two spares (no LBA lost), track 1's first sector
  CHECK(of(j).capacity == 100 * (2 * 98 - 3) - 1);
  j = small_drive();
  j["format"] = "drivescope-disk-model/2";
  j["zones"][0]["sectors_per_track"] = {100, 80};
  t = of(j);
  CHECK(t.capacity == 100 * 180);
  CHECK(t.bytes_per_track == doctest::Approx(90 * 512));
  // The track skew leads into the 80-sector track: 10 × 0.125 ms.
  CHECK(t.zones.at(0).sequential_mb_s == doctest::Approx(180 * 512 / (20 + 1.25 + 2.0) / 1000));
  // One sector: 0.1 ms on surface 0 (100 of 180 LBAs), 0.125 ms on surface 1.
  CHECK(t.mean_random_read_access_ms ==
        doctest::Approx(t.avg_seek_random_lba_ms + 5 + 0.2 + (100 * 0.1 + 80 * 0.125) / 180));
}

TEST_CASE("/2: a serpentine layout pays 1-cylinder seeks along a surface and a seek per band") {
  auto j = small_drive();
  j["format"] = "drivescope-disk-model/2";
  j["layout"] = "surface_serpentine";
  j["band_cylinders"] = 10;
  const auto t = of(j);
  CHECK(t.capacity == 20000);
  CHECK(t.avg_seek_random_lba_ms == doctest::Approx(of(small_drive()).avg_seek_random_lba_ms));
  // Per band: 20 turns, 2 × 9 cylinder skews (2 ms ≥ 1 ms), one head switch (1 ms), and the
  // move to the next band (2 surfaces: 10 cylinders, 10 ms) costs the 2 ms skew + one turn.
  CHECK(t.zones.at(0).sequential_mb_s == doctest::Approx(2000 * 512 / (200 + 36 + 1 + 12.0) / 1000));
}

TEST_CASE("without a curve the fitted seek meets the three figures") {
  auto j = small_drive();
  j["zones"][0]["cylinders"] = 5000;
  j["seek"] = {{"track_to_track_ms", 0.8}, {"average_ms", 8.5}, {"full_stroke_ms", 17.0}, {"curve", nullptr}};
  const auto t = of(j);
  CHECK(t.track_to_track_ms == doctest::Approx(0.8));
  CHECK(t.full_stroke_ms == doctest::Approx(17.0));
  CHECK(t.avg_seek_ms == doctest::Approx(8.5).epsilon(1e-6));
}

TEST_CASE("AAM at a quiet default level scales seeks longer than short_seek_cylinders") {
  auto j = small_drive();
  j["aam"] = {{"supported", true}, {"default_level", 128}, {"quiet_seek_scale", 1.5}, {"short_seek_cylinders", 4}};
  const auto t = of(j);
  CHECK(t.track_to_track_ms == doctest::Approx(1));
  CHECK(t.full_stroke_ms == doctest::Approx(99 * 1.5));
}

TEST_CASE("a model the truth cannot read is an error that names the key") {
  auto j = small_drive();
  j["format"] = "drivescope-disk-model/9";
  auto t = truth::compute(j);
  REQUIRE_FALSE(t.ok());
  CHECK(t.error().message.find("format") != std::string::npos);
  j = small_drive();
  j["zones"][0]["sectors_per_track"] = {100, 100, 100};
  t = truth::compute(j);
  REQUIRE_FALSE(t.ok());
  CHECK(t.error().message.find("sectors_per_track") != std::string::npos);
}
