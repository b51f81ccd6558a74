// Loading models: every shipped model and preset loads; a malformed model names the field.
#include <filesystem>

#include "sim_test_util.hpp"

namespace {

std::string good_model() {
  return R"({
    "format": "drivescope-disk-model/1", "name": "t", "transport": "ata",
    "identity": {"vendor": "ATA", "model": "M", "serial": "S", "firmware": "F"},
    "logical_sector_bytes": 512, "rpm": 7200, "surfaces": 2, "platters": 1,
    "zones": [{"cylinders": 100, "sectors_per_track": 100}, {"cylinders": 100, "sectors_per_track": 80}],
    "seek": {"track_to_track_ms": 1, "average_ms": 5, "full_stroke_ms": 10, "curve": null},
    "head_switch_ms": 0.5, "write_settle_ms": 0.1, "command_overhead_ms": 0.1, "interface_mb_s": 150,
    "cache": {"bytes": 1048576, "segments": 4, "read_ahead_sectors": 64, "write_back": true},
    "queue": {"protocol": "ncq", "depth": 32, "policy": "sptf"},
    "aam": {"supported": true, "default_level": 254, "quiet_seek_scale": 1.5, "quiet_rate_scale": 1.0},
    "noise": {"seed": 3, "seek_jitter_pct": 1.0},
    "provenance": {"anything": ["is", "ignored"]}
  })";
}

// The error message for the good model with `from` replaced by `to`.
std::string error_after(const std::string& from, const std::string& to) {
  std::string text = good_model();
  const auto at = text.find(from);
  REQUIRE_MESSAGE(at != std::string::npos, from);
  text.replace(at, from.size(), to);
  auto m = ds::sim::parse_model(text);
  REQUIRE_MESSAGE(!m.ok(), "accepted: " << to);
  return m.error().message;
}

}  // namespace

TEST_CASE("every model in tests/data/disk-models loads, with its zones and capacity") {
  for (const auto& f : simtest::model_files()) {
    CAPTURE(f);
    auto m = ds::sim::load_model_file(f);
    REQUIRE_MESSAGE(m.ok(), (m.ok() ? "" : m.error().message));
    const auto truth = simtest::read_json(simtest::truth_path(f));
    std::uint64_t sectors = 0;
    for (const auto& z : truth["zones"]) sectors += z["sectors"].get<std::uint64_t>();
    CHECK(m->capacity() == sectors);
    CHECK(m->zones.size() == truth["zones"].size());
    CHECK(m->seek.curve.size() > 2);
  }
}

TEST_CASE("the good test model parses, and round-trips through model_to_json") {
  auto m = ds::sim::parse_model(good_model());
  REQUIRE(m.ok());
  CHECK(m->zones.size() == 2);
  CHECK(m->capacity() == 2 * 100 * 100 + 2 * 100 * 80);
  CHECK(m->queue.protocol == ds::sim::QueueProtocol::ncq);
  auto again = ds::sim::parse_model(ds::sim::model_to_json(*m));
  REQUIRE(again.ok());
  CHECK(again->capacity() == m->capacity());
  CHECK(again->aam.quiet_seek_scale == 1.5);
}

TEST_CASE("malformed models get a message naming the field") {
  CHECK(error_after(R"("rpm": 7200)", R"("rpm": -7200)").starts_with("rpm:"));
  CHECK(error_after(R"("rpm": 7200)", R"("rpm": "fast")") == "rpm: must be a number");
  CHECK(error_after(R"("rpm": 7200, )", "") == "rpm: missing");
  CHECK(error_after(R"("drivescope-disk-model/1")", R"("drivescope-disk-model/9")").starts_with("format: unknown value"));
  CHECK(error_after(R"("sectors_per_track": 80)", R"("sectors_per_track": 0)") ==
        "zones[1].sectors_per_track: must be a positive integer");
  CHECK(error_after(R"("sectors_per_track": 80)", R"("sectors_per_track": 8.5)") ==
        "zones[1].sectors_per_track: must be a positive integer");
  CHECK(error_after(R"([{"cylinders": 100, "sectors_per_track": 100}, {"cylinders": 100, "sectors_per_track": 80}])",
                    "[]") == "zones: must hold at least one zone");
  CHECK(error_after(R"("protocol": "ncq")", R"("protocol": "scsi2")").starts_with("queue.protocol: unknown value"));
  CHECK(error_after(R"("policy": "sptf")", R"("policy": "elevator")").starts_with("queue.policy:"));
  CHECK(error_after(R"("transport": "ata")", R"("transport": "nvme")").starts_with("transport:"));
  CHECK(error_after(R"("average_ms": 5)", R"("average_ms": null)") == "seek.average_ms: missing");
  CHECK(error_after(R"("write_back": true)", R"("write_back": 1)") == "cache.write_back: must be true or false");
  CHECK(error_after(R"("surfaces": 2)", R"("surfaces": 2.0e0, "capacity_sectors": 99999999)")
            .starts_with("capacity_sectors: exceeds"));
  CHECK(error_after(R"("curve": null)", R"("curve": [[1, 2], [1, 3]])").starts_with("seek.curve[1]"));
  CHECK(error_after(R"("cache": {)", R"("cache": 5, "x": {)") == "cache: must be an object");
  CHECK(error_after(R"("noise": {"seed": 3,)", R"("defects": [{"first_lba": 1, "sectors": -4, "extra_ms": 1}], "noise": {"seed": 3,)")
            .starts_with("defects[0].sectors"));
  auto bad = ds::sim::parse_model("{not json");
  REQUIRE(!bad.ok());
  CHECK(bad.error().message == "model: not valid JSON");
  auto missing = ds::sim::load_model_file("/nonexistent/model.json");
  REQUIRE(!missing.ok());
  CHECK(missing.error().message.find("/nonexistent/model.json") != std::string::npos);
}

TEST_CASE("presets load and open under every accepted spelling") {
  const auto names = ds::sim::preset_names();
  for (const char* want : {"raptor", "7k400", "maxline3", "wd1200jd", "7200.7", "cheetah15k3", "mas3735",
                           "atlas15k", "modern8tb", "ncq-fifo"}) {
    CAPTURE(want);
    auto t = ds::sim::open(std::string("sim:") + want);
    REQUIRE_MESSAGE(t.ok(), (t.ok() ? "" : t.error().message));
    CHECK(t->device->info().kind == ds::TargetKind::sim);
    CHECK(t->io->info().virtual_time);
    CHECK(t->io->info().capacity_bytes == t->model.capacity() * t->model.logical_sector_bytes);
    CHECK(!ds::sim::preset_summary(want).empty());
  }
  CHECK(names.size() >= 9);
  CHECK(ds::sim::open("raptor").ok());
  const auto file = simtest::model_files().front();
  CHECK(ds::sim::open("sim:" + file).ok());
  CHECK(ds::sim::open(file).ok());
  auto bad = ds::sim::open("sim:no-such-drive");
  REQUIRE(!bad.ok());
  CHECK(bad.error().message.find("no-such-drive") != std::string::npos);
  CHECK(!ds::sim::open("sim:").ok());
  // the capacity cut and the physical sector size reach the I/O interface
  auto big = simtest::open_or_fail("sim:modern8tb");
  CHECK(big.io->info().capacity_bytes == 15'628'053'168ull * 512);
  CHECK(big.io->info().physical_block_bytes == 4096);
}
