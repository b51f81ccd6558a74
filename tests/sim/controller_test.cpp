// The optional "controller" keys (DiskSim's controller parameters, docs/disk-model.md): each one
// shown in timing, and a model without them timing exactly as before.
#include <nlohmann/json.hpp>
#include <optional>

#include "sim/drive.hpp"
#include "sim_test_util.hpp"

namespace {

using nlohmann::json;

// 6000 rpm: one revolution is exactly 10 ms, so an extra 10 ms before a media access lands the
// head at the same angle and moves the completion by exactly 10 ms.
constexpr double kRevMs = 10.0;

json base_model(bool write_back = false) {
  json j = json::parse(R"({
    "format": "drivescope-disk-model/1", "name": "ctl", "transport": "scsi",
    "identity": {"model": "CTL"}, "logical_sector_bytes": 512, "rpm": 6000,
    "surfaces": 2, "platters": 1, "zones": [{"cylinders": 3000, "sectors_per_track": 500}],
    "seek": {"track_to_track_ms": 1, "average_ms": 6, "full_stroke_ms": 12, "curve": null},
    "head_switch_ms": 0.5, "write_settle_ms": 0.1, "command_overhead_ms": 0.3, "interface_mb_s": 20,
    "cache": {"bytes": 1048576, "segments": 4, "read_ahead_sectors": 128, "write_back": false},
    "queue": {"protocol": "none"}
  })");
  j["cache"]["write_back"] = write_back;
  return j;
}

json overheads(double rh_r, double rh_w, double rm_r, double rm_w, double wh_r, double wh_w, double wm_r,
               double wm_w, double rc, double wc) {
  return {{"read_hit_after_read", rh_r},   {"read_hit_after_write", rh_w}, {"read_miss_after_read", rm_r},
          {"read_miss_after_write", rm_w}, {"write_hit_after_read", wh_r}, {"write_hit_after_write", wh_w},
          {"write_miss_after_read", wm_r}, {"write_miss_after_write", wm_w}, {"read_completion", rc},
          {"write_completion", wc}};
}

ds::sim::SimTarget open_json(const json& j) {
  auto m = ds::sim::parse_model(j.dump());
  REQUIRE_MESSAGE(m.ok(), (m.ok() ? "" : m.error().message));
  ds::sim::SimOptions o;
  o.writable = true;
  auto t = ds::sim::open(*m, o);
  REQUIRE_MESSAGE(t.ok(), (t.ok() ? "" : t.error().message));
  return std::move(*t);
}

// One command at QD1 after `idle_ms` of idle time; returns its latency in ms.
double cmd(ds::IoEngine& io, std::uint64_t lba, std::uint32_t sectors, bool write, double idle_ms = 0) {
  if (idle_ms > 0) io.idle(std::chrono::nanoseconds(static_cast<std::int64_t>(idle_ms * 1e6)));
  ds::IoRequest r{lba * 512, sectors * 512u, write, lba};
  REQUIRE(io.submit({&r, 1}).value() == 1);
  ds::IoCompletion c;
  REQUIRE(io.reap({&c, 1}, 1, std::chrono::milliseconds(0)).value() == 1);
  REQUIRE(c.ok());
  return static_cast<double>(c.latency_ns()) / 1e6;
}

// A fixed mixed workload (reads, writes, hits, misses, idle gaps) as completion latencies.
std::vector<double> workload(const json& model) {
  auto t = open_json(model);
  ds::sim::Rng rng(42);
  std::vector<double> out;
  const std::uint64_t cap = t.io->info().capacity_bytes / 512 - 64;
  std::uint64_t last = 0;
  for (int i = 0; i < 400; ++i) {
    const bool seq = rng.below(3) == 0;
    const std::uint64_t lba = seq ? last + 8 : rng.below(cap);
    const bool write = rng.below(3) == 0;
    out.push_back(cmd(*t.io, lba, 8, write, static_cast<double>(rng.below(20))));
    last = lba;
  }
  return out;
}

}  // namespace

