// `drivescope model`: a drive's twin replays traces as the drive does (tests/app/twin_eval.hpp).
#include <doctest/doctest.h>

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "app/twin.hpp"
#include "twin_eval.hpp"

using namespace ds;
namespace fs = std::filesystem;

namespace {

const std::string kData = DS_TEST_DATA;

std::vector<std::string> drives() {
  std::vector<std::string> out;
  for (const auto& n : sim::preset_names()) out.push_back("sim:" + n);
  for (const char* dir : {"/disk-models", "/disk-models-disksim"})
    for (const auto& e : fs::directory_iterator(kData + dir)) {
      const std::string p = e.path().string();
      if (e.path().extension() == ".json" && p.find(".truth.") == std::string::npos) out.push_back("sim:" + p);
    }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST_CASE("twin: every drive's twin replays the traces near the drive") {
  const fs::path dir = fs::temp_directory_path() / fmt::format("ds-twin-{}", ::getpid());
  fs::create_directories(dir);
  std::string table;
  for (const auto& d : drives()) {
    app::ModelRequest req;
    req.target = d;
    req.output = (dir / "twin.json").string();
    auto made = app::run_model(req, {});
    REQUIRE_MESSAGE(static_cast<bool>(made), d << ": " << (made ? "" : made.error().message));
    auto drive = sim::open(d);
    REQUIRE(static_cast<bool>(drive));
    const std::uint64_t cap = drive->model.capacity() * drive->model.logical_sector_bytes;
    std::vector<twintest::NamedTrace> traces;
    traces.push_back({"random4k", twintest::random_reads(cap, 4096, 1500, 7), 1});
    traces.push_back({"database", twintest::database_reads(cap, 1500, 8), 1});
    traces.push_back({"qd8", twintest::timed_reads(cap, 1500, 0.5, 9), 8});
    for (const auto& e : fs::directory_iterator(kData + "/disksim-traces"))
      if (e.path().extension() == ".trace")
        traces.push_back({e.path().stem().string(), twintest::recorded_reads(e.path(), 3000), 1});
    for (const auto& t : traces) {
      const auto a = twintest::service_ms(d, 101, t), b = twintest::service_ms(d, 202, t);
      const auto tw = twintest::service_ms("sim:" + req.output, 303, t);
      REQUIRE(!a.empty());
      REQUIRE(!tw.empty());
      const double floor = measure::demerit_pct(b, a), dem = measure::demerit_pct(tw, a);
      table += fmt::format("{:<60} {:<12} mean {:8.3f} ms  twin {:8.3f}  floor {:6.2f} %  twin {:6.2f} %\n",
                           d.substr(d.find_last_of('/', d.rfind('/') - 1) + 1), t.name, twintest::mean(a), twintest::mean(tw), floor, dem);
    }
  }
  MESSAGE(table);
  fs::remove_all(dir);
}
