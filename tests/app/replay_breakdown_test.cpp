// `replay` on a simulated drive says where the time went (app/replay_breakdown.hpp): over a whole
// recorded trace, every request's parts sum to its service time exactly, as the drive's hook
// reports it and as the JSON gives it; the means per subset are the means of those.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/replay.hpp"
#include "app_test_util.hpp"
#include "sim/drive.hpp"
#include "sim/sim.hpp"
#include "tests/replay.hpp"
#include "tests/trace.hpp"

using namespace ds;

namespace {
const std::string kData = DS_TEST_DATA;
}  // namespace

TEST_CASE("replay breakdown: each request's parts sum to its service time over a whole DiskSim trace") {
  // The HP C2247A's trace (reads and writes, hits and misses) on its DiskSim-parameter model
  // (overhead table, bus, reconnection: every part has something to do).
  auto trace = measure::parse_trace(apptest::slurp(kData + "/disksim-traces/hp_c2247a.trace"));
  REQUIRE(trace.ok());
  sim::SimOptions so;
  so.seed = 1;
  so.writable = true;
  auto t = sim::open(kData + "/disk-models-disksim/hp_c2247a.json", so);
  REQUIRE(t.ok());
  std::vector<sim::ServiceRecord> seen;
  t->drive->set_service_hook([&](const sim::ServiceRecord& r) { seen.push_back(r); });
  measure::ReplayOptions ro;
  ro.allow_write = true;
  auto r = measure::replay(*t->io, *trace, ro);
  REQUIRE(r.ok());
  REQUIRE(!r->stopped);
  REQUIRE(seen.size() == trace->requests.size());
  std::int64_t seek = 0, bus = 0, rotation = 0;
  for (const auto& s : seen) {
    REQUIRE(s.tag < r->requests.size());
    CHECK(s.parts.total() == s.complete_ns - s.submit_ns);
    // The replay's own service time (engine stamps) is the same interval.
    CHECK(static_cast<double>(s.parts.total()) * 1e-6 == doctest::Approx(r->requests[s.tag].service_ms).epsilon(1e-12));
    seek += s.parts.seek;
    bus += s.parts.bus;
    rotation += s.parts.rotation;
  }
  CHECK(seek > 0);
  CHECK(rotation > 0);
  CHECK(bus > 0);
}

TEST_CASE("replay breakdown: --json gives the means per subset and, with --breakdown, each request's") {
  app::ReplayRequest req;
  req.target = "sim:" + kData + "/disk-models/dec_rz26.json";
  req.trace_path = kData + "/disksim-traces/dec_rz26.trace";
  req.write = true;
  req.breakdown_per_request = true;
  auto rep = app::run_replay(req);
  REQUIRE(rep.ok());
  const auto& j = rep->json["replay"];
  const auto& b = j["breakdown"];
  REQUIRE(b.is_object());
  double sum_all = 0;
  std::size_t reads = 0;
  for (const auto& q : j["requests"]) {
    const auto& p = q["breakdown_ms"];
    double parts = 0;
    for (const auto& name : b["parts"]) parts += p[name.get<std::string>()].get<double>();
    CHECK(parts == doctest::Approx(q["service_ms"].get<double>()).epsilon(1e-9));
    CHECK(p["total"].get<double>() == doctest::Approx(q["service_ms"].get<double>()).epsilon(1e-12));
    sum_all += p["total"].get<double>();
    reads += q["write"].get<bool>() ? 0 : 1;
  }
  const auto n = j["requests"].size();
  CHECK(b["all"]["count"].get<std::size_t>() == n);
  CHECK(b["reads"]["count"].get<std::size_t>() == reads);
  CHECK(b["writes"]["count"].get<std::size_t>() == n - reads);
  CHECK(b["all"]["mean_ms"]["total"].get<double>() == doctest::Approx(sum_all / static_cast<double>(n)).epsilon(1e-9));
  CHECK(b["all"]["mean_ms"]["total"].get<double>() == doctest::Approx(j["summary"]["mean_ms"].get<double>()).epsilon(1e-9));
  CHECK(apptest::has(rep->text, "Where the simulated drive's time went"));
}