TEST_CASE("controller: a block that restates the /1 keys times exactly as the model without it") {
  // Every controller path with values equal to what the /1 keys already say: the new code
  // reduces to the old one (and a model without the block takes the old path unchanged).
  for (const bool wb : {false, true}) {
    json plain = base_model(wb);
    json same = plain;
    same["controller"] = {{"overheads_ms", overheads(0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0, 0)},
                          {"write_behind_level", wb ? 2 : 0},
                          {"bulk_sector_ms", 0.0001},  // below the 20 MB/s bus's 0.0256 ms a sector
                          {"write_settle_ms", 0.1}};
    CHECK(workload(plain) == workload(same));
  }
}

TEST_CASE("controller.overheads_ms: hit and miss, after a read or a write, and the completions") {
  json m = base_model(true);
  m["controller"] = {{"overheads_ms", overheads(1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 0.25, 0.5)},
                     {"write_behind_level", 2}};
  auto t = open_json(m);
  const double xfer8 = 8 * 512 / 20e3;  // 8 sectors over 20 MB/s, ms
  cmd(*t.io, 1000, 8, false);                                     // miss: fills a segment
  CHECK(cmd(*t.io, 1000, 8, false, 30) == doctest::Approx(1.0 + xfer8 + 0.25));  // hit after read
  CHECK(cmd(*t.io, 500000, 8, true, 30) == doctest::Approx(5.0 + xfer8 + 0.5));  // write hit after read
  CHECK(cmd(*t.io, 1000, 8, false, 30) == doctest::Approx(2.0 + xfer8 + 0.25));  // hit after write
  CHECK(cmd(*t.io, 900000, 8, true, 30) == doctest::Approx(5.0 + xfer8 + 0.5));

  // A miss: the same request on a drive whose read-miss overhead is one revolution longer
  // completes exactly one revolution later.
  auto miss = [&](double rm) {
    json k = base_model();
    k["controller"] = {{"overheads_ms", overheads(1, 1, rm, rm, 1, 1, 1, 1, 0, 0)}};
    auto d = open_json(k);
    return cmd(*d.io, 2000000, 8, false, 5);
  };
  CHECK(miss(3.0 + kRevMs) - miss(3.0) == doctest::Approx(kRevMs).epsilon(1e-6));
  // A write miss (write-through) likewise takes the write-miss overhead.
  auto wmiss = [&](double wm) {
    json k = base_model();
    k["controller"] = {{"overheads_ms", overheads(1, 1, 1, 1, 0.5, 0.5, wm, wm, 0, 0)}, {"write_behind_level", 0}};
    auto d = open_json(k);
    return cmd(*d.io, 2000000, 8, true, 5);
  };
  CHECK(wmiss(2.0 + kRevMs) - wmiss(2.0) == doctest::Approx(kRevMs).epsilon(1e-6));
}

TEST_CASE("controller.write_behind_level: 1 holds one write behind, 2 several; 0 writes through") {
  const double xfer8 = 8 * 512 / 20e3;
  auto two_writes = [&](int level) {
    json m = base_model(false);
    m["controller"] = {{"write_behind_level", level}};
    auto t = open_json(m);
    const double a = cmd(*t.io, 100000, 8, true, 1);
    const double b = cmd(*t.io, 2000000, 8, true, 0);  // right after: the first is not on the media yet
    const double c = cmd(*t.io, 300000, 8, true, 60);  // after an idle gap: everything destaged
    return std::vector<double>{a, b, c};
  };
  const auto l1 = two_writes(1), l2 = two_writes(2), l0 = two_writes(0);
  CHECK(l1[0] == doctest::Approx(0.3 + xfer8));
  CHECK(l1[1] > 2.0);  // waits for the first write's seek and rotation
  CHECK(l1[2] == doctest::Approx(0.3 + xfer8));
  CHECK(l2[0] == doctest::Approx(0.3 + xfer8));
  CHECK(l2[1] == doctest::Approx(0.3 + xfer8));
  CHECK(l0[0] > 2.0);  // level 0 writes through although the block had no write_back
  CHECK(l0[2] > 2.0);
}

