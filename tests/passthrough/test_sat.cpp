// SAT codec tests. Expected CDBs are worked out by hand from the SAT-3 12.2.2 layout (byte by byte
// in the comments); the IDENTIFY / SET FEATURES / READ LOG EXT ones also equal what
// sg_sat_identify / sg_sat_set_features / sg_sat_read_gplog -vvv print (sg3-utils 1.46).
#include <doctest/doctest.h>

#include <random>
#include <vector>

#include "drivescope/commands.hpp"
#include "drivescope/sat.hpp"

using namespace ds;
using Bytes = std::vector<std::uint8_t>;

namespace {
template <std::size_t N>
Bytes vec(const std::array<std::uint8_t, N>& a) { return Bytes(a.begin(), a.end()); }

std::array<std::uint8_t, 512> g_block{};

AtaRequest identify() {
  AtaRequest r;
  r.in.command = 0xEC;
  r.in.count = 1;
  r.protocol = AtaProtocol::pio_in;
  r.data = g_block;
  return r;
}
AtaRequest set_aam(std::uint8_t level) {
  AtaRequest r;
  r.in.command = 0xEF;
  r.in.features = 0x42;
  r.in.count = level;
  return r;
}
AtaRequest smart_read_data() {
  AtaRequest r = identify();
  r.in.command = 0xB0;
  r.in.features = 0xD0;
  r.in.lba = 0xC24F00;  // LBA mid 4Fh, LBA high C2h
  return r;
}
AtaRequest read_log_ext(std::uint8_t log, std::uint16_t page, std::span<std::uint8_t> buf) {
  AtaRequest r;
  r.in.command = 0x2F;
  r.in.count = static_cast<std::uint16_t>(buf.size() / 512);
  r.in.lba = log | std::uint64_t{page & 0xFFu} << 8 | (std::uint64_t{page} >> 8) << 32;
  r.protocol = AtaProtocol::pio_in;
  r.lba48 = true;
  r.data = buf;
  return r;
}
}  // namespace

TEST_CASE("PT16 IDENTIFY DEVICE") {
  // 85 | PROTOCOL 4 (PIO in) << 1 = 08 | T_DIR 1, BYT_BLOK 1, T_LENGTH 2 = 0e | FEATURES 00 00 |
  // COUNT 00 01 | LBA 00 00 00 00 00 00 | DEVICE 00 | COMMAND ec | CONTROL 00
  CHECK(vec(sat::encode_pt16(identify())) == Bytes{0x85, 0x08, 0x0e, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0xec, 0});
  // CK_COND adds 20h to byte 2.
  CHECK(sat::encode_pt16(identify(), true)[2] == 0x2e);
  CHECK_FALSE(sat::validate(identify()).has_value());
}

TEST_CASE("PT12 IDENTIFY DEVICE") {
  // a1 | 08 | 0e | FEATURES 00 | COUNT 01 | LBA 00 00 00 | DEVICE 00 | COMMAND ec | reserved | CONTROL
  auto c = sat::encode_pt12(identify());
  REQUIRE(c.ok());
  CHECK(vec(*c) == Bytes{0xa1, 0x08, 0x0e, 0x00, 0x01, 0, 0, 0, 0x00, 0xec, 0, 0});
}

TEST_CASE("SET FEATURES enable AAM level 0x80") {
  // Non-data: PROTOCOL 3 << 1 = 06; T_LENGTH 0 (T_DIR/BYT_BLOK set as sg3_utils does) = 0c;
  // FEATURES(7:0) 42 in byte 4, COUNT(7:0) = level 80 in byte 6, COMMAND ef.
  CHECK(vec(sat::encode_pt16(set_aam(0x80))) == Bytes{0x85, 0x06, 0x0c, 0, 0x42, 0, 0x80, 0, 0, 0, 0, 0, 0, 0, 0xef, 0});
  CHECK(vec(sat::encode_pt16(set_aam(0x80), true)) ==
        Bytes{0x85, 0x06, 0x2c, 0, 0x42, 0, 0x80, 0, 0, 0, 0, 0, 0, 0, 0xef, 0});
  auto c = sat::encode_pt12(set_aam(0x80), true);
  REQUIRE(c.ok());
  CHECK(vec(*c) == Bytes{0xa1, 0x06, 0x2c, 0x42, 0x80, 0, 0, 0, 0, 0xef, 0, 0});
}

