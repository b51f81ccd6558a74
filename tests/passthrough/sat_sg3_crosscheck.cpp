// Cross-check of the SAT encoders against an independent implementation: the ATA PASS-THROUGH
// CDBs that sg3_utils' sg_sat_identify / sg_sat_set_features print with -vvv, captured on a real
// Linux kernel in the test VM (tests/data/sg3-cdbs/README.md says how and with which versions).
// The unit tests in this area check the bytes against SAT-3 by hand; this one catches the case
// where both the code and its hand-made vectors share a misreading of the standard.
#include <doctest/doctest.h>

#include <cctype>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "drivescope/commands.hpp"
#include "drivescope/sat.hpp"
#include "passthrough/sat_device.hpp"

namespace {

const std::string kDir = std::string(DS_TEST_DATA) + "/sg3-cdbs/";

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

// The bytes of the one "ATA pass-through(NN) cdb: [xx xx ...]" line sg3_utils prints with -vvv;
// nullopt when there is none, more than one, or a byte is not two hex digits.
std::optional<std::vector<std::uint8_t>> sg3_cdb(const std::string& text) {
  std::optional<std::vector<std::uint8_t>> found;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    const auto at = line.find("pass-through(");
    const auto open = line.find("cdb: [");
    if (at == std::string::npos || open == std::string::npos) continue;
    const auto close = line.find(']', open);
    if (close == std::string::npos || found) return std::nullopt;
    std::istringstream hex(line.substr(open + 6, close - open - 6));
    std::vector<std::uint8_t> bytes;
    for (std::string tok; hex >> tok;) {
      if (tok.size() != 2 || !std::isxdigit(static_cast<unsigned char>(tok[0])) ||
          !std::isxdigit(static_cast<unsigned char>(tok[1])))
        return std::nullopt;
      bytes.push_back(static_cast<std::uint8_t>(std::stoul(tok, nullptr, 16)));
    }
    found = std::move(bytes);
  }
  return found;
}

std::vector<std::uint8_t> fixture_cdb(const std::string& name) {
  const std::string text = slurp(kDir + name);
  INFO("fixture " << name);
  REQUIRE_FALSE(text.empty());
  const auto cdb = sg3_cdb(text);
  REQUIRE(cdb.has_value());
  return *cdb;
}

template <std::size_t N>
std::vector<std::uint8_t> vec(const std::array<std::uint8_t, N>& a) {
  return {a.begin(), a.end()};
}

std::string hex(const std::vector<std::uint8_t>& v) {
  std::string s;
  static const char* d = "0123456789abcdef";
  for (auto b : v) {
    if (!s.empty()) s += ' ';
    s += d[b >> 4];
    s += d[b & 15];
  }
  return s;
}

// The requests drivescope would build for the same commands. IDENTIFY DEVICE (ACS-3 7.12):
// PIO data-in, one 512-byte block, COUNT = 1 because T_LENGTH points at COUNT (SAT-3 12.2.2).
struct IdentifyReq {
  std::array<std::uint8_t, 512> buf{};
  ds::AtaRequest req;
  explicit IdentifyReq(bool lba48 = false) {
    req.in.command = 0xEC;
    req.in.count = 1;
    req.protocol = ds::AtaProtocol::pio_in;
    req.lba48 = lba48;
    req.data = buf;
  }
};

// SET FEATURES (ACS-3 7.45): non-data; subcommand in FEATURES, its argument in COUNT.
ds::AtaRequest set_features(std::uint8_t sub, std::uint8_t count = 0) {
  ds::AtaRequest r;
  r.in.command = 0xEF;
  r.in.features = sub;
  r.in.count = count;
  r.protocol = ds::AtaProtocol::non_data;
  return r;
}

void same16(const std::string& fixture, const ds::AtaRequest& req, bool ck_cond = false) {
  const auto want = fixture_cdb(fixture);
  const auto got = vec(ds::sat::encode_pt16(req, ck_cond));
  INFO(fixture << ": sg3_utils " << hex(want) << " / drivescope " << hex(got));
  CHECK(want.size() == 16);
  CHECK(got == want);
  // The fixture's CDB decodes back into the same registers (the allowlist relies on the decoder).
  auto d = ds::sat::decode_pass_through_cdb(want);
  REQUIRE(d.ok());
  CHECK(d->regs.command == req.in.command);
  CHECK(d->regs.features == req.in.features);
  CHECK(d->regs.count == req.in.count);
  CHECK(d->regs.lba == req.in.lba);
  CHECK(d->extend == req.lba48);
  CHECK(d->ck_cond == ck_cond);
  CHECK(d->protocol == ds::sat::protocol_code(req.protocol));
}

void same12(const std::string& fixture, const ds::AtaRequest& req) {
  const auto want = fixture_cdb(fixture);
  auto enc = ds::sat::encode_pt12(req);
  REQUIRE(enc.ok());
  const auto got = vec(*enc);
  INFO(fixture << ": sg3_utils " << hex(want) << " / drivescope " << hex(got));
  CHECK(want.size() == 12);
  CHECK(got == want);
  auto d = ds::sat::decode_pass_through_cdb(want);
  REQUIRE(d.ok());
  CHECK(d->regs.command == req.in.command);
  CHECK(d->regs.features == req.in.features);
  CHECK(d->regs.count == req.in.count);
  CHECK(d->protocol == ds::sat::protocol_code(req.protocol));
}