TEST_CASE("controller.bulk_sector_ms: the bus time per sector of a buffer hit, when slower than the interface") {
  // Read A, then B elsewhere (A's segment stays cached, the read-ahead moves to B), then A: a hit.
  auto hit = [](double bulk) {
    json m = base_model();
    m["controller"] = {{"bulk_sector_ms", bulk}};
    auto t = open_json(m);
    cmd(*t.io, 1000, 16, false);
    cmd(*t.io, 2000000, 16, false, 30);
    return cmd(*t.io, 1000, 16, false, 30);
  };
  CHECK(hit(0.1) == doctest::Approx(0.3 + 16 * 0.1));
  CHECK(hit(0.001) == doctest::Approx(0.3 + 16 * 512 / 20e3));  // faster than 20 MB/s: the bus rate stands
  // A write taken by write-behind likewise.
  json w = base_model(true);
  w["controller"] = {{"bulk_sector_ms", 0.1}};
  auto t = open_json(w);
  CHECK(cmd(*t.io, 5000, 16, true, 1) == doctest::Approx(0.3 + 16 * 0.1));
}

TEST_CASE("controller.write_settle_ms: signed, replaces write_settle_ms, never makes a move negative") {
  auto write_after_read = [&](double top, std::optional<double> signed_settle, std::uint64_t wlba) {
    json m = base_model();
    m["write_settle_ms"] = top;
    if (signed_settle) m["controller"] = {{"write_settle_ms", *signed_settle}};
    auto t = open_json(m);
    cmd(*t.io, 0, 8, false);
    return cmd(*t.io, wlba, 8, true, 3);
  };
  // A long seek: settle −2 against +8 is one revolution less before the same angle.
  const std::uint64_t far = 2000000;
  CHECK(write_after_read(8.0, std::nullopt, far) - write_after_read(8.0, -2.0, far) ==
        doctest::Approx(kRevMs).epsilon(1e-6));
  // No move at all (same track): the negative settle cannot take time off; as settle 0.
  CHECK(write_after_read(0.0, -2.0, 200) == doctest::Approx(write_after_read(0.0, std::nullopt, 200)));
}

TEST_CASE("controller: malformed keys name the field; the block round-trips") {
  json m = base_model();
  m["controller"] = {{"write_behind_level", 3}};
  auto bad = ds::sim::parse_model(m.dump());
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message.find("controller.write_behind_level") != std::string::npos);
  m["controller"] = {{"overheads_ms", {{"read_hit_after_read", 1}}}};
  bad = ds::sim::parse_model(m.dump());
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message.find("controller.overheads_ms.read_hit_after_write") != std::string::npos);
  m["controller"] = {{"overheads_ms", overheads(1, 2, 3, 4, 5, 6, 7, 8, 0.1, 0.2)}, {"write_behind_level", 1},
                     {"bulk_sector_ms", 0.105}, {"write_settle_ms", -0.642}};
  auto good = ds::sim::parse_model(m.dump());
  REQUIRE(good.ok());
  auto again = ds::sim::parse_model(ds::sim::model_to_json(*good));
  REQUIRE(again.ok());
  CHECK(json::parse(ds::sim::model_to_json(*again))["controller"] == m["controller"]);
}

// ---- controller.bus, controller.read_reconnect, controller.prefetch ----------------------------
namespace {

// 6000 rpm, 500 sectors a track: a sector passes in 0.02 ms. A 100 MB/s interface (0.00512 ms a
// sector) is a floor the bus times below stay above.
constexpr double kSectorMs = kRevMs / 500;

json bus_model(double read_block_ms, std::optional<json> reconnect = std::nullopt) {
  json m = base_model();
  m["interface_mb_s"] = 100;
  m["controller"] = {{"bus", {{"read_block_ms", read_block_ms}, {"write_block_ms", read_block_ms}}}};
  if (reconnect) m["controller"]["read_reconnect"] = *reconnect;
  return m;
}

// A miss of 16 sectors inside one track (LBAs 1000..1499): the first command of a fresh drive,
// so that every variant positions from the same place at the same time.
double miss16(const json& model) {
  auto t = open_json(model);
  return cmd(*t.io, 1100, 16, false);
}

}  // namespace

