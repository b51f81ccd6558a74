// Host-aware and host-managed zones (model key "zoned", sim/model.hpp ZonedSpec): the zone list a
// ZBC / ZAC drive keeps, its write pointers, and the REPORT ZONES reply built from them.
//
// Zones of zone_bytes tile the LBA space from LBA 0 (the last one is shorter when the capacity is
// not a multiple). The first conventional_zones are conventional (type 1: no write pointer, writes
// anywhere); the others are sequential-write-preferred (type 3) on a host-aware drive and
// sequential-write-required (type 2) on a host-managed one, each with a write pointer:
//   - a write that starts at the write pointer advances it by its length (a zone whose pointer
//     reaches its end is full, one with data short of its end implicitly opened);
//   - host managed: a write in a sequential-write-required zone that does not start at the write
//     pointer is refused (ZBC: ILLEGAL REQUEST, UNALIGNED WRITE COMMAND, 21h/04h), and one that
//     runs past the end of its zone, or from a conventional zone into a sequential one, too
//     (WRITE BOUNDARY ERROR, 21h/05h); nothing changes then;
//   - host aware: every write is taken; one that does not start at the pointer marks the zone
//     non-sequential (NON_SEQ, ZBC "sequential write preferred") and the pointer moves to the end
//     of the data written when that is further;
//   - RESET WRITE POINTER (ZBC OUT) empties a zone (or all).
// Reads are unrestricted (the drive reports URSWRZ in VPD B6h). Nothing here costs time: the drive
// checks a write when the host submits it (the order Linux keeps per zone with its zone write
// locking), and the mechanism then serves it like any write.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "sim/model.hpp"

namespace ds::sim {

class ZoneTable {
 public:
  enum class WriteCheck : std::uint8_t { ok, unaligned, boundary };
  // ZBC REPORT ZONES reporting options (byte 14 bits 5:0; ZAC: FEATURE 15:8) the table filters by.
  static bool valid_reporting_options(std::uint8_t options);

  ZoneTable() = default;
  ZoneTable(const ZonedSpec& s, std::uint64_t capacity, std::uint32_t sector_bytes);
  bool enabled() const { return zone_sectors_ > 0; }
  ZonedModel model() const { return model_; }
  std::uint64_t zone_count() const { return zone_type_.size(); }
  std::uint64_t zone_sectors() const { return zone_sectors_; }

  // A write of [lba, lba + sectors): checked and, when taken, applied to the write pointers.
  WriteCheck write(std::uint64_t lba, std::uint64_t sectors);
  // RESET WRITE POINTER of the zone starting at lba, or of every zone (all). False when lba is
  // not the start of a zone or is a conventional zone's (ZBC: INVALID FIELD IN CDB).
  bool reset(std::uint64_t lba, bool all);

  // The REPORT ZONES reply for the zones from the one holding start_lba on, cut to alloc bytes
  // (the header's list length counts every zone that matches, or with partial only those sent):
  // ZBC big-endian, ZAC little-endian. nullopt when start_lba is beyond the capacity.
  std::optional<std::vector<std::uint8_t>> report(std::uint64_t start_lba, std::size_t alloc,
                                                  bool big_endian, std::uint8_t options,
                                                  bool partial) const;

  // For tests: one zone as REPORT ZONES describes it.
  struct Info {
    std::uint8_t type = 0, condition = 0;
    bool non_seq = false;
    std::uint64_t start = 0, length = 0, write_pointer = 0;
  };
  Info info(std::uint64_t zone) const;

 private:
  std::uint64_t zone_of(std::uint64_t lba) const { return lba / zone_sectors_; }
  bool matches(std::uint64_t zone, std::uint8_t options) const;

  ZonedModel model_ = ZonedModel::none;
  std::uint64_t zone_sectors_ = 0, capacity_ = 0;
  std::vector<std::uint8_t> zone_type_;  // 1 conventional, 2 SWR, 3 SWP
  std::vector<std::uint64_t> wp_;        // sectors written from the zone's start (sequential zones)
  std::vector<bool> non_seq_;
};

}  // namespace ds::sim
