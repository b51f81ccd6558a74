// IOMeter-style patterns on a simulated drive: the tables, the averages and the workstation rating
// with writes allowed; without writes, the write cells are skipped and no write reaches the drive;
// asking for writes on a read-only target is refused before any I/O.
#include <doctest/doctest.h>

#include <cmath>

#include "report/measure_report.hpp"
#include "sim/sim.hpp"
#include "tests/patterns.hpp"
#include "tests/result_keys.hpp"

namespace {

// Counts what reaches the drive.
class CountingEngine final : public ds::ForwardingIo {
 public:
  explicit CountingEngine(ds::IoEngine& e) : ForwardingIo(e) {}
  ds::Expected<std::size_t> submit(std::span<const ds::IoRequest> r) override {
    for (const auto& q : r) (q.write ? writes : reads) += 1;
    return inner_.submit(r);
  }
  std::uint64_t reads = 0, writes = 0;
};

}  // namespace

TEST_CASE("patterns: tables, averages and workstation rating on a simulated drive with --write") {
  auto t = ds::sim::open("sim:raptor", {.writable = true});
  REQUIRE(t.ok());
  CountingEngine io(*t->io);
  ds::measure::PatternsOptions o;
  o.allow_write = true;
  o.cell_s = 0.3;
  auto r = ds::measure::run_patterns(io, o);
  REQUIRE(r.ok());
  CHECK(r->cells.size() == 55 + 9 + 9 + 6);
  for (const auto& c : r->cells) {
    INFO(c.pattern << " QD" << c.depth << " write " << c.write_share);
    CHECK_FALSE(c.skipped);
    CHECK(c.iops > 0);
    CHECK(c.reached_depth == c.depth);
  }
  CHECK(io.writes > 0);
  // Write share is what was asked: database at 50 % writes, QD 16.
  const auto* half = r->cell("database", 16, 0.5);
  REQUIRE(half);
  const double share = static_cast<double>(half->writes) / static_cast<double>(half->ios);
  CHECK(share == doctest::Approx(0.5).epsilon(0.15));
  // The drive reorders: deeper queues give more IOPS on random 8 KB reads.
  CHECK(r->cell("database", 64, 0.0)->iops > 1.5 * r->cell("database", 1, 0.0)->iops);
  REQUIRE(r->workstation_rating);
  double rating = 0;
  for (unsigned q : {1u, 2u, 4u, 8u, 16u, 32u}) rating += r->cell("workstation", q)->iops / q;
  CHECK(*r->workstation_rating == doctest::Approx(rating));
  // Light loads dominate the rating: it is below 2x IOPS(1) for a drive gaining < 2x per doubling.
  CHECK(*r->workstation_rating > r->cell("workstation", 1)->iops);
  REQUIRE(r->fileserver_average_iops);
  REQUIRE(r->webserver_average_iops);
  double avg = 0;
  for (unsigned q : {1u, 2u, 4u, 8u, 16u, 32u, 64u, 128u, 256u}) avg += r->cell("webserver", q)->iops;
  CHECK(*r->webserver_average_iops == doctest::Approx(avg / 9));
  auto text = ds::report::patterns_to_text(*r);
  CHECK(text.find("database (8 KB random)") != std::string::npos);
  CHECK(text.find("workstation rating") != std::string::npos);
  auto j = ds::report::patterns_to_json(*r);
  CHECK(j["cells"].size() == 79);
  CHECK(j["workstation_rating"].is_number());
  MESSAGE("raptor: workstation rating " << *r->workstation_rating << ", fileserver avg "
                                        << *r->fileserver_average_iops << ", webserver avg "
                                        << *r->webserver_average_iops << ", drive time " << r->drive_time_s << " s");
}

TEST_CASE("patterns: without --write the write cells are skipped and nothing is written") {
  auto t = ds::sim::open("sim:7k400", {.writable = true});
  REQUIRE(t.ok());
  CountingEngine io(*t->io);
  ds::measure::PatternsOptions o;
  o.cell_s = 0.2;
  auto r = ds::measure::run_patterns(io, o);
  REQUIRE(r.ok());
  CHECK(io.writes == 0);
  CHECK(io.reads > 0);
  int ran = 0, skipped = 0;
  for (const auto& c : r->cells) {
    if (c.skipped) {
      ++skipped;
      CHECK(c.write_share > 0);
      CHECK(c.skip_reason == ds::measure::WithheldReason::cell_needs_write);
    } else {
      ++ran;
      CHECK(c.write_share == 0);
    }
  }
  CHECK(ran == 5 + 9);          // database at 0 % writes, webserver (reads only)
  CHECK(skipped == 50 + 9 + 6);  // database 10..100 %, fileserver, workstation
  CHECK_FALSE(r->workstation_rating.has_value());
  CHECK(r->webserver_average_iops.has_value());
  CHECK_FALSE(r->fileserver_average_iops.has_value());
  // The two summaries left null say so, each with the count of its cells that did not run.
  namespace K = ds::measure::key::patterns;
  REQUIRE(r->withheld.size() == 2);
  for (const auto& w : r->withheld) {
    CHECK(w.reason == ds::measure::WithheldReason::cells_skipped);
    const std::string figure = w.figure;
    CHECK(w.number("skipped") == (figure == K::fileserver_average_iops ? 9 : 6));
  }
  CHECK(ds::measure::withholds(r->withheld, K::fileserver_average_iops));
  CHECK(ds::measure::withholds(r->withheld, K::workstation_rating));
}

TEST_CASE("patterns: writes on a target not opened for writing are refused before any I/O") {
  auto t = ds::sim::open("sim:raptor");  // read-only
  REQUIRE(t.ok());
  CountingEngine io(*t->io);
  ds::measure::PatternsOptions o;
  o.allow_write = true;
  auto r = ds::measure::run_patterns(io, o);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message.find("not opened for writing") != std::string::npos);
  CHECK(io.reads + io.writes == 0);
  o.allow_write = false;
  o.patterns = {"nosuch"};
  CHECK_FALSE(ds::measure::run_patterns(io, o).ok());
  o.patterns = {"database"};
  o.database_depths = {0};
  CHECK_FALSE(ds::measure::run_patterns(io, o).ok());
  CHECK(io.reads + io.writes == 0);
}