TEST_CASE("controller.bus: a hit costs the overhead and one block time per block") {
  auto t = open_json(bus_model(0.17));
  cmd(*t.io, 1000, 16, false);
  cmd(*t.io, 2000000, 16, false, 30);
  CHECK(cmd(*t.io, 1000, 16, false, 30) == doctest::Approx(0.3 + 16 * 0.17));
  // Below the interface's time a sector, the interface rate stands.
  auto f = open_json(bus_model(0.001));
  cmd(*f.io, 1000, 16, false);
  cmd(*f.io, 2000000, 16, false, 30);
  CHECK(cmd(*f.io, 1000, 16, false, 30) == doctest::Approx(0.3 + 16 * 512 / 100e3).epsilon(1e-4));
}

TEST_CASE("controller.bus: a miss's blocks cross the bus only once the media has read them") {
  json plain = base_model();
  plain["interface_mb_s"] = 100;
  const double without = miss16(plain);  // the interface overlaps the positioning and the media
  // A bus faster than the media: only the last block's time comes after the media is done (a
  // bus that overlapped the seek would add nothing).
  CHECK(miss16(bus_model(0.01)) - without == doctest::Approx(0.01).epsilon(1e-3));
  // A bus slower than the media: the first block as it is read, then 16 block times.
  CHECK(miss16(bus_model(1.0)) - without == doctest::Approx(16 * 1.0 - 15 * kSectorMs).epsilon(1e-4));
  // A write-through write sends its data while the head positions: max(media, bus).
  json w = bus_model(1.0);
  auto t = open_json(w);
  CHECK(cmd(*t.io, 1100, 16, true) >= 0.3 + 16 * 1.0);
}

TEST_CASE("controller.read_reconnect: a read that waits reconnects at its high-water mark, then pays the reselect") {
  const double bus_only = miss16(bus_model(1.0));
  auto rc = [](double hw, bool by_request) {
    return json{{"high_water", hw}, {"by_request_size", by_request}, {"first_reselect_ms", 0.15},
                {"data_prep_ms", 0.05}, {"disconnect_after_read_ms", 0.02}, {"disconnect_after_write_ms", 0.04}};
  };
  // 0.75 of 16 blocks: the bus waits for the 12th sector, 11 sector times after the first.
  CHECK(miss16(bus_model(1.0, rc(0.75, true))) - bus_only == doctest::Approx(11 * kSectorMs + 0.2).epsilon(1e-4));
  // A mark of 0 is one block: only the reselect and the data preparation.
  CHECK(miss16(bus_model(1.0, rc(0.0, true))) - bus_only == doctest::Approx(0.2).epsilon(1e-4));
  // Of the segment (512 sectors here), cut to the request: all 16 blocks first.
  CHECK(miss16(bus_model(1.0, rc(0.75, false))) - bus_only == doctest::Approx(15 * kSectorMs + 0.2).epsilon(1e-4));
  // A hit does not disconnect.
  auto t = open_json(bus_model(0.17, rc(0.75, true)));
  cmd(*t.io, 1000, 16, false);
  cmd(*t.io, 2000000, 16, false, 30);
  CHECK(cmd(*t.io, 1000, 16, false, 30) == doctest::Approx(0.3 + 16 * 0.17));
  // It needs the bus.
  json bad = base_model();
  bad["controller"] = {{"read_reconnect", rc(0.5, true)}};
  auto m = ds::sim::parse_model(bad.dump());
  REQUIRE_FALSE(m.ok());
  CHECK(m.error().message.find("controller.read_reconnect") != std::string::npos);
}

