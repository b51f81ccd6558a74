// `drivescope decode`: captured pages decoded without a drive. The bytes come from a file (or
// stdin) in sg3_utils' --inhex text, hdparm's --Istdout hex words (IDENTIFY only) or raw binary,
// told apart by their content. The report uses the same code, hence the same JSON keys, as
// `identify --json` does for the same data.
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "app/identify.hpp"

namespace ds::app {

enum class DecodeKind { identify, ata_log, inquiry, vpd, sense, zones };

struct DecodeOptions {
  DecodeKind kind = DecodeKind::identify;
  std::uint8_t ata_log = 0;  // with DecodeKind::ata_log
  bool zones_zac = false;    // DecodeKind::zones: ZAC's little-endian form (else ZBC's big-endian)
  bool allow_bad_checksum = false;
};

// Reads FILE ("-" for stdin; at most 1 MiB) and decodes it. Errors (exit 1) name the input and
// say what is wrong with it.
Expected<Report> decode_file(const std::string& path, const DecodeOptions& o);

// The same on bytes in memory (tests, fuzzing); `name` goes into messages and target.name.
Expected<Report> decode_bytes(std::span<const std::uint8_t> bytes, std::string_view name,
                              const DecodeOptions& o);

// "0x47", "71", "0X30" -> the log address; nothing for anything else (text, > 0xFF).
std::optional<std::uint8_t> parse_log_address(std::string_view text);

}  // namespace ds::app
