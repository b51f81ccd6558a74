#include "report/nvme_report.hpp"

#include <fmt/format.h>

#include "report/json_write.hpp"
#include "report/list_report.hpp"
#include "report/text_out.hpp"

namespace ds::report {

using nlohmann::json;

namespace {

// A 128-bit counter: a JSON integer while it fits 64 bits (every drive today), else its exact
// decimal digits as a string, since no JSON reader is sure to keep 128-bit integers.
json u128(const probe::NvmeU128& v) { return v.fits64() ? json(v.lo) : json(v.decimal()); }
json str_or_null(const std::string& s) { return s.empty() ? json() : json(s); }

const char* controller_type_name(unsigned t) {
  switch (t) {
    case 1: return "io";
    case 2: return "discovery";
    case 3: return "administrative";
    default: return nullptr;
  }
}

json controller_json(const probe::NvmeController& c) {
  json ps = json::array();
  for (const auto& p : c.power_states)
    ps.push_back({{"index", p.index}, {"max_power_w", p.max_power_w}, {"non_operational", p.non_operational},
                  {"entry_latency_us", p.entry_latency_us}, {"exit_latency_us", p.exit_latency_us}});
  const char* type = controller_type_name(c.controller_type);
  return {{"pci_vendor_id", c.pci_vendor_id},
          {"pci_subsystem_vendor_id", c.pci_subsystem_vendor_id},
          {"model", c.model},
          {"serial", c.serial},
          {"firmware", c.firmware},
          {"ieee_oui", fmt::format("{:06x}", c.ieee_oui)},
          {"controller_id", c.controller_id},
          {"version", str_or_null(c.version)},
          {"controller_type", type ? json(type) : json()},
          {"mdts", c.mdts},
          {"namespaces", c.namespaces},
          {"oacs", c.oacs},
          {"admin_commands", c.admin_commands},
          {"oncs", c.oncs},
          {"nvm_commands", c.nvm_commands},
          {"volatile_write_cache", c.volatile_write_cache},
          {"warning_temp_c", json_opt(c.warning_temp_c)},
          {"critical_temp_c", json_opt(c.critical_temp_c)},
          {"total_capacity_bytes", u128(c.total_capacity_bytes)},
          {"unallocated_capacity_bytes", u128(c.unallocated_capacity_bytes)},
          {"maxcmd", c.maxcmd},
          {"subnqn", str_or_null(c.subnqn)},
          {"power_states", ps}};
}

json namespace_json(const probe::NvmeNamespace& n) {
  json f = json::array();
  for (const auto& lf : n.formats)
    f.push_back({{"index", lf.index}, {"data_bytes", lf.data_bytes}, {"metadata_bytes", lf.metadata_bytes},
                 {"relative_performance", lf.relative_performance}, {"in_use", lf.in_use}});
  return {{"nsid", n.nsid},
          {"size_blocks", n.size_blocks},
          {"capacity_blocks", n.capacity_blocks},
          {"utilization_blocks", n.utilization_blocks},
          {"thin_provisioning", n.thin_provisioning},
          {"format_index", n.format_index},
          {"metadata_extended", n.metadata_extended},
          {"logical_block_bytes", n.logical_block_bytes},
          {"formats", f},
          {"nguid", str_or_null(n.nguid)},
          {"eui64", str_or_null(n.eui64)}};
}

json health_json(const probe::NvmeHealth& h) {
  return {{"critical_warning", h.critical_warning},
          {"critical_warnings", h.critical_warnings},
          {"temperature_c", json_opt(h.temperature_c)},
          {"available_spare_percent", h.available_spare_percent},
          {"spare_threshold_percent", h.spare_threshold_percent},
          {"percentage_used", h.percentage_used},
          {"data_units_read", u128(h.data_units_read)},
          {"data_units_written", u128(h.data_units_written)},
          {"host_read_commands", u128(h.host_read_commands)},
          {"host_write_commands", u128(h.host_write_commands)},
          {"controller_busy_minutes", u128(h.controller_busy_minutes)},
          {"power_cycles", u128(h.power_cycles)},
          {"power_on_hours", u128(h.power_on_hours)},
          {"unsafe_shutdowns", u128(h.unsafe_shutdowns)},
          {"media_errors", u128(h.media_errors)},
          {"error_log_entries", u128(h.error_log_entries)},
          {"warning_temp_minutes", h.warning_temp_minutes},
          {"critical_temp_minutes", h.critical_temp_minutes}};
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s.empty() ? "none" : s;
}

// A data unit is 1000 units of 512 bytes (Base 2.0, Figure 207, Data Units Read).
std::string data_units(const probe::NvmeU128& v) {
  if (!v.fits64()) return v.decimal();
  return fmt::format("{} ({})", v.lo, human_size(v.lo * 512000ull));
}

}  // namespace

json nvme_identity_to_json(const NvmeIdentity& id) {
  const auto& c = id.controller;
  json j{{"model", c.model}, {"serial", c.serial}, {"firmware", c.firmware}, {"solid_state", true}};
  json nv{{"controller", controller_json(c)},
          {"namespace", id.ns ? namespace_json(*id.ns) : json()},
          {"health", id.health ? health_json(*id.health) : json()}};
  if (id.ns) {
    j["capacity_sectors"] = id.ns->size_blocks;
    j["capacity_bytes"] = id.ns->capacity_bytes();
    j["logical_sector_bytes"] = id.ns->logical_block_bytes;
  } else {
    nv["namespace_note"] = id.ns_note;
  }
  if (!id.health) nv["health_error"] = id.health_error;
  j["nvme"] = nv;
  return j;
}

std::string nvme_identity_to_text(const NvmeIdentity& id) {
  const auto& c = id.controller;
  TextOut t;
  t.section("NVMe controller (Identify Controller)");
  t.line("Model", c.model);
  t.line("Serial", c.serial);
  t.line("Firmware", c.firmware);
  t.line("PCI vendor / subsystem", fmt::format("{:04x} / {:04x}", c.pci_vendor_id, c.pci_subsystem_vendor_id));
  t.line("IEEE OUI", fmt::format("{:06x}", c.ieee_oui));
  t.line("NVMe version", c.version.empty() ? "not reported (before 1.2)" : c.version);
  t.line("Controller ID", std::to_string(c.controller_id));
  t.line("Namespaces (NN)", std::to_string(c.namespaces));
  t.line("Max transfer (MDTS)", c.mdts ? fmt::format("2^{} minimum pages", c.mdts) : "no limit");
  t.line("Volatile write cache", c.volatile_write_cache ? "present" : "none");
  if (!c.total_capacity_bytes.fits64() || c.total_capacity_bytes.lo)
    t.line("Total NVM capacity", c.total_capacity_bytes.fits64() ? human_size(c.total_capacity_bytes.lo)
                                                                   : c.total_capacity_bytes.decimal() + " bytes");
  t.line("Optional admin commands", join(c.admin_commands));
  t.line("Optional NVM commands", join(c.nvm_commands));
  if (c.warning_temp_c) t.line("Warning temperature", fmt::format("{:.0f} °C", *c.warning_temp_c));
  if (c.critical_temp_c) t.line("Critical temperature", fmt::format("{:.0f} °C", *c.critical_temp_c));
  for (const auto& p : c.power_states)
    t.line(fmt::format("Power state {}", p.index),
           fmt::format("{:.2f} W{}, entry {} us, exit {} us", p.max_power_w,
                       p.non_operational ? " (non-operational)" : "", p.entry_latency_us, p.exit_latency_us));
  if (!c.subnqn.empty()) t.line("Subsystem NQN", c.subnqn);

  t.section("NVMe namespace (Identify Namespace)");
  if (id.ns) {
    const auto& n = *id.ns;
    t.line("Namespace ID", std::to_string(n.nsid));
    t.line("Size", fmt::format("{} blocks ({})", n.size_blocks, human_size(n.capacity_bytes())));
    t.line("Capacity / utilization", fmt::format("{} / {} blocks", n.capacity_blocks, n.utilization_blocks));
    t.line("Thin provisioning", n.thin_provisioning ? "yes" : "no");
    for (const auto& f : n.formats)
      t.line(fmt::format("LBA format {}", f.index),
             fmt::format("{} bytes data, {} metadata, relative performance {}{}", f.data_bytes, f.metadata_bytes,
                         f.relative_performance, f.in_use ? "  (in use)" : ""));
    if (!n.nguid.empty()) t.line("NGUID", n.nguid);
    if (!n.eui64.empty()) t.line("EUI-64", n.eui64);
  } else {
    t.line("Not read", id.ns_note);
  }

  t.section("NVMe SMART / Health log (log page 02h)");
  if (id.health) {
    const auto& h = *id.health;
    t.line("Critical warning", h.critical_warning ? fmt::format("{} ({})", hex2(h.critical_warning), join(h.critical_warnings))
                                                  : "none");
    t.line("Temperature", h.temperature_c ? fmt::format("{:.0f} °C", *h.temperature_c) : "not reported");
    t.line("Available spare", fmt::format("{} % (threshold {} %)", h.available_spare_percent, h.spare_threshold_percent));
    t.line("Percentage used", fmt::format("{} %", h.percentage_used));
    t.line("Data units read", data_units(h.data_units_read));
    t.line("Data units written", data_units(h.data_units_written));
    t.line("Host read / write commands", h.host_read_commands.decimal() + " / " + h.host_write_commands.decimal());
    t.line("Power cycles", h.power_cycles.decimal());
    t.line("Power-on hours", h.power_on_hours.decimal());
    t.line("Unsafe shutdowns", h.unsafe_shutdowns.decimal());
    t.line("Media errors", h.media_errors.decimal());
    t.line("Error log entries", h.error_log_entries.decimal());
  } else {
    t.line("Not read", id.health_error);
  }
  return std::move(t).str();
}

}  // namespace ds::report
