// Unit tests of the pure track-structure analysis and the transfer test on the fake drive.
#include <doctest/doctest.h>

#include "fake_drive.hpp"
#include "tests/structure.hpp"
#include "tests/transfer.hpp"

using namespace ds::measure;

namespace {
// Completion stamps of a media-bound stream over a synthetic layout: spt sectors per track,
// H tracks per cylinder, gaps in sector times.
std::vector<std::int64_t> synth(std::uint64_t first, std::uint32_t m, std::size_t n, unsigned spt,
                                unsigned H, unsigned tskew, unsigned cskew, double s_ns) {
  std::vector<std::int64_t> c;
  double t = 1e6;
  std::uint64_t x = first;
  for (std::size_t i = 0; i < n; ++i) {
    for (unsigned k = 0; k < m; ++k, ++x) {
      if (x % spt == 0 && x != first) t += ((x / spt) % H == 0 ? cskew : tskew) * s_ns;
      t += s_ns;
    }
    c.push_back(static_cast<std::int64_t>(t));
  }
  return c;
}
}  // namespace

TEST_CASE("two_cluster_threshold separates two groups and refuses one") {
  CHECK(two_cluster_threshold({1, 1.01, 0.99, 2, 2.02}, 0.05) > 1.01);
  CHECK(two_cluster_threshold({1, 1.01, 0.99, 1.02}, 0.05) < 0);
}

TEST_CASE("analyse_stream recovers spt, surfaces and the sustained rate from synthetic stamps") {
  const double s = 50e3;  // 50 µs per sector
  auto c = synth(1234, 8, 600, 200, 4, 20, 35, s);
  TrackStructure t = analyse_stream(c, 1234, 8, 512);
  CHECK(t.media_bound);
  CHECK(t.sectors_per_track == 200);
  CHECK(t.surfaces == 4);
  CHECK(t.rotation_ns == doctest::Approx(200 * s).epsilon(1e-6));
  double truth = 4.0 * 200 * 512 / ((4 * 200 + 3 * 20 + 35) * s * 1e-9);
  CHECK(t.sustained_bytes_s == doctest::Approx(truth).epsilon(1e-3));
}

TEST_CASE("analyse_stream: equal skews give spt but no surface count") {
  auto c = synth(0, 5, 800, 97, 6, 10, 10, 40e3);
  TrackStructure t = analyse_stream(c, 0, 5, 512);
  CHECK(t.sectors_per_track == 97);
  CHECK(t.surfaces == 0);
}

TEST_CASE("analyse_stream: a flat stream (interface-bound) has no structure") {
  std::vector<std::int64_t> c;
  for (int i = 0; i < 100; ++i) c.push_back(i * 100000);
  TrackStructure t = analyse_stream(c, 0, 8, 512);
  CHECK_FALSE(t.media_bound);
  CHECK(t.sectors_per_track == 0);
  CHECK(t.raw_bytes_s == doctest::Approx(8 * 512 / 1e-4));
}

TEST_CASE("fit_period finds the integer period from interval constraints") {
  // boundaries at 10 + 37 k, observed with reads of 8
  std::vector<std::int64_t> lo, hi, k;
  for (int j = 0; j < 10; ++j) {
    std::int64_t b = 10 + 37 * j;
    lo.push_back(b / 8 * 8);
    hi.push_back(b / 8 * 8 + 7);
    k.push_back(j);
  }
  CHECK(fit_period(lo, hi, k, 20, 60) == 37);
}

TEST_CASE("transfer on the fake drive finds two zones, spt and surfaces") {
  fake::Params p;
  fake::Drive d(p);
  TransferOptions o;
  o.budget_s = 20;
  auto r = run_transfer(d, o);
  REQUIRE(r.ok());
  REQUIRE(r->zones.size() == 2);
  CHECK(r->zones[0].sectors_per_track == 200);
  CHECK(r->zones[1].sectors_per_track == 160);
  const double boundary = 400.0 * 4 * 200;
  const double cap = boundary + 400.0 * 4 * 160;
  CHECK(std::abs(static_cast<double>(r->zones[1].first_lba) - boundary) < 0.01 * cap);
  CHECK(r->surfaces_estimate == 4);
  CHECK(r->rotation_ms.value == doctest::Approx(60000.0 / 7200).epsilon(0.01));
  double truth0 = 7200 / 60.0 * 200 * 512 * 4 * 200 / (4 * 200 + 3 * 20 + 30) * 1e-6;
  CHECK(r->zones[0].mb_s == doctest::Approx(truth0).epsilon(0.03));
  CHECK(r->drive_time_s <= 20.5);
  MESSAGE("fake transfer: zones ", r->zones.size(), " z0 ", r->zones[0].mb_s, " vs ", truth0,
          " drive ", r->drive_time_s, " s, ios ", d.ios);
}
