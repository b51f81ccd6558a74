// JSON and text renderings of an AtaIdentity (+ SmartReport).
#include "report/ata_identity_report.hpp"
#include "report/text_out.hpp"

#include "probe/zones.hpp"

#include <fmt/format.h>

#include <string_view>
#include <vector>

namespace ds::report {
namespace {

using nlohmann::json;
using probe::AtaIdentity;
using probe::Feature;
using probe::SmartReport;

json feature_json(const Feature& f) {
  json j;
  j["supported"] = f.supported;
  if (!f.supported) j["enabled"] = false;           // cannot be on if the drive lacks it
  else if (f.enabled) j["enabled"] = *f.enabled;
  else j["enabled"] = nullptr;                       // supported, enabled word not valid
  return j;
}

template <class T>
json opt_json(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

std::vector<int> bits_list(unsigned mask, int count) {
  std::vector<int> out;
  for (int i = 0; i < count; ++i)
    if ((mask >> i) & 1u) out.push_back(i);
  return out;
}

// Aligned "label: value" lines under section headings.
std::string modes_text(std::string_view prefix, unsigned mask, int count,
                       std::optional<int> selected) {
  std::string s;
  for (int m : bits_list(mask, count)) {
    if (!s.empty()) s += ' ';
    if (selected && *selected == m) s += '*';
    s += fmt::format("{}{}", prefix, m);
  }
  return s.empty() ? "none" : s;
}

// TRIM on a disk that spins: a conventional (CMR) disk has nothing to gain from it, a
// drive-managed SMR disk does (it frees space in its media cache and bands), so the pair is one of
// the few hints such a drive gives. A hint, not a verdict.
bool trim_on_rotating_media(const AtaIdentity& id) {
  return id.trim.supported && id.rotation_rate_rpm && *id.rotation_rate_rpm > 1;
}

std::string size_text(std::uint64_t bytes) {
  return fmt::format("{:.2f} GB ({:.2f} GiB)", static_cast<double>(bytes) / 1e9,
                     static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0));
}

}  // namespace

std::string feature_state_text(const Feature& f) {
  if (!f.supported) return "not supported";
  if (!f.enabled) return "supported, state unknown";
  return *f.enabled ? "enabled" : "supported, disabled";
}

json smart_to_json(const SmartReport& s) {
  json j;
  j["available"] = s.available;
  j["status_good"] = opt_json(s.status_good);
  j["overall"] = opt_json(s.overall);
  j["bad_sectors"] = opt_json(s.bad_sectors);
  j["power_on_hours"] = opt_json(s.power_on_hours());
  j["power_cycles"] = opt_json(s.power_cycles);
  j["temperature_c"] = opt_json(s.temperature_c());
  j["self_test_status"] = s.self_test_status;
  j["offline_collection_status"] = s.offline_collection_status;
  j["short_test_minutes"] = opt_json(s.short_test_minutes);
  j["extended_test_minutes"] = opt_json(s.extended_test_minutes);
  j["conveyance_test_minutes"] = opt_json(s.conveyance_test_minutes);
  json attrs = json::array();
  for (const auto& a : s.attributes) {
    json x;
    x["id"] = a.id;
    x["name"] = a.name;
    x["value"] = a.value;
    x["worst"] = a.worst;
    x["threshold"] = opt_json(a.threshold);
    x["raw"] = a.raw;
    x["raw_hex"] = a.raw_hex();
    x["pretty"] = a.pretty;
    x["pretty_value"] = a.pretty_value;
    x["pretty_unit"] = a.pretty_unit;
    x["prefailure"] = a.prefailure;
    x["online"] = a.online;
    x["good_now"] = opt_json(a.good_now);
    x["good_in_the_past"] = opt_json(a.good_in_the_past);
    x["warn"] = a.warn;
    attrs.push_back(std::move(x));
  }
  j["attributes"] = std::move(attrs);
  return j;
}

json identity_to_json(const AtaIdentity& id, const SmartReport* smart) {
  json j;
  j["model"] = id.model;
  j["serial"] = id.serial;
  j["firmware"] = id.firmware;
  j["device_type"] = id.atapi ? "atapi" : "ata";
  j["removable_media"] = id.removable_media;
  j["wwn"] = id.wwn ? json(fmt::format("{:016x}", *id.wwn)) : json(nullptr);

  j["capacity_sectors"] = id.capacity_sectors;
  j["capacity_bytes"] = id.capacity_bytes;
  j["logical_sector_bytes"] = id.logical_sector_bytes;
  j["physical_sector_bytes"] = id.physical_sector_bytes;
  j["alignment_offset_sectors"] = id.alignment_offset;
  j["logical_per_physical_sectors"] = id.logical_per_physical;
  j["lba28_sectors"] = id.lba28_sectors;
  j["lba48_supported"] = id.lba48_supported;
  j["lba48_sectors"] = id.lba48_supported ? json(id.lba48_sectors) : json(nullptr);
  j["chs"] = {{"cylinders", id.chs.cylinders},
              {"heads", id.chs.heads},
              {"sectors_per_track", id.chs.sectors_per_track}};

  j["rotation_rate_rpm"] = opt_json(id.rotation_rate_rpm);
  j["solid_state"] = id.solid_state;
  j["form_factor"] = id.form_factor ? json(probe::form_factor_name(id.form_factor)) : json(nullptr);

  j["ata_major_versions"] = probe::ata_major_version_names(id.ata_major_versions);
  j["transport"] = id.sata ? "serial" : "parallel";
  json gens = json::array();
  for (int g : id.sata_gens_supported) gens.push_back(probe::sata_gen_gbps(g));
  j["sata_speeds_gb_s"] = gens;
  j["sata_current_speed_gb_s"] =
      id.sata_gen_current ? json(probe::sata_gen_gbps(*id.sata_gen_current)) : json(nullptr);
  j["udma_modes"] = bits_list(id.udma_supported, 7);
  j["udma_mode_selected"] = opt_json(id.udma_selected);
  j["mwdma_modes"] = bits_list(id.mwdma_supported, 3);
  j["mwdma_mode_selected"] = opt_json(id.mwdma_selected);
  j["buffer_size_bytes"] = id.buffer_size_raw ? json(std::uint32_t{id.buffer_size_raw} * 512u)
                                              : json(nullptr);

  j["ncq"] = {{"supported", id.ncq.supported},
              {"depth", id.ncq.supported ? json(id.ncq_depth) : json(nullptr)}};
  j["tcq"] = feature_json(id.tcq);
  j["tcq"]["depth"] = id.tcq.supported ? json(id.tcq_depth) : json(nullptr);

  j["aam"] = feature_json(id.aam);
  j["aam"]["current_level"] = opt_json(id.aam_current_level);
  j["aam"]["recommended_level"] = opt_json(id.aam_recommended_level);
  j["apm"] = feature_json(id.apm);
  j["apm"]["level"] = opt_json(id.apm_level);
  j["write_cache"] = feature_json(id.write_cache);
  j["read_ahead"] = feature_json(id.read_look_ahead);
  j["power_management"] = feature_json(id.power_management);
  j["hpa"] = feature_json(id.hpa);
  j["puis"] = feature_json(id.puis);
  j["flush_cache_ext"] = feature_json(id.flush_cache_ext);
  j["gpl"] = feature_json(id.gpl);
  j["trim"] = {{"supported", id.trim.supported},
               {"deterministic_read", id.trim_deterministic},
               {"read_zeroes", id.trim_zeroes},
               {"on_rotating_media", trim_on_rotating_media(id)}};
  j["zoned"] = probe::zoned_capabilities_name(id.zoned);
  j["write_cache_non_volatile"] = id.nv_write_cache;
  j["encrypts_all_user_data"] = id.encrypts_all;
  j["security"] = feature_json(id.security);
  j["security"]["locked"] = id.security_locked;
  j["security"]["frozen"] = id.security_frozen;
  j["security"]["count_expired"] = id.security_count_expired;
  j["security"]["enhanced_erase_supported"] = id.security_enhanced_erase;
  j["security"]["erase_minutes"] = id.security.supported ? json(id.security_erase_minutes) : json(nullptr);
  j["security"]["enhanced_erase_minutes"] =
      id.security.supported && id.security_enhanced_erase ? json(id.security_enhanced_erase_minutes)
                                                          : json(nullptr);

  json sm = feature_json(id.smart);
  sm["error_log"] = id.smart_error_log.supported;
  sm["self_test"] = id.smart_self_test.supported;
  if (smart) sm.update(smart_to_json(*smart));
  j["smart"] = std::move(sm);

  j["checksum"] = probe::checksum_name(id.checksum);
  return j;
}

namespace {

void identity_section(TextOut& t, const AtaIdentity& id) {
  t.section("Identity");
  t.line("Model", id.model);
  t.line("Serial", id.serial);
  t.line("Firmware", id.firmware);
  t.line("Device type", fmt::format("{}, {} media", id.atapi ? "ATAPI" : "ATA",
                                    id.removable_media ? "removable" : "non-removable"));
  if (id.wwn) t.line("World wide name", fmt::format("{:016x}", *id.wwn));
  t.line("IDENTIFY checksum", probe::checksum_name(id.checksum));
}

void capacity_section(TextOut& t, const AtaIdentity& id) {
  t.section("Capacity");
  t.line("Capacity", fmt::format("{} sectors, {} bytes = {}", id.capacity_sectors,
                                 id.capacity_bytes, size_text(id.capacity_bytes)));
  t.line("LBA28 sectors", fmt::format("{}", id.lba28_sectors));
  t.line("48-bit LBA", id.lba48_supported ? fmt::format("supported, {} sectors", id.lba48_sectors)
                                          : std::string("not supported"));
  t.line("Logical sector", fmt::format("{} bytes", id.logical_sector_bytes));
  t.line("Physical sector",
         id.logical_per_physical > 1
             ? fmt::format("{} bytes ({} logical per physical, LBA 0 at offset {})",
                           id.physical_sector_bytes, id.logical_per_physical, id.alignment_offset)
             : fmt::format("{} bytes", id.physical_sector_bytes));
  t.line("Default CHS", fmt::format("{}/{}/{}", id.chs.cylinders, id.chs.heads,
                                    id.chs.sectors_per_track));
  if (id.solid_state) t.line("Rotation rate", "solid state (non-rotating)");
  else if (id.rotation_rate_rpm) t.line("Rotation rate", fmt::format("{} rpm", *id.rotation_rate_rpm));
  else if (id.rotation_raw) t.line("Rotation rate", fmt::format("reserved value {:04x}h", id.rotation_raw));
  else t.line("Rotation rate", "not reported");
  t.line("Form factor", probe::form_factor_name(id.form_factor));
}

void interface_section(TextOut& t, const AtaIdentity& id) {
  t.section("Interface");
  const auto versions = probe::ata_major_version_names(id.ata_major_versions);
  std::string vs;
  for (const auto& v : versions) vs += (vs.empty() ? "" : ", ") + v;
  t.line("ATA major versions", vs.empty() ? "not reported" : vs);
  if (id.sata) {
    std::string gens;
    for (int g : id.sata_gens_supported)
      gens += fmt::format("{}Gen{} ({:.1f} Gb/s)", gens.empty() ? "" : ", ", g, probe::sata_gen_gbps(g));
    t.line("Transport", "Serial ATA");
    t.line("SATA speeds", gens.empty() ? "none reported" : gens);
    t.line("Negotiated speed", id.sata_gen_current
                                   ? fmt::format("Gen{} ({:.1f} Gb/s)", *id.sata_gen_current,
                                                 probe::sata_gen_gbps(*id.sata_gen_current))
                                   : std::string("not reported"));
  } else {
    t.line("Transport", "Parallel ATA (word 76 not reported)");
  }
  t.line("UDMA modes", modes_text("udma", id.udma_supported, 7, id.udma_selected));
  t.line("MWDMA modes", modes_text("mdma", id.mwdma_supported, 3, id.mwdma_selected));
  t.line("Buffer size (word 21)", id.buffer_size_raw
                                      ? fmt::format("{} KiB (obsolete field)", id.buffer_size_kib())
                                      : std::string("not reported"));
}

void queuing_section(TextOut& t, const AtaIdentity& id) {
  t.section("Queuing");
  t.line("NCQ", id.ncq.supported ? fmt::format("supported, queue depth {}", id.ncq_depth)
                                 : std::string("not supported"));
  t.line("Legacy TCQ", id.tcq.supported ? fmt::format("{}, queue depth {}",
                                                      feature_state_text(id.tcq), id.tcq_depth)
                                        : std::string("not supported"));
}

void features_section(TextOut& t, const AtaIdentity& id) {
  t.section("Features");
  std::string aam = feature_state_text(id.aam);
  if (id.aam.supported) {
    aam += fmt::format(", current level {}, vendor recommended {}", *id.aam_current_level,
                       *id.aam_recommended_level);
  } else if (id.words[94] != 0) {
    // Keep what the drive put in w94 visible, and why it is not used (see identify.cpp).
    aam += fmt::format(" (word 94 = {:04x}h ignored: word 83 bit 9 is clear)", id.words[94]);
  }
  t.line("Acoustic management (AAM)", aam);
  std::string apm = feature_state_text(id.apm);
  // w91 holds a level the drive applies only while APM is enabled.
  if (id.apm_level && id.apm.is_enabled()) apm += fmt::format(", level {}", *id.apm_level);
  t.line("Power management (APM)", apm);
  t.line("Write cache", feature_state_text(id.write_cache) +
                            (id.nv_write_cache ? ", all non-volatile (word 69 bit 2)" : ""));
  t.line("Read look-ahead", feature_state_text(id.read_look_ahead));
  t.line("SMART", feature_state_text(id.smart));
  t.line("48-bit address", feature_state_text(id.lba48));
  t.line("Host protected area", feature_state_text(id.hpa));
  t.line("Power-up in standby", feature_state_text(id.puis));
  std::string trim = id.trim.supported ? "supported" : "not supported";
  if (id.trim_deterministic) trim += ", deterministic read after TRIM";
  if (id.trim_zeroes) trim += ", zeroes after TRIM";
  if (trim_on_rotating_media(id)) trim += " (on rotating media: a hint of drive-managed SMR)";
  t.line("TRIM", trim);
  t.line("Zoned (word 69)", probe::zoned_capabilities_name(id.zoned));
  if (id.encrypts_all) t.line("Encryption", "all user data (word 69 bit 4)");
  std::string sec = feature_state_text(id.security);
  if (id.security.supported) {
    sec += fmt::format(", {}locked, {}frozen", id.security_locked ? "" : "not ",
                       id.security_frozen ? "" : "not ");
  }
  t.line("Security", sec);
}

// The SMART summary lines; returns the attribute table, which follows the aligned lines as a
// block of its own (empty when the drive has no SMART data).
std::string smart_section(TextOut& t, const SmartReport& smart) {
  t.section("SMART");
  if (!smart.available) {
    t.line("SMART data", "not available");
    return {};
  }
  t.line("Self-assessment", smart.status_good ? (*smart.status_good ? "passed" : "FAILED")
                                               : "not read");
  t.line("Overall (libatasmart)", smart.overall.value_or("unknown"));
  if (smart.bad_sectors) t.line("Bad sectors", fmt::format("{}", *smart.bad_sectors));
  if (auto h = smart.power_on_hours()) t.line("Power-on time", fmt::format("{:.1f} h", *h));
  if (smart.power_cycles) t.line("Power cycles", fmt::format("{}", *smart.power_cycles));
  if (auto c = smart.temperature_c()) t.line("Temperature", fmt::format("{:.1f} °C", *c));
  std::string table = fmt::format("  {:>3} {:<28} {:>5} {:>5} {:>5}  {:<16} {:<14} {:<7} {}\n",
                                  "ID", "Name", "Value", "Worst", "Thres", "Pretty", "Raw",
                                  "Type", "Good");
  for (const auto& a : smart.attributes) {
    table += fmt::format(
        "  {:>3} {:<28} {:>5} {:>5} {:>5}  {:<16} {:<14} {:<7} {}\n", a.id, a.name, a.value,
        a.worst, a.threshold ? fmt::format("{}", *a.threshold) : std::string("n/a"), a.pretty,
        a.raw_hex(), a.prefailure ? "prefail" : "old-age",
        a.good_now ? (*a.good_now ? "yes" : "NO") : "n/a");
  }
  return table;
}

}  // namespace

std::string identity_to_text(const AtaIdentity& id, const SmartReport* smart) {
  TextOut t;
  identity_section(t, id);
  capacity_section(t, id);
  interface_section(t, id);
  queuing_section(t, id);
  features_section(t, id);
  const std::string table = smart ? smart_section(t, *smart) : std::string();
  std::string out = std::move(t).str();
  return table.empty() ? out : out + "\n" + table;
}

std::string identify_words_text(std::span<const std::uint8_t, 512> block) {
  std::string s = "word";
  for (int c = 0; c < 8; ++c) s += fmt::format(" {:>4}", fmt::format("+{}", c));
  s += '\n';
  for (int row = 0; row < 32; ++row) {
    s += fmt::format("{:>4}:", row * 8);
    for (int c = 0; c < 8; ++c) {
      const std::size_t i = static_cast<std::size_t>(row * 8 + c);
      s += fmt::format(" {:04x}", block[2 * i] | (block[2 * i + 1] << 8));
    }
    s += '\n';
  }
  return s;
}

}  // namespace ds::report
