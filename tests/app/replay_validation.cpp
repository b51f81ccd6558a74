// `replay` against real drives: each of DiskSim's seven validation traces (tests/data/
// disksim-traces) replayed on the simulated model of the same drive, its demerit held at or below
// the figure docs/validation.md records for it, plus a stated margin for seed noise. The figures
// are read from the document itself ("Regression bounds": its first table for the repo models of
// tests/data/disk-models, all requests; the "Full models" table for tests/data/disk-models-disksim,
// all requests, reads and writes), so the two cannot drift apart. Also the replay engine's timing
// on a small trace with a known answer.
#include <doctest/doctest.h>

#include <charconv>
#include <filesystem>
#include <fstream>
#include <cmath>
#include <map>
#include <set>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <unistd.h>

#include "app_test_util.hpp"
#include "sim/model.hpp"
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

// The cells of one docs/validation.md table, row by row: the first table after `heading` whose rows
// start "| `NAME.trace` |" (backquotes and spaces trimmed), up to the blank line that ends it.
std::vector<std::vector<std::string>> recorded_rows(const std::string& heading) {
  const std::string doc = apptest::slurp(std::string(DS_SOURCE_DIR) + "/docs/validation.md");
  std::vector<std::vector<std::string>> out;
  const auto section = doc.find(heading);
  if (section == std::string::npos) return out;
  for (std::size_t pos = doc.find('\n', section); pos != std::string::npos && pos + 1 < doc.size();) {
    const std::size_t end = doc.find('\n', pos + 1);
    const std::string row = doc.substr(pos + 1, end == std::string::npos ? end : end - pos - 1);
    pos = end;
    if (row.empty() && !out.empty()) break;
    if (row.rfind("| `", 0) != 0 || row.find(".trace`") == std::string::npos) continue;
    std::vector<std::string> cells;
    for (std::size_t a = 1, b; (b = row.find('|', a)) != std::string::npos; a = b + 1) {
      std::string c = row.substr(a, b - a);
      c.erase(0, c.find_first_not_of(" `"));
      c.erase(c.find_last_not_of(" `") + 1);
      cells.push_back(c);
    }
    out.push_back(cells);
  }
  return out;
}

std::optional<double> number(const std::string& cell) {
  double v = 0;
  auto [p, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), v);
  if (ec != std::errc() || p != cell.data() + cell.size()) return std::nullopt;
  return v;
}

// trace file → (model file, recorded demerit of each subset in `subsets` order): the table's
// columns are trace, model, then one figure per subset. A row with a missing or non-numeric figure
// is left out, so the row count check below catches it.
struct Recorded {
  std::string model;
  std::vector<double> demerit_ms;
};
std::map<std::string, Recorded> recorded_bounds(const std::string& heading, std::size_t subsets) {
  std::map<std::string, Recorded> out;
  for (const auto& cells : recorded_rows(heading)) {
    if (cells.size() < 2 + subsets) continue;
    Recorded r{cells[1], {}};
    for (std::size_t i = 0; i < subsets; ++i)
      if (auto v = number(cells[2 + i])) r.demerit_ms.push_back(*v);
    if (r.demerit_ms.size() == subsets) out[cells[0]] = r;
  }
  return out;
}

Expected<measure::ReplayResult> replay_on(const std::string& folder, const std::string& model,
                                          const std::string& trace_file, std::uint64_t seed) {
  auto trace = measure::parse_trace(apptest::slurp(kData + "/disksim-traces/" + trace_file));
  if (!trace) return trace.error();
  sim::SimOptions so;
  so.seed = seed;
  so.writable = true;
  // A folder given absolute is one the test wrote (the imported models); else one under tests/data.
  auto t = sim::open((folder.rfind('/', 0) == 0 ? folder : kData + "/" + folder) + "/" + model, so);
  if (!t) return t.error();
  measure::ReplayOptions ro;
  ro.allow_write = true;
  auto r = measure::replay(*t->io, *trace, ro);
  if (r && r->stopped) return *r->stopped;  // a validation figure is of the whole trace or none
  return r;
}

const measure::Comparison* subset_of(const measure::ReplayResult& r, const std::string& name) {
  for (const auto& c : r.comparisons)
    if (c.subset == name) return &c;
  return nullptr;
}

