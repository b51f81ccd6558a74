#include "report/drivedb_report.hpp"

#include <fmt/format.h>

namespace ds::report {

using nlohmann::json;

namespace {

json string_or_null(const std::string& s) { return s.empty() ? json(nullptr) : json(s); }

}  // namespace

std::string drivedb_family(const DriveDbView& v) { return v.match ? v.match->entry.family : std::string(); }

json drivedb_to_json(const DriveDbView& v) {
  json out{{"sources", v.sources}, {"version", string_or_null(v.version)}};
  const bool have_table = !v.sources.empty();
  out["found"] = have_table ? json(v.match.has_value()) : json(nullptr);
  const probe::DriveDbMatch* m = v.match ? &*v.match : nullptr;
  out["family"] = m ? string_or_null(m->entry.family) : json(nullptr);
  out["model_regex"] = m ? json(m->entry.model_regex) : json(nullptr);
  out["firmware_regex"] = m ? string_or_null(m->entry.firmware_regex) : json(nullptr);
  out["warning"] = m ? string_or_null(m->entry.warning) : json(nullptr);
  out["smr"] = m && m->smr ? json(*m->smr) : json(nullptr);
  out["firmware_bugs"] = m ? json(m->presets.firmware_bugs) : json::array();
  json names = json::object();
  if (m)
    for (const auto& [id, name] : m->presets.attribute_names) names[std::to_string(id)] = name;
  out["attribute_names"] = std::move(names);
  if (!have_table) out["note"] = v.note;
  else if (!m) out["note"] = "the drive matches no entry of the table";
  if (v.bad_expressions)
    out["skipped_entries"] = v.bad_expressions;
  return out;
}

std::string drivedb_to_text(const DriveDbView& v) {
  std::string o = "\nDrive database (smartmontools)\n";
  if (v.sources.empty()) return o + "  " + v.note + "\n";
  if (!v.match) return o + "  not listed (" + v.sources.back() + ")\n";
  const auto& m = *v.match;
  o += fmt::format("  Family:            {}\n", m.entry.family.empty() ? "(listed, no family named)" : m.entry.family);
  if (m.smr) o += fmt::format("  Recording:         {}\n", *m.smr ? "shingled (SMR), as the family name says"
                                                                   : "conventional (CMR), as the family name says");
  if (!m.presets.firmware_bugs.empty()) {
    std::string bugs;
    for (const auto& b : m.presets.firmware_bugs) bugs += (bugs.empty() ? "" : ", ") + b;
    o += fmt::format("  Firmware bugs:     {} (smartctl -F)\n", bugs);
  }
  if (!m.entry.warning.empty()) {
    std::string w = m.entry.warning;
    for (std::size_t p = 0; (p = w.find('\n', p)) != std::string::npos; p += 21) w.replace(p, 1, "\n                     ");
    o += fmt::format("  Warning:           {}\n", w);
  }
  return o;
}

}  // namespace ds::report
