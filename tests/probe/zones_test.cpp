// Concurrent positioning ranges (ATA log 47h, SCSI VPD B9h), REPORT ZONES replies and the IDENTIFY
// word 69 bits, on pages built by hand from the standards' layouts (ACS-5 Concurrent Positioning
// Ranges log; SBC-5 Concurrent Positioning Ranges VPD page; ZBC REPORT ZONES parameter data and
// ZAC REPORT ZONES EXT data; ACS-4 IDENTIFY word 69). The builders below write each field at the
// offset the standard gives, in the standard's byte order, independently of the decoders.
#include <doctest/doctest.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "ata_test_util.hpp"
#include "probe/identify.hpp"
#include "probe/zones.hpp"
#include "report/ata_identity_report.hpp"
#include "report/zones_report.hpp"

using namespace ds::probe;

namespace {

using Bytes = std::vector<std::uint8_t>;

void put_le(Bytes& b, std::size_t at, std::uint64_t v, int n) {
  for (int i = 0; i < n; ++i) b[at + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(v >> (8 * i));
}
void put_be(Bytes& b, std::size_t at, std::uint64_t v, int n) {
  for (int i = 0; i < n; ++i) b[at + static_cast<std::size_t>(n - 1 - i)] = static_cast<std::uint8_t>(v >> (8 * i));
}

struct R {
  std::uint8_t number, elements;
  std::uint64_t lowest, count;
};

// ATA log 47h: byte 0 count; descriptors of 32 bytes from byte 64; QWords little-endian.
Bytes cpr_log(const std::vector<R>& rs, std::size_t pages = 1) {
  Bytes b(512 * pages, 0);
  b[0] = static_cast<std::uint8_t>(rs.size());
  for (std::size_t i = 0; i < rs.size(); ++i) {
    const std::size_t d = 64 + 32 * i;
    b[d] = rs[i].number;
    b[d + 1] = rs[i].elements;
    put_le(b, d + 8, rs[i].lowest, 8);
    put_le(b, d + 16, rs[i].count, 8);
  }
  return b;
}

// VPD B9h: 4-byte header (page length big-endian in bytes 2..3), descriptors from byte 64,
// big-endian.
Bytes cpr_vpd(const std::vector<R>& rs) {
  Bytes b(64 + 32 * rs.size(), 0);
  b[1] = 0xB9;
  put_be(b, 2, b.size() - 4, 2);
  for (std::size_t i = 0; i < rs.size(); ++i) {
    const std::size_t d = 64 + 32 * i;
    b[d] = rs[i].number;
    b[d + 1] = rs[i].elements;
    put_be(b, d + 8, rs[i].lowest, 8);
    put_be(b, d + 16, rs[i].count, 8);
  }
  return b;
}

struct Z {
  std::uint8_t type, condition;
  std::uint64_t length, start, wp;
  bool non_seq = false, reset = false;
};

// REPORT ZONES: 64-byte header (list length bytes 0..3, SAME byte 4, maximum LBA 8..15), then
// 64-byte descriptors (type byte 0, condition byte 1 bits 7:4, NON_SEQ bit 1, RESET bit 0, length
// 8..15, start 16..23, write pointer 24..31). `big` selects ZBC's byte order, else ZAC's.
Bytes zones_reply(const std::vector<Z>& zs, std::uint64_t max_lba, bool big, std::size_t listed = 0) {
  auto put = [&](Bytes& b, std::size_t at, std::uint64_t v, int n) { big ? put_be(b, at, v, n) : put_le(b, at, v, n); };
  Bytes b(64 + 64 * zs.size(), 0);
  put(b, 0, 64 * (listed ? listed : zs.size()), 4);
  put(b, 8, max_lba, 8);
  for (std::size_t i = 0; i < zs.size(); ++i) {
    const std::size_t d = 64 + 64 * i;
    b[d] = zs[i].type;
    b[d + 1] = static_cast<std::uint8_t>(zs[i].condition << 4 | (zs[i].non_seq ? 2 : 0) | (zs[i].reset ? 1 : 0));
    put(b, d + 8, zs[i].length, 8);
    put(b, d + 16, zs[i].start, 8);
    put(b, d + 24, zs[i].wp, 8);
  }
  return b;
}

}  // namespace

TEST_CASE("ATA log 47h: a dual-actuator drive's two ranges") {
  // The shape of a MACH.2 SATA drive: one LBA space, halves on two actuators.
  const std::uint64_t half = 13'672'382'464ull;
  auto r = decode_cpr_log(cpr_log({{0, 1, 0, half}, {1, 1, half, half}}));
  REQUIRE(r.ok());
  REQUIRE(r->ranges.size() == 2);
  CHECK(r->ranges[0].number == 0);
  CHECK(r->ranges[0].storage_elements == 1);
  CHECK(r->ranges[0].lowest_lba == 0);
  CHECK(r->ranges[0].lba_count == half);
  CHECK(r->ranges[1].number == 1);
  CHECK(r->ranges[1].lowest_lba == half);
  CHECK(r->ranges[1].lba_count == half);
  CHECK(r->problems.empty());

  const auto j = ds::report::ranges_to_json(*r, "ATA log 0x47");
  CHECK(j["count"] == 2);
  CHECK(j["ranges"][1]["lowest_lba"] == half);
  CHECK(j["source"] == "ATA log 0x47");
}

TEST_CASE("ATA log 47h: bits 63:48 of the QWords are not LBA bits") {
  auto b = cpr_log({{0, 1, 0, 1000}});
  b[64 + 8 + 7] = 0x80;  // a reserved bit of the lowest-LBA QWord
  auto r = decode_cpr_log(b);
  REQUIRE(r.ok());
  CHECK(r->ranges[0].lowest_lba == 0);
}

TEST_CASE("ATA log 47h: framing errors and doubtful lists") {
  CHECK_FALSE(decode_cpr_log(Bytes{}).ok());
  CHECK_FALSE(decode_cpr_log(Bytes(100, 0)).ok());  // not whole pages
  // 14 descriptors fit in one page ((512 - 64) / 32); 20 need two pages.
  std::vector<R> many;
  for (std::uint8_t i = 0; i < 20; ++i) many.push_back({i, 1, i * 100ull, 100});
  auto one_page = cpr_log(many, 2);
  one_page.resize(512);
  auto bad = decode_cpr_log(one_page);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message.find("20 ranges") != std::string::npos);
  auto two = decode_cpr_log(cpr_log(many, 2));
  REQUIRE(two.ok());
  CHECK(two->ranges.size() == 20);
  CHECK(two->ranges[19].lowest_lba == 1900);
  CHECK(two->problems.empty());

