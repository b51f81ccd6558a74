// `bench --offset`: the bench starts inside the drive, with --span's size syntax, and refuses an
// offset at or past the end.
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <string>

#include "cli_run.hpp"

namespace {

nlohmann::json bench(const std::string& extra) {
  auto r = clitest::run("bench sim:raptor --tests access,transfer --budget 1 --json=c " + extra, false);
  REQUIRE(r.rc == 0);
  return nlohmann::json::parse(r.out);
}

}  // namespace

TEST_CASE("bench --offset: measured from inside the drive, where a zoned disk reads slower") {
  const auto whole = bench("");
  const auto half = bench("--offset 50%");
  const auto both = bench("--offset 50% --span 10%");
  const double capacity = whole["user_capacity"]["bytes"].get<double>();
  const double offset = half["settings"]["offset_bytes"].get<double>();
  CHECK(whole["settings"]["offset_bytes"] == 0);
  // Half the capacity, rounded down to a sector.
  CHECK(offset <= capacity / 2);
  CHECK(offset > capacity / 2 - 4096);
  CHECK(std::fmod(offset, 512) == 0);
  // The outer zones are skipped: the fastest rate seen from the middle is below the whole
  // drive's (the simulated drive's rate falls from the outer edge inwards).
  CHECK(half["tests"]["transfer"]["outer_mb_s"].get<double>() < whole["tests"]["transfer"]["outer_mb_s"].get<double>());
  CHECK(both["settings"]["offset_bytes"] == half["settings"]["offset_bytes"]);
  CHECK(both["settings"]["span_bytes"].get<double>() <= capacity / 10 + 1);
}

TEST_CASE("bench --offset: at or past the end, bad syntax, or a span running past the end are refused") {
  for (const char* bad : {"--offset 100%", "--offset 1TB", "--offset 101%", "--offset -1", "--offset 10x",
                          "--offset 95% --span 10%"}) {
    CAPTURE(bad);
    auto r = clitest::run(std::string("bench sim:raptor --tests access --budget 1 ") + bad, true);
    CHECK(r.rc == 2);
    CHECK(r.out.find("--offset") != std::string::npos);
    CHECK(r.out.find("drive time") == std::string::npos);  // nothing was measured
  }
  auto r = clitest::run("bench sim:raptor --tests access --budget 1 --offset 1TB", true);
  CHECK(r.out.find("beyond the end") != std::string::npos);
}

TEST_CASE("bench --offset: the drive's positioning ranges are moved down with the window and cut at it") {
  auto run = [](const std::string& extra) {
    auto r = clitest::run("bench sim:exos2x14 --tests actuators --budget 1 --json=c " + extra, false);
    REQUIRE(r.rc == 0);
    return nlohmann::json::parse(r.out);
  };
  const auto whole = run("");
  const auto quarter = run("--offset 25%");
  const auto& full = whole["tests"]["actuators"]["ranges"];
  const auto& cut = quarter["tests"]["actuators"]["ranges"];
  REQUIRE(full.size() == 2);
  REQUIRE(cut.size() == 2);
  const auto block = quarter["logical_block_size"].get<std::uint64_t>();
  const auto skip = quarter["settings"]["offset_bytes"].get<std::uint64_t>() / block;
  REQUIRE(skip > 0);
  // The first actuator's range starts at the window's LBA 0, shortened by the offset; the
  // second keeps its length and starts where the first ends.
  CHECK(cut[0]["first_lba"] == 0);
  CHECK(cut[0]["lba_count"].get<std::uint64_t>() == full[0]["lba_count"].get<std::uint64_t>() - skip);
  CHECK(cut[1]["first_lba"].get<std::uint64_t>() == full[1]["first_lba"].get<std::uint64_t>() - skip);
  CHECK(cut[1]["lba_count"] == full[1]["lba_count"]);
}