// Replays every row of a recorded table on its model in `folder` and holds each subset's demerit at
// or below its figure plus the seed margin.
void check_recorded(const std::string& folder, const std::map<std::string, Recorded>& bounds,
                    const std::vector<std::string>& subsets) {
  for (const auto& entry : bounds) {
    // Plain references, not structured bindings: doctest's CAPTURE/INFO are lambdas, and clang 14
    // cannot capture a structured binding.
    const auto& trace = entry.first;
    const auto& model = entry.second.model;
    CAPTURE(trace);
    auto r = replay_on(folder, model, trace, kSeed);
    if (!r) FAIL(folder << "/" << model << ": " << r.error().message);
    REQUIRE_FALSE(r->comparisons.empty());
    CHECK(r->comparisons.front().subset == "all");
    CHECK(r->comparisons.front().measured.count == r->requests.size());
    for (std::size_t i = 0; i < subsets.size(); ++i) {
      const auto& name = subsets[i];
      const double bound = entry.second.demerit_ms[i];
      CAPTURE(name);
      const auto* c = subset_of(*r, name);
      REQUIRE(c != nullptr);
      MESSAGE(folder << "/" << model << " " << name << ": demerit " << c->demerit_ms << " ms (recorded " << bound
                     << ")");
      CHECK(std::isfinite(c->demerit_ms));
      CHECK(c->demerit_ms <= bound + kSeedMarginMs);
    }
  }
}

}  // namespace

TEST_CASE("replay: each DiskSim validation trace stays within the demerit docs/validation.md records") {
  const auto bounds = recorded_bounds("## Regression bounds", 1);
  REQUIRE(bounds.size() == 7);
  check_recorded("disk-models", bounds, {"all"});
}

TEST_CASE("replay: with DiskSim's bus, reconnection and read-ahead keys each trace stays within its figures") {
  // The full models (tests/data/disk-models-disksim, the converter's --parv output): all requests,
  // reads and writes each held to the "Full models" table of docs/validation.md.
  const auto bounds = recorded_bounds("### Full models", 3);
  REQUIRE(bounds.size() == 7);
  check_recorded("disk-models-disksim", bounds, {"all", "reads", "writes"});
}

