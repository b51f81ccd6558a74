// The simulated drive's command interface: IDENTIFY consistent with the model (decoded here with
// a small word reader of our own, and with the probe decoder), SET FEATURES, SCSI commands.
#include <array>

#include "drivescope/commands.hpp"
#include "probe/identify.hpp"
#include "probe/smart.hpp"
#include "sim/drive.hpp"
#include "sim_test_util.hpp"

namespace {

using simtest::set_features;

struct Id {
  std::array<std::uint8_t, 512> b{};
  std::uint16_t w(int i) const { return static_cast<std::uint16_t>(b[2 * i] | (b[2 * i + 1] << 8)); }
  std::string str(int first, int words) const {
    std::string s;
    for (int i = first; i < first + words; ++i) {
      s += static_cast<char>(w(i) >> 8);
      s += static_cast<char>(w(i) & 0xFF);
    }
    while (!s.empty() && s.back() == ' ') s.pop_back();
    return s;
  }
  std::uint64_t lba48() const {
    return std::uint64_t{w(100)} | std::uint64_t{w(101)} << 16 | std::uint64_t{w(102)} << 32 |
           std::uint64_t{w(103)} << 48;
  }
};

Id identify(ds::Device& dev) {
  Id id;
  ds::AtaRequest r;
  r.in.command = ds::ata::kIdentifyDevice;
  r.protocol = ds::AtaProtocol::pio_in;
  r.data = id.b;
  const auto res = dev.ata(r);
  REQUIRE(res.ok());
  return id;
}

ds::CommandResult scsi(ds::Device& dev, std::vector<std::uint8_t> cdb, std::span<std::uint8_t> data) {
  ds::ScsiRequest r;
  r.cdb = cdb;
  r.data = data;
  r.direction = data.empty() ? ds::DataDirection::none : ds::DataDirection::from_device;
  return dev.scsi(r);
}

}  // namespace

TEST_CASE("IDENTIFY DEVICE matches the model for every ATA preset") {
  for (const auto& name : ds::sim::preset_names()) {
    auto t = simtest::open_or_fail("sim:" + name);
    const auto& m = t.model;
    if (m.transport != ds::sim::Transport::ata) {
      ds::AtaRequest r;
      r.in.command = ds::ata::kIdentifyDevice;
      CHECK(t.device->ata(r).outcome == ds::Outcome::unsupported);
      continue;
    }
    CAPTURE(name);
    const Id id = identify(*t.device);
    std::uint8_t sum = 0;
    for (auto byte : id.b) sum = static_cast<std::uint8_t>(sum + byte);
    CHECK(sum == 0);
    CHECK((id.w(255) & 0xFF) == 0xA5);
    CHECK(id.str(27, 20) == m.identity.model);
    CHECK(id.str(10, 10) == m.identity.serial);
    CHECK(id.str(23, 4) == m.identity.firmware);
    CHECK(id.lba48() == m.capacity());
    CHECK((std::uint32_t{id.w(60)} | std::uint32_t{id.w(61)} << 16) == std::min<std::uint64_t>(m.capacity(), 0x0FFFFFFF));
    for (int wn : {83, 84, 87}) CHECK((id.w(wn) >> 14) == 1);
    CHECK(id.w(217) == static_cast<std::uint16_t>(m.rpm));
    const bool ncq = m.queue.protocol == ds::sim::QueueProtocol::ncq;
    CHECK(static_cast<bool>(id.w(76) & 0x0100) == ncq);
    if (m.queue.protocol != ds::sim::QueueProtocol::none) CHECK((id.w(75) & 0x1F) + 1u == std::min(m.queue.depth, 32u));
    CHECK(static_cast<bool>(id.w(83) & 0x0200) == m.aam.supported);
    CHECK(static_cast<bool>(id.w(86) & 0x0200) == m.aam.supported);
    if (m.aam.supported) CHECK((id.w(94) & 0xFF) == m.aam.default_level);
    CHECK(static_cast<bool>(id.w(85) & 0x0020) == m.cache.write_back);
    CHECK((id.w(85) & 0x0040) != 0);  // look-ahead on
    CHECK((id.w(83) & 0x0400) != 0);  // 48-bit
    const std::uint32_t per_phys = m.physical_sector_bytes / m.logical_sector_bytes;
    CHECK(static_cast<bool>(id.w(106) & 0x2000) == (per_phys > 1));
    // the probe's decoder agrees
    auto dec = ds::probe::decode_identify(id.b);
    REQUIRE(dec.ok());
    CHECK(dec->checksum == ds::probe::ChecksumState::kValid);
    CHECK(dec->model == m.identity.model);
    CHECK(dec->capacity_sectors == m.capacity());
    CHECK(dec->ncq.supported == ncq);
    if (ncq) CHECK(dec->ncq_depth == m.queue.depth);
    CHECK(dec->aam.supported == m.aam.supported);
    CHECK(dec->rotation_rate_rpm.value_or(0) == static_cast<std::uint16_t>(m.rpm));
    CHECK(dec->physical_sector_bytes == m.physical_sector_bytes);
  }
}

