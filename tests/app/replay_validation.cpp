// `replay` against real drives: each of DiskSim's seven validation traces (tests/data/
// disksim-traces) replayed on the simulated model of the same drive (tests/data/disk-models),
// its demerit held at or below the figure docs/validation.md records for it (the "Regression
// bounds" table, read from the document itself so the two cannot drift apart), plus a stated
// margin for seed noise. Also the replay engine's timing on a small trace with a known answer.
#include <doctest/doctest.h>

#include <charconv>
#include <cmath>
#include <map>
#include <string>

#include "app_test_util.hpp"
#include "sim/sim.hpp"
#include "tests/replay.hpp"
#include "tests/trace.hpp"

using namespace ds;

namespace {

const std::string kData = DS_TEST_DATA;

// The seed is the model's noise (2 % seek jitter): over seeds 1–5 the demerits moved by at most
// 0.02 ms (docs/validation.md, "Seed noise"); the bound allows that much above the recorded figure.
constexpr double kSeedMarginMs = 0.02;
constexpr std::uint64_t kSeed = 1;

// trace file → recorded demerit (ms), from the "Regression bounds" table of docs/validation.md:
// rows "| `NAME.trace` | `MODEL.json` | FIGURE |".
std::map<std::string, std::pair<std::string, double>> recorded_bounds() {
  const std::string doc = apptest::slurp(std::string(DS_SOURCE_DIR) + "/docs/validation.md");
  std::map<std::string, std::pair<std::string, double>> out;
  const auto section = doc.find("## Regression bounds");
  if (section == std::string::npos) return out;
  std::size_t pos = section;
  while ((pos = doc.find("\n| `", pos)) != std::string::npos) {
    const std::size_t end = doc.find('\n', pos + 1);
    const std::string row = doc.substr(pos + 1, end - pos - 1);
    pos = end;
    if (row.find(".trace`") == std::string::npos) continue;
    std::vector<std::string> cells;
    for (std::size_t a = 1, b; (b = row.find('|', a)) != std::string::npos; a = b + 1) {
      std::string c = row.substr(a, b - a);
      c.erase(0, c.find_first_not_of(" `"));
      c.erase(c.find_last_not_of(" `") + 1);
      cells.push_back(c);
    }
    if (cells.size() < 3) continue;
    double v = 0;
    auto [p, ec] = std::from_chars(cells[2].data(), cells[2].data() + cells[2].size(), v);
    if (ec == std::errc()) out[cells[0]] = {cells[1], v};
  }
  return out;
}

Expected<measure::ReplayResult> replay_on(const std::string& model, const std::string& trace_file,
                                          std::uint64_t seed) {
  auto trace = measure::parse_trace(apptest::slurp(kData + "/disksim-traces/" + trace_file));
  if (!trace) return trace.error();
  sim::SimOptions so;
  so.seed = seed;
  so.writable = true;
  auto t = sim::open(kData + "/disk-models/" + model, so);
  if (!t) return t.error();
  measure::ReplayOptions ro;
  ro.allow_write = true;
  return measure::replay(*t->io, *trace, ro);
}

}  // namespace

TEST_CASE("replay: each DiskSim validation trace stays within the demerit docs/validation.md records") {
  const auto bounds = recorded_bounds();
  REQUIRE(bounds.size() == 7);
  for (const auto& entry : bounds) {
    // Plain references, not structured bindings: doctest's CAPTURE/INFO are lambdas, and clang 14
    // cannot capture a structured binding.
    const auto& trace = entry.first;
    const auto& model = entry.second.first;
    const auto& bound = entry.second.second;
    CAPTURE(trace);
    auto r = replay_on(model, trace, kSeed);
    REQUIRE(r.ok());
    REQUIRE_FALSE(r->comparisons.empty());
    const auto& all = r->comparisons.front();
    REQUIRE(all.subset == "all");
    CHECK(all.measured.count == r->requests.size());
    MESSAGE(trace << ": demerit " << all.demerit_ms << " ms (recorded " << bound << ")");
    CHECK(std::isfinite(all.demerit_ms));
    CHECK(all.demerit_ms <= bound + kSeedMarginMs);
  }
}

TEST_CASE("replay: a closed-loop trace is issued its pause after each completion, in virtual time") {
  // Two reads far apart, the second 50 ms after the first completes: its issue time is the first
  // one's service time + 50 ms, to the nanosecond (virtual time).
  auto trace = measure::parse_trace("R Hit 1000 8 0 50000\nR Hit 900000 8 0 0\n");
  REQUIRE(trace.ok());
  auto t = sim::open(kData + "/disk-models/hp_c2247a.json");
  REQUIRE(t.ok());
  auto r = measure::replay(*t->io, *trace, {});
  REQUIRE(r.ok());
  REQUIRE(r->requests.size() == 2);
  const auto& a = r->requests[0];
  const auto& b = r->requests[1];
  CHECK(a.submit_ns == 0);
  CHECK(b.submit_ns == static_cast<std::int64_t>(std::llround(a.service_ms * 1e6)) + 50'000'000);
  CHECK(a.service_ms > 0);
  CHECK(b.service_ms > 0);
}

TEST_CASE("replay: an open-loop trace issues at its times, several outstanding, capped by the queue depth") {
  // Ten reads all due at time 0 on a drive that serves one at a time: at depth 4 the first four go
  // at once, each later one when a slot frees.
  std::string text = "fio version 3 iolog\n0 /dev/x add\n";
  for (int i = 0; i < 10; ++i) text += "0 /dev/x read " + std::to_string(i * 51'200'000ull) + " 4096\n";
  auto trace = measure::parse_trace(text);
  REQUIRE(trace.ok());
  auto t = sim::open(kData + "/disk-models/hp_c2247a.json");
  REQUIRE(t.ok());
  measure::ReplayOptions ro;
  ro.queue_depth = 4;
  auto r = measure::replay(*t->io, *trace, ro);
  REQUIRE(r.ok());
  int at_start = 0;
  for (const auto& q : r->requests) at_start += q.submit_ns == 0;
  CHECK(at_start == 4);
  CHECK(r->comparisons.empty());  // an iolog carries no measured times
}

TEST_CASE("replay: writes need allow_write, LBAs beyond the end need wrap, both before any I/O") {
  auto t = sim::open(kData + "/disk-models/hp_c2247a.json");
  REQUIRE(t.ok());
  const auto& info = t->io->info();
  const std::uint64_t cap = info.capacity_bytes / info.logical_block_bytes;
  auto w = measure::parse_trace("W Hit 10 8 100 0\n");
  REQUIRE(w.ok());
  auto refused = measure::replay(*t->io, *w, {});
  REQUIRE_FALSE(refused.ok());
  CHECK(apptest::has(refused.error().message, "--write"));
  auto beyond = measure::parse_trace("R Hit " + std::to_string(cap + 5) + " 8 100 0\n");
  REQUIRE(beyond.ok());
  auto no_wrap = measure::replay(*t->io, *beyond, {});
  REQUIRE_FALSE(no_wrap.ok());
  CHECK(apptest::has(no_wrap.error().message, "beyond the target"));
  measure::ReplayOptions ro;
  ro.wrap = true;
  auto wrapped = measure::replay(*t->io, *beyond, ro);
  REQUIRE(wrapped.ok());
  CHECK(wrapped->requests[0].lba == 5);
}