TEST_CASE("replay: with the drives' observed behaviour beyond DiskSim's parameters each trace stays within its figures") {
  // tests/data/disk-models-observed: merge patches (RFC 7396) over the full models, each a
  // behaviour the drive's trace shows and DiskSim has no rule for (its README says which). The
  // patched models are written to a folder of the test's own and held to their own table.
  const auto bounds = recorded_bounds("### Full models with the drives' observed behaviour", 3);
  REQUIRE_FALSE(bounds.empty());
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("ds-replay-observed-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  for (const auto& entry : bounds) {
    const std::string& model = entry.second.model;
    const std::string stem = std::filesystem::path(model).stem().string();
    auto full = nlohmann::json::parse(apptest::slurp(kData + "/disk-models-disksim/" + model));
    const auto patch = nlohmann::json::parse(apptest::slurp(kData + "/disk-models-observed/" + stem + ".patch.json"));
    full.merge_patch(patch);
    std::ofstream(dir / model) << full.dump(1);
  }
  check_recorded(dir.string(), bounds, {"all", "reads", "writes"});
  std::filesystem::remove_all(dir);
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

TEST_CASE("replay: a read that fails ends the run with its LBA and line; what completed before is kept") {
  // Closed loop, five reads; the third falls in a medium-error region, so two completed, the third
  // failed and the last two were never issued.
  auto trace = measure::parse_trace("R Hit 1000 8 0 0\nR Hit 50000 8 0 0\nR Hit 2000004 8 0 0\n"
                                    "R Hit 3000 8 0 0\nR Hit 4000 8 0 0\n");
  REQUIRE(trace.ok());
  sim::SimOptions so;
  so.faults = sim::FaultSpec{};
  so.faults->medium_errors.push_back({2000000, 64});
  auto t = sim::open(kData + "/disk-models/hp_c2247a.json", so);
  REQUIRE(t.ok());
  auto r = measure::replay(*t->io, *trace, {});
  REQUIRE(r.ok());
  REQUIRE(r->stopped.has_value());
  CHECK(r->stopped->code == EIO);
  CHECK(apptest::has(r->stopped->message, "LBA 2000004"));
  CHECK(apptest::has(r->stopped->message, "trace line 3"));
  CHECK(r->planned == 5);
  REQUIRE(r->requests.size() == 2);
  CHECK(r->requests[0].lba == 1000);
  CHECK(r->requests[1].lba == 50000);
  CHECK(r->service.count == 2);
  CHECK(r->requests[1].service_ms > 0);
  // Without the fault the same trace runs to its end.
  auto clean = sim::open(kData + "/disk-models/hp_c2247a.json");
  REQUIRE(clean.ok());
  auto full = measure::replay(*clean->io, *trace, {});
  REQUIRE(full.ok());
  CHECK_FALSE(full->stopped.has_value());
  CHECK(full->requests.size() == 5);
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

TEST_CASE("replay: each traced drive within 1.5x of DiskSim's own figure, its reads and writes within 2x of DiskSim's") {
  // Issue #28's goal, held: the full model (with its observed behaviour where
  // tests/data/disk-models-observed has a patch) against DiskSim 4.0's own demerit on the same
  // trace, subset by subset ("DiskSim's own figures" in docs/validation.md: its all-request
  // figure, and its reads' and writes' from DiskSim 4.0's per-request times). A row with a count
  // in place of "all" is the trace's first N requests (the ST41601N: DiskSim 4.0 does not finish
  // its trace); a "—" is not held (no DiskSim figure).
  const auto rows = recorded_rows("### DiskSim's own figures");
  REQUIRE(rows.size() >= 8);
  const auto full = recorded_bounds("### Full models", 3);
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("ds-replay-disksim-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::set<std::string> drives;
  for (const auto& cells : rows) {
    REQUIRE(cells.size() == 5);
    const std::string& trace_file = cells[0];
    CAPTURE(trace_file);
    REQUIRE(full.count(trace_file) == 1);
    drives.insert(trace_file);
    const std::string model = full.at(trace_file).model;
    const std::string stem = std::filesystem::path(model).stem().string();
    auto doc = nlohmann::json::parse(apptest::slurp(kData + "/disk-models-disksim/" + model));
    const std::string patch = kData + "/disk-models-observed/" + stem + ".patch.json";
    if (std::filesystem::exists(patch)) doc.merge_patch(nlohmann::json::parse(apptest::slurp(patch)));
    std::ofstream(dir / model) << doc.dump(1);
    auto trace = measure::parse_trace(apptest::slurp(kData + "/disksim-traces/" + trace_file));
    REQUIRE(trace.ok());
    if (cells[1] != "all") {
      const auto n = number(cells[1]);
      REQUIRE(n.has_value());
      REQUIRE(*n <= trace->requests.size());
      trace->requests.resize(static_cast<std::size_t>(*n));
    }
    sim::SimOptions so;
    so.seed = kSeed;
    so.writable = true;
    auto t = sim::open((dir / model).string(), so);
    REQUIRE(t.ok());
    measure::ReplayOptions ro;
    ro.allow_write = true;
    auto r = measure::replay(*t->io, *trace, ro);
    REQUIRE(r.ok());
    REQUIRE_FALSE(r->stopped);
    const char* subsets[] = {"all", "reads", "writes"};
    for (int i = 0; i < 3; ++i) {
      const auto own = number(cells[2 + i]);
      if (!own) continue;  // "—": DiskSim gives no figure for this subset
      const auto* c = subset_of(*r, subsets[i]);
      REQUIRE(c != nullptr);
      const double limit = i == 0 ? 1.5 : 2.0;
      MESSAGE(trace_file << " (" << cells[1] << " requests) " << std::string(subsets[i]) << ": " << c->demerit_ms << " ms, DiskSim "
                         << *own << " ms, " << c->demerit_ms / *own << "x");
      CHECK(c->demerit_ms <= limit * *own);
    }
  }
  CHECK(drives.size() == 7);
  std::filesystem::remove_all(dir);
}
