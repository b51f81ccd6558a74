// The simulator against its own models' ground truth (tests/data/disk-models/*.truth.json):
// streaming rate per zone, and the mean single-sector random read.
#include <cmath>

#include "sim/drive.hpp"
#include "sim_test_util.hpp"

using simtest::model_files;

TEST_CASE("every zone streams at the truth's sequential rate (within 1 %)") {
  const auto files = model_files();
  REQUIRE(files.size() >= 8);
  for (const auto& f : files) {
    CAPTURE(f);
    const auto truth = simtest::read_json(simtest::truth_path(f));
    auto t = simtest::open_or_fail(f);
    const auto& zones = t.drive->layout().zones();
    REQUIRE(zones.size() == truth["zones"].size());
    double worst = 0;
    for (std::size_t z = 0; z < zones.size(); ++z) {
      CAPTURE(z);
      const std::uint64_t per_cyl = std::uint64_t{t.model.surfaces} * zones[z].spt;
      // Long enough to cross many cylinders, short enough to stay fast on big zones.
      const std::uint64_t span = std::min<std::uint64_t>(zones[z].end_lba - zones[z].first_lba, 120 * per_cyl);
      const double got = simtest::sequential_mb_s(*t.io, zones[z].first_lba, zones[z].first_lba + span, 256, 2);
      const double want = truth["zones"][z]["sequential_mb_s"].get<double>();
      const double err = std::fabs(got - want) / want;
      worst = std::max(worst, err);
      CHECK_MESSAGE(err < 0.01, "got " << got << " MB/s, truth " << want);
    }
    MESSAGE(f << ": worst zone-rate error " << worst * 100 << " %");
  }
}

TEST_CASE("mean random single-sector read equals the truth's mean access (within 3 %)") {
  for (const auto& f : model_files()) {
    CAPTURE(f);
    const auto truth = simtest::read_json(simtest::truth_path(f));
    auto t = simtest::open_or_fail(f);
    const double got = simtest::mean_random_read_ms(*t.io, 20000);
    const double want = truth["mean_random_read_access_ms"].get<double>();
    MESSAGE(f << ": mean random read " << got << " ms, truth " << want << " ms, error "
              << (got - want) / want * 100 << " %");
    CHECK(std::fabs(got - want) / want < 0.03);
  }
}

TEST_CASE("the fitted or given seek curve has the model's average over random cylinder pairs") {
  for (const auto& f : model_files()) {
    CAPTURE(f);
    auto t = simtest::open_or_fail(f);
    CHECK(t.drive->seek_curve().mean_random_pair_ms() == doctest::Approx(t.model.seek.average_ms).epsilon(0.002));
  }
  for (const auto& name : ds::sim::preset_names()) {
    CAPTURE(name);
    auto t = simtest::open_or_fail("sim:" + name);
    const auto& s = t.drive->seek_curve();
    CHECK(s.shape() != ds::sim::SeekCurve::Shape::table);
    CHECK(s.mean_random_pair_ms() == doctest::Approx(t.model.seek.average_ms).epsilon(0.002));
    CHECK(s.ms(1) == doctest::Approx(t.model.seek.track_to_track_ms).epsilon(0.001));
    CHECK(s.ms(t.drive->layout().cylinders() - 1) == doctest::Approx(t.model.seek.full_stroke_ms).epsilon(0.001));
  }
}