  auto none = decode_cpr_log(cpr_log({}));
  REQUIRE(none.ok());
  CHECK(none->ranges.empty());

  auto odd = decode_cpr_log(cpr_log({{0, 1, 10, 100}, {2, 1, 50, 100}, {2, 1, 500, 0}}));
  REQUIRE(odd.ok());
  const auto& p = odd->problems;
  auto has = [&](const std::string& s) {
    for (const auto& x : p)
      if (x.find(s) != std::string::npos) return true;
    return false;
  };
  CHECK(has("starts at LBA 10"));
  CHECK(has("descriptor 1 is numbered 2"));
  CHECK(has("overlaps"));
  CHECK(has("belong to no range"));
  CHECK(has("has no LBAs"));
}

TEST_CASE("VPD B9h: the same ranges, big-endian, counted from the page length") {
  const std::uint64_t half = 17'578'328'064ull;
  auto page = cpr_vpd({{0, 1, 0, half}, {1, 1, half, half}});
  auto r = decode_cpr_vpd(page);
  REQUIRE(r.ok());
  REQUIRE(r->ranges.size() == 2);
  CHECK(r->ranges[1].lowest_lba == half);
  CHECK(r->ranges[1].lba_count == half);
  CHECK(r->problems.empty());

  auto wrong_page = page;
  wrong_page[1] = 0xB1;
  CHECK_FALSE(decode_cpr_vpd(wrong_page).ok());
  auto short_buf = page;
  short_buf.resize(100);  // header says 128 bytes
  CHECK_FALSE(decode_cpr_vpd(short_buf).ok());
  auto ragged = page;
  put_be(ragged, 2, page.size() - 4 - 8, 2);  // not whole descriptors
  CHECK_FALSE(decode_cpr_vpd(ragged).ok());
  CHECK_FALSE(decode_cpr_vpd(Bytes{0, 0xB9}).ok());
  Bytes header_only(64, 0);
  header_only[1] = 0xB9;
  put_be(header_only, 2, 60, 2);
  auto empty = decode_cpr_vpd(header_only);
  REQUIRE(empty.ok());
  CHECK(empty->ranges.empty());
}

