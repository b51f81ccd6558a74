// Concurrent positioning ranges (ATA log 47h, SCSI VPD B9h) and REPORT ZONES replies. See
// zones.hpp for the layouts and where they are defined.
#include "probe/zones.hpp"

#include <algorithm>
#include <optional>

#include <fmt/format.h>

#include "drivescope/wire.hpp"
#include "probe/scsi_decode.hpp"

namespace ds::probe {
namespace {

std::uint64_t le64(std::span<const std::uint8_t> b, std::size_t at) {
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | b[at + static_cast<std::size_t>(i)];
  return v;
}
// SCSI's byte order is the shared wire toolkit's (drivescope/wire.hpp); ATA's little-endian
// QWords and DWords are read here, their only reader.
std::uint64_t be64(std::span<const std::uint8_t> b, std::size_t at) { return wire::get_be64(b, at); }
std::uint32_t u32(std::span<const std::uint8_t> b, std::size_t at, bool big) {
  return big ? wire::get_be32(b, at)
             : (std::uint32_t{b[at + 3]} << 24) | (std::uint32_t{b[at + 2]} << 16) |
                   (std::uint32_t{b[at + 1]} << 8) | b[at];
}

constexpr std::size_t kCprHeader = 64;
constexpr std::size_t kCprDescriptor = 32;

// One 32-byte range descriptor: the two standards differ only in byte order.
PositioningRange range_at(std::span<const std::uint8_t> d, bool big) {
  PositioningRange r;
  r.number = d[0];
  r.storage_elements = d[1];
  // ATA QWords carry a 48-bit LBA in bits 47:0; the upper bits are reserved and masked so that a
  // reserved bit set by a drive does not turn into an LBA beyond any disk.
  constexpr std::uint64_t kLba48 = (std::uint64_t{1} << 48) - 1;
  r.lowest_lba = big ? be64(d, 8) : le64(d, 8) & kLba48;
  r.lba_count = big ? be64(d, 16) : le64(d, 16) & kLba48;
  return r;
}

// What a host should doubt in a range list. Linux (sd.c, libata) takes the ranges as given; we
// report what does not add up instead of refusing it, so that an odd drive is still shown.
std::vector<std::string> range_problems(const std::vector<PositioningRange>& rs) {
  std::vector<std::string> p;
  if (rs.empty()) return p;
  if (rs.front().lowest_lba != 0)
    p.push_back(fmt::format("the first range starts at LBA {}, not 0", rs.front().lowest_lba));
  for (std::size_t i = 0; i < rs.size(); ++i) {
    if (rs[i].number != i)
      p.push_back(fmt::format("descriptor {} is numbered {}", i, rs[i].number));
    if (rs[i].lba_count == 0) p.push_back(fmt::format("range {} has no LBAs", rs[i].number));
    if (i == 0) continue;
    const auto& prev = rs[i - 1];
    const std::uint64_t prev_end = prev.lowest_lba + prev.lba_count;  // one past its last LBA
    if (rs[i].lowest_lba < prev_end)
      p.push_back(fmt::format("range {} (from LBA {}) overlaps range {} (up to LBA {})", rs[i].number,
                              rs[i].lowest_lba, prev.number, prev_end - 1));
    else if (rs[i].lowest_lba > prev_end)
      p.push_back(fmt::format("LBAs {} to {} belong to no range", prev_end, rs[i].lowest_lba - 1));
  }
  return p;
}

}  // namespace

Expected<PositioningRanges> decode_cpr_log(std::span<const std::uint8_t> log) {
  if (log.empty() || log.size() % 512 != 0)
    return make_error(fmt::format(
        "Concurrent Positioning Ranges log: {} bytes, expected whole 512-byte pages", log.size()));
  const std::size_t n = log[0];
  const std::size_t need = kCprHeader + n * kCprDescriptor;
  if (need > log.size())
    return make_error(fmt::format(
        "Concurrent Positioning Ranges log: {} ranges need {} bytes, the log holds {} ({} page{})", n,
        need, log.size(), log.size() / 512, log.size() == 512 ? "" : "s"));
  PositioningRanges out;
  for (std::size_t i = 0; i < n; ++i)
    out.ranges.push_back(range_at(log.subspan(kCprHeader + i * kCprDescriptor, kCprDescriptor), false));
  out.problems = range_problems(out.ranges);
  return out;
}

Expected<PositioningRanges> decode_cpr_vpd(std::span<const std::uint8_t> page) {
  if (page.size() < 4)
    return make_error(fmt::format("Concurrent Positioning Ranges VPD page too short: {} bytes, need at least 4",
                                  page.size()));
  if (page[1] != 0xB9)
    return make_error(fmt::format("expected VPD page 0xb9 but the data holds page {:#04x}", page[1]));
  const std::size_t len = ((std::size_t{page[2]} << 8) | page[3]) + 4;
  if (len < kCprHeader || (len - kCprHeader) % kCprDescriptor != 0)
    return make_error(fmt::format(
        "Concurrent Positioning Ranges VPD page: page length {} does not leave whole 32-byte range "
        "descriptors after the 64-byte header",
        len - 4));
  if (len > page.size())
    return make_error(fmt::format(
        "Concurrent Positioning Ranges VPD page: truncated, the header announces {} bytes, the data holds {}",
        len, page.size()));
  PositioningRanges out;
  for (std::size_t at = kCprHeader; at < len; at += kCprDescriptor)
    out.ranges.push_back(range_at(page.subspan(at, kCprDescriptor), true));
  out.problems = range_problems(out.ranges);
  return out;
}

namespace {

constexpr std::size_t kZoneHeader = 64;
constexpr std::size_t kZoneDescriptor = 64;

// A reply of thousands of zones that are all wrong the same way would drown the output: the
// first few problems are kept, the rest counted.
constexpr std::size_t kMaxProblems = 16;

void summarise(ZoneReport& r) {
  std::uint64_t expect_next = 0;
  for (std::size_t i = 0; i < r.zones.size(); ++i) {
    const Zone& z = r.zones[i];
    auto t = std::find_if(r.types.begin(), r.types.end(), [&](const auto& x) { return x.type == z.type; });
    if (t == r.types.end()) t = r.types.insert(r.types.end(), ZoneTypeCount{z.type, 0, 0, z.start_lba});
    ++t->zones;
    t->blocks += z.length;
    auto s = std::find_if(r.sizes.begin(), r.sizes.end(), [&](const auto& x) { return x.length == z.length; });
    if (s == r.sizes.end()) s = r.sizes.insert(r.sizes.end(), ZoneSizeCount{z.length, 0});
    ++s->zones;
    auto c = std::find_if(r.conditions.begin(), r.conditions.end(),
                          [&](const auto& x) { return x.condition == z.condition; });
    if (c == r.conditions.end()) c = r.conditions.insert(r.conditions.end(), ZoneConditionCount{z.condition, 0});
    ++c->zones;
    // Zones tile the LBA space: each starts where the one before it ends.
    if (i > 0 && z.start_lba != expect_next)
      r.problems.push_back(fmt::format("zone {} starts at LBA {}, the previous one ends before LBA {}", i,
                                       z.start_lba, expect_next));
    expect_next = z.start_lba + z.length;
    // A write pointer means something only in a sequential zone that is neither full, read only
    // nor offline (conditions Dh..Fh); there it lies within [start, start + length].
    const bool has_wp = z.type >= 2 && z.type <= 4 && z.condition >= 1 && z.condition <= 5;
    if (has_wp && (z.write_pointer < z.start_lba || z.write_pointer > z.start_lba + z.length))
      r.problems.push_back(fmt::format("zone {} (LBA {}) has its write pointer at LBA {}, outside the zone", i,
                                       z.start_lba, z.write_pointer));
    if (r.max_lba != 0 && z.length != 0 && z.start_lba + z.length - 1 > r.max_lba)
      r.problems.push_back(fmt::format("zone {} ends past the maximum LBA {}", i, r.max_lba));
  }
  std::sort(r.sizes.begin(), r.sizes.end(), [](const auto& a, const auto& b) { return a.length < b.length; });
  if (r.problems.size() > kMaxProblems) {
    const std::size_t more = r.problems.size() - kMaxProblems;
    r.problems.resize(kMaxProblems);
    r.problems.push_back(fmt::format("and {} more", more));
  }
}

}  // namespace

Expected<ZoneReport> decode_report_zones(std::span<const std::uint8_t> reply, ZoneByteOrder order) {
  if (reply.size() < kZoneHeader)
    return make_error(fmt::format("REPORT ZONES reply too short: {} bytes, the header alone has 64", reply.size()));
  const bool big = order == ZoneByteOrder::kZbcBigEndian;
  ZoneReport r;
  r.list_bytes = u32(reply, 0, big);
  if (r.list_bytes % kZoneDescriptor != 0)
    return make_error(fmt::format(
        "REPORT ZONES reply: zone list length {} is not a whole number of 64-byte zone descriptors{}",
        r.list_bytes,
        big ? "" : " (or the reply is ZBC's big-endian form read as ZAC's little-endian one)"));
  r.zones_listed = r.list_bytes / kZoneDescriptor;
  r.same = reply[4] & 0x0F;
  r.max_lba = big ? be64(reply, 8) : le64(reply, 8);
  const std::size_t in_buffer = (reply.size() - kZoneHeader) / kZoneDescriptor;
  const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(r.zones_listed, in_buffer));
  r.truncated = n < r.zones_listed;
  r.zones.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    const auto d = reply.subspan(kZoneHeader + i * kZoneDescriptor, kZoneDescriptor);
    Zone z;
    z.type = d[0] & 0x0F;
    z.condition = d[1] >> 4;
    z.non_sequential = d[1] & 0x02;
    z.reset_recommended = d[1] & 0x01;
    z.length = big ? be64(d, 8) : le64(d, 8);
    z.start_lba = big ? be64(d, 16) : le64(d, 16);
    z.write_pointer = big ? be64(d, 24) : le64(d, 24);
    r.zones.push_back(z);
  }
  summarise(r);
  return r;
}

