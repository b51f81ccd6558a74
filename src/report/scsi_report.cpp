// JSON and text renderings of a ScsiProbe (see scsi_report.hpp).
#include "report/scsi_report.hpp"
#include "report/json_write.hpp"
#include "report/text_out.hpp"
#include "report/zones_report.hpp"

#include <fmt/format.h>

#include <utility>

namespace ds::report {
namespace {

using nlohmann::json;
using namespace ds::scsi;


json inquiry_json(const StandardInquiry& q) {
  json j;
  j["peripheral_qualifier"] = q.peripheral_qualifier;
  j["device_type"] = q.device_type;
  j["device_type_name"] = device_type_name(q.device_type);
  j["removable"] = q.rmb;
  j["version"] = q.version;
  j["version_name"] = version_name(q.version);
  j["response_data_format"] = q.response_data_format;
  j["hisup"] = q.hisup;
  j["norm_aca"] = q.norm_aca;
  j["sccs"] = q.sccs;
  j["acc"] = q.acc;
  j["tpgs"] = q.tpgs;
  j["third_party_copy"] = q.third_party_copy;
  j["protect"] = q.protect;
  j["enc_serv"] = q.enc_serv;
  j["multi_p"] = q.multi_p;
  j["addr16"] = q.addr16;
  j["wbus16"] = q.wbus16;
  j["sync"] = q.sync;
  j["cmd_que"] = q.cmd_que;
  j["bque"] = q.bque;
  j["length_bytes"] = q.length;
  json vd = json::array();
  for (auto v : q.version_descriptors) vd.push_back(fmt::format("0x{:04x}", v));
  j["version_descriptors"] = vd;
  return j;
}

json designator_json(const Designator& d) {
  json j;
  j["association"] = association_name(d.association);
  j["type"] = designator_type_name(d.type);
  j["code_set"] = code_set_name(d.code_set);
  j["protocol"] = d.protocol_valid ? json(protocol_name(d.protocol_identifier)) : json(nullptr);
  j["naa"] = json_opt(d.naa);
  j["value"] = d.value;
  return j;
}

// The optional 32-bit limits of VPD B0h, each under its JSON key (null when the page is too short
// to hold it): one table instead of a line apiece.
constexpr std::pair<const char*, std::optional<std::uint32_t> BlockLimits::*> kOptionalLimits[] = {
    {"max_prefetch_length_blocks", &BlockLimits::max_prefetch_length},
    {"max_unmap_lba_count", &BlockLimits::max_unmap_lba_count},
    {"max_unmap_descriptor_count", &BlockLimits::max_unmap_descriptor_count},
    {"optimal_unmap_granularity_blocks", &BlockLimits::optimal_unmap_granularity},
    {"unmap_granularity_alignment", &BlockLimits::unmap_granularity_alignment},
    {"max_atomic_transfer_length_blocks", &BlockLimits::max_atomic_transfer_length},
    {"atomic_alignment", &BlockLimits::atomic_alignment},
    {"atomic_transfer_length_granularity", &BlockLimits::atomic_transfer_length_granularity},
    {"max_atomic_transfer_length_with_boundary_blocks",
     &BlockLimits::max_atomic_transfer_length_with_boundary},
    {"max_atomic_boundary_size_blocks", &BlockLimits::max_atomic_boundary_size},
};

json block_limits_json(const BlockLimits& b) {
  json j;
  j["wsnz"] = b.wsnz;
  j["max_compare_write_length_blocks"] = b.max_compare_write_length;
  j["optimal_transfer_length_granularity_blocks"] = b.optimal_transfer_length_granularity;
  j["max_transfer_length_blocks"] = b.max_transfer_length;
  j["optimal_transfer_length_blocks"] = b.optimal_transfer_length;
  for (const auto& [key, field] : kOptionalLimits) j[key] = json_opt(b.*field);
  j["unmap_granularity_alignment_valid"] = json_opt(b.unmap_granularity_alignment_valid);
  j["max_write_same_length_blocks"] = json_opt(b.max_write_same_length);
  return j;
}

json characteristics_json(const BlockCharacteristics& c) {
  json j;
  j["medium_rotation_rate"] = c.medium_rotation_rate;
  j["rotation_rate_rpm"] = json_opt(c.rotation_rate_rpm());
  j["product_type"] = c.product_type;
  j["wabereq"] = c.wabereq;
  j["wacereq"] = c.wacereq;
  j["nominal_form_factor"] = form_factor_name(c.nominal_form_factor);
  j["zoned"] = zoned_name(c.zoned);
  j["fuab"] = c.fuab;
  j["vbuls"] = c.vbuls;
  return j;
}

json capacity_json(const Capacity& c) {
  json j;
  j["command"] = c.from_16 ? "READ CAPACITY(16)" : "READ CAPACITY(10)";
  j["last_lba"] = c.last_lba;
  j["logical_block_bytes"] = c.block_length;
  if (c.from_16) {
    j["physical_block_bytes"] = c.physical_block_length();
    j["logical_per_physical_exponent"] = c.lbppbe;
    j["lowest_aligned_lba"] = c.lowest_aligned_lba;
    j["prot_en"] = c.prot_en;
    j["p_type"] = c.p_type;
    j["p_i_exponent"] = c.p_i_exponent;
    j["lbpme"] = c.lbpme;
    j["lbprz"] = c.lbprz;
  }
  return j;
}

// The caching mode page's one-bit fields (SBC-4 6.5.6), each under its JSON key.
constexpr std::pair<const char*, bool CachingPage::*> kCachingBits[] = {
    {"wce", &CachingPage::wce},   {"rcd", &CachingPage::rcd},     {"dra", &CachingPage::dra},
    {"ic", &CachingPage::ic},     {"abpf", &CachingPage::abpf},   {"cap", &CachingPage::cap},
    {"disc", &CachingPage::disc}, {"size", &CachingPage::size},   {"mf", &CachingPage::mf},
    {"fsw", &CachingPage::fsw},   {"lbcss", &CachingPage::lbcss}, {"nv_dis", &CachingPage::nv_dis},
};

json caching_json(const CachingPage& c) {
  json j;
  for (const auto& [key, bit] : kCachingBits) j[key] = c.*bit;
  j["cache_segments"] = c.cache_segments;
  j["cache_segment_size_bytes"] = c.cache_segment_size;
  j["disable_prefetch_transfer_length_blocks"] = c.disable_prefetch_transfer_length;
  j["min_prefetch"] = c.min_prefetch;
  j["max_prefetch"] = c.max_prefetch;
  j["max_prefetch_ceiling_blocks"] = c.max_prefetch_ceiling;
  return j;
}

json ata_info_json(const AtaInformation& a) {
  json j;
  j["sat_vendor"] = a.sat_vendor;
  j["sat_product"] = a.sat_product;
  j["sat_revision"] = a.sat_revision;
  j["signature_sata"] = a.signature_sata;
  j["signature_device"] = a.signature_device;
  j["command_code"] = hex2(a.command_code);
  j["has_identify"] = a.has_identify;
  if (a.has_identify) {
    j["ata_model"] = a.ata_model;
    j["ata_serial"] = a.ata_serial;
    j["ata_firmware"] = a.ata_firmware;
  }
  return j;
}

std::string yes_no(bool b) { return b ? "yes" : "no"; }

std::string blocks_text(std::uint64_t n, std::string_view zero_meaning) {
  if (n == 0 && !zero_meaning.empty()) return fmt::format("0 ({})", zero_meaning);
  return fmt::format("{} blocks", n);
}

}  // namespace

nlohmann::json scsi_identity_to_json(const probe::ScsiProbe& p, const sysfs::DriveFacts* facts) {
  json j;
  const auto& q = p.inquiry;
  j["vendor"] = q ? json(q->vendor) : json(nullptr);
  j["model"] = q ? json(q->product) : json(nullptr);
  j["firmware"] = q ? json(q->revision) : json(nullptr);
  j["serial"] = json_opt(p.serial);
  if (p.capacity) {
    j["capacity_sectors"] = p.capacity->blocks();
    j["capacity_bytes"] = p.capacity->bytes();
    j["logical_sector_bytes"] = p.capacity->block_length;
    j["physical_sector_bytes"] = p.capacity->from_16 ? json(p.capacity->physical_block_length())
                                                     : json(nullptr);
  } else {
    j["capacity_sectors"] = nullptr;
    j["capacity_bytes"] = nullptr;
    j["logical_sector_bytes"] = nullptr;
    j["physical_sector_bytes"] = nullptr;
  }
  const auto& bc = p.block_characteristics;
  j["rotation_rate_rpm"] = bc ? json_opt(bc->rotation_rate_rpm()) : json(nullptr);
  j["form_factor"] = bc && bc->nominal_form_factor != 0
                         ? json(form_factor_name(bc->nominal_form_factor))
                         : json(nullptr);
  // The same vocabulary as the ATA report's word 69 (probe::zoned_capabilities_name).
  j["zoned"] = bc ? json(zoned_name(bc->zoned)) : json(nullptr);
  j["concurrent_positioning_ranges"] =
      p.positioning_ranges ? ranges_to_json(*p.positioning_ranges, "VPD page 0xb9") : json(nullptr);
  j["zones"] = p.zones ? zones_to_json(*p.zones, "ZBC REPORT ZONES") : json(nullptr);
  // Tagged command queuing on SCSI: CmdQue claims it; the host's queue depth is what Linux uses.
  j["tcq"] = {{"supported", q ? json(q->cmd_que) : json(nullptr)},
              {"depth", facts && facts->queue_depth ? json(*facts->queue_depth) : json(nullptr)}};
  if (p.caching) {
    j["write_cache"] = {{"supported", true}, {"enabled", p.caching->wce}};
    j["read_ahead"] = {{"supported", true}, {"enabled", !p.caching->dra}};
  } else {
    j["write_cache"] = {{"supported", nullptr}, {"enabled", nullptr}};
    j["read_ahead"] = {{"supported", nullptr}, {"enabled", nullptr}};
  }
  // What Linux knows of the device is the report's top-level "host" (app/identify.cpp), as for ATA.

  json s;
  s["inquiry"] = q ? inquiry_json(*q) : json(nullptr);
  json pages = json::array();
  for (auto pg : p.supported_vpd_pages)
    pages.push_back({{"code", hex2(pg)}, {"name", vpd_page_name(pg)}});
  s["vpd_pages"] = pages;
  json ids = json::array();
  if (p.device_id)
    for (const auto& d : p.device_id->designators) ids.push_back(designator_json(d));
  s["device_id"] = ids;
  s["block_limits"] = p.block_limits ? block_limits_json(*p.block_limits) : json(nullptr);
  s["block_characteristics"] = bc ? characteristics_json(*bc) : json(nullptr);
  s["read_capacity"] = p.capacity ? capacity_json(*p.capacity) : json(nullptr);
  s["caching"] = p.caching ? caching_json(*p.caching) : json(nullptr);
  s["ata_information"] = p.ata_info ? ata_info_json(*p.ata_info) : json(nullptr);
  j["scsi"] = s;

  json errors = json::array();
  for (const auto& st : p.steps) {
    if (st.ok()) continue;
    errors.push_back({{"command", st.command},
                      {"outcome", to_string(st.outcome)},
                      {"message", st.message},
                      {"decode_error", st.decode_error}});
  }
  j["probe_errors"] = errors;
  return j;
}

namespace {

// Without only_present, a section names what could not be read; with it, absent data has no line.
void identity_section(TextOut& t, const probe::ScsiProbe& p, bool only_present) {
  if (p.inquiry || !only_present) t.section("Identity");
  if (const auto& q = p.inquiry) {
    t.line("Vendor", q->vendor);
    t.line("Product", q->product);
    t.line("Revision", q->revision);
    t.line("Device type", fmt::format("{} (PDT {}){}", device_type_name(q->device_type),
                                      q->device_type, q->rmb ? ", removable" : ""));
    const auto vn = version_name(q->version);
    t.line("Version", vn.empty() ? hex2(q->version) : fmt::format("{} ({})", hex2(q->version), vn));
  } else if (!only_present) {
    t.line("INQUIRY", "not available");
  }
  if (p.serial || !only_present) {
    if (only_present && !p.inquiry) t.section("Identity");
    t.line("Serial number", p.serial ? *p.serial : "not reported");
  }
}

void capacity_section(TextOut& t, const probe::ScsiProbe& p, bool only_present) {
  if (p.capacity || p.block_characteristics || !only_present) t.section("Capacity");
  if (const auto& c = p.capacity) {
    t.line("Logical blocks", fmt::format("{} x {} bytes", c->blocks(), c->block_length));
    t.line("Capacity", fmt::format("{} bytes ({:.1f} GB)", c->bytes(), c->bytes() / 1e9));
    if (c->from_16) {
      t.line("Physical block", fmt::format("{} bytes (lowest aligned LBA {})",
                                           c->physical_block_length(), c->lowest_aligned_lba));
      t.line("Protection", c->prot_en ? fmt::format("type {}", c->p_type + 1) : "none");
      t.line("Thin provisioning (LBPME)", yes_no(c->lbpme));
    }
  } else if (!only_present) {
    t.line("READ CAPACITY", "not available");
  }
  if (const auto& bc = p.block_characteristics) {
    const auto rpm = bc->rotation_rate_rpm();
    t.line("Rotation rate", !rpm ? std::string("not reported")
                            : *rpm == 1 ? std::string("non-rotating (solid state)")
                                        : fmt::format("{} rpm", *rpm));
    t.line("Form factor", form_factor_name(bc->nominal_form_factor));
    if (bc->zoned) t.line("Zoned", zoned_name(bc->zoned));
  }
}

void queuing_section(TextOut& t, const probe::ScsiProbe& p, const sysfs::DriveFacts* facts, bool only_present) {
  if (p.inquiry || facts || p.caching || !only_present) t.section("Queuing and caches");
  if (p.inquiry) t.line("Command queuing (CmdQue)", p.inquiry->cmd_que ? "supported" : "not supported");
  if (facts) {
    t.line("Host queue depth",
           facts->queue_depth ? fmt::format("{}{}", *facts->queue_depth,
                                            facts->queue_depth_writable ? "" : " (fixed)")
                              : std::string("unknown"));
    if (!facts->scheduler.empty()) t.line("I/O scheduler", facts->scheduler);
    if (facts->sata_link_speed) t.line("SATA link", *facts->sata_link_speed);
  }
  if (const auto& c = p.caching) {
    t.line("Write cache (WCE)", c->wce ? "enabled" : "disabled");
    t.line("Read cache (RCD)", c->rcd ? "disabled" : "enabled");
    t.line("Read-ahead (DRA)", c->dra ? "disabled" : "enabled");
  } else if (!only_present) {
    t.line("Caching mode page", "not available");
  }
}

// The VPD pages the drive lists, its designators and its block limits: each only when read.
void vpd_sections(TextOut& t, const probe::ScsiProbe& p) {
  if (!p.supported_vpd_pages.empty()) {
    t.section("VPD pages");
    std::string list;
    for (auto pg : p.supported_vpd_pages) list += (list.empty() ? "" : " ") + hex2(pg);
    t.line("Supported (VPD 0x00)", list);
  }

  if (p.device_id && !p.device_id->designators.empty()) {
    t.section("Device identification");
    for (const auto& d : p.device_id->designators) {
      const std::string_view where = d.association == 0   ? "LU"
                                     : d.association == 1 ? "port"
                                                          : "target";
      const std::string label = fmt::format("{} {}", where, designator_type_name(d.type));
      std::string value = d.value;
      if (d.protocol_valid) value += fmt::format(" [{}]", protocol_name(d.protocol_identifier));
      t.line(label, value);
    }
  }

  if (const auto& b = p.block_limits) {
    t.section("Block limits");
    t.line("Maximum transfer length", blocks_text(b->max_transfer_length, "not reported"));
    t.line("Optimal transfer length", blocks_text(b->optimal_transfer_length, "not reported"));
    t.line("Optimal transfer granularity", blocks_text(b->optimal_transfer_length_granularity, ""));
    if (b->max_unmap_lba_count)
      t.line("Maximum unmap LBA count", blocks_text(*b->max_unmap_lba_count, "unmap not supported"));
    if (b->optimal_unmap_granularity)
      t.line("Optimal unmap granularity", blocks_text(*b->optimal_unmap_granularity, "not reported"));
    if (b->max_write_same_length)
      t.line("Maximum write same length", blocks_text(*b->max_write_same_length, "not reported"));
  }
}

void ata_info_section(TextOut& t, const probe::ScsiProbe& p) {
  if (const auto& a = p.ata_info) {
    t.section("ATA information (SAT)");
    t.line("SAT layer", fmt::format("{} {} {}", a->sat_vendor, a->sat_product, a->sat_revision));
    t.line("Device signature", fmt::format("{} ({})", a->signature_device,
                                           a->signature_sata ? "SATA" : "not SATA"));
    if (a->has_identify) {
      t.line("ATA model", a->ata_model);
      t.line("ATA serial", a->ata_serial);
      t.line("ATA firmware", a->ata_firmware);
    }
  }
}

// The commands that failed or whose answers could not be decoded.
std::string problems_text(const probe::ScsiProbe& p) {
  TextOut t(34);
  t.section("Problems");
  for (const auto& st : p.steps) {
    if (st.ok()) continue;
    t.line(st.command, st.decode_error.empty() ? st.message
                                               : "answer not understood: " + st.decode_error);
  }
  return std::move(t).str();
}

}  // namespace

std::string scsi_identity_to_text(const probe::ScsiProbe& p, const sysfs::DriveFacts* facts,
                                  bool only_present) {
  TextOut t(34);
  identity_section(t, p, only_present);
  capacity_section(t, p, only_present);
  queuing_section(t, p, facts, only_present);
  vpd_sections(t, p);
  ata_info_section(t, p);
  std::string out = std::move(t).str();
  if (p.positioning_ranges)
    out += (out.empty() ? "" : "\n") + ranges_to_text(*p.positioning_ranges, "VPD page 0xb9");
  if (p.zones) out += (out.empty() ? "" : "\n") + zones_to_text(*p.zones, "ZBC REPORT ZONES");
  if (p.any_failed()) out += "\n" + problems_text(p);
  return out;
}

}  // namespace ds::report