TEST_CASE("REPORT ZONES: a host-managed layout, ZBC and ZAC byte orders give the same summary") {
  // 4 conventional zones then 6 sequential-write-required ones, 256 MiB zones of 512-byte blocks.
  const std::uint64_t zl = 524288;
  std::vector<Z> zs;
  for (int i = 0; i < 4; ++i) zs.push_back({1, 0x0, zl, zl * i, 0});
  zs.push_back({2, 0x1, zl, zl * 4, zl * 4});            // empty
  zs.push_back({2, 0x2, zl, zl * 5, zl * 5 + 800});      // implicitly opened
  zs.push_back({2, 0xE, zl, zl * 6, zl * 7});            // full
  zs.push_back({2, 0x1, zl, zl * 7, zl * 7});
  zs.push_back({2, 0x4, zl, zl * 8, zl * 8 + 8, false, true});  // closed, reset recommended
  zs.push_back({2, 0x1, zl, zl * 9, zl * 9});
  for (bool big : {true, false}) {
    CAPTURE(big);
    auto r = decode_report_zones(zones_reply(zs, zl * 10 - 1, big),
                                 big ? ZoneByteOrder::kZbcBigEndian : ZoneByteOrder::kZacLittleEndian);
    REQUIRE(r.ok());
    CHECK(r->zones_listed == 10);
    CHECK(r->zones.size() == 10);
    CHECK_FALSE(r->truncated);
    CHECK(r->max_lba == zl * 10 - 1);
    REQUIRE(r->types.size() == 2);
    CHECK(r->types[0].type == 1);
    CHECK(r->types[0].zones == 4);
    CHECK(r->types[0].blocks == 4 * zl);
    CHECK(r->types[0].first_lba == 0);
    CHECK(r->types[1].type == 2);
    CHECK(r->types[1].zones == 6);
    CHECK(r->types[1].first_lba == 4 * zl);
    REQUIRE(r->sizes.size() == 1);
    CHECK(r->sizes[0].length == zl);
    CHECK(r->sizes[0].zones == 10);
    CHECK(r->zones[8].reset_recommended);
    CHECK(r->zones[5].write_pointer == zl * 5 + 800);
    std::uint64_t empty = 0, full = 0;
    for (const auto& c : r->conditions) {
      if (c.condition == 0x1) empty = c.zones;
      if (c.condition == 0xE) full = c.zones;
    }
    CHECK(empty == 3);
    CHECK(full == 1);
    CHECK(r->problems.empty());
  }
  CHECK(std::string(zone_type_name(1)) == "conventional");
  CHECK(std::string(zone_type_name(2)) == "sequential write required");
  CHECK(std::string(zone_type_name(3)) == "sequential write preferred");
  CHECK(std::string(zone_condition_name(0xE)) == "full");
}

