// The actuators test's writers.
#include "report/measure_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "report/json_write.hpp"
#include "tests/result_keys.hpp"

namespace ds::report {

using namespace measure;

nlohmann::json actuators_to_json(const ActuatorsResult& r) {
  using nlohmann::json;
  namespace K = key::actuators;
  namespace R = key::actuator_range;
  json ranges = json::array();
  for (const auto& x : r.ranges) ranges.push_back({{R::first_lba, x.first_lba}, {R::lba_count, x.lba_count}});
  return json{{K::ranges, std::move(ranges)},
              {K::ranges_source, r.ranges_source},
              {K::reported_ranges, r.reported_count},
              {K::together_iops, r3(r.together_iops)},
              {K::apart_iops, r3(r.apart_iops)},
              {K::gain, r3(r.gain)},
              {K::gain_uncertainty, r.gain_uncertainty ? json(r3(*r.gain_uncertainty)) : json(nullptr)},
              {K::rounds, r.rounds},
              {K::independent, r.independent ? json(*r.independent) : json(nullptr)},
              {K::verdict, r.verdict},
              {K::drive_time_s, r3(r.drive_time_s)},
              {K::notes, notes_with_withheld(r.notes, r.withheld)},
              {K::withheld, withheld_json(r.withheld)}};
}

std::string actuators_to_text(const ActuatorsResult& r) {
  std::string o = fmt::format("actuators ({:.1f} s, {} rounds)\n", r.drive_time_s, r.rounds);
  auto line = [&](std::string_view k, const std::string& v) { o += fmt::format("  {:<28} {}\n", k, v); };
  for (std::size_t i = 0; i < r.ranges.size(); ++i)
    line(fmt::format("range {} ({})", i, r.ranges_source),
         fmt::format("LBA {} + {}", r.ranges[i].first_lba, r.ranges[i].lba_count));
  line("reads/s together / apart", fmt::format("{:.1f} / {:.1f}", r.together_iops, r.apart_iops));
  line("gain", r.gain_uncertainty ? fmt::format("{:.2f} ± {:.2f}", r.gain, *r.gain_uncertainty)
                                  : fmt::format("{:.2f} (one round: no interval)", r.gain));
  line("verdict", r.verdict);
  for (const auto& n : notes_with_withheld(r.notes, r.withheld)) o += "  note: " + n + "\n";
  return o;
}

}  // namespace ds::report
