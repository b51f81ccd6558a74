// General Purpose Logs (ACS-3 clause 9): the log directory (log 0x00) and the list of pages of
// the IDENTIFY DEVICE data log (log 0x30, page 0x00). Pure decoders over 512-byte pages.
//
// Why read them: the directory is where a drive says which logs it really keeps (Device
// Statistics, NCQ error log, SATA PHY counters, ...), whatever IDENTIFY claims; and reading a
// log is the plainest way to see how a drive answers a command it does not implement (an ATA
// abort: ERR in STATUS, ABRT in ERROR), which drivescope must decode rather than mistake for a
// transport failure.
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "drivescope/expected.hpp"

namespace ds::probe {

struct LogDirectoryEntry {
  std::uint8_t address = 0;
  std::uint16_t pages = 0;  // number of 512-byte pages the drive keeps at this address
};

struct LogDirectory {
  std::uint16_t version = 0;              // word 0: GPL version (0x0001 in ACS-3)
  std::vector<LogDirectoryEntry> logs;    // addresses 0x01..0xFF with a non-zero page count
  bool lists(std::uint8_t address) const;
};

// Log 0x00 page 0: word 0 = version, word N (N = 1..255) = pages at log address N (ACS-3 9.2).
// Fails on a page that is not 512 bytes or whose version word is 0 (no directory at all).
Expected<LogDirectory> decode_log_directory(std::span<const std::uint8_t> page);

// Log 0x30 page 0x00, "List of supported IDENTIFY DEVICE data log pages" (ACS-3 9.10.2):
// bytes 0..7 a header whose bits 23:16 are the page number (0), byte 8 the number of entries,
// bytes 9.. the page numbers. Fails when the header names another page or the count overruns.
Expected<std::vector<std::uint8_t>> decode_identify_log_pages(std::span<const std::uint8_t> page);

// Names from ACS-3 Table A.2 (log addresses) and 9.10 (IDENTIFY DEVICE data log pages);
// "vendor specific" / "reserved" otherwise.
std::string_view log_name(std::uint8_t address);
std::string_view identify_log_page_name(std::uint8_t page);

}  // namespace ds::probe

#include "drivescope/device.hpp"
#include "probe/zones.hpp"

namespace ds::probe {

// A command that did not succeed, kept as the drive answered it (ATA registers included), so
// that an abort is reported as the drive's answer and not as a broken link.
struct LogReadFailure {
  std::string command;             // e.g. "READ LOG EXT log 0x00 page 0"
  Outcome outcome = Outcome::good;
  std::optional<AtaOutput> ata;
  std::string message;
};

struct GplProbe {
  std::optional<LogDirectory> directory;
  std::optional<std::vector<std::uint8_t>> identify_pages;  // when log 0x30 is listed
  std::optional<PositioningRanges> positioning_ranges;       // when log 0x47 is listed
  std::vector<LogReadFailure> failures;
};

// Reads log 0x00 and, when the directory lists them, page 0 of log 0x30 and the Concurrent
// Positioning Ranges log 0x47 (as many pages as listed, at most 17); all on the allowlist.
GplProbe probe_gpl(Device& dev);

}  // namespace ds::probe