namespace {

json prefetch_model(std::optional<json> prefetch, std::uint32_t read_ahead = 128) {
  json m = base_model();
  m["cache"]["read_ahead_sectors"] = read_ahead;
  if (prefetch) m["controller"] = {{"prefetch", *prefetch}};
  return m;
}

// Read `first` (8 sectors unless told), wait 30 ms (three revolutions: any read-ahead is done),
// then read 8 sectors at `then`: its latency.
double after(const json& model, std::uint64_t first, std::uint64_t then, std::uint32_t n = 8) {
  auto t = open_json(model);
  cmd(*t.io, first, n, false);
  return cmd(*t.io, then, 8, false, 30);
}

constexpr double kHitMs = 0.3 + 8 * 512 / 20e3;  // overhead + 8 sectors at 20 MB/s

}  // namespace

TEST_CASE("controller.prefetch.continuous_read: how far the read-ahead goes") {
  auto rule = [](int c) { return json{{"continuous_read", c}}; };
  // Track 2 is LBAs 1000..1499. A read at 1400 and then one on the next track, 1500.
  CHECK(after(prefetch_model(std::nullopt), 1400, 1500) == doctest::Approx(kHitMs));  // 128 on
  CHECK(after(prefetch_model(rule(3)), 1400, 1500) == doctest::Approx(kHitMs));       // until the segment is full
  CHECK(after(prefetch_model(rule(1)), 1400, 1500) > 1.0);  // to the end of its track only
  CHECK(after(prefetch_model(rule(0)), 1400, 1408) > 1.0);  // none at all
  CHECK(after(prefetch_model(rule(2)), 1400, 1500) == doctest::Approx(kHitMs));  // 1500 is on the same cylinder
  CHECK(after(prefetch_model(rule(2)), 1900, 2000) > 1.0);                      // 2000 is the next one
  // 4: an isolated read reads to the end of its track; a read that already spans a track
  // boundary (a stream going on) one track further, read_ahead_sectors notwithstanding.
  CHECK(after(prefetch_model(rule(4)), 1400, 1500) > 1.0);
  CHECK(after(prefetch_model(rule(4)), 1495, 2100) == doctest::Approx(kHitMs));    // 1495..1502: to 2500
  CHECK(after(prefetch_model(rule(4)), 990, 1600, 20) == doctest::Approx(kHitMs));  // 990..1009: to 2000
  CHECK(after(prefetch_model(rule(4)), 990, 2000, 20) > 1.0);
}

TEST_CASE("controller.prefetch.over_requested and on_idle_hit") {
  // Segments of 512 sectors; read-ahead 600. Over requested 1: the read-ahead pushes the
  // request's data out of the segment and reads on to 608; 0: it stops when the segment is full.
  CHECK(after(prefetch_model(json{{"continuous_read", 3}, {"over_requested", 1}}, 600), 0, 560) ==
        doctest::Approx(kHitMs));
  CHECK(after(prefetch_model(json{{"continuous_read", 3}, {"over_requested", 0}}, 600), 0, 560) > 1.0);
  // On idle hit: a read the read-ahead has already read moves its limit on, or not.
  auto idle = [](bool on) {
    auto t = open_json(prefetch_model(json{{"continuous_read", 3}, {"on_idle_hit", on}}));
    cmd(*t.io, 1000, 8, false);
    CHECK(cmd(*t.io, 1008, 8, false, 30) == doctest::Approx(kHitMs));
    return cmd(*t.io, 1136, 8, false, 30);  // past 1000 + 8 + 128, within 1016 + 128
  };
  CHECK(idle(true) == doctest::Approx(kHitMs));
  CHECK(idle(false) > 1.0);
}