// A SCSI device that only records the CDBs it is asked to send and answers GOOD, so that the
// whole path drivescope uses (ds::ata::identify_device / set_features -> SatDevice -> CDB) can be
// compared with what sg3_utils sent for the same command.
class CdbRecorder final : public ds::Device {
 public:
  const ds::DeviceInfo& info() const override { return info_; }
  ds::CommandResult scsi(const ds::ScsiRequest& req) override {
    cdbs.emplace_back(req.cdb.begin(), req.cdb.end());
    return {};
  }
  std::vector<std::vector<std::uint8_t>> cdbs;

 private:
  ds::DeviceInfo info_{.name = "recorder", .kind = ds::TargetKind::scsi, .scsi_capable = true};
};

}  // namespace

TEST_CASE("sg3 fixture parser: one well-formed CDB line or nothing") {
  CHECK(sg3_cdb("    ATA pass-through(12) cdb: [a1 06 0c 42 80 00 00 00 00 ef 00 00]\n") ==
        std::vector<std::uint8_t>{0xa1, 0x06, 0x0c, 0x42, 0x80, 0, 0, 0, 0, 0xef, 0, 0});
  CHECK_FALSE(sg3_cdb("no cdb here\n").has_value());
  CHECK_FALSE(sg3_cdb("ATA pass-through(16) cdb: [85 0g]\n").has_value());
  CHECK_FALSE(sg3_cdb("ATA pass-through(16) cdb: [85 06\n").has_value());
  CHECK_FALSE(sg3_cdb("ATA pass-through(12) cdb: [a1]\nATA pass-through(12) cdb: [a1]\n").has_value());
}

TEST_CASE("IDENTIFY DEVICE: ATA PASS-THROUGH(16)/(12) as sg_sat_identify builds it") {
  IdentifyReq id;
  same16("identify-16.txt", id.req);
  same12("identify-12.txt", id.req);
}

TEST_CASE("IDENTIFY DEVICE with EXTEND (sg_sat_identify -e) and with CK_COND (--ck_cond)") {
  IdentifyReq ext(/*lba48=*/true);
  same16("identify-16-extend.txt", ext.req);
  IdentifyReq id;
  same16("identify-16-ckcond.txt", id.req, /*ck_cond=*/true);
}

TEST_CASE("SET FEATURES: AAM on at 128, AAM off, write cache, look-ahead as sg_sat_set_features builds them") {
  same16("aam-on-128-16.txt", set_features(0x42, 0x80));
  same12("aam-on-128-12.txt", set_features(0x42, 0x80));
  same16("aam-off-16.txt", set_features(0xC2));
  same16("wcache-on-16.txt", set_features(0x02));
  same12("lookahead-on-12.txt", set_features(0xAA));
}

TEST_CASE("the 12-byte form has no EXTEND bit: a 48-bit request is refused, not truncated") {
  IdentifyReq ext(/*lba48=*/true);
  CHECK_FALSE(ds::sat::encode_pt12(ext.req).ok());
}

TEST_CASE("drivescope's own command path sends sg3_utils' CDBs (IDENTIFY through SatDevice)") {
  // (Not a structured binding: clang 14, used by the sanitizer build, cannot capture one in the
  // lambda that INFO makes.)
  for (const auto& c : {std::pair{ds::SatCdbSize::pt16, "identify-16.txt"},
                        std::pair{ds::SatCdbSize::pt12, "identify-12.txt"}}) {
    const auto size = c.first;
    const char* const fixture = c.second;
    CdbRecorder rec;
    ds::SatDevice sat(rec, size);
    std::array<std::uint8_t, 512> buf{};
    ds::ata::identify_device(sat, buf);
    REQUIRE(rec.cdbs.size() == 1);
    const auto want = fixture_cdb(fixture);
    INFO(fixture << ": sg3_utils " << hex(want) << " / drivescope " << hex(rec.cdbs[0]));
    CHECK(rec.cdbs[0] == want);
  }
}

TEST_CASE("drivescope's own command path sends sg3_utils' CDBs (SET FEATURES through SatDevice)") {
  struct Case { ds::SatCdbSize size; std::uint8_t sub, count; const char* fixture; };
  for (const Case& c : {Case{ds::SatCdbSize::pt16, 0x42, 0x80, "aam-on-128-16.txt"},
                        Case{ds::SatCdbSize::pt12, 0x42, 0x80, "aam-on-128-12.txt"},
                        Case{ds::SatCdbSize::pt16, 0xC2, 0, "aam-off-16.txt"},
                        Case{ds::SatCdbSize::pt16, 0x02, 0, "wcache-on-16.txt"},
                        Case{ds::SatCdbSize::pt12, 0xAA, 0, "lookahead-on-12.txt"}}) {
    CdbRecorder rec;
    ds::SatDevice sat(rec, c.size);
    ds::ata::set_features(sat, c.sub, c.count);
    REQUIRE(rec.cdbs.size() == 1);
    // One deliberate difference: SatDevice sets CK_COND (byte 2 bit 5, SAT-3 12.2.2) on non-data
    // commands so that the SATL returns the ATA output registers (e.g. CHECK POWER MODE's count);
    // sg_sat_set_features does not. Every other byte must be identical.
    auto want = fixture_cdb(c.fixture);
    want[2] |= 0x20;
    INFO(c.fixture << ": sg3_utils+CK_COND " << hex(want) << " / drivescope " << hex(rec.cdbs[0]));
    CHECK(rec.cdbs[0] == want);
  }
}
