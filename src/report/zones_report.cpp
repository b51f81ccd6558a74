#include "report/zones_report.hpp"

#include <fmt/format.h>

#include "report/text_out.hpp"

namespace ds::report {

using nlohmann::json;

json ranges_to_json(const probe::PositioningRanges& r, std::string_view source) {
  json ranges = json::array();
  for (const auto& x : r.ranges)
    ranges.push_back({{"number", x.number},
                      {"storage_elements", x.storage_elements},
                      {"lowest_lba", x.lowest_lba},
                      {"lba_count", x.lba_count}});
  return {{"source", source}, {"count", r.ranges.size()}, {"ranges", ranges}, {"problems", r.problems}};
}

std::string ranges_to_text(const probe::PositioningRanges& r, std::string_view source) {
  TextOut t;
  t.section(fmt::format("Concurrent positioning ranges ({})", source));
  t.line("Ranges", r.ranges.empty() ? std::string("none reported")
                   : r.ranges.size() > 1
                       ? fmt::format("{} (several actuators: each range has its own)", r.ranges.size())
                       : std::string("1"));
  for (const auto& x : r.ranges) {
    t.line(fmt::format("Range {}", x.number),
           fmt::format("LBA {} to {} ({} LBAs), {} storage element{}", x.lowest_lba,
                       x.lba_count ? x.lowest_lba + x.lba_count - 1 : x.lowest_lba, x.lba_count,
                       x.storage_elements, x.storage_elements == 1 ? "" : "s"));
  }
  for (const auto& p : r.problems) t.line("Problem", p);
  return std::move(t).str();
}

json zones_to_json(const probe::ZoneReport& z, std::string_view source) {
  json types = json::array(), sizes = json::array(), conditions = json::array();
  for (const auto& t : z.types)
    types.push_back({{"type", probe::zone_type_name(t.type)},
                     {"zones", t.zones},
                     {"blocks", t.blocks},
                     {"first_lba", t.first_lba}});
  for (const auto& s : z.sizes) sizes.push_back({{"length_blocks", s.length}, {"zones", s.zones}});
  for (const auto& c : z.conditions)
    conditions.push_back({{"condition", probe::zone_condition_name(c.condition)}, {"zones", c.zones}});
  return {{"source", source},
          {"zones_listed", z.zones_listed},
          {"zones_decoded", z.zones.size()},
          {"truncated", z.truncated},
          {"max_lba", z.max_lba},
          {"same", z.same},
          {"types", types},
          {"sizes", sizes},
          {"conditions", conditions},
          {"problems", z.problems}};
}

std::string zones_to_text(const probe::ZoneReport& z, std::string_view source) {
  TextOut t(34);
  t.section(fmt::format("Zones ({})", source));
  t.line("Zones", z.truncated ? fmt::format("{} listed, the first {} in this reply", z.zones_listed,
                                            z.zones.size())
                              : fmt::format("{}", z.zones_listed));
  t.line("Maximum LBA", fmt::format("{}", z.max_lba));
  for (const auto& x : z.types) {
    std::string label = fmt::format("{} zones", probe::zone_type_name(x.type));
    label[0] = static_cast<char>(label[0] - 'a' + 'A');  // names are lower-case ASCII words
    t.line(label,
           fmt::format("{} zone{}, {} blocks, first at LBA {}", x.zones, x.zones == 1 ? "" : "s",
                       x.blocks, x.first_lba));
  }
  std::string sizes;
  for (const auto& s : z.sizes)
    sizes += fmt::format("{}{} x {} blocks", sizes.empty() ? "" : ", ", s.zones, s.length);
  t.line("Zone sizes", sizes.empty() ? std::string("none") : sizes);
  std::string conds;
  for (const auto& c : z.conditions)
    conds += fmt::format("{}{} {}", conds.empty() ? "" : ", ", c.zones, probe::zone_condition_name(c.condition));
  t.line("Conditions", conds.empty() ? std::string("none") : conds);
  for (const auto& p : z.problems) t.line("Problem", p);
  return std::move(t).str();
}

}  // namespace ds::report