TEST_CASE("controller.prefetch.after_sequential_reads: no read-ahead until a stream is established") {
  auto run = [](std::uint32_t after) {
    json pf{{"continuous_read", 3}};
    if (after > 0) pf["after_sequential_reads"] = after;
    auto t = open_json(prefetch_model(pf));
    std::vector<double> out;
    for (std::uint64_t lba : {1000, 1008, 1016, 1024}) out.push_back(cmd(*t.io, lba, 8, false, 30));
    return out;
  };
  const auto always = run(0), after1 = run(1), after2 = run(2);
  CHECK(always[1] == doctest::Approx(kHitMs));
  CHECK(always[2] == doctest::Approx(kHitMs));
  CHECK(after1[1] > 1.0);  // the isolated read read nothing ahead
  CHECK(after1[2] == doctest::Approx(kHitMs));  // the read that continued it did
  CHECK(after2[2] > 1.0);
  CHECK(after2[3] == doctest::Approx(kHitMs));
}

// ---- controller.bus and controller.write_reconnect: a write the drive does not cache ----------
namespace {

// A 16-sector write at `lba` on the cylinder the head starts on (cylinder 0, surface 0: LBAs
// 0..499), the first command of a fresh drive: no seek, only the write settle (0.1 ms) and the
// rotational wait. Returns its latency.
double first_write16(const json& model, std::uint64_t lba) {
  auto t = open_json(model);
  return cmd(*t.io, lba, 16, true);
}

// The revolutions a 16-sector write loses when the head reaches its first sector at ds and
// block k is in the buffer at bus_from + (k + 1) x block_ms: walked sector by sector, each sector
// whose block is not in when the head is there waits for the next turn.
int turns_lost(double ds, double bus_from, double block_ms) {
  int turns = 0;
  for (int k = 0; k < 16; ++k)
    while (ds + k * kSectorMs + turns * kRevMs < bus_from + (k + 1) * block_ms - 1e-9) ++turns;
  return turns;
}

}  // namespace

TEST_CASE("controller.bus: a write's sector reaches the media only once its block has crossed the bus") {
  // With a bus (almost) as fast as the interface the head never waits for the data: the write
  // ends 16 sector times after the head reached its first sector (ds).
  const json fast = bus_model(0.001);
  const json slow = bus_model(0.5);  // 25 times slower than the media's 0.02 ms a sector
  int lost = 0, kept = 0;
  for (std::uint64_t lba = 0; lba < 480; lba += 24) {
    const double unpaced = first_write16(fast, lba);
    const double ds = unpaced - 16 * kSectorMs;
    // The data crosses from the decode (0.3 ms) on, a block every 0.5 ms; the head, once at the
    // first sector, passes one every 0.02 ms. Where it overruns the data it comes back to that
    // sector a revolution later.
    const int turns = turns_lost(ds, 0.3, 0.5);
    CHECK(first_write16(slow, lba) == doctest::Approx(unpaced + turns * kRevMs).epsilon(1e-6));
    (turns > 0 ? lost : kept)++;
  }
  CHECK(lost > 0);
  CHECK(kept > 0);
}