TEST_CASE("REPORT ZONES: a short reply, odd zone sizes, and what does not add up") {
  // Host-aware: sequential write preferred zones, the last one smaller (SAME = 2 in ZBC-1).
  std::vector<Z> zs{{3, 0x1, 1000, 0, 0}, {3, 0x1, 1000, 1000, 1000}, {3, 0x1, 600, 2000, 2000}};
  auto b = zones_reply(zs, 2599, true, 50);  // the drive has 50 zones; the reply holds 3
  b[4] = 2;
  auto r = decode_report_zones(b, ZoneByteOrder::kZbcBigEndian);
  REQUIRE(r.ok());
  CHECK(r->zones_listed == 50);
  CHECK(r->zones.size() == 3);
  CHECK(r->truncated);
  CHECK(r->same == 2);
  REQUIRE(r->sizes.size() == 2);
  CHECK(r->sizes[0].length == 600);  // sorted by size
  CHECK(r->sizes[1].zones == 2);

  // A gap between zones and a write pointer outside its zone are reported, not hidden.
  std::vector<Z> bad{{2, 0x2, 100, 0, 500}, {2, 0x1, 100, 150, 150}};
  auto rb = decode_report_zones(zones_reply(bad, 0, true), ZoneByteOrder::kZbcBigEndian);
  REQUIRE(rb.ok());
  REQUIRE(rb->problems.size() == 2);
  CHECK(rb->problems[0].find("write pointer") != std::string::npos);
  CHECK(rb->problems[1].find("starts at LBA 150") != std::string::npos);

  CHECK_FALSE(decode_report_zones(Bytes(63, 0), ZoneByteOrder::kZbcBigEndian).ok());
  auto ragged = zones_reply(zs, 0, true);
  put_be(ragged, 0, 100, 4);  // not a multiple of 64
  CHECK_FALSE(decode_report_zones(ragged, ZoneByteOrder::kZbcBigEndian).ok());
  // A ZBC reply read as ZAC: the list length comes out as nonsense, refused or empty, never a crash.
  auto as_zac = decode_report_zones(zones_reply(zs, 2599, true), ZoneByteOrder::kZacLittleEndian);
  if (as_zac.ok()) CHECK(as_zac->zones.size() <= 3);

  const auto j = ds::report::zones_to_json(*r, "ZBC REPORT ZONES");
  CHECK(j["zones_listed"] == 50);
  CHECK(j["zones_decoded"] == 3);
  CHECK(j["types"][0]["type"] == "sequential write preferred");
}

TEST_CASE("IDENTIFY word 69: zoned capabilities, non-volatile cache, encryption, TRIM flavour") {
  using ds::atatest::drive_path;
  using ds::atatest::read_bytes;
  auto bytes = read_bytes(drive_path("INTEL_SSDSA2CW120G3--4PC10302", "identify.bin"));
  REQUIRE(bytes.size() == 512);
  auto set = [&](int w, std::uint16_t v) {
    bytes[static_cast<std::size_t>(2 * w)] = static_cast<std::uint8_t>(v & 0xFF);
    bytes[static_cast<std::size_t>(2 * w + 1)] = static_cast<std::uint8_t>(v >> 8);
  };
  set(255, 0x0000);  // no checksum signature, so edits need no re-sum
  set(169, 0x0001);  // DATA SET MANAGEMENT / TRIM supported
  for (std::uint16_t zoned : {0, 1, 2, 3}) {
    set(69, static_cast<std::uint16_t>(0x4000 | 0x0020 | 0x0004 | zoned));
    auto id = decode_identify(bytes);
    REQUIRE(id.ok());
    CHECK(id->zoned == zoned);
    CHECK(id->nv_write_cache);
    CHECK_FALSE(id->encrypts_all);
    CHECK(id->trim.supported);
    CHECK(id->trim_deterministic);
    CHECK(id->trim_zeroes);
  }
  CHECK(std::string(zoned_capabilities_name(1)) == "host aware");
  CHECK(std::string(zoned_capabilities_name(2)) == "device managed");
  set(69, 0x0010);
  auto id = decode_identify(bytes);
  REQUIRE(id.ok());
  CHECK(id->zoned == 0);
  CHECK(id->encrypts_all);
  CHECK_FALSE(id->nv_write_cache);
  CHECK_FALSE(id->trim_deterministic);
  // TRIM on a disk that spins is flagged in the report (a DM-SMR hint); on an SSD it is not.
  set(217, 0x0001);
  id = decode_identify(bytes);
  REQUIRE(id.ok());
  CHECK(ds::report::identity_to_json(*id, nullptr)["trim"]["on_rotating_media"] == false);
  set(217, 5400);
  id = decode_identify(bytes);
  REQUIRE(id.ok());
  const auto j = ds::report::identity_to_json(*id, nullptr);
  CHECK(j["trim"]["on_rotating_media"] == true);
  CHECK(j["zoned"] == "not reported");
  CHECK(j["encrypts_all_user_data"] == true);
  CHECK(ds::report::identity_to_text(*id, nullptr).find("a hint of drive-managed SMR") != std::string::npos);
  set(69, 0xFFFF);  // a bridge filling unknown words: believed in nothing
  id = decode_identify(bytes);
  REQUIRE(id.ok());
  CHECK(id->zoned == 0);
  CHECK_FALSE(id->nv_write_cache);
}

