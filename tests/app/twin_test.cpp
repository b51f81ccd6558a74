// `drivescope model`: a drive's twin replays traces as the drive does (tests/app/twin_eval.hpp).
// Every shared model and preset is measured, its twin made, and the traces replayed on both; the
// demerit of each (drive, trace) pair is held at or below the figure docs/twin.md records for it
// ("Demerit by drive and trace": the simulated drives are deterministic for given seeds, so the
// margin only covers floating-point differences between compilers). The goal (every
// trace within 6 %, median within 3 %) is not met yet on every drive: the table says where, and
// this test prints how many pairs meet it. DS_TWIN_TABLE=FILE writes the table's rows afresh.
#include <doctest/doctest.h>

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "app/twin.hpp"
#include "twin_eval.hpp"

using namespace ds;
namespace fs = std::filesystem;

namespace {

// The median as docs/twin.md's table has it: of an even count, the mean of the middle two.
double median_of_sorted(const std::vector<double>& v) {
  if (v.empty()) return 0;
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

const std::string kData = DS_TEST_DATA;
constexpr double kMarginPct = 0.05;

std::vector<std::string> drives() {
  std::vector<std::string> out;
  for (const auto& n : sim::preset_names()) out.push_back("sim:" + n);
  for (const char* dir : {"/disk-models", "/disk-models-disksim"})
    for (const auto& e : fs::directory_iterator(kData + dir)) {
      const std::string p = e.path().string();
      if (e.path().extension() == ".json" && p.find(".truth.") == std::string::npos) out.push_back("sim:" + p);
    }
  std::sort(out.begin(), out.end());
  // DS_TWIN_ONLY=TEXT: only the drives whose spec contains TEXT (to look at one while working).
  if (const char* only = std::getenv("DS_TWIN_ONLY"))
    std::erase_if(out, [&](const std::string& d) { return d.find(only) == std::string::npos; });
  return out;
}

// "sim:raptor" → "raptor"; a model file → its folder and name ("disk-models/hp_c2247a.json").
std::string label(const std::string& d) {
  if (d.find('/') == std::string::npos) return d.substr(4);
  return d.substr(d.find_last_of('/', d.rfind('/') - 1) + 1);
}

// docs/twin.md's rows "| `DRIVE` | `TRACE` | mean | floor | twin |": (drive, trace) → twin %.
std::map<std::pair<std::string, std::string>, double> recorded() {
  std::map<std::pair<std::string, std::string>, double> out;
  std::ifstream f(std::string(DS_SOURCE_DIR) + "/docs/twin.md");
  for (std::string row; std::getline(f, row);) {
    if (row.rfind("| `", 0) != 0) continue;
    std::vector<std::string> cells;
    for (std::size_t a = 1, b; (b = row.find('|', a)) != std::string::npos; a = b + 1) {
      std::string c = row.substr(a, b - a);
      c.erase(0, c.find_first_not_of(" `"));
      c.erase(c.find_last_not_of(" `%") + 1);
      cells.push_back(c);
    }
    if (cells.size() != 5) continue;
    double v = 0;
    if (std::from_chars(cells[4].data(), cells[4].data() + cells[4].size(), v).ec == std::errc())
      out[{cells[0], cells[1]}] = v;
  }
  return out;
}

}  // namespace

TEST_CASE("twin: every drive's twin replays the traces as near the drive as docs/twin.md records") {
  const fs::path dir = fs::temp_directory_path() / fmt::format("ds-twin-{}", ::getpid());
  fs::create_directories(dir);
  const auto bounds = recorded();
  std::string rows;
  std::vector<double> all;
  std::size_t within_limit = 0, drives_met = 0, drives_n = 0;
  for (const auto& d : drives()) {
    app::ModelRequest req;
    req.target = d;
    req.output = (dir / "twin.json").string();
    if (const char* s = std::getenv("DS_TWIN_SEED")) req.seed = std::strtoull(s, nullptr, 10);  // other seeds, for docs/twin.md
    auto made = app::run_model(req, {});
    REQUIRE_MESSAGE(static_cast<bool>(made), d << ": " << (made ? "" : made.error().message));
    // DS_TWIN_KEEP=DIR: keep each twin there (named after its drive) to look at.
    if (const char* keep = std::getenv("DS_TWIN_KEEP"))
      fs::copy_file(req.output, fs::path(keep) / (fs::path(d.substr(4)).stem().string() + ".twin.json"),
                    fs::copy_options::overwrite_existing);
    auto drive = sim::open(d);
    REQUIRE(static_cast<bool>(drive));
    // Within the default budget of drive time, the workloads after the bench included.
    CHECK(made->json["twin"]["drive_time_s"].get<double>() <= 180.0);
    // The twin opens and holds the drive's size.
    auto twin = sim::open("sim:" + req.output);
    REQUIRE(static_cast<bool>(twin));
    CHECK(twin->model.capacity() == drive->model.capacity());
    const std::uint64_t cap = drive->model.capacity() * drive->model.logical_sector_bytes;
    std::vector<twintest::NamedTrace> traces;
    traces.push_back({"random4k", twintest::random_reads(cap, 4096, 1500, 7), 1});
    traces.push_back({"database", twintest::database_reads(cap, 1500, 8), 1});
    traces.push_back({"qd8", twintest::timed_reads(cap, 1500, 0.5, 9), 8});
    std::vector<fs::path> recorded_traces;
    for (const auto& e : fs::directory_iterator(kData + "/disksim-traces"))
      if (e.path().extension() == ".trace") recorded_traces.push_back(e.path());
    std::sort(recorded_traces.begin(), recorded_traces.end());
    for (const auto& p : recorded_traces) traces.push_back({p.stem().string(), twintest::recorded_reads(p, 3000), 1});
    std::vector<double> mine;
    for (const auto& t : traces) {
      const auto a = twintest::service_ms(d, 101, t), b = twintest::service_ms(d, 202, t);
      const auto tw = twintest::service_ms("sim:" + req.output, 303, t);
      REQUIRE(!a.empty());
      REQUIRE(a.size() == tw.size());
      const double floor = measure::demerit_pct(b, a), dem = measure::demerit_pct(tw, a);
      rows += fmt::format("| `{}` | `{}` | {:.3f} | {:.2f} % | {:.2f} % |\n", label(d), t.name, twintest::mean(a), floor, dem);
      mine.push_back(dem);
      all.push_back(dem);
      within_limit += dem <= 6.0;
      const auto it = bounds.find({label(d), t.name});
      if (std::getenv("DS_TWIN_TABLE")) continue;
      REQUIRE_MESSAGE(it != bounds.end(), label(d) << " " << t.name << ": no row in docs/twin.md");
      CHECK_MESSAGE(dem <= it->second + kMarginPct, label(d) << " " << t.name << ": twin demerit " << dem
                                                             << " % over the recorded " << it->second << " %");
    }
    std::sort(mine.begin(), mine.end());
    ++drives_n;
    drives_met += mine.back() <= 6.0 && median_of_sorted(mine) <= 3.0;
  }
  std::sort(all.begin(), all.end());
  MESSAGE(fmt::format("twin: {} of {} (drive, trace) pairs within 6 %; median {:.2f} %; {} of {} drives meet the "
                      "goal (every trace within 6 %, median within 3 %)",
                      within_limit, all.size(), median_of_sorted(all), drives_met, drives_n));
  if (const char* out = std::getenv("DS_TWIN_TABLE")) std::ofstream(out) << rows;
  fs::remove_all(dir);
}