TEST_CASE("controller.write_reconnect: minimum seek delay, data preparation, disconnect and reselect") {
  auto with = [](json w) {
    json m = bus_model(0.001);
    m["controller"]["write_reconnect"] = std::move(w);
    return m;
  };
  int waited = 0;
  for (std::uint64_t lba = 0; lba < 480; lba += 24) {
    const double plain = first_write16(bus_model(0.001), lba);
    const double ds = plain - 16 * kSectorMs;
    // The status reselect comes after the media; the disconnect after the data phase is hidden
    // behind the media write here (the data is in long before).
    CHECK(first_write16(with({{"reselect_ms", 0.15}, {"disconnect_ms", 0.05}}), lba) ==
          doctest::Approx(plain + 0.15).epsilon(1e-6));
    // Positioning of at least 3 ms (from the decode at 0.3): a sector the head would have reached
    // before 3.3 ms comes round a revolution later.
    const bool late = ds < 0.3 + 3.0;
    CHECK(first_write16(with({{"min_seek_ms", 3.0}}), lba) ==
          doctest::Approx(plain + (late ? kRevMs : 0)).epsilon(1e-6));
    waited += late ? 1 : 0;
  }
  CHECK(waited > 0);
  CHECK(waited < 20);
  // Data preparation delays the data phase: with a slow bus the head may overrun it.
  const json slow = bus_model(0.5);
  json prep = slow;
  prep["controller"]["write_reconnect"] = {{"data_prep_ms", 4.0}};
  int twice = 0;
  for (std::uint64_t lba = 0; lba < 480; lba += 24) {
    const double unpaced = first_write16(bus_model(0.001), lba);
    const int turns = turns_lost(unpaced - 16 * kSectorMs, 0.3 + 4.0, 0.5);
    CHECK(first_write16(prep, lba) == doctest::Approx(unpaced + turns * kRevMs).epsilon(1e-6));
    twice += turns == 2 ? 1 : 0;
  }
  CHECK(twice > 0);  // a head that waited a turn can overrun the data again further on
  // It needs the bus.
  json bad = base_model();
  bad["controller"] = {{"write_reconnect", {{"reselect_ms", 0.1}}}};
  auto m = ds::sim::parse_model(bad.dump());
  REQUIRE_FALSE(m.ok());
  CHECK(m.error().message.find("controller.write_reconnect") != std::string::npos);
  // Every key round-trips; the extra path needs its command overhead.
  json full = bus_model(0.17);
  full["controller"]["write_reconnect"] = {
      {"disconnect_ms", 0.16}, {"reselect_ms", 0.15}, {"data_prep_ms", 0.02}, {"min_seek_ms", 0.6},
      {"extra_disconnect", {{"command_ms", 0.64}, {"seek_delta_ms", 0.25}, {"disconnect_ms", 0.04},
                            {"inter_disconnect_ms", 0.43}, {"second_disconnect_ms", 0.13}, {"reselect_ms", 0.12}}}};
  auto good = ds::sim::parse_model(full.dump());
  REQUIRE(good.ok());
  CHECK(json::parse(ds::sim::model_to_json(*good))["controller"]["write_reconnect"] ==
        full["controller"]["write_reconnect"]);
  full["controller"]["write_reconnect"]["extra_disconnect"].erase("command_ms");
  auto missing = ds::sim::parse_model(full.dump());
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().message.find("controller.write_reconnect.extra_disconnect.command_ms") != std::string::npos);
}

TEST_CASE("controller.write_reconnect.extra_disconnect: a write after a write elsewhere takes DiskSim's longer path") {
  // Extra command overhead plus seek delta of 10 ms = one revolution: the head starts at the same
  // angle one turn later, so the write moves by exactly that, plus the other reselect in place of
  // the first.
  const json extra = {{"command_ms", 9.7}, {"seek_delta_ms", 0.3}, {"disconnect_ms", 0.04},
                      {"inter_disconnect_ms", 0.4}, {"second_disconnect_ms", 0.1}, {"reselect_ms", 0.12}};
  json plain = bus_model(0.001);
  plain["controller"]["write_reconnect"] = {{"reselect_ms", 0.15}};
  json x = plain;
  x["controller"]["write_reconnect"]["extra_disconnect"] = extra;
  auto pair = [](const json& m, std::uint64_t second, bool first_write) {
    auto t = open_json(m);
    cmd(*t.io, 200000, 16, first_write);
    return cmd(*t.io, second, 16, true, 20);
  };
  // A write elsewhere after a write: the extra path.
  CHECK(pair(x, 900000, true) == doctest::Approx(pair(plain, 900000, true) + kRevMs - 0.15 + 0.12).epsilon(1e-6));
  // A write that continues the one before, or that follows a read: the plain path.
  CHECK(pair(x, 200016, true) == doctest::Approx(pair(plain, 200016, true)).epsilon(1e-6));
  CHECK(pair(x, 900000, false) == doctest::Approx(pair(plain, 900000, false)).epsilon(1e-6));
}
