// Pure decoders for SCSI responses: standard INQUIRY, the VPD pages drivescope reads, READ
// CAPACITY(10)/(16) and the Caching mode page. Each takes the bytes the device returned and gives
// a value or a clear error; lengths come from the response header but are never trusted beyond
// the buffer. Field positions follow SPC-4 (INQUIRY, VPD 0x00/0x80/0x83), SAT-3 (VPD 0x89) and
// SBC-3/SBC-4 (VPD 0xB0/0xB1, READ CAPACITY, Caching mode page).
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "drivescope/expected.hpp"

namespace ds::scsi {

using Bytes = std::span<const std::uint8_t>;

// ---- standard INQUIRY (SPC-4 6.6.2) -------------------------------------------------------------

struct StandardInquiry {
  std::uint8_t peripheral_qualifier = 0;  // 0 = LU connected, 1 = not connected, 3 = no LU
  std::uint8_t device_type = 0;           // PDT: 0 disk, 5 CD/DVD, 0x14 host-managed zoned, ...
  bool rmb = false;                       // removable medium
  bool lu_cong = false;                   // SPC-5 (byte 1 bit 6)
  std::uint8_t hot_pluggable = 0;         // SPC-6 (byte 1 bits 5-4)
  std::uint8_t version = 0;               // 3 SPC, 4 SPC-2, 5 SPC-3, 6 SPC-4, 7 SPC-5
  bool aerc = false, trmtsk = false;      // obsolete (byte 3 bits 7, 6)
  bool norm_aca = false;
  bool hisup = false;
  std::uint8_t response_data_format = 0;  // 2 for every current device
  std::uint8_t additional_length = 0;
  std::size_t length = 0;                 // bytes actually decoded: min(additional + 5, buffer)
  bool sccs = false, acc = false;
  std::uint8_t tpgs = 0;
  bool third_party_copy = false;  // 3PC
  bool protect = false;
  bool bque = false;              // obsolete basic queuing (byte 6 bit 7)
  bool enc_serv = false, vs6 = false, multi_p = false, mchngr = false, addr16 = false;
  bool rel_adr = false;           // obsolete (byte 7 bit 7)
  bool wbus16 = false, sync = false, linked = false, tran_dis = false;
  bool cmd_que = false;           // byte 7 bit 1: the device supports command queuing (TCQ)
  bool vs7 = false;
  std::string vendor;    // T10 vendor identification, trailing spaces trimmed
  std::string product;
  std::string revision;
  std::vector<std::uint8_t> vendor_specific;  // bytes 36..55 when present
  // SPI-only byte 56 (present when length > 56).
  std::optional<std::uint8_t> spi_clocking;
  bool qas = false, ius = false;
  std::vector<std::uint16_t> version_descriptors;  // bytes 58..73, zeros dropped
};

Expected<StandardInquiry> decode_standard_inquiry(Bytes data);
std::string_view device_type_name(std::uint8_t pdt);   // "disk", "tape", ...
std::string_view version_name(std::uint8_t version);   // "SPC-4", ... or "" when unknown

// ---- VPD pages ---------------------------------------------------------------------------------

// The four-byte VPD header (SPC-4 7.8.1): checks the page code and bounds the page by the buffer.
struct VpdHeader {
  std::uint8_t peripheral_qualifier = 0;
  std::uint8_t device_type = 0;
  std::uint8_t page_code = 0;
  std::size_t page_length = 0;  // from the header
  Bytes body;                   // bytes 4 .. min(4 + page_length, buffer)
  bool truncated = false;       // the buffer held less than the header announced
};
Expected<VpdHeader> decode_vpd_header(Bytes data, std::uint8_t expected_page);

// VPD 0x00 Supported VPD pages (SPC-4 7.8.16).
Expected<std::vector<std::uint8_t>> decode_supported_vpd_pages(Bytes data);
std::string_view vpd_page_name(std::uint8_t page);

// VPD 0x80 Unit Serial Number (SPC-4 7.8.17); leading and trailing spaces trimmed.
Expected<std::string> decode_unit_serial(Bytes data);

// VPD 0x83 Device Identification (SPC-4 7.8.6).
struct Designator {
  std::uint8_t protocol_identifier = 0;  // meaningful only when protocol_valid
  bool protocol_valid = false;           // PIV set and association is target port / device
  std::uint8_t code_set = 0;             // 1 binary, 2 ASCII, 3 UTF-8
  std::uint8_t association = 0;          // 0 LU, 1 target port, 2 target device
  std::uint8_t type = 0;                 // 0 vendor specific, 1 T10, 2 EUI-64, 3 NAA, ...
  std::vector<std::uint8_t> raw;         // the designator bytes
  std::optional<std::uint8_t> naa;       // NAA field (first nibble) for type 3
  std::string value;  // as sg_vpd shows it: "0x5000c5003011cb2b", "naa.5000C5...", "0x1", ...
};
struct DeviceIdentification {
  std::vector<Designator> designators;
  bool truncated = false;  // the last descriptor ran past the page (kept out)
};
Expected<DeviceIdentification> decode_device_identification(Bytes data);
std::string_view designator_type_name(std::uint8_t type);
std::string_view association_name(std::uint8_t association);
std::string_view code_set_name(std::uint8_t code_set);
std::string_view protocol_name(std::uint8_t protocol_identifier);

// VPD 0x89 ATA Information (SAT-3 12.4.2).
struct AtaInformation {
  std::string sat_vendor, sat_product, sat_revision;  // trailing spaces trimmed
  std::array<std::uint8_t, 20> signature{};           // bytes 36..55
  bool signature_sata = false;  // byte 36 is 0x34 (a Register D2H FIS): the drive is on SATA
  std::string signature_device;  // "ata", "atapi", "port multiplier", "semb" or "unknown"
  std::uint8_t command_code = 0;  // 0xEC IDENTIFY DEVICE, 0xA1 IDENTIFY PACKET DEVICE, 0 none
  bool has_identify = false;
  std::array<std::uint8_t, 512> identify{};
  // The identity strings of the IDENTIFY data (ACS-3 7.12.7, words 10-19, 23-26, 27-46), for the
  // summary line; the full decode is the ATA decoder's job.
  std::string ata_model, ata_serial, ata_firmware;
  std::span<const std::uint8_t, 512> identify_data() const { return identify; }
};
Expected<AtaInformation> decode_ata_information(Bytes data);

// VPD 0xB0 Block Limits (SBC-3 6.6.4, SBC-4 6.6.4). Fields past byte 15 exist only on SBC-3 and
// later pages (page length 0x3C); they are empty when the page is shorter.
struct BlockLimits {
  bool wsnz = false;
  std::uint8_t max_compare_write_length = 0;
  std::uint16_t optimal_transfer_length_granularity = 0;  // blocks
  std::uint32_t max_transfer_length = 0;                  // blocks, 0 = not reported
  std::uint32_t optimal_transfer_length = 0;              // blocks, 0 = not reported
  std::optional<std::uint32_t> max_prefetch_length;
  std::optional<std::uint32_t> max_unmap_lba_count;
  std::optional<std::uint32_t> max_unmap_descriptor_count;
  std::optional<std::uint32_t> optimal_unmap_granularity;
  std::optional<bool> unmap_granularity_alignment_valid;
  std::optional<std::uint32_t> unmap_granularity_alignment;
  std::optional<std::uint64_t> max_write_same_length;
  std::optional<std::uint32_t> max_atomic_transfer_length;
  std::optional<std::uint32_t> atomic_alignment;
  std::optional<std::uint32_t> atomic_transfer_length_granularity;
  std::optional<std::uint32_t> max_atomic_transfer_length_with_boundary;
  std::optional<std::uint32_t> max_atomic_boundary_size;
};
Expected<BlockLimits> decode_block_limits(Bytes data);

// VPD 0xB1 Block Device Characteristics (SBC-3 6.6.2, SBC-4 6.6.3).
struct BlockCharacteristics {
  std::uint16_t medium_rotation_rate = 0;  // 0 not reported, 1 non-rotating, else rpm
  std::uint8_t product_type = 0;
  std::uint8_t wabereq = 0, wacereq = 0;
  std::uint8_t nominal_form_factor = 0;    // 0 not reported, 1 5.25", 2 3.5", 3 2.5", 4 1.8", 5 <1.8"
  std::uint8_t zoned = 0;                  // 0 not reported, 1 host aware, 2 device managed
  bool fuab = false, vbuls = false;
  // JSON convention (docs/cli.md): null when not reported, 1 for solid state, else rpm.
  std::optional<std::uint32_t> rotation_rate_rpm() const {
    if (medium_rotation_rate == 0 || (medium_rotation_rate >= 2 && medium_rotation_rate <= 0x400) ||
        medium_rotation_rate == 0xFFFF)
      return std::nullopt;  // 0002h-0400h and FFFFh are reserved
    return medium_rotation_rate;
  }
};
Expected<BlockCharacteristics> decode_block_characteristics(Bytes data);
std::string_view form_factor_name(std::uint8_t nominal_form_factor);
std::string_view zoned_name(std::uint8_t zoned);

// ---- READ CAPACITY (SBC-3 5.15.2, 5.16.2) ------------------------------------------------------

struct Capacity {
  bool from_16 = false;
  std::uint64_t last_lba = 0;
  std::uint32_t block_length = 0;  // logical block length in bytes
  // READ CAPACITY(16) only:
  std::uint8_t p_type = 0;
  bool prot_en = false;
  std::uint8_t p_i_exponent = 0;
  std::uint8_t lbppbe = 0;  // logical blocks per physical block exponent
  bool lbpme = false, lbprz = false;
  std::uint16_t lowest_aligned_lba = 0;
  // READ CAPACITY(10) says FFFFFFFFh when the device is too large for it.
  bool needs_16() const { return !from_16 && last_lba == 0xFFFFFFFFu; }
  std::uint64_t blocks() const { return last_lba + 1; }
  std::uint64_t bytes() const { return blocks() * block_length; }
  std::uint32_t physical_block_length() const {
    return lbppbe < 16 ? block_length << lbppbe : block_length;
  }
};
Expected<Capacity> decode_read_capacity10(Bytes data);
Expected<Capacity> decode_read_capacity16(Bytes data);

// ---- MODE SENSE Caching mode page 0x08 (SBC-3 6.4.5) -------------------------------------------

struct CachingPage {
  bool ps = false;  // parameters saveable
  bool ic = false, abpf = false, cap = false, disc = false, size = false;
  bool wce = false;  // write cache enable
  bool mf = false;
  bool rcd = false;  // read cache disable
  std::uint8_t demand_read_retention_priority = 0, write_retention_priority = 0;
  std::uint16_t disable_prefetch_transfer_length = 0;
  std::uint16_t min_prefetch = 0, max_prefetch = 0, max_prefetch_ceiling = 0;
  bool fsw = false, lbcss = false;
  bool dra = false;  // disable read-ahead: read look-ahead is on when this is clear
  bool nv_dis = false;
  std::uint8_t cache_segments = 0;
  std::uint16_t cache_segment_size = 0;
};
// A page on its own (starting at the page code byte).
Expected<CachingPage> decode_caching_page(Bytes page);
// A whole MODE SENSE(6) or (10) response: skips the header and block descriptors, then finds
// page 0x08 among the pages returned.
Expected<CachingPage> decode_mode_sense_caching(Bytes data, bool ten_byte_cdb);

}  // namespace ds::scsi
