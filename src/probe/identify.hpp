// Decoder for the 512-byte IDENTIFY DEVICE data block (ACS-3, T13/2161-D, IDENTIFY DEVICE command,
// its data table). A pure codec: bytes in, a value out; no device access, no printing.
//
// The block is 256 little-endian 16-bit words. Word and bit numbers below are those of the ACS-3
// IDENTIFY data table (older fields cite ATA/ATAPI-7 or ATA8-ACS where ACS-3 made them obsolete).
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "drivescope/expected.hpp"

namespace ds::probe {

// One optional feature as IDENTIFY reports it. Three states must stay distinct for the user:
// "not supported" (supported = false), "supported, disabled" and "enabled". `enabled` is empty
// when the feature is not supported or when the word carrying the enabled bit is not valid.
struct Feature {
  bool supported = false;
  std::optional<bool> enabled;
  bool is_enabled() const { return enabled.value_or(false); }
};

enum class ChecksumState {
  kValid,       // w255 low byte = 0xA5 and the 512 bytes sum to 0 mod 256
  kInvalid,     // signature present, sum wrong: the block is corrupt (or was edited)
  kNotPresent,  // w255 low byte != 0xA5: the device does not provide a checksum
};

struct Chs {
  std::uint16_t cylinders = 0;          // w1 (obsolete in ACS-3; ATA/ATAPI-7 "default cylinders")
  std::uint16_t heads = 0;              // w3
  std::uint16_t sectors_per_track = 0;  // w6
};

struct AtaIdentity {
  // --- Identity -----------------------------------------------------------------------------
  std::string model;     // w27-46, 40 ASCII characters, first character in the high byte
  std::string serial;    // w10-19, 20 characters
  std::string firmware;  // w23-26, 8 characters
  std::uint16_t general_config = 0;  // w0
  bool atapi = false;                // w0 bits 15:14 = 10b: ATAPI (PACKET) device
  bool removable_media = false;      // w0 bit 7
  bool response_incomplete = false;  // w0 bit 2: IDENTIFY data may be incomplete
  std::optional<std::uint64_t> wwn;  // w108-111 when w84 bit 8 (64-bit World Wide Name) is set

  // --- Capacity -----------------------------------------------------------------------------
  Chs chs;                                 // default CHS geometry, w1/w3/w6
  std::uint32_t lba28_sectors = 0;         // w60-61: user addressable sectors, 28-bit commands
  bool lba48_supported = false;            // w83 bit 10 (48-bit Address feature set)
  std::uint64_t lba48_sectors = 0;         // w100-103 (0 when LBA48 is not supported)
  std::uint64_t capacity_sectors = 0;      // lba48 when supported, else lba28 (else CHS product)
  std::uint32_t logical_sector_bytes = 512;   // w106 bit 12 → w117-118 (words) × 2, else 512
  std::uint32_t physical_sector_bytes = 512;  // w106 bit 13 → logical × 2^(w106 bits 3:0)
  std::uint32_t logical_per_physical = 1;     // 2^(w106 bits 3:0) when w106 bit 13
  std::uint16_t alignment_offset = 0;         // w209 bits 13:0 (logical sectors) when valid
  std::uint64_t capacity_bytes = 0;           // capacity_sectors × logical_sector_bytes

  // --- Media ---------------------------------------------------------------------------------
  // w217 Nominal Media Rotation Rate: 0 not reported (empty), 1 non-rotating (solid state),
  // 0401h-FFFEh the rate in rpm, anything else reserved (empty, raw kept in rotation_raw).
  std::optional<std::uint16_t> rotation_rate_rpm;
  std::uint16_t rotation_raw = 0;
  bool solid_state = false;   // w217 = 1
  std::uint8_t form_factor = 0;  // w168 bits 3:0 (0 = not reported); see form_factor_name()

  // --- Interface -----------------------------------------------------------------------------
  std::uint16_t ata_major_versions = 0;  // w80 (0 when 0000h/FFFFh: not reported)
  std::uint16_t ata_minor_version = 0;   // w81
  bool sata = false;                     // w76 valid (neither 0000h nor FFFFh): Serial ATA device
  std::vector<int> sata_gens_supported;  // w76 bit 1 → 1 (1.5 Gb/s), bit 2 → 2 (3.0), bit 3 → 3 (6.0)
  std::optional<int> sata_gen_current;   // w77 bits 3:1 (coded 1..3) when w77 is valid
  std::uint16_t udma_supported = 0;      // w88 bits 6:0 (valid when w53 bit 2)
  std::optional<int> udma_selected;      // w88 bits 14:8, highest set bit
  std::uint8_t mwdma_supported = 0;      // w63 bits 2:0
  std::optional<int> mwdma_selected;     // w63 bits 10:8
  std::uint8_t pio_advanced = 0;         // w64 bits 1:0 (PIO 3, PIO 4; valid when w53 bit 1)
  std::uint16_t multiple_sectors_max = 0;  // w47 bits 7:0 (READ/WRITE MULTIPLE)
  // w21: buffer size in 512-byte units. Retired since ATA/ATAPI-6 but still filled by many drives
  // of the 2000s; hdparm shows it as "cache/buffer size". Not a reliable cache size.
  std::uint16_t buffer_size_raw = 0;
  std::uint32_t buffer_size_kib() const { return buffer_size_raw / 2u; }

