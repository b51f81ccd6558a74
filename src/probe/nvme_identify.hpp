// NVMe Identify Controller (CNS 01h), Identify Namespace (CNS 00h) and the SMART / Health
// Information log (log page 02h), decoded from the bytes a controller returns (NVM Express Base
// Specification 2.0, 5.17.2 and 5.16.1.3). Pure functions over byte spans: the same decode serves
// a live controller (passthrough/nvme_device.hpp) and a saved dump (`nvme id-ctrl -b`).
//
// The layouts are libnvme's (nvme/types.h: struct nvme_id_ctrl, nvme_id_ns, nvme_smart_log), so
// no offset here is written by hand; the fields are little-endian as the specification says.
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "drivescope/expected.hpp"

namespace ds::probe {

inline constexpr std::size_t kNvmeIdentifyBytes = 4096;
inline constexpr std::size_t kNvmeSmartLogBytes = 512;

// A 128-bit counter of the specification (capacities, the health log's counters).
struct NvmeU128 {
  std::uint64_t lo = 0, hi = 0;
  bool fits64() const { return hi == 0; }
  std::string decimal() const;  // exact, whatever its size
};

struct NvmePowerState {
  unsigned index = 0;
  double max_power_w = 0;      // MP, in 0.01 W or (MXPS set) 0.0001 W
  bool non_operational = false;
  std::uint32_t entry_latency_us = 0, exit_latency_us = 0;
};

struct NvmeController {
  std::uint16_t pci_vendor_id = 0, pci_subsystem_vendor_id = 0;
  std::string serial, model, firmware;  // trailing spaces and NULs trimmed
  std::uint32_t ieee_oui = 0;           // IEEE, stored least significant byte first
  std::uint8_t cmic = 0;                // multi-path I/O and namespace sharing
  std::uint8_t mdts = 0;                // maximum transfer, as 2^mdts minimum pages (0: no limit)
  std::uint16_t controller_id = 0;
  std::string version;                  // VER, "major.minor.tertiary"; "" when 0 (before NVMe 1.2)
  std::uint8_t controller_type = 0;     // 0 not reported, 1 I/O, 2 discovery, 3 administrative
  std::uint16_t oacs = 0, oncs = 0;     // optional admin / NVM commands (raw, decoded below)
  std::vector<std::string> admin_commands;  // names of the OACS bits set
  std::vector<std::string> nvm_commands;    // names of the ONCS bits set
  std::uint32_t namespaces = 0;         // NN: the largest namespace ID
  bool volatile_write_cache = false;    // VWC bit 0: a volatile write cache is present
  std::uint8_t vwc = 0;
  std::optional<double> warning_temp_c, critical_temp_c;  // WCTEMP / CCTEMP (0: not reported)
  NvmeU128 total_capacity_bytes, unallocated_capacity_bytes;  // TNVMCAP / UNVMCAP (0: not reported)
  std::uint8_t sqes = 0, cqes = 0;
  std::uint16_t maxcmd = 0;
  std::string subnqn;
  std::vector<NvmePowerState> power_states;  // NPSS + 1 entries
};

struct NvmeLbaFormat {
  unsigned index = 0;
  std::uint64_t data_bytes = 0;     // 2^LBADS (0: format not available, LBADS < 9)
  std::uint16_t metadata_bytes = 0;
  unsigned relative_performance = 0;  // 0 best, 1 better, 2 good, 3 degraded
  bool in_use = false;
};

struct NvmeNamespace {
  std::uint32_t nsid = 0;  // which namespace was asked (not in the structure itself)
  std::uint64_t size_blocks = 0, capacity_blocks = 0, utilization_blocks = 0;  // NSZE NCAP NUSE
  std::uint8_t nsfeat = 0;
  bool thin_provisioning = false;
  unsigned format_index = 0;        // FLBAS bits 3:0 and 6:5
  bool metadata_extended = false;   // FLBAS bit 4: metadata at the end of each block
  std::uint64_t logical_block_bytes = 0;  // of the format in use
  std::vector<NvmeLbaFormat> formats;     // NLBAF + 1 (plus NULBAF) entries
  std::string nguid, eui64;               // lowercase hex, "" when all zero
  std::uint64_t capacity_bytes() const { return size_blocks * logical_block_bytes; }
};

struct NvmeHealth {
  std::uint8_t critical_warning = 0;
  std::vector<std::string> critical_warnings;  // names of the bits set
  std::optional<double> temperature_c;         // composite temperature (0 K: not reported)
  unsigned available_spare_percent = 0, spare_threshold_percent = 0, percentage_used = 0;
  NvmeU128 data_units_read, data_units_written;  // thousands of 512-byte units
  NvmeU128 host_read_commands, host_write_commands, controller_busy_minutes, power_cycles,
      power_on_hours, unsafe_shutdowns, media_errors, error_log_entries;
  std::uint32_t warning_temp_minutes = 0, critical_temp_minutes = 0;
};

// Each takes exactly the structure's size; anything else is an error that says what was given.
Expected<NvmeController> decode_nvme_controller(std::span<const std::uint8_t> bytes);
Expected<NvmeNamespace> decode_nvme_namespace(std::span<const std::uint8_t> bytes, std::uint32_t nsid);
Expected<NvmeHealth> decode_nvme_health(std::span<const std::uint8_t> bytes);

}  // namespace ds::probe
