// The actuators test on every preset: the dual-actuator preset (exos2x14) must be found
// independent, every single-actuator one not. The truth comes from the model's "actuators" key
// (the test may look at it; the measurement module sees only the I/O engine).
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include <nlohmann/json.hpp>

#include "report/measure_report.hpp"
#include "sim/model.hpp"
#include "sim/sim.hpp"
#include "truth.hpp"
#include "tests/actuators.hpp"
#include "tests/bench.hpp"

namespace {

ds::measure::ActuatorsResult measure(const std::string& preset, const ds::measure::ActuatorsOptions& o) {
  auto t = ds::sim::open("sim:" + preset);
  REQUIRE_MESSAGE(t.ok(), preset);
  auto r = ds::measure::run_actuators(*t->io, o);
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
  return *r;
}

}  // namespace

TEST_CASE("actuators: the dual-actuator preset is independent, every other preset is not") {
  int dual = 0, single = 0;
  for (const auto& name : ds::sim::preset_names()) {
    auto m = ds::sim::preset(name);
    REQUIRE(m.ok());
    const bool truth = !m->actuators.empty();
    ds::measure::ActuatorsOptions o;
    o.budget_s = 15;
    const auto r = measure(name, o);
    INFO(name << ": gain " << r.gain << " ± " << r.gain_uncertainty.value_or(-1) << " over " << r.rounds << " rounds");
    CHECK(r.ranges_source == "halves");
    REQUIRE(r.independent.has_value());
    CHECK(*r.independent == truth);
    if (truth) {
      CHECK(r.gain > 1.4);
      ++dual;
    } else {
      CHECK(r.gain < 1.1);
      ++single;
    }
  }
  CHECK(dual >= 1);
  CHECK(single >= 3);
}

TEST_CASE("actuators: reported ranges are the ones compared; a span cuts them") {
  auto m = ds::sim::preset("exos2x14");
  REQUIRE(m.ok());
  REQUIRE(m->actuators.size() == 2);
  ds::measure::ActuatorsOptions o;
  o.budget_s = 10;
  for (const auto& a : m->actuators) o.reported.push_back({a.first_lba, a.lba_count});
  auto r = measure("exos2x14", o);
  CHECK(r.ranges_source == "reported");
  CHECK(r.reported_count == 2);
  REQUIRE(r.ranges.size() == 2);
  CHECK(r.ranges[1].first_lba == m->actuators[1].first_lba);
  CHECK(r.independent == std::optional<bool>(true));

  // A span inside the first range: the reported ranges do not both lie in it, so its halves
  // are compared, both served by one positioner.
  o.span_blocks = m->actuators[0].lba_count / 2;
  auto s = measure("exos2x14", o);
  CHECK(s.ranges_source == "halves");
  CHECK(s.ranges[1].first_lba + s.ranges[1].lba_count == o.span_blocks);
  CHECK(s.independent == std::optional<bool>(false));
  CHECK_FALSE(s.notes.empty());
}

TEST_CASE("actuators: bench runs it by name and writes tests.actuators") {
  auto t = ds::sim::open("sim:exos2x14");
  REQUIRE(t.ok());
  ds::measure::BenchOptions o;
  o.tests = {"actuators"};
  o.budget_s = 20;
  auto r = ds::measure::run_bench(*t->io, o);
  REQUIRE(r.ok());
  REQUIRE(r->actuators);
  const auto j = ds::report::bench_to_json(*r);
  REQUIRE(j.contains("actuators"));
  CHECK(j["actuators"]["ranges"].size() == 2);
  CHECK(j["actuators"]["gain"].get<double>() > 1.4);
  CHECK(j["actuators"]["independent"] == true);
  CHECK(ds::report::bench_to_text(*r).find("two independent actuators") != std::string::npos);
}

// The access test on the dual-actuator preset. With the ranges the drive reports, a read's seek
// starts where its own range's positioner last read and the full stroke is taken inside one
// range: both against the truth (tools/truth, which gives each range its own seeks). Without
// them the stroke between the span's ends crosses positioners and costs nothing: before, that
// came out as a confident 0.03 ± 0.50 ms; now no figure, and a note that says why.
TEST_CASE("access on a dual-actuator drive: per-range seeks with the ranges, no full stroke without them") {
  auto m = ds::sim::preset("exos2x14");
  REQUIRE(m.ok());
  auto tr = truth::compute(nlohmann::json::parse(ds::sim::model_to_json(*m)));
  REQUIRE(tr.ok());
  REQUIRE(tr->positioning_ranges.size() == 2);
  ds::measure::AccessOptions o;
  o.budget_s = 30;
  for (const auto& r : m->actuators) o.positioning_ranges.push_back({r.first_lba, r.lba_count});
  auto t = ds::sim::open("sim:exos2x14");
  REQUIRE(t.ok());
  auto a = ds::measure::run_access(*t->io, o);
  REQUIRE(a.ok());
  INFO("full stroke " << a->full_stroke_ms.value << " ± " << a->full_stroke_ms.uncertainty << ", truth "
                      << tr->full_stroke_ms << "; avg seek " << a->avg_seek_ms.value << ", truth "
                      << tr->avg_seek_random_lba_ms);
  CHECK(std::fabs(a->full_stroke_ms.value / tr->full_stroke_ms - 1) < 0.10);
  CHECK(std::fabs(a->avg_seek_ms.value / tr->avg_seek_random_lba_ms - 1) < 0.05);
  o.positioning_ranges.clear();
  auto t2 = ds::sim::open("sim:exos2x14");
  REQUIRE(t2.ok());
  auto b = ds::measure::run_access(*t2->io, o);
  REQUIRE(b.ok());
  CHECK(b->full_stroke_ms.value == 0);
  CHECK(ds::measure::has_reason(b->withheld, ds::measure::WithheldReason::stroke_under_average));
  CHECK(std::fabs(b->avg_seek_ms.value / tr->avg_seek_random_lba_ms - 1) < 0.05);
}