namespace {

// Why a multi-reply read stopped before the list's end (nullopt: it may go on), and the next
// reply decoded into `next` when it may.
std::optional<std::string> next_piece(const ZoneFetch& fetch, ZoneByteOrder order, const ZoneReport& all,
                                      ZoneReport& next) {
  const Zone& last = all.zones.back();
  const std::uint64_t from = last.start_lba + last.length;
  if (last.length == 0 || from <= last.start_lba || (all.max_lba != 0 && from > all.max_lba))
    return fmt::format("zone {} (LBA {}, length {}) leaves no LBA to read the next zones from", all.zones.size() - 1,
                       last.start_lba, last.length);
  auto reply = fetch(from);
  if (!reply) return fmt::format("the reply from LBA {} failed: {}", from, reply.error().message);
  auto d = decode_report_zones(*reply, order);
  if (!d) return fmt::format("the reply from LBA {} is not decodable: {}", from, d.error().message);
  if (d->zones.empty()) return fmt::format("the reply from LBA {} holds no zone", from);
  if (d->zones.front().start_lba != from)
    return fmt::format("the reply from LBA {} starts with a zone at LBA {}", from, d->zones.front().start_lba);
  next = std::move(*d);
  return std::nullopt;
}

}  // namespace

Expected<ZoneReport> read_zone_list(const ZoneFetch& fetch, ZoneByteOrder order, std::size_t max_replies) {
  auto first = fetch(0);
  if (!first) return first.error();
  auto decoded = decode_report_zones(*first, order);
  if (!decoded) return decoded.error();
  ZoneReport all = std::move(*decoded);
  std::size_t replies = 1;
  std::optional<std::string> stopped;
  while (all.zones.size() < all.zones_listed && !all.zones.empty()) {
    if (replies >= max_replies) {
      stopped = fmt::format("reading stopped after {} replies", replies);
      break;
    }
    ZoneReport more;
    stopped = next_piece(fetch, order, all, more);
    if (stopped) break;
    ++replies;
    all.zones.insert(all.zones.end(), more.zones.begin(), more.zones.end());
  }
  all.truncated = all.zones.size() < all.zones_listed;
  // The summary again, over every zone read (each reply's own covered only itself).
  all.types.clear(), all.sizes.clear(), all.conditions.clear(), all.problems.clear();
  summarise(all);
  if (all.truncated)
    all.problems.push_back(fmt::format("the summary covers the first {} of {} zones{}", all.zones.size(),
                                       all.zones_listed, stopped ? ": " + *stopped : std::string()));
  return all;
}

std::string_view zone_type_name(std::uint8_t type) {
  switch (type) {
    case 1: return "conventional";
    case 2: return "sequential write required";
    case 3: return "sequential write preferred";
    case 4: return "sequential or before required";
    case 5: return "gap";
    default: return "reserved";
  }
}

std::string_view zone_condition_name(std::uint8_t c) {
  switch (c) {
    case 0x0: return "not write pointer";
    case 0x1: return "empty";
    case 0x2: return "implicitly opened";
    case 0x3: return "explicitly opened";
    case 0x4: return "closed";
    case 0x5: return "inactive";
    case 0xD: return "read only";
    case 0xE: return "full";
    case 0xF: return "offline";
    default: return "reserved";
  }
}

// The codes are the VPD B1h ZONED field's (see zones.hpp): one vocabulary, one table.
std::string_view zoned_capabilities_name(std::uint8_t code) { return scsi::zoned_name(code); }

}  // namespace ds::probe
