// SMART attributes and health, decoded by libatasmart (atasmart.h).
//
// libatasmart only decodes what it holds in an SkDisk. An SkDisk opened with no device name is a
// "blob" disk that takes its IDENTIFY / SMART pages from sk_disk_set_blob(). Both paths below end
// there: a saved blob (skdump --save, identify --from-file) and the pages read live from a drive
// through our own passthrough (smart_from_pages builds the blob). So one decoder, libatasmart's,
// serves both, and its quirk table (keyed on model/firmware) applies to both.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "drivescope/expected.hpp"

namespace ds::probe {

struct SmartAttribute {
  std::uint8_t id = 0;
  std::string name;                      // libatasmart's name, e.g. "reallocated-sector-count"
  std::uint8_t value = 0;                // normalised current value
  std::uint8_t worst = 0;                // normalised worst value
  std::optional<std::uint8_t> threshold; // from the thresholds page, when libatasmart trusts it
  std::array<std::uint8_t, 6> raw_bytes{};  // vendor raw field as stored (byte 0 first)
  std::uint64_t raw = 0;                 // raw_bytes read little-endian (48 bits)
  std::uint64_t pretty_value = 0;        // libatasmart's interpreted value, in pretty_unit
  std::string pretty_unit;               // "ms", "sectors", "mK", "%", "MB", "" or "unknown"
  std::string pretty;                    // human text, e.g. "54 ms", "69 sectors", "36.0 °C"
  bool prefailure = false;               // flag bit 0: pre-failure (else old-age)
  bool online = false;                   // flag bit 1: updated during normal operation
  std::optional<bool> good_now;          // value above threshold (only for meaningful thresholds)
  std::optional<bool> good_in_the_past;  // worst above threshold
  bool warn = false;                     // libatasmart's "should be looked at"
  std::string raw_hex() const;           // "0x" + the 48-bit `raw`, most significant byte first
};

struct SmartReport {
  bool available = false;              // SMART supported and enabled according to IDENTIFY
  std::optional<bool> status_good;     // SMART RETURN STATUS (empty when not captured)
  std::optional<std::string> overall;  // sk_smart_overall_to_string: "GOOD", "BAD_SECTOR", ...
  std::optional<std::uint64_t> bad_sectors;   // reallocated + pending (libatasmart)
  std::optional<std::uint64_t> power_on_ms;   // attribute 9 (or 240), quirk-corrected
  std::optional<std::uint64_t> power_cycles;  // attribute 12
  std::optional<std::uint64_t> temperature_mkelvin;  // attribute 194/190/231 (millikelvin)
  std::optional<double> power_on_hours() const;
  std::optional<double> temperature_c() const;
  // Self-test capabilities and status from the SMART data page (sk_disk_smart_parse).
  std::string offline_collection_status;
  std::string self_test_status;
  unsigned self_test_remaining_percent = 0;
  std::optional<unsigned> short_test_minutes, extended_test_minutes, conveyance_test_minutes;
  std::vector<SmartAttribute> attributes;
};

// Decodes a libatasmart blob (records IDFY, SMST, SMDT, SMTH) through sk_disk_set_blob.
Expected<SmartReport> smart_from_blob(std::span<const std::uint8_t> blob);

// Decodes SMART pages read from a live drive: builds a blob and hands it to libatasmart.
// `status_good` is the SMART RETURN STATUS result when it was read.
Expected<SmartReport> smart_from_pages(std::span<const std::uint8_t, 512> identify,
                                       std::span<const std::uint8_t, 512> smart_data,
                                       std::span<const std::uint8_t, 512> thresholds,
                                       std::optional<bool> status_good);

// Builds a blob in libatasmart's format: records "tag | u32 big-endian length | payload" in the
// order IDFY, SMST (when status is known), SMDT, SMTH (when given). Usable with skdump --load.
std::vector<std::uint8_t> make_atasmart_blob(std::span<const std::uint8_t, 512> identify,
                                             const std::uint8_t* smart_data /* 512 or null */,
                                             const std::uint8_t* thresholds /* 512 or null */,
                                             std::optional<bool> status_good);

// What libatasmart itself says about a blob: it loads (sk_disk_set_blob accepts it), its
// IDENTIFY strings (sk_disk_identify_parse) and the stored SMART status (sk_disk_smart_status).
struct AtasmartBlobInfo {
  std::string model, serial, firmware;
  bool smart_available = false;
  std::optional<bool> status_good;
};
Expected<AtasmartBlobInfo> atasmart_check_blob(std::span<const std::uint8_t> blob);

}  // namespace ds::probe
