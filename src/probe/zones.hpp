// Pure decoders for what modern drives say about their layout: the concurrent positioning ranges
// of a multi-actuator drive (ATA log 47h, SCSI VPD page B9h) and a REPORT ZONES reply (ZBC REPORT
// ZONES, ZAC REPORT ZONES EXT). Bytes in, a value out; no device access, no printing.
//
// Why: a dual-actuator drive (Seagate MACH.2) shows one LBA space whose halves belong to
// different actuators, and says so only in these pages; a zoned drive's REPORT ZONES is the one
// place its zone sizes and types are written down.
#pragma once
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "drivescope/expected.hpp"

namespace ds::probe {

// ---- Concurrent positioning ranges ---------------------------------------------------------------

struct PositioningRange {
  std::uint8_t number = 0;            // range number (0 for the first)
  std::uint8_t storage_elements = 0;  // number of storage elements (actuators) behind the range
  std::uint64_t lowest_lba = 0;
  std::uint64_t lba_count = 0;
};

struct PositioningRanges {
  std::vector<PositioningRange> ranges;
  // What is unusual in the list, in words: ranges out of order, overlapping, leaving a gap, not
  // starting at LBA 0, numbered out of sequence. The decode is kept; the list says what to doubt.
  std::vector<std::string> problems;
};

// ATA Concurrent Positioning Ranges log, log address 47h page 0 and following (ACS-5, clause 9,
// "Concurrent Positioning Ranges log"): byte 0 the number of range descriptors, bytes 1..63
// reserved, then 32-byte descriptors from byte 64: byte 0 range number, byte 1 number of storage
// elements, bytes 8..15 lowest LBA and 16..23 number of LBAs (QWords, little-endian, bits 47:0).
// The log is as many 512-byte pages as the log directory says (up to 17 for 255 ranges); the
// buffer must be whole pages and hold every descriptor the count announces.
Expected<PositioningRanges> decode_cpr_log(std::span<const std::uint8_t> log);

// SCSI Concurrent Positioning Ranges VPD page B9h (SBC-5, VPD parameters, "Concurrent
// Positioning Ranges VPD page"): the 4-byte VPD header, bytes
// 4..63 reserved, then 32-byte descriptors from byte 64 with the same fields as the ATA log, but
// big-endian; their number is (page length + 4 - 64) / 32. A page length that does not leave whole
// descriptors is an error, as is one the buffer does not hold.
Expected<PositioningRanges> decode_cpr_vpd(std::span<const std::uint8_t> page);

// ---- REPORT ZONES --------------------------------------------------------------------------------

// The layout of a REPORT ZONES reply is the same in ZBC (SCSI ZBC IN / REPORT ZONES, "REPORT ZONES
// parameter data") and ZAC (ZAC MANAGEMENT IN / REPORT ZONES EXT, its "REPORT ZONES EXT data"),
// but the integers are big-endian in ZBC and little-endian in ZAC: SAT-4 and Linux's libata
// translate one into the other. (Section numbers move between the drafts; the clause titles
// quoted here do not.)
enum class ZoneByteOrder { kZbcBigEndian, kZacLittleEndian };

struct Zone {
  std::uint8_t type = 0;       // 1 conventional, 2 sequential write required, 3 sequential write
                               // preferred, 4 sequential or before required, 5 gap (ZBC-2)
  std::uint8_t condition = 0;  // 0 not write pointer, 1 empty, 2/3 opened, 4 closed, 5 inactive,
                               // Dh read only, Eh full, Fh offline
  bool non_sequential = false;  // NON_SEQ
  bool reset_recommended = false;  // RESET
  std::uint64_t length = 0;     // logical blocks
  std::uint64_t start_lba = 0;
  std::uint64_t write_pointer = 0;
};

struct ZoneTypeCount {
  std::uint8_t type = 0;
  std::uint64_t zones = 0;
  std::uint64_t blocks = 0;      // sum of their lengths
  std::uint64_t first_lba = 0;   // start of the first zone of the type in the reply
};
struct ZoneSizeCount {
  std::uint64_t length = 0;  // logical blocks
  std::uint64_t zones = 0;
};
struct ZoneConditionCount {
  std::uint8_t condition = 0;
  std::uint64_t zones = 0;
};

struct ZoneReport {
  std::uint32_t list_bytes = 0;     // ZONE LIST LENGTH of the header: bytes of descriptors
  std::uint64_t zones_listed = 0;   // list_bytes / 64: zones the drive has from the start LBA
  std::uint8_t same = 0;            // SAME field (ZBC-1): 0 zones may differ, 1 all alike, ...
  std::uint64_t max_lba = 0;        // MAXIMUM LBA (the last LBA of the device)
  std::vector<Zone> zones;          // the descriptors the buffer holds
  bool truncated = false;           // the buffer held fewer descriptors than the list length says
  // Summaries of `zones`, in order of first appearance (types, conditions) or of size (sizes).
  std::vector<ZoneTypeCount> types;
  std::vector<ZoneSizeCount> sizes;
  std::vector<ZoneConditionCount> conditions;
  std::vector<std::string> problems;  // zones not contiguous, write pointer outside its zone, ...
};

// The 64-byte header (bytes 0..3 zone list length, byte 4 bits 3:0 SAME, bytes 8..15 maximum LBA)
// then 64-byte zone descriptors (byte 0 bits 3:0 zone type; byte 1 bits 7:4 zone condition, bit 1
// NON_SEQ, bit 0 RESET; bytes 8..15 zone length; 16..23 zone start LBA; 24..31 write pointer LBA).
// Needs the whole header; the reply may stop before the list does (the allocation length).
Expected<ZoneReport> decode_report_zones(std::span<const std::uint8_t> reply, ZoneByteOrder order);

// A drive's whole zone list, which one reply of bounded size does not hold (a 14 TB drive with
// 256 MiB zones has 52156: 3.3 MB of descriptors). `fetch(start_lba)` returns one reply of the
// zones from start_lba (the caller's command and allocation length); the first is asked from
// LBA 0, each next one from the end of the last zone decoded, until the first header's count is
// read or `max_replies` were asked. Stopping early (the limit, a failed or odd reply) leaves
// `truncated` set and says why under `problems`: the summary then covers the zones decoded.
// The probes' bounds: 64 KiB a reply (1023 zones), at most 256 replies (261888 zones: a 30 TB
// drive of 256 MiB zones has about 112000), so identify sends at most 256 commands for it.
inline constexpr std::size_t kZoneReplyBytes = 64 * 1024;
inline constexpr std::size_t kMaxZoneReplies = 256;
using ZoneFetch = std::function<Expected<std::vector<std::uint8_t>>(std::uint64_t start_lba)>;
Expected<ZoneReport> read_zone_list(const ZoneFetch& fetch, ZoneByteOrder order, std::size_t max_replies);

std::string_view zone_type_name(std::uint8_t type);            // "conventional", ...
std::string_view zone_condition_name(std::uint8_t condition);  // "empty", "full", ...

// IDENTIFY word 69 bits 1:0 zoned capabilities (ACS-4 IDENTIFY data, word 69) and SCSI VPD B1h
// ZONED (SBC-4 6.6.3) share their codes: 0 not reported, 1 host aware, 2 device managed.
std::string_view zoned_capabilities_name(std::uint8_t code);

}  // namespace ds::probe