TEST_CASE("SET FEATURES changes what IDENTIFY reports; unknown subcommands abort") {
  auto t = simtest::open_or_fail("sim:maxline3");
  REQUIRE(set_features(*t.device, ds::ata::kSfEnableAam, 128).ok());
  CHECK((identify(*t.device).w(94) & 0xFF) == 128);
  REQUIRE(set_features(*t.device, ds::ata::kSfDisableAam).ok());
  CHECK(!(identify(*t.device).w(86) & 0x0200));
  REQUIRE(set_features(*t.device, ds::ata::kSfDisableWriteCache).ok());
  CHECK(!(identify(*t.device).w(85) & 0x0020));
  REQUIRE(set_features(*t.device, ds::ata::kSfEnableWriteCache).ok());
  CHECK((identify(*t.device).w(85) & 0x0020) != 0);
  REQUIRE(set_features(*t.device, ds::ata::kSfDisableLookAhead).ok());
  CHECK(!(identify(*t.device).w(85) & 0x0040));
  const auto apm = set_features(*t.device, ds::ata::kSfEnableApm, 0x80);
  REQUIRE(apm.ata.has_value());
  CHECK(apm.ata->aborted());
  CHECK(apm.ata->status == 0x51);
  CHECK(!apm.ok());
  // AAM on a drive without it aborts
  auto scsi_less = simtest::open_or_fail("sim:modern8tb");
  CHECK(set_features(*scsi_less.device, ds::ata::kSfEnableAam, 200).ata->aborted());
}

TEST_CASE("other ATA commands: power mode, SMART status, READ VERIFY, unknown opcodes") {
  auto t = simtest::open_or_fail("sim:raptor");
  ds::AtaRequest r;
  r.in.command = ds::ata::kCheckPowerMode;
  auto res = t.device->ata(r);
  REQUIRE(res.ok());
  CHECK(res.ata->count == 0xFF);
  r = {};
  r.in.command = ds::ata::kSmart;
  r.in.features = ds::ata::kSmartReturnStatus;
  r.in.lba = 0xC24F00;
  res = t.device->ata(r);
  REQUIRE(res.ok());
  CHECK(res.ata->lba == 0xC24F00);
  r = {};
  r.in.command = ds::ata::kReadVerifySectorsExt;
  r.lba48 = true;
  r.in.lba = 12345678;
  r.in.count = 8;
  const auto before = t.io->now_ns();
  res = t.device->ata(r);
  REQUIRE(res.ok());
  CHECK(res.duration.count() > 1'000'000);  // a media access, in virtual time
  CHECK(t.io->now_ns() - before == res.duration.count());
  r.in.lba = t.model.capacity();
  CHECK(!t.device->ata(r).ok());
  r = {};
  r.in.command = 0x99;
  res = t.device->ata(r);
  CHECK(res.ata->aborted());
}

