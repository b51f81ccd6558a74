#include "report/ata_logs_report.hpp"

#include <fmt/format.h>

#include "report/text_out.hpp"

namespace ds::report {

using nlohmann::json;

namespace {
json failure_json(const probe::LogReadFailure& f) {
  json e{{"command", f.command}, {"outcome", std::string(to_string(f.outcome))}, {"message", f.message}};
  if (f.ata) {
    e["ata_status"] = hex2(f.ata->status);
    e["ata_error"] = hex2(f.ata->error);
    e["aborted"] = f.ata->aborted();
  } else {
    e["ata_status"] = nullptr;
    e["ata_error"] = nullptr;
    e["aborted"] = nullptr;
  }
  return e;
}

// "the drive aborted it (STATUS 0x51: ERR; ERROR 0x04: ABRT)" — what an abort means, spelled out.
std::string failure_text(const probe::LogReadFailure& f) {
  if (f.ata && f.ata->aborted())
    return fmt::format("{}: the drive aborted the command (STATUS {:#04x}, ERR set; ERROR {:#04x}, "
                       "ABRT set): it does not implement it",
                       f.command, f.ata->status, f.ata->error);
  return fmt::format("{}: {}", f.command, f.message);
}
}  // namespace

json log_directory_to_json(const probe::LogDirectory& d) {
  json logs = json::array();
  for (const auto& e : d.logs)
    logs.push_back({{"address", hex2(e.address)}, {"name", probe::log_name(e.address)}, {"pages", e.pages}});
  return {{"version", d.version}, {"logs", logs}};
}

json identify_log_pages_to_json(const std::vector<std::uint8_t>& pages) {
  json out = json::array();
  for (auto p : pages) out.push_back({{"page", hex2(p)}, {"name", probe::identify_log_page_name(p)}});
  return out;
}

std::string log_directory_to_text(const probe::LogDirectory& d) {
  TextOut out;
  out.section("General purpose log directory");
  out.line("Directory version", std::to_string(d.version));
  for (const auto& e : d.logs)
    out.line(hex2(e.address), fmt::format("{} ({} page{})", probe::log_name(e.address), e.pages,
                                          e.pages == 1 ? "" : "s"));
  return std::move(out).str();
}

json gpl_to_json(const probe::GplProbe* g, bool claimed) {
  json j{{"claimed", claimed}, {"read", g && g->directory.has_value()}};
  if (!g) return j;
  if (g->directory) j.update(log_directory_to_json(*g->directory));
  if (g->identify_pages) j["identify_data_pages"] = identify_log_pages_to_json(*g->identify_pages);
  if (!g->failures.empty()) j["error"] = failure_json(g->failures.front());
  return j;
}

std::string gpl_to_text(const probe::GplProbe* g, bool claimed) {
  TextOut out;
  out.section("General purpose logs (READ LOG EXT)");
  out.line("Claimed by IDENTIFY", claimed ? "yes" : "no");
  if (!g) {
    out.line("Read", "not tried (not claimed; --logs tries anyway)");
    return "\n" + std::move(out).str();
  }
  if (g->directory) {
    out.line("Directory version", std::to_string(g->directory->version));
    for (const auto& e : g->directory->logs)
      out.line(hex2(e.address), fmt::format("{} ({} page{})", probe::log_name(e.address), e.pages,
                                            e.pages == 1 ? "" : "s"));
  }
  if (g->identify_pages) {
    std::string list;
    for (auto p : *g->identify_pages) list += (list.empty() ? "" : ", ") + hex2(p);
    out.line("IDENTIFY data pages", list.empty() ? "none" : list);
  }
  for (const auto& f : g->failures) out.line("Error", failure_text(f));
  return "\n" + std::move(out).str();
}

}  // namespace ds::report
