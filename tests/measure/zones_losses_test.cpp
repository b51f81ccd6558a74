// zones_from_points where the samples lost revolutions now and then (a quiet AAM level whose
// slower settle overruns some skews): each zone's rate is its samples' lossless rates times the
// share of time spent reading pooled over the whole run, not the few losses its own samples
// happened to meet.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "tests/transfer.hpp"

using ds::measure::TransferPoint;

namespace {

constexpr std::uint64_t kSpan = 100'000'000;

// A sample of a zone whose tracks hold `spt` sectors and stream at `lossless` MB/s without losses;
// `share` is the time its own lost revolutions added, as a share of the lossless time (samples
// last the same time each, as the transfer test's do).
TransferPoint sample(std::uint64_t lba, std::uint32_t spt, double lossless, double share) {
  TransferPoint p;
  p.lba = lba;
  p.sectors_per_track = spt;
  p.media_mb_s = lossless * 1.1;
  p.lossless_mb_s = lossless;
  p.lossless_told = true;
  p.mb_s = lossless / (1 + share);
  return p;
}

// Losses come in whole revolutions, so a sample of about ten revolutions adds 0, 10 or 20 % of
// its time. The outer zone's three samples happened to meet none; the two zones inside it have
// ten samples each.
constexpr double kShares[] = {0, 0.1, 0, 0.2, 0.1, 0, 0.1, 0.1, 0, 0.2};
constexpr int kOuter = 3, kInner = 10;

// The share of time spent reading: over the lossy zones' samples (the drive's long run), and
// pooled over all samples (the outer zone's too).
double reading_of_lossy() {
  double sum = 0;
  for (double x : kShares) sum += 1 / (1 + x);
  return sum / kInner;
}
double reading_pooled() { return (kOuter + 2 * kInner * reading_of_lossy()) / (kOuter + 2 * kInner); }

std::vector<TransferPoint> lumpy() {
  std::vector<TransferPoint> pts;
  int k = 0;
  for (int z = 0; z < 3; ++z)
    for (int i = 0; i < (z == 0 ? kOuter : kInner); ++i, ++k) {
      const auto lba = static_cast<std::uint64_t>(k) * (kSpan / (kOuter + 2 * kInner)) + 1000;
      pts.push_back(sample(lba, 1000 - 100 * z, 60.0 - 6 * z, z == 0 ? 0.0 : kShares[i]));
    }
  return pts;
}

}  // namespace

TEST_CASE("pooled loss share: the mean of the samples' with-loss/lossless ratios, with a t interval") {
  const auto pts = lumpy();
  std::vector<const TransferPoint*> ptr;
  for (auto& p : pts) ptr.push_back(&p);
  const auto ls = ds::measure::pooled_loss_share(ptr);
  CHECK(ls.samples == kOuter + 2 * kInner);
  CHECK(ls.reading == doctest::Approx(reading_pooled()));
  CHECK(ls.half_width > 0);
  CHECK(ls.half_width < 1 - ls.reading);
  // A sample whose lossless rate is only its rate for want of a structure tells nothing.
  TransferPoint untold = pts[3];
  untold.lossless_told = false;
  const auto none = ds::measure::pooled_loss_share({&untold});
  CHECK(none.samples == 0);
  CHECK(none.reading == 1);
}

TEST_CASE("zones: a zone whose samples met no losses pays the run's loss share all the same") {
  const auto pts = lumpy();
  const auto zones = ds::measure::zones_from_points(pts, kSpan, 512);
  REQUIRE(zones.size() == 3);
  for (int z = 0; z < 3; ++z) {
    const double want = (60.0 - 6 * z) * reading_pooled();
    CAPTURE(z);
    CHECK(zones[z].mb_s == doctest::Approx(want).epsilon(1e-9));
    // The interval holds the drive's long-run rate, though the outer zone's samples pulled the
    // pooled share of losses down.
    const double truth = (60.0 - 6 * z) * reading_of_lossy();
    CHECK(std::fabs(zones[z].mb_s - truth) <= zones[z].mb_s_uncertainty);
  }
  // Without pooling the outer zone would read its lossless 60 MB/s, 5 % fast.
  CHECK(zones[0].mb_s < 59.5);
}

TEST_CASE("zones: samples that lost nothing keep their own rates exactly") {
  auto pts = lumpy();
  for (auto& p : pts) p.mb_s = p.lossless_mb_s * (1 - 0.001 * static_cast<double>(p.lba % 7));
  for (auto& p : pts) p.lossless_mb_s = p.mb_s;
  const auto zones = ds::measure::zones_from_points(pts, kSpan, 512);
  REQUIRE(zones.size() == 3);
  std::size_t k = 0;
  for (int z = 0; z < 3; ++z) {
    const int n = z == 0 ? kOuter : kInner;
    double sum = 0;
    for (int i = 0; i < n; ++i) sum += pts[k++].mb_s;
    CHECK(zones[z].mb_s == doctest::Approx(sum / n).epsilon(1e-12));
  }
}
