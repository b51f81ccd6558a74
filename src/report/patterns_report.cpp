// The patterns test's writers.
#include "report/measure_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "report/json_write.hpp"
#include "tests/result_keys.hpp"

namespace ds::report {

using namespace measure;

nlohmann::json patterns_to_json(const PatternsResult& r) {
  using nlohmann::json;
  namespace K = key::patterns;
  namespace C = key::pattern_cell;
  json cells = json::array();
  for (const auto& c : r.cells) {
    json j{{C::pattern, c.pattern},
           {C::depth, c.depth},
           {C::write_pct, std::lround(c.write_share * 100)},
           {C::skipped, c.skipped}};
    if (c.skipped) {
      j[C::skip_reason] = withheld_text({"", c.skip_reason, {}});
      j[C::skip_code] = withheld_reason_name(c.skip_reason);
      j[C::iops] = nullptr;
    } else {
      j[C::reached_depth] = c.reached_depth;
      j[C::iops] = r3(c.iops);
      j[C::iops_rel_se] = r3(c.iops_rel_se);
      j[C::mb_s] = r3(c.mb_s);
      j[C::mean_ms] = r3(c.mean_ms);
      j[C::ios] = c.ios;
      j[C::reads] = c.reads;
      j[C::writes] = c.writes;
      j[C::drive_time_s] = r3(c.drive_time_s);
    }
    cells.push_back(std::move(j));
  }
  auto opt = [](const std::optional<double>& v) { return v ? json(r3(*v)) : json(nullptr); };
  return json{{K::cells, std::move(cells)},
              {K::fileserver_average_iops, opt(r.fileserver_average_iops)},
              {K::webserver_average_iops, opt(r.webserver_average_iops)},
              {K::workstation_rating, opt(r.workstation_rating)},
              {K::writes_allowed, r.allow_write},
              {K::drive_time_s, r3(r.drive_time_s)},
              {K::notes, notes_with_withheld(r.notes, r.withheld)},
              {K::withheld, withheld_json(r.withheld)}};
}

std::string patterns_to_text(const PatternsResult& r) {
  std::string o = fmt::format("patterns: IOMeter access specifications, total I/O per second ({:.1f} s)\n",
                              r.drive_time_s);
  auto val = [](const PatternCell* c) {
    if (!c) return fmt::format("{:>8}", "");
    if (c->skipped) return fmt::format("{:>8}", "skip");
    return fmt::format("{:>8.1f}", c->iops);
  };
  // Database: rows by write share, columns by depth.
  std::vector<unsigned> db_depths, load_depths;
  std::vector<double> db_shares;  // the rows: the write shares the plan measured
  for (const auto& c : r.cells) {
    auto& v = c.pattern == "database" ? db_depths : load_depths;
    if (std::find(v.begin(), v.end(), c.depth) == v.end()) v.push_back(c.depth);
    if (c.pattern == "database" && std::find(db_shares.begin(), db_shares.end(), c.write_share) == db_shares.end())
      db_shares.push_back(c.write_share);
  }
  std::sort(db_depths.begin(), db_depths.end());
  std::sort(db_shares.begin(), db_shares.end());
  std::sort(load_depths.begin(), load_depths.end());
  if (!db_depths.empty()) {
    o += "\ndatabase (8 KB random), IOPS by write share and queue depth\n";
    o += fmt::format("{:>8}", "write %");
    for (unsigned d : db_depths) o += fmt::format("{:>8}", fmt::format("QD{}", d));
    o += "\n";
    for (double w : db_shares) {
      o += fmt::format("{:>8}", std::lround(w * 100));
      for (unsigned d : db_depths) o += val(r.cell("database", d, w));
      o += "\n";
    }
  }
  if (!load_depths.empty()) {
    o += "\nIOPS by queue depth\n";
    o += fmt::format("{:>12}", "pattern");
    for (unsigned d : load_depths) o += fmt::format("{:>8}", fmt::format("QD{}", d));
    o += fmt::format("{:>10}\n", "average");
    for (const char* p : {"fileserver", "webserver", "workstation"}) {
      bool any = false;
      for (const auto& c : r.cells) any = any || c.pattern == p;
      if (!any) continue;
      o += fmt::format("{:>12}", p);
      for (unsigned d : load_depths) o += val(r.cell(p, d));
      const auto& avg = std::string(p) == "fileserver" ? r.fileserver_average_iops
                        : std::string(p) == "webserver" ? r.webserver_average_iops
                                                        : std::optional<double>{};
      o += avg ? fmt::format("{:>10.1f}\n", *avg) : fmt::format("{:>10}\n", "-");
    }
  }
  o += r.workstation_rating
           ? fmt::format("\nworkstation rating (sum of IOPS(q)/q, q = 1..32): {:.1f}\n", *r.workstation_rating)
           : std::string("\nworkstation rating: not available (cells skipped or not run)\n");
  for (const auto& n : notes_with_withheld(r.notes, r.withheld)) o += "note: " + n + "\n";
  return o;
}

}  // namespace ds::report
