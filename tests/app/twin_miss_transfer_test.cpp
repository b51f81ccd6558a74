// `drivescope model`'s miss-transfer stage (src/app/twin_miss_transfer.cpp): on a drive model and a
// twin that differs from it in one mechanism only, the stage finds that mechanism's value back from
// the two sizes' service times; a twin that already matches is left alone.
#include <doctest/doctest.h>

#include <fstream>
#include <string>
#include <vector>

#include "app/twin_stages.hpp"

using namespace ds;
using nlohmann::json;

namespace {

const measure::Trace& workload() {
  static const measure::Trace w = app::size_workload(2050860, 512, 5);  // the RZ26's capacity
  return w;
}

// The DEC RZ26 as DiskSim's parameters describe it: one zone of 58 sectors a track at 5400 rpm
// (0.19 ms a sector), a bus of 0.07 ms a block, blocks sent as they are read; its cache as two
// segments of 128 KiB (its own ten of 28.5 KiB would hold a high-water mark to a segment's
// worth, a fraction of the 64 KiB read).
json rz26() {
  std::ifstream f(std::string(DS_TEST_DATA) + "/disk-models-disksim/dec_rz26.json");
  json m = json::parse(f);
  REQUIRE(m["zones"].size() == 1);
  REQUIRE(m["zones"][0]["sectors_per_track"] == 58);
  m["cache"]["bytes"] = 262144;
  m["cache"]["segments"] = 2;
  return m;
}

void fit(json& twin, const std::vector<double>& dms, bool one_zone_pace, std::vector<std::string>& moves) {
  if (auto e = app::fit_miss_transfer(twin, dms, workload(), one_zone_pace, 11, moves)) FAIL(e->message);
}

std::vector<double> drive_times(const json& drive, const measure::Trace& w) {
  auto ms = app::twin_times(drive, w, 7);
  REQUIRE(static_cast<bool>(ms));
  return *ms;
}

}  // namespace

TEST_CASE("twin: the size workload alternates one block and 64 KiB at random places, from its seed") {
  const auto& w = workload();
  REQUIRE(w.requests.size() == 2 * app::kSizeWorkloadPairs);
  for (std::size_t i = 0; i < w.requests.size(); ++i) {
    CHECK(w.requests[i].length_bytes == (i % 2 ? app::kSizeWorkloadLargeBytes : 512u));
    CHECK(!w.requests[i].write);
  }
  CHECK(app::size_workload(1000000, 512, 5).requests[3].offset_bytes ==
        app::size_workload(1000000, 512, 5).requests[3].offset_bytes);
  CHECK(app::size_workload(1000000, 512, 5).requests[3].offset_bytes !=
        app::size_workload(1000000, 512, 6).requests[3].offset_bytes);
}

TEST_CASE("twin: a one-zone twin whose media is too slow has its pace quickened to the drive's") {
  const json drive = rz26();
  const auto dms = drive_times(drive, workload());
  json twin = drive;
  twin["zones"][0]["sectors_per_track"] = 46;  // 26 % slower per sector
  twin["zones"][0]["cylinders"] = 4000;
  std::vector<std::string> moves;
  fit(twin, dms, true, moves);
  REQUIRE(moves.size() == 1);
  CAPTURE(moves[0]);
  CHECK(moves[0].find("zone pace") != std::string::npos);
  const auto spt = twin["zones"][0]["sectors_per_track"].get<int>();
  CHECK(spt >= 54);
  CHECK(spt <= 62);
  // The capacity stays: fewer cylinders of the larger tracks.
  CHECK(twin["zones"][0]["cylinders"].get<double>() * spt * twin["surfaces"].get<double>() >=
        drive["capacity_sectors"].get<double>());
}

TEST_CASE("twin: a twin that sends a miss's blocks as read, where the drive waits for most of them, "
          "gets the drive's high-water mark back") {
  json drive = rz26();
  // At 0.9 of the request the bus (0.07 ms a block) starts after 0.17 ms a block of media: each
  // block of a miss costs 0.25 ms, where sent as read it costs the media's 0.19.
  drive["controller"]["read_reconnect"] = {{"high_water", 0.9}, {"by_request_size", true}};
  const auto dms = drive_times(drive, workload());
  json twin = rz26();
  std::vector<std::string> moves;
  fit(twin, dms, true, moves);
  REQUIRE(moves.size() == 1);
  CAPTURE(moves[0]);
  const double hw = twin["controller"]["read_reconnect"].value("high_water", 0.0);
  CHECK(hw >= 0.8);
  CHECK(hw <= 1.0);
  CHECK(twin["zones"][0]["sectors_per_track"] == 58);
}

TEST_CASE("twin: the stage leaves a twin that matches alone, and zones with measured track sizes") {
  const json drive = rz26();
  const auto dms = drive_times(drive, workload());
  json twin = drive;
  std::vector<std::string> moves;
  fit(twin, dms, true, moves);
  CHECK(moves.empty());
  CHECK(twin == drive);
  // Track sizes measured: even a twin far off is not the stage's to move.
  twin["zones"][0]["sectors_per_track"] = 40;
  const json before = twin;
  fit(twin, dms, false, moves);
  CHECK(moves.empty());
  CHECK(twin == before);
}