  // --- Queuing -------------------------------------------------------------------------------
  Feature ncq;                    // w76 bit 8 (Native Command Queuing), no enable bit in IDENTIFY
  std::uint8_t ncq_depth = 0;     // (w75 bits 4:0) + 1 when NCQ is supported, else 0
  Feature tcq;                    // legacy TCQ (ATA/ATAPI-7 w83 bit 1 / w86 bit 1; obsolete in ACS)
  std::uint8_t tcq_depth = 0;     // (w75 bits 4:0) + 1 when TCQ is supported, else 0

  // --- Features ------------------------------------------------------------------------------
  Feature smart;             // w82 bit 0 / w85 bit 0
  Feature smart_error_log;   // w84 bit 0 / w87 bit 0
  Feature smart_self_test;   // w84 bit 1 / w87 bit 1
  Feature security;          // w82 bit 1 / w85 bit 1 (details in w128)
  Feature power_management;  // w82 bit 3 / w85 bit 3
  Feature write_cache;       // w82 bit 5 / w85 bit 5 (volatile write cache)
  Feature read_look_ahead;   // w82 bit 6 / w85 bit 6
  Feature hpa;               // w82 bit 10 / w85 bit 10 (Host Protected Area)
  Feature apm;               // w83 bit 3 / w86 bit 3 (Advanced Power Management)
  std::optional<std::uint8_t> apm_level;  // w91 bits 7:0 when APM is supported
  Feature aam;               // w83 bit 9 / w86 bit 9 (Automatic Acoustic Management, ATA8-ACS;
                             // obsolete in ACS-3, still reported by the drives of its era)
  std::optional<std::uint8_t> aam_current_level;      // w94 bits 7:0, when AAM is supported
  std::optional<std::uint8_t> aam_recommended_level;  // w94 bits 15:8, when AAM is supported
  Feature puis;              // w83 bit 5 / w86 bit 5 (Power-Up In Standby)
  Feature lba48;             // w83 bit 10 / w86 bit 10
  Feature flush_cache_ext;   // w83 bit 13 / w86 bit 13
  Feature gpl;               // w84 bit 5 / w87 bit 5 (General Purpose Logging)
  Feature trim;              // w169 bit 0 (DATA SET MANAGEMENT TRIM); no enable bit
  bool trim_deterministic = false;  // w69 bit 14 (deterministic read after TRIM)
  bool trim_zeroes = false;         // w69 bit 5 (read zeroes after TRIM)

  // --- Word 69, additional supported features (ACS-4 IDENTIFY data; bits 14 and 5 above) -------
  // Zoned capabilities, bits 1:0: 0 not reported, 1 host aware, 2 device managed (3 reserved). A
  // host-managed ZAC drive leaves them 0: it tells itself apart by its device signature instead.
  std::uint8_t zoned = 0;
  bool nv_write_cache = false;       // w69 bit 2: all of the write cache is non-volatile
  bool encrypts_all = false;         // w69 bit 4: the device encrypts all user data

  // Security (w128, ACS-3 IDENTIFY data table)
  bool security_locked = false;        // w128 bit 2
  bool security_frozen = false;        // w128 bit 3
  bool security_count_expired = false; // w128 bit 4
  bool security_enhanced_erase = false;// w128 bit 5
  std::uint16_t security_erase_minutes = 0;           // w89 (×2 min, raw kept coded)
  std::uint16_t security_enhanced_erase_minutes = 0;  // w90

  // --- Validity of the feature words (ACS-3: bits 15:14 = 01b mark the word valid) -----------
  bool w83_valid = false;  // also governs w86, its "enabled" companion
  bool w84_valid = false;
  bool w87_valid = false;

  // --- Integrity -----------------------------------------------------------------------------
  ChecksumState checksum = ChecksumState::kNotPresent;  // w255

  std::array<std::uint16_t, 256> words{};  // the raw words, for --raw and for callers
};

struct DecodeOptions {
  // A wrong w255 checksum means a corrupt block: decode_identify() refuses it unless this is set
  // (e.g. for `identify --from-file` on a dump someone edited by hand).
  bool allow_bad_checksum = false;
};

// Decodes one IDENTIFY DEVICE block. `block` must be exactly 512 bytes.
Expected<AtaIdentity> decode_identify(std::span<const std::uint8_t> block,
                                      const DecodeOptions& options = {});

// Helpers shared by the reports.
std::string ata_string(std::span<const std::uint16_t> words);  // swapped and trimmed
const char* form_factor_name(std::uint8_t code);   // "3.5 inch", ..., "not reported"
const char* checksum_name(ChecksumState state);    // "valid", "invalid", "not present"
std::vector<std::string> ata_major_version_names(std::uint16_t w80);  // newest first
double sata_gen_gbps(int gen);                     // 1 → 1.5, 2 → 3.0, 3 → 6.0

}  // namespace ds::probe