TEST_CASE("SMART READ DATA") {
  // FEATURES d0; LBA(15:8) = 4f in byte 10, LBA(23:16) = c2 in byte 12 (PT16);
  // PT12: LBA low/mid/high in bytes 5/6/7.
  CHECK(vec(sat::encode_pt16(smart_read_data())) ==
        Bytes{0x85, 0x08, 0x0e, 0, 0xd0, 0, 0x01, 0, 0x00, 0, 0x4f, 0, 0xc2, 0x00, 0xb0, 0});
  auto c = sat::encode_pt12(smart_read_data());
  REQUIRE(c.ok());
  CHECK(vec(*c) == Bytes{0xa1, 0x08, 0x0e, 0xd0, 0x01, 0x00, 0x4f, 0xc2, 0x00, 0xb0, 0, 0});
}

TEST_CASE("READ LOG EXT is 48-bit: EXTEND set in PT16, refused by PT12") {
  std::array<std::uint8_t, 1024> buf{};
  // log 30h page 1, one page: 85 | 4<<1 | EXTEND = 09 | 0e | ... COUNT 00 01 | LBA(31:24) 00,
  // LBA(7:0) 30, LBA(39:32) 00, LBA(15:8) 01, LBA(47:40) 00, LBA(23:16) 00 | 00 | 2f | 00
  auto one = read_log_ext(0x30, 1, std::span(buf).first(512));
  CHECK(vec(sat::encode_pt16(one)) == Bytes{0x85, 0x09, 0x0e, 0, 0, 0, 0x01, 0, 0x30, 0x00, 0x01, 0, 0, 0, 0x2f, 0});
  // page 0x0102, two pages: page (15:8) goes to LBA(39:32) = byte 9.
  auto two = read_log_ext(0x30, 0x0102, buf);
  CHECK(vec(sat::encode_pt16(two)) == Bytes{0x85, 0x09, 0x0e, 0, 0, 0, 0x02, 0, 0x30, 0x01, 0x02, 0, 0, 0, 0x2f, 0});
  auto c = sat::encode_pt12(two);
  REQUIRE_FALSE(c.ok());
  CHECK(c.error().message.find("48-bit") != std::string::npos);
}

TEST_CASE("READ VERIFY: 48-bit register bytes land in the right CDB bytes; 28-bit puts LBA 27:24 in DEVICE") {
  AtaRequest r;
  r.in.command = 0x42;
  r.in.device = 0x40;
  r.in.count = 0x0102;
  r.in.lba = 0x123456789ABCULL;
  r.lba48 = true;
  CHECK(vec(sat::encode_pt16(r, true)) ==
        Bytes{0x85, 0x07, 0x2c, 0x00, 0x00, 0x01, 0x02, 0x56, 0xBC, 0x34, 0x9A, 0x12, 0x78, 0x40, 0x42, 0x00});
  AtaRequest s;
  s.in.command = 0x40;
  s.in.device = 0x40;
  s.in.count = 8;
  s.in.lba = 0x0ABCDEF1;
  CHECK(vec(sat::encode_pt16(s)) == Bytes{0x85, 0x06, 0x0c, 0, 0, 0, 8, 0, 0xF1, 0, 0xDE, 0, 0xBC, 0x4A, 0x40, 0});
  auto c = sat::encode_pt12(s);
  REQUIRE(c.ok());
  CHECK(vec(*c) == Bytes{0xa1, 0x06, 0x0c, 0, 8, 0xF1, 0xDE, 0xBC, 0x4A, 0x40, 0, 0});
}

TEST_CASE("validate catches inconsistent requests") {
  auto r = identify();
  r.in.count = 2;  // buffer is one block
  CHECK(sat::validate(r).has_value());
  auto n = set_aam(0x80);
  n.data = g_block;  // data on a non-data command
  CHECK(sat::validate(n).has_value());
  auto big = set_aam(0x80);
  big.in.lba = 1ULL << 28;  // does not fit 28 bits
  CHECK(sat::validate(big).has_value());
  big.lba48 = true;
  CHECK_FALSE(sat::validate(big).has_value());
  auto odd = identify();
  odd.data = std::span(g_block).first(100);
  CHECK(sat::validate(odd).has_value());
}

