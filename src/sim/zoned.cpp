#include "sim/zoned.hpp"

#include <algorithm>

namespace ds::sim {

namespace {

constexpr std::uint8_t kConventional = 1, kSeqRequired = 2, kSeqPreferred = 3;
constexpr std::uint8_t kNotWritePointer = 0x0, kEmpty = 0x1, kImplicitOpen = 0x2, kFull = 0xE;
constexpr std::size_t kHeader = 64, kDescriptor = 64;

void put(std::uint8_t* p, std::uint64_t v, int bytes, bool big_endian) {
  for (int i = 0; i < bytes; ++i)
    p[big_endian ? bytes - 1 - i : i] = static_cast<std::uint8_t>(v >> (8 * i));
}

}  // namespace

bool ZoneTable::valid_reporting_options(std::uint8_t o) {
  // ZBC-2 REPORT ZONES reporting options (the ZAC REPORT ZONES EXT ones are the same codes):
  // 00h all, 01h empty, 02h/03h implicitly/explicitly opened, 04h closed, 05h full, 06h read only,
  // 07h offline, 10h reset recommended, 11h non-sequential write resources active, 3Fh not write
  // pointer. (The ZBC-2 additions for zone domains and inactive zones are left out.)
  return o <= 0x07 || o == 0x10 || o == 0x11 || o == 0x3F;
}

ZoneTable::ZoneTable(const ZonedSpec& s, std::uint64_t capacity, std::uint32_t sector_bytes)
    : model_(s.model), zone_sectors_(s.zone_bytes / sector_bytes), capacity_(capacity) {
  if (!s.enabled() || zone_sectors_ == 0) {
    zone_sectors_ = 0;
    return;
  }
  const std::uint64_t n = (capacity + zone_sectors_ - 1) / zone_sectors_;
  const std::uint8_t seq = model_ == ZonedModel::host_managed ? kSeqRequired : kSeqPreferred;
  zone_type_.assign(n, seq);
  std::fill_n(zone_type_.begin(), std::min(s.conventional_zones, n), kConventional);
  wp_.assign(n, 0);
  non_seq_.assign(n, false);
}

ZoneTable::Info ZoneTable::info(std::uint64_t z) const {
  Info i;
  i.type = zone_type_[z];
  i.start = z * zone_sectors_;
  i.length = std::min(zone_sectors_, capacity_ - i.start);
  i.non_seq = non_seq_[z];
  if (i.type == kConventional) {
    i.condition = kNotWritePointer;
    i.write_pointer = ~std::uint64_t{0};  // ZBC: invalid for a conventional zone
    return i;
  }
  i.write_pointer = i.start + wp_[z];
  i.condition = wp_[z] == 0 ? kEmpty : wp_[z] >= i.length ? kFull : kImplicitOpen;
  return i;
}

ZoneTable::WriteCheck ZoneTable::write(std::uint64_t lba, std::uint64_t sectors) {
  if (!enabled() || sectors == 0) return WriteCheck::ok;
  const std::uint64_t first = zone_of(lba), last = zone_of(lba + sectors - 1);
  if (model_ == ZonedModel::host_managed) {
    // A write may span conventional zones only; in a sequential-write-required zone it must start
    // at the pointer and stay inside the zone.
    for (std::uint64_t z = first + 1; z <= last; ++z)
      if (zone_type_[z] == kSeqRequired || zone_type_[z - 1] == kSeqRequired) return WriteCheck::boundary;
    if (zone_type_[first] == kSeqRequired) {
      if (lba != first * zone_sectors_ + wp_[first]) return WriteCheck::unaligned;
      wp_[first] += sectors;
    }
    return WriteCheck::ok;
  }
  // Host aware: taken anywhere; the pointers follow.
  for (std::uint64_t z = first; z <= last; ++z) {
    if (zone_type_[z] == kConventional) continue;
    const std::uint64_t start = z * zone_sectors_;
    const std::uint64_t from = std::max(lba, start) - start;
    const std::uint64_t to = std::min(lba + sectors, start + zone_sectors_) - start;
    if (from != wp_[z]) non_seq_[z] = true;
    wp_[z] = std::max(wp_[z], to);
  }
  return WriteCheck::ok;
}

bool ZoneTable::reset(std::uint64_t lba, bool all) {
  if (!enabled()) return false;
  if (all) {
    std::fill(wp_.begin(), wp_.end(), 0);
    std::fill(non_seq_.begin(), non_seq_.end(), false);
    return true;
  }
  if (lba >= capacity_ || lba % zone_sectors_ != 0) return false;
  const std::uint64_t z = zone_of(lba);
  if (zone_type_[z] == kConventional) return false;
  wp_[z] = 0;
  non_seq_[z] = false;
  return true;
}

bool ZoneTable::matches(std::uint64_t z, std::uint8_t options) const {
  const Info i = info(z);
  switch (options) {
    case 0x00: return true;
    case 0x01: return i.condition == kEmpty;
    case 0x02: return i.condition == kImplicitOpen;
    case 0x05: return i.condition == kFull;
    case 0x11: return i.non_seq;
    case 0x3F: return i.condition == kNotWritePointer;
    default: return false;  // conditions the simulator never has (explicitly open, closed, ...)
  }
}

std::optional<std::vector<std::uint8_t>> ZoneTable::report(std::uint64_t start_lba, std::size_t alloc,
                                                           bool big_endian, std::uint8_t options,
                                                           bool partial) const {
  if (!enabled() || start_lba >= capacity_) return std::nullopt;
  const std::size_t room = alloc > kHeader ? (alloc - kHeader) / kDescriptor : 0;
  std::vector<std::uint8_t> p(kHeader, 0);
  std::uint64_t listed = 0;
  bool same_type = true, same_length = true, last_differs = false;
  Info first{};
  for (std::uint64_t z = zone_of(start_lba); z < zone_count(); ++z) {
    if (!matches(z, options)) continue;
    const Info i = info(z);
    if (listed == 0) first = i;
    same_type = same_type && i.type == first.type;
    if (i.length != first.length) {
      if (z + 1 == zone_count()) last_differs = true;
      else same_length = false;
    }
    ++listed;
    if (listed > room) {
      if (partial) break;
      continue;  // counted in the list length, not sent
    }
    std::uint8_t d[kDescriptor] = {};
    d[0] = i.type;
    d[1] = static_cast<std::uint8_t>(i.condition << 4 | (i.non_seq ? 0x02 : 0));
    put(&d[8], i.length, 8, big_endian);
    put(&d[16], i.start, 8, big_endian);
    put(&d[24], i.write_pointer, 8, big_endian);
    p.insert(p.end(), d, d + kDescriptor);
  }
  const std::uint64_t in_list = partial ? std::min<std::uint64_t>(listed, room) : listed;
  put(&p[0], std::min<std::uint64_t>(in_list * kDescriptor, 0xFFFFFFFFu), 4, big_endian);
  // SAME (ZBC-1): 1 all alike, 2 alike but for the last zone's length, 3 one length but types
  // differ, 0 lengths and types differ.
  const bool equal_lengths = same_length && !last_differs;
  p[4] = same_type ? (equal_lengths ? 1 : same_length ? 2 : 0) : (equal_lengths ? 3 : 0);
  put(&p[8], capacity_ - 1, 8, big_endian);
  if (p.size() > alloc) p.resize(alloc);
  return p;
}

}  // namespace ds::sim