TEST_CASE("SCSI models answer INQUIRY, VPD, READ CAPACITY and MODE SENSE from the model") {
  auto t = simtest::open_or_fail("sim:cheetah15k3");
  const auto& m = t.model;
  std::vector<std::uint8_t> buf(255);
  auto res = scsi(*t.device, {ds::scsi::kInquiry, 0, 0, 0, 96, 0}, buf);
  REQUIRE(res.ok());
  CHECK((buf[7] & 0x02) != 0);  // CmdQue: TCQ
  CHECK(std::string(buf.begin() + 8, buf.begin() + 15) == "SEAGATE");
  CHECK(std::string(buf.begin() + 16, buf.begin() + 26) == "ST373453LW");
  res = scsi(*t.device, {ds::scsi::kInquiry, 1, 0x00, 0, 255, 0}, buf);
  REQUIRE(res.ok());
  CHECK(buf[3] == 3);
  CHECK(buf[6] == 0xB1);
  res = scsi(*t.device, {ds::scsi::kInquiry, 1, 0x80, 0, 255, 0}, buf);
  REQUIRE(res.ok());
  CHECK(std::string(buf.begin() + 4, buf.begin() + 4 + buf[3]) == m.identity.serial);
  res = scsi(*t.device, {ds::scsi::kInquiry, 1, 0xB1, 0, 255, 0}, buf);
  REQUIRE(res.ok());
  CHECK(((buf[4] << 8) | buf[5]) == 15000);
  CHECK(scsi(*t.device, {ds::scsi::kInquiry, 1, 0x83, 0, 255, 0}, buf).outcome == ds::Outcome::check_condition);
  std::vector<std::uint8_t> cap(32);
  res = scsi(*t.device, {ds::scsi::kServiceActionIn16, 0x10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 32, 0, 0}, cap);
  REQUIRE(res.ok());
  std::uint64_t last = 0;
  for (int i = 0; i < 8; ++i) last = last << 8 | cap[i];
  CHECK(last + 1 == m.capacity());
  CHECK(((cap[8] << 24) | (cap[9] << 16) | (cap[10] << 8) | cap[11]) == 512);
  std::vector<std::uint8_t> cap10(8);
  REQUIRE(scsi(*t.device, {ds::scsi::kReadCapacity10, 0, 0, 0, 0, 0, 0, 0, 0, 0}, cap10).ok());
  CHECK(((std::uint64_t{cap10[0]} << 24) | (cap10[1] << 16) | (cap10[2] << 8) | cap10[3]) == last);
  // MODE SENSE(10), caching page, no block descriptors
  res = scsi(*t.device, {ds::scsi::kModeSense10, 0x08, 0x08, 0, 0, 0, 0, 0, 255, 0}, buf);
  REQUIRE(res.ok());
  CHECK(buf[8] == 0x88);
  CHECK(static_cast<bool>(buf[8 + 2] & 0x04) == m.cache.write_back);  // WCE
  CHECK(!(buf[8 + 12] & 0x20));                                          // DRA: look-ahead on
  // MODE SENSE(6) with a block descriptor
  res = scsi(*t.device, {ds::scsi::kModeSense6, 0, 0x08, 0, 255, 0}, buf);
  REQUIRE(res.ok());
  CHECK(buf[3] == 8);
  CHECK(buf[12] == 0x88);
  CHECK(scsi(*t.device, {ds::scsi::kTestUnitReady, 0, 0, 0, 0, 0}, {}).ok());
  // unsupported opcode: CHECK CONDITION, ILLEGAL REQUEST, INVALID COMMAND OPERATION CODE
  res = scsi(*t.device, {0xC5, 0, 0, 0, 0, 0}, {});
  REQUIRE(res.outcome == ds::Outcome::check_condition);
  REQUIRE(res.sense.size() >= 14);
  CHECK((res.sense[2] & 0x0F) == 0x05);
  CHECK(res.sense[12] == 0x20);
  CHECK(res.sense[13] == 0x00);
  // ATA commands are not for a SCSI drive
  ds::AtaRequest a;
  a.in.command = ds::ata::kIdentifyDevice;
  CHECK(t.device->ata(a).outcome == ds::Outcome::unsupported);
}

TEST_CASE("ATA models answer a SAT-like INQUIRY") {
  auto t = simtest::open_or_fail("sim:maxline3");
  std::vector<std::uint8_t> buf(96);
  REQUIRE(scsi(*t.device, {ds::scsi::kInquiry, 0, 0, 0, 96, 0}, buf).ok());
  CHECK(std::string(buf.begin() + 8, buf.begin() + 16) == "ATA     ");
  CHECK((buf[7] & 0x02) != 0);
  auto none = simtest::open_or_fail("sim:wd1200jd");
  REQUIRE(scsi(*none.device, {ds::scsi::kInquiry, 0, 0, 0, 96, 0}, buf).ok());
  CHECK(!(buf[7] & 0x02));
}

TEST_CASE("SMART READ DATA / READ THRESHOLDS: checksummed pages that libatasmart decodes") {
  auto t = simtest::open_or_fail("sim:raptor");
  std::array<std::uint8_t, 512> id{}, data{}, thr{};
  REQUIRE(ds::ata::identify_device(*t.device, id).ok());
  REQUIRE(ds::ata::smart_read_data(*t.device, data).ok());
  REQUIRE(ds::ata::smart_read_thresholds(*t.device, thr).ok());
  for (const auto* page : {&data, &thr}) {
    unsigned sum = 0;
    for (auto b : *page) sum += b;
    CHECK(sum % 256 == 0);  // byte 511 makes the page sum to zero
  }
  bool healthy = false;
  REQUIRE(ds::ata::smart_return_status(*t.device, &healthy).ok());
  CHECK(healthy);
  auto r = ds::probe::smart_from_pages(id, data, thr, healthy);
  REQUIRE(r.ok());
  CHECK(r->temperature_c().value_or(0) == doctest::Approx(35.0));
  CHECK(r->power_cycles == 1u);
  CHECK(r->bad_sectors.value_or(99) == 0u);
  REQUIRE(r->attributes.size() == 8);
  CHECK(r->attributes[2].id == 5);
  CHECK(r->attributes[2].threshold == 36);
  // Another SMART subcommand (here ENABLE OPERATIONS, D8h) is still aborted.
  ds::AtaRequest q;
  q.in.command = ds::ata::kSmart;
  q.in.features = 0xD8;
  q.in.lba = 0xC24F00;
  CHECK(t.device->ata(q).ata->aborted());
}
