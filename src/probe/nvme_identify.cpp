#include "probe/nvme_identify.hpp"

#include <fmt/format.h>
#include <libnvme.h>

#include <algorithm>
#include <cstring>
#include <endian.h>

namespace ds::probe {
namespace {

// A struct of libnvme's filled from the bytes (memcpy: the span need not be aligned).
template <class T>
Expected<T> as_struct(std::span<const std::uint8_t> bytes, const char* what) {
  static_assert(std::is_trivially_copyable_v<T>);
  if (bytes.size() != sizeof(T))
    return make_error(fmt::format("{}: {} bytes, not the {} the structure has", what, bytes.size(), sizeof(T)));
  T t;
  std::memcpy(&t, bytes.data(), sizeof(T));
  return t;
}

// ASCII fields are space-padded (NVMe Base 2.0, 1.5: "ASCII string"); some controllers pad with
// NULs. A byte outside printable ASCII is shown as '?' so that no control byte reaches a terminal.
std::string ascii(const char* p, std::size_t n) {
  std::string s(p, n);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\0')) s.pop_back();
  for (char& c : s)
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) > 0x7e) c = '?';
  return s;
}

NvmeU128 u128(const std::uint8_t (&b)[16]) {
  NvmeU128 v;
  for (int i = 7; i >= 0; --i) v.lo = (v.lo << 8) | b[i];
  for (int i = 15; i >= 8; --i) v.hi = (v.hi << 8) | b[i];
  return v;
}

std::string hex(const std::uint8_t* p, std::size_t n) {
  if (std::all_of(p, p + n, [](std::uint8_t b) { return b == 0; })) return {};
  std::string s;
  for (std::size_t i = 0; i < n; ++i) s += fmt::format("{:02x}", p[i]);
  return s;
}

// Temperatures are kelvins in the structures (WCTEMP, CCTEMP, the composite temperature); 0 is
// "not reported".
std::optional<double> celsius(unsigned kelvin) {
  if (kelvin == 0) return std::nullopt;
  return static_cast<double>(kelvin) - 273.15;
}

template <std::size_t N>
std::vector<std::string> bit_names(unsigned v, const char* const (&names)[N]) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < N; ++i)
    if (v & (1u << i)) out.emplace_back(names[i]);
  for (std::size_t i = N; i < 16; ++i)
    if (v & (1u << i)) out.push_back(fmt::format("bit {}", i));
  return out;
}

// OACS (Base 2.0, Figure 275, bits 0-10) and ONCS (bits 0-8), named after the commands.
constexpr const char* kOacs[] = {"security_send_receive", "format_nvm", "firmware_download",
                                 "namespace_management", "device_self_test", "directives", "nvme_mi",
                                 "virtualization_management", "doorbell_buffer_config", "get_lba_status",
                                 "command_and_feature_lockdown"};
constexpr const char* kOncs[] = {"compare", "write_uncorrectable", "dataset_management", "write_zeroes",
                                 "save_select_features", "reservations", "timestamp", "verify", "copy"};
// Critical Warning of the SMART / Health log (Base 2.0, Figure 207).
constexpr const char* kCritical[] = {"spare_below_threshold", "temperature", "reliability_degraded",
                                     "read_only", "volatile_memory_backup_failed",
                                     "persistent_memory_read_only"};

}  // namespace

std::string NvmeU128::decimal() const {
  if (hi == 0) return std::to_string(lo);
  unsigned __int128 v = (static_cast<unsigned __int128>(hi) << 64) | lo;
  std::string s;
  while (v) {
    s.insert(s.begin(), static_cast<char>('0' + static_cast<int>(v % 10)));
    v /= 10;
  }
  return s;
}