TEST_CASE("decode_pass_through_cdb inverts the encoders") {
  std::array<std::uint8_t, 512> buf{};
  auto req = read_log_ext(0x30, 0x0102, buf);
  auto c16 = sat::encode_pt16(req, true);
  auto d = sat::decode_pass_through_cdb(c16);
  REQUIRE(d.ok());
  CHECK(d->regs.command == 0x2F);
  CHECK(d->regs.lba == req.in.lba);
  CHECK(d->regs.count == 1);
  CHECK(d->extend);
  CHECK(d->ck_cond);
  CHECK(d->t_dir_in);
  CHECK(d->protocol == 4);
  auto c12 = sat::encode_pt12(smart_read_data());
  REQUIRE(c12.ok());
  auto e = sat::decode_pass_through_cdb(*c12);
  REQUIRE(e.ok());
  CHECK(e->regs.features == 0xD0);
  CHECK(e->regs.lba == 0xC24F00);
  CHECK(e->regs.command == 0xB0);
  CHECK_FALSE(sat::decode_pass_through_cdb(Bytes{0x85, 0, 0}).ok());
  CHECK_FALSE(sat::decode_pass_through_cdb(Bytes{}).ok());
}

TEST_CASE("ATA Status Return descriptor decode (descriptor-format sense)") {
  // 72 | key 01 RECOVERED ERROR | asc/ascq 00/1d ATA PASS THROUGH INFORMATION AVAILABLE | 0 0 0 |
  // additional length 0e | descriptor 09, length 0c, EXTEND 1, ERROR 04, COUNT 12 34,
  // LBA(31:24) 56, LBA(7:0) 78, LBA(39:32) 9a, LBA(15:8) bc, LBA(47:40) de, LBA(23:16) f0,
  // DEVICE e0, STATUS 51
  const Bytes s{0x72, 0x01, 0x00, 0x1d, 0, 0, 0, 0x0e, 0x09, 0x0c, 0x01, 0x04, 0x12, 0x34,
                0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0, 0xe0, 0x51};
  auto r = sat::decode_ata_status_return(s);
  REQUIRE(r.ok());
  CHECK(r->descriptor_format);
  CHECK(r->sense_key == 1);
  CHECK(r->ascq == 0x1d);
  CHECK(r->regs.extended);
  CHECK(r->regs.error == 0x04);
  CHECK(r->regs.count == 0x1234);
  CHECK(r->regs.lba == ((0xdeULL << 40) | (0x9aULL << 32) | (0x56ULL << 24) | (0xf0ULL << 16) | (0xbcULL << 8) | 0x78));
  CHECK(r->regs.device == 0xe0);
  CHECK(r->regs.status == 0x51);
  CHECK(r->regs.aborted());

  // EXTEND 0: the upper bytes are not used.
  Bytes s28 = s;
  s28[10] = 0;
  auto q = sat::decode_ata_output(s28);
  REQUIRE(q.ok());
  CHECK(q->count == 0x34);
  CHECK(q->lba == 0xf0bc78);

  // The descriptor found after another one (information descriptor 00h first).
  Bytes s2{0x72, 0x01, 0x00, 0x1d, 0, 0, 0, 0x1a, 0x00, 0x0a, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0x05};
  s2.insert(s2.end(), s.begin() + 8, s.end());
  auto r2 = sat::decode_ata_output(s2);
  REQUIRE(r2.ok());
  CHECK(r2->status == 0x51);
}

TEST_CASE("fixed-format ATA registers (SAT-3 12.2.2.7)") {
  // 70 | 00 | key 01 | INFORMATION: ERROR 04, STATUS 51, DEVICE 40, COUNT 10 | add len 0a |
  // COMMAND-SPECIFIC: flags 80|20 (EXTEND, LBA UPPER NONZERO), LBA 11 22 33 | asc/ascq 00 1d | 4 x 00
  const Bytes s{0x70, 0x00, 0x01, 0x04, 0x51, 0x40, 0x10, 0x0a, 0xa0, 0x11, 0x22, 0x33, 0x00, 0x1d, 0, 0, 0, 0};
  auto r = sat::decode_ata_status_return(s);
  REQUIRE(r.ok());
  CHECK_FALSE(r->descriptor_format);
  CHECK(r->regs.error == 0x04);
  CHECK(r->regs.status == 0x51);
  CHECK(r->regs.device == 0x40);
  CHECK(r->regs.count == 0x10);
  CHECK(r->regs.lba == 0x332211);
  CHECK(r->lba_upper_nonzero);
  CHECK_FALSE(r->count_upper_nonzero);
  CHECK_FALSE(r->regs.extended);
  CHECK(r->ascq == 0x1d);
}

