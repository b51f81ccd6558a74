// The /2 variants of the accuracy harness (tools/accuracy/variants.cpp): deterministic, within the
// documented ranges, and readable by the independent truth for every drive the harness measures.
#include <doctest/doctest.h>

#include "accuracy_lib.hpp"
#include "truth.hpp"
#include "variants.hpp"

TEST_CASE("a /2 variant is deterministic, plausible and has a truth, for every drive") {
  for (const auto& s : accuracy::subjects(DS_TEST_DATA)) {
    INFO(s.source);
    REQUIRE(s.model.is_object());
    const auto base = truth::compute(s.model);
    REQUIRE(base.ok());
    for (std::uint64_t seed : {1, 2, 3}) {
      INFO("seed " << seed);
      const auto v = accuracy::make_variant(s.model, seed);
      CHECK(v == accuracy::make_variant(s.model, seed));
      CHECK(v != accuracy::make_variant(s.model, seed + 100));
      CHECK(v["format"] == "drivescope-disk-model/2");
      const double rpm = s.model["rpm"].get<double>();
      CHECK(std::fabs(v["rpm_actual"].get<double>() / rpm - 1) <= 0.003 + 1e-6);
      const auto& n = v["noise"];
      CHECK(n["seek_jitter_pct"].get<double>() >= 1);
      CHECK(n["seek_jitter_pct"].get<double>() <= 3);
      CHECK(n["host_latency_us"].get<double>() >= 10);
      CHECK(n["host_latency_us"].get<double>() <= 40);
      CHECK(v["recalibration"]["every_s"].get<double>() >= 200);
      CHECK(v["recalibration"]["duration_ms"].get<double>() <= 150);
      const auto t = truth::compute(v);
      REQUIRE_MESSAGE(t.ok(), (t.ok() ? "" : t.error().message));
      CHECK(t->capacity == v["capacity_sectors"].get<std::uint64_t>());
      CHECK(t->capacity <= base->capacity);
      CHECK(t->capacity >= 0.95 * static_cast<double>(base->capacity));
      for (const auto& r : t->remapped) CHECK(r.lba < t->capacity);
      // Listed positioning ranges (exos2x14) still tile the shrunken capacity, in the same shares.
      if (v.contains("actuators") && v["actuators"].is_array()) {
        std::uint64_t next = 0;
        for (const auto& a : v["actuators"]) {
          CHECK(a["first_lba"].get<std::uint64_t>() == next);
          next += a["lba_count"].get<std::uint64_t>();
        }
        CHECK(next == t->capacity);
        REQUIRE(t->positioning_ranges.size() == s.model["actuators"].size());
        for (std::size_t i = 0; i < t->positioning_ranges.size(); ++i)
          CHECK(static_cast<double>(t->positioning_ranges[i].lba_count) / t->capacity ==
                doctest::Approx(s.model["actuators"][i]["lba_count"].get<double>() / base->capacity).epsilon(1e-6));
      }
      // The imperfections only add time to a random read, apart from the spindle speed.
      CHECK(t->mean_random_read_access_ms > base->mean_random_read_access_ms - base->rotation_ms * 0.004);
    }
  }
}

TEST_CASE("the harness's run model carries the seed as noise.seed and stays /1 for v1") {
  const auto subjects = accuracy::subjects(DS_TEST_DATA);
  const auto m = accuracy::run_model(subjects.front(), "v1", 17);
  CHECK(m["noise"]["seed"] == 17);
  CHECK(m["format"] == "drivescope-disk-model/1");
  CHECK(accuracy::run_model(subjects.front(), "v2", 17)["format"] == "drivescope-disk-model/2");
}