Expected<NvmeController> decode_nvme_controller(std::span<const std::uint8_t> bytes) {
  auto s = as_struct<nvme_id_ctrl>(bytes, "Identify Controller");
  if (!s) return s.error();
  const nvme_id_ctrl& c = *s;
  NvmeController r;
  r.pci_vendor_id = le16toh(c.vid);
  r.pci_subsystem_vendor_id = le16toh(c.ssvid);
  r.serial = ascii(c.sn, sizeof c.sn);
  r.model = ascii(c.mn, sizeof c.mn);
  r.firmware = ascii(c.fr, sizeof c.fr);
  r.ieee_oui = static_cast<std::uint32_t>(c.ieee[0]) | (static_cast<std::uint32_t>(c.ieee[1]) << 8) |
               (static_cast<std::uint32_t>(c.ieee[2]) << 16);
  r.cmic = c.cmic;
  r.mdts = c.mdts;
  r.controller_id = le16toh(c.cntlid);
  // VER (Base 2.0, Figure 275 bytes 83:80 = the VS register): MJR 31:16, MNR 15:8, TER 7:0.
  const std::uint32_t ver = le32toh(c.ver);
  if (ver) r.version = fmt::format("{}.{}.{}", ver >> 16, (ver >> 8) & 0xff, ver & 0xff);
  r.controller_type = c.cntrltype;
  r.oacs = le16toh(c.oacs);
  r.oncs = le16toh(c.oncs);
  r.admin_commands = bit_names(r.oacs, kOacs);
  r.nvm_commands = bit_names(r.oncs, kOncs);
  r.namespaces = le32toh(c.nn);
  r.vwc = c.vwc;
  r.volatile_write_cache = (c.vwc & NVME_CTRL_VWC_PRESENT) != 0;
  r.warning_temp_c = celsius(le16toh(c.wctemp));
  r.critical_temp_c = celsius(le16toh(c.cctemp));
  r.total_capacity_bytes = u128(c.tnvmcap);
  r.unallocated_capacity_bytes = u128(c.unvmcap);
  r.sqes = c.sqes;
  r.cqes = c.cqes;
  r.maxcmd = le16toh(c.maxcmd);
  r.subnqn = ascii(c.subnqn, strnlen(c.subnqn, sizeof c.subnqn));
  // NPSS is 0-based; at most 32 descriptors exist.
  const unsigned n_ps = std::min<unsigned>(c.npss + 1u, 32);
  for (unsigned i = 0; i < n_ps; ++i) {
    const nvme_id_psd& p = c.psd[i];
    NvmePowerState ps;
    ps.index = i;
    const double scale = (p.flags & NVME_PSD_FLAGS_MXPS) ? 0.0001 : 0.01;
    ps.max_power_w = le16toh(p.mp) * scale;
    ps.non_operational = (p.flags & NVME_PSD_FLAGS_NOPS) != 0;
    ps.entry_latency_us = le32toh(p.enlat);
    ps.exit_latency_us = le32toh(p.exlat);
    r.power_states.push_back(ps);
  }
  return r;
}

Expected<NvmeNamespace> decode_nvme_namespace(std::span<const std::uint8_t> bytes, std::uint32_t nsid) {
  auto s = as_struct<nvme_id_ns>(bytes, "Identify Namespace");
  if (!s) return s.error();
  const nvme_id_ns& n = *s;
  NvmeNamespace r;
  r.nsid = nsid;
  r.size_blocks = le64toh(n.nsze);
  r.capacity_blocks = le64toh(n.ncap);
  r.utilization_blocks = le64toh(n.nuse);
  r.nsfeat = n.nsfeat;
  r.thin_provisioning = (n.nsfeat & 1) != 0;
  // FLBAS (Base 2.0, Figure 280 / NVM Command Set 1.0, Figure 97): format index bits 3:0, with
  // bits 6:5 as its upper bits when more than 16 formats exist; bit 4 extended metadata.
  r.format_index = (n.flbas & 0x0f) | (((n.flbas >> 5) & 0x3) << 4);
  r.metadata_extended = (n.flbas & 0x10) != 0;
  const unsigned n_formats = std::min<unsigned>(n.nlbaf + 1u + n.nulbaf, 64);
  for (unsigned i = 0; i < n_formats; ++i) {
    const nvme_lbaf& f = n.lbaf[i];
    NvmeLbaFormat lf;
    lf.index = i;
    // LBADS is a power of two; below 9 (512 bytes) the format is not supported (the field is 0).
    lf.data_bytes = (f.ds >= 9 && f.ds < 64) ? (std::uint64_t{1} << f.ds) : 0;
    lf.metadata_bytes = le16toh(f.ms);
    lf.relative_performance = f.rp & 0x3;
    lf.in_use = i == r.format_index;
    r.formats.push_back(lf);
  }
  if (r.format_index < r.formats.size()) r.logical_block_bytes = r.formats[r.format_index].data_bytes;
  r.nguid = hex(n.nguid, sizeof n.nguid);
  r.eui64 = hex(n.eui64, sizeof n.eui64);
  return r;
}

Expected<NvmeHealth> decode_nvme_health(std::span<const std::uint8_t> bytes) {
  auto s = as_struct<nvme_smart_log>(bytes, "SMART / Health Information log");
  if (!s) return s.error();
  const nvme_smart_log& l = *s;
  NvmeHealth r;
  r.critical_warning = l.critical_warning;
  r.critical_warnings = bit_names(l.critical_warning, kCritical);
  r.temperature_c = celsius(static_cast<unsigned>(l.temperature[0]) | (static_cast<unsigned>(l.temperature[1]) << 8));
  r.available_spare_percent = l.avail_spare;
  r.spare_threshold_percent = l.spare_thresh;
  r.percentage_used = l.percent_used;
  r.data_units_read = u128(l.data_units_read);
  r.data_units_written = u128(l.data_units_written);
  r.host_read_commands = u128(l.host_reads);
  r.host_write_commands = u128(l.host_writes);
  r.controller_busy_minutes = u128(l.ctrl_busy_time);
  r.power_cycles = u128(l.power_cycles);
  r.power_on_hours = u128(l.power_on_hours);
  r.unsafe_shutdowns = u128(l.unsafe_shutdowns);
  r.media_errors = u128(l.media_errors);
  r.error_log_entries = u128(l.num_err_log_entries);
  r.warning_temp_minutes = le32toh(l.warning_temp_time);
  r.critical_temp_minutes = le32toh(l.critical_comp_time);
  return r;
}

}  // namespace ds::probe