TEST_CASE("fixed-format ATA registers as Linux libata < 6.10 writes them (5 bytes late)") {
  // Captured in the QEMU guest (Debian 12, kernel 6.1) from an aborted READ LOG EXT: ERROR 04
  // (ABRT), STATUS 41 (DRDY|ERR), DEVICE 00, COUNT 01 in bytes 8..11; flags 80 (EXTEND) in 16.
  const Bytes s{0x70, 0x00, 0x0b, 0x00, 0x00, 0x00, 0x00, 0x0a, 0x04, 0x41, 0x00, 0x01,
                0x00, 0x00, 0x00, 0x00, 0x80, 0x00, 0x00, 0x00};
  auto r = sat::decode_ata_status_return(s);
  REQUIRE(r.ok());
  CHECK(r->linux_shifted_fixed);
  CHECK(r->sense_key == 0x0b);
  CHECK(r->regs.error == 0x04);
  CHECK(r->regs.status == 0x41);
  CHECK(r->regs.count == 0x01);
  CHECK(r->regs.aborted());
  // The sense as kept (additional length 0Ah: 18 bytes) decodes the same registers.
  auto r18 = sat::decode_ata_status_return(std::span(s).first(18));
  REQUIRE(r18.ok());
  CHECK(r18->regs.status == 0x41);
  CHECK(r18->regs.error == 0x04);
  // A correct SAT layout is not mistaken for it: STATUS in byte 4 is non-zero there.
  const Bytes ok{0x70, 0x00, 0x0b, 0x04, 0x51, 0x00, 0x00, 0x0a, 0x80, 0x41, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  auto r2 = sat::decode_ata_status_return(ok);
  REQUIRE(r2.ok());
  CHECK_FALSE(r2->linux_shifted_fixed);
  CHECK(r2->regs.status == 0x51);
  CHECK(r2->regs.lba == 0x41);
}

TEST_CASE("ATA status decode rejects bad sense without crashing") {
  CHECK_FALSE(sat::decode_ata_output(Bytes{}).ok());
  CHECK_FALSE(sat::decode_ata_output(Bytes{0x72, 0x01}).ok());
  CHECK_FALSE(sat::decode_ata_output(Bytes{0x70, 0, 1, 4, 0x51}).ok());
  CHECK_FALSE(sat::decode_ata_output(Bytes{0x12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}).ok());
  // Descriptor sense with no 09h descriptor, and one whose 09h descriptor is cut short.
  CHECK_FALSE(sat::decode_ata_output(Bytes{0x72, 0x05, 0x24, 0, 0, 0, 0, 0}).ok());
  CHECK_FALSE(sat::decode_ata_output(Bytes{0x72, 0x01, 0, 0x1d, 0, 0, 0, 0x0e, 0x09, 0x0c, 0, 0, 0}).ok());
  // Additional length claims more than is there: must stay in bounds.
  CHECK_FALSE(sat::decode_ata_output(Bytes{0x72, 0x01, 0, 0x1d, 0, 0, 0, 0xff, 0x09, 0x0c}).ok());
  std::mt19937 rng(12345);
  for (int i = 0; i < 20000; ++i) {
    Bytes b(rng() % 40);
    for (auto& x : b) x = static_cast<std::uint8_t>(rng());
    if (!b.empty() && (rng() & 1)) b[0] = static_cast<std::uint8_t>(0x70 + rng() % 4);
    (void)sat::decode_ata_status_return(b);
    (void)sat::decode_pass_through_cdb(b);
  }
}

TEST_CASE("encode_ata_status_return: what a SATL writes decodes back to the same registers") {
  ds::AtaOutput o;
  o.extended = true;
  o.error = 0x04;
  o.status = 0x51;
  o.device = 0x40;
  o.count = 0x1234;
  o.lba = 0xA1B2C3D4E5F6ull;
  const auto s = ds::sat::encode_ata_status_return(o, 0x0B, 0x00, 0x00);
  CHECK(s[0] == 0x72);
  CHECK(s[8] == ds::sat::kAtaStatusReturnDescriptor);
  auto d = ds::sat::decode_ata_status_return(s);
  REQUIRE(d.ok());
  CHECK(d->sense_key == 0x0B);
  CHECK(d->regs.error == o.error);
  CHECK(d->regs.status == o.status);
  CHECK(d->regs.device == o.device);
  CHECK(d->regs.count == o.count);
  CHECK(d->regs.lba == o.lba);
  // Without EXTEND the upper bytes are not sent, and a decoder must not see them.
  o.extended = false;
  auto d28 = ds::sat::decode_ata_status_return(ds::sat::encode_ata_status_return(o, 0x01));
  REQUIRE(d28.ok());
  CHECK(d28->asc == ds::sat::kAscAtaPtInfo);
  CHECK(d28->ascq == ds::sat::kAscqAtaPtInfo);
  CHECK(d28->regs.count == 0x34);
  CHECK(d28->regs.lba == 0xD4E5F6ull);
}
