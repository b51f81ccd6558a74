// The read-modify-write test's writers.
#include "report/measure_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "report/json_write.hpp"
#include "tests/result_keys.hpp"

namespace ds::report {

using namespace measure;

nlohmann::json rmw_to_json(const RmwResult& r) {
  namespace K = key::rmw;
  namespace W = key::rmw_kind;
  nlohmann::json kinds = nlohmann::json::array();
  for (const auto& k : r.kinds)
    kinds.push_back({{W::bytes, k.bytes}, {W::offset_bytes, k.offset_bytes}, {W::warmup_writes, k.warmup_writes}, {W::writes, k.writes},
                     {W::mean_ms, std::round(k.mean_ms * 1000) / 1000}, {W::sd_ms, std::round(k.sd_ms * 1000) / 1000},
                     {W::mean_se_ms, std::round(k.se_ms * 1000) / 1000},
                     {W::penalty_ms, std::round(k.penalty_ms * 1000) / 1000}, {W::pays, k.pays}});
  auto or_null = [](std::uint32_t v) { return v ? nlohmann::json(v) : nlohmann::json(); };
  return {{K::measured, r.measured},
          {K::logical_bytes, r.logical_bytes},
          {K::reported_physical_bytes, or_null(r.reported_physical_bytes)},
          {K::claimed_physical_bytes, or_null(r.claimed_physical_bytes)},
          {K::claimed_by, r.claimed_physical_bytes ? nlohmann::json(r.claimed_by) : nlohmann::json()},
          {K::physical_bytes_estimate, r.physical_bytes_estimate ? nlohmann::json(*r.physical_bytes_estimate) : nlohmann::json()},
          {K::penalty_ms, r.measured ? nlohmann::json(std::round(r.penalty_ms * 1000) / 1000) : nlohmann::json()},
          {K::buffer_writes, r.buffer_writes ? nlohmann::json(*r.buffer_writes) : nlohmann::json()},
          {K::kinds, kinds},
          {K::verdict, r.verdict},
          {K::drive_time_s, std::round(r.drive_time_s * 1000) / 1000},
          {K::notes, notes_with_withheld(r.notes, r.withheld)},
          {K::withheld, withheld_json(r.withheld)}};
}

std::string rmw_to_text(const RmwResult& r) {
  std::string o = "Read-modify-write (512e)\n  " + r.verdict + "\n";
  if (r.kinds.empty()) {
    for (const auto& n : notes_with_withheld(r.notes, r.withheld)) o += "  note: " + n + "\n";
    return o;
  }
  o += "  write               per write   more than aligned 16 KiB\n";
  for (const auto& k : r.kinds)
    o += fmt::format("  {:>6} B{:<12} {:>8.2f} ms  {:>+8.2f} ms{}\n", k.bytes,
                     k.offset_bytes ? fmt::format(" at +{}", k.offset_bytes) : std::string(), k.mean_ms, k.penalty_ms,
                     k.pays ? "  read-modify-write" : "");
  for (const auto& n : notes_with_withheld(r.notes, r.withheld)) o += "  note: " + n + "\n";
  return o;
}

}  // namespace ds::report