namespace {

// A drive of `n` zones (the first `conv` conventional, the rest sequential write required, each
// `zl` blocks) answering REPORT ZONES from any zone start with at most `per_reply` descriptors,
// as a drive does for an allocation length that holds no more: the header counts every zone from
// the start LBA (PARTIAL clear). `asked` records the start LBAs.
struct ZonedDrive {
  std::uint64_t n, conv, zl;
  std::size_t per_reply;
  bool big;
  std::vector<std::uint64_t> asked;
  ds::Expected<Bytes> operator()(std::uint64_t lba) {
    asked.push_back(lba);
    if (lba % zl != 0 || lba / zl >= n) return ds::make_error("no zone starts at that LBA");
    std::vector<Z> zs;
    for (std::uint64_t z = lba / zl; z < n && zs.size() < per_reply; ++z)
      zs.push_back(z < conv ? Z{1, 0x0, zl, z * zl, 0} : Z{2, 0x1, zl, z * zl, z * zl});
    return zones_reply(zs, n * zl - 1, big, static_cast<std::size_t>(n - lba / zl));
  }
};

}  // namespace

TEST_CASE("REPORT ZONES: a list longer than one reply is read whole, in replies from where the last ended") {
  for (bool big : {true, false}) {
    CAPTURE(big);
    // 2500 zones in replies of 1023 (64 KiB): three replies; 30 conventional zones, 2470 others.
    ZonedDrive d{2500, 30, 524288, 1023, big, {}};
    auto r = read_zone_list(std::ref(d), big ? ZoneByteOrder::kZbcBigEndian : ZoneByteOrder::kZacLittleEndian, 256);
    REQUIRE(r.ok());
    CHECK(d.asked == std::vector<std::uint64_t>{0, 1023 * d.zl, 2046 * d.zl});
    CHECK(r->zones_listed == 2500);
    CHECK(r->zones.size() == 2500);
    CHECK_FALSE(r->truncated);
    REQUIRE(r->types.size() == 2);
    CHECK(r->types[0].zones == 30);
    CHECK(r->types[1].zones == 2470);  // one reply alone would have said 993
    CHECK(r->types[1].blocks == 2470 * d.zl);
    REQUIRE(r->sizes.size() == 1);
    CHECK(r->sizes[0].zones == 2500);
    CHECK(r->problems.empty());
  }
}

TEST_CASE("REPORT ZONES: a read stopped early says the summary is partial, and why") {
  ZonedDrive d{2500, 30, 1000, 100, true, {}};
  auto r = read_zone_list(std::ref(d), ZoneByteOrder::kZbcBigEndian, 4);  // 4 replies of 100
  REQUIRE(r.ok());
  CHECK(d.asked.size() == 4);
  CHECK(r->zones.size() == 400);
  CHECK(r->truncated);
  REQUIRE_FALSE(r->problems.empty());
  CHECK(r->problems.back() == "the summary covers the first 400 of 2500 zones: reading stopped after 4 replies");

  // A later reply that fails, or that does not start where asked, ends the read with what it has.
  int calls = 0;
  auto failing = [&](std::uint64_t lba) -> ds::Expected<Bytes> {
    if (++calls > 1) return ds::make_error("ABORTED COMMAND");
    return d(lba);
  };
  auto f = read_zone_list(failing, ZoneByteOrder::kZbcBigEndian, 256);
  REQUIRE(f.ok());
  CHECK(f->zones.size() == 100);
  CHECK(f->truncated);
  CHECK(f->problems.back().find("the reply from LBA 100000 failed: ABORTED COMMAND") != std::string::npos);
  auto shifted = [&](std::uint64_t lba) { return d(lba == 0 ? 0 : lba + 1000); };
  auto s = read_zone_list(shifted, ZoneByteOrder::kZbcBigEndian, 256);
  REQUIRE(s.ok());
  CHECK(s->zones.size() == 100);
  CHECK(s->problems.back().find("starts with a zone at LBA 101000") != std::string::npos);
  // The first reply failing is the read's error.
  CHECK_FALSE(read_zone_list([](std::uint64_t) -> ds::Expected<Bytes> { return ds::make_error("x"); },
                             ZoneByteOrder::kZbcBigEndian, 256)
                  .ok());
}
