// probe_scsi over a scripted SCSI device that answers from sg3_utils' scsi_debug captures.
#include <doctest/doctest.h>

#include <functional>

#include "drivescope/commands.hpp"
#include "probe/scsi_probe.hpp"
#include "scsi_test_util.hpp"

using namespace ds;
using namespace ds::scsitest;

namespace {

class FakeScsi : public Device {
 public:
  FakeScsi() {
    info_.name = "fake-scsi";
    info_.kind = TargetKind::scsi;
    info_.scsi_capable = true;
    inquiry = load_hex("inq_standard.hex");
    pages = split_vpd_pages(load_hex("vpd_sdeb.hex"));
    // 3907029168 blocks of 512 bytes, 4 KiB physical (LBPPBE 3), LBPME.
    rc16 = {0x00, 0x00, 0x00, 0x00, 0xE8, 0xE0, 0x88, 0xAF, 0x00, 0x00, 0x02, 0x00,
            0x00, 0x03, 0x80, 0x00};
    rc16.resize(32);
    rc10 = {0xE8, 0xE0, 0x88, 0xAF, 0x00, 0x00, 0x02, 0x00};
    // MODE SENSE(10): header, no block descriptors, Caching page WCE=1, DRA=0.
    ms10 = {0x00, 0x1A, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x08, 0x12, 0x04, 0x00,
            0xFF, 0xFF, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x10, 0x00, 0x00,
            0x00, 0x00, 0x00, 0x00};
    ms6 = {0x17, 0x00, 0x00, 0x00, 0x08, 0x12, 0x00, 0x00, 0xFF, 0xFF, 0x00, 0x00,
           0xFF, 0xFF, 0xFF, 0xFF, 0x20, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
  }
  const DeviceInfo& info() const override { return info_; }

  CommandResult scsi(const ScsiRequest& req) override {
    cdbs.emplace_back(req.cdb.begin(), req.cdb.end());
    const std::uint8_t op = req.cdb[0];
    if (refuse && refuse(req.cdb)) return illegal_request();
    const std::vector<std::uint8_t>* src = nullptr;
    if (op == scsi::kInquiry && (req.cdb[1] & 1)) {
      auto it = pages.find(req.cdb[2]);
      if (it == pages.end()) return illegal_request();
      src = &it->second;
    } else if (op == scsi::kInquiry) {
      src = &inquiry;
    } else if (op == scsi::kServiceActionIn16 && req.cdb[1] == scsi::kSaReadCapacity16) {
      src = &rc16;
    } else if (op == scsi::kReadCapacity10) {
      src = &rc10;
    } else if (op == scsi::kModeSense10 && (req.cdb[2] & 0x3F) == 0x08) {
      src = &ms10;
    } else if (op == scsi::kModeSense6 && (req.cdb[2] & 0x3F) == 0x08) {
      src = &ms6;
    } else if (op == scsi::kZbcIn && (req.cdb[1] & 0x1F) == scsi::kSaReportZones && !zones.empty()) {
      src = &zones;
    } else {
      return illegal_request();
    }
    const std::size_t n = std::min(src->size(), req.data.size());
    std::copy_n(src->begin(), n, req.data.begin());
    CommandResult r;
    r.residual = static_cast<std::int32_t>(req.data.size() - n);
    return r;
  }

  static CommandResult illegal_request() {
    CommandResult r;
    r.outcome = Outcome::check_condition;
    r.scsi_status = 0x02;
    r.sense = {0x70, 0, 0x05, 0, 0, 0, 0, 0x0A, 0, 0, 0, 0, 0x20, 0x00};  // INVALID COMMAND OPCODE
    r.message = "ILLEGAL REQUEST";
    return r;
  }

  DeviceInfo info_;
  std::vector<std::uint8_t> inquiry, rc16, rc10, ms10, ms6, zones;
  std::map<std::uint8_t, std::vector<std::uint8_t>> pages;
  std::vector<std::vector<std::uint8_t>> cdbs;
  std::function<bool(std::span<const std::uint8_t>)> refuse;
};

const probe::ScsiProbeStep* step(const probe::ScsiProbe& p, const std::string& name) {
  for (const auto& s : p.steps)
    if (s.command == name) return &s;
  return nullptr;
}

}  // namespace

TEST_CASE("probe_scsi: a device that answers everything") {
  FakeScsi dev;
  auto p = probe::probe_scsi(dev);
  REQUIRE(p.ok());
  CHECK_FALSE(p->any_failed());
  REQUIRE(p->inquiry.has_value());
  CHECK(p->inquiry->product == "scsi_debug");
  CHECK(p->inquiry->cmd_que);
  CHECK(p->supported_vpd_pages.size() == 12);
  CHECK(p->serial == std::optional<std::string>("2000"));
  REQUIRE(p->device_id.has_value());
  CHECK(p->device_id->designators.size() == 7);
  REQUIRE(p->ata_info.has_value());
  CHECK(p->ata_info->has_identify);  // needed the second, longer VPD 0x89 read
  CHECK(p->ata_info->ata_model == "ST380013AS");
  REQUIRE(p->block_limits.has_value());
  CHECK(p->block_limits->max_transfer_length == 16384u);
  REQUIRE(p->block_characteristics.has_value());
  CHECK(p->block_characteristics->medium_rotation_rate == 1);
  REQUIRE(p->capacity.has_value());
  CHECK(p->capacity->from_16);
  CHECK(p->capacity->blocks() == 3907029168ull);
  CHECK(p->capacity->physical_block_length() == 4096);
  CHECK(p->capacity->lbpme);
  REQUIRE(p->caching.has_value());
  CHECK(p->caching->wce);
  CHECK_FALSE(p->caching->dra);

  // Pages the device does not list (0x84..0x88, 0xB2) are not asked for; 0x89 is asked twice,
  // the second time for all 572 bytes; READ CAPACITY(10) and MODE SENSE(6) are not needed.
  std::vector<std::uint8_t> vpd_asked;
  std::vector<unsigned> alloc_89;
  for (const auto& c : dev.cdbs) {
    if (c[0] == scsi::kInquiry && (c[1] & 1)) {
      vpd_asked.push_back(c[2]);
      if (c[2] == 0x89) alloc_89.push_back((c[3] << 8) | c[4]);
    }
    CHECK(c[0] != scsi::kReadCapacity10);
    CHECK(c[0] != scsi::kModeSense6);
  }
  CHECK(vpd_asked == std::vector<std::uint8_t>{0x00, 0x80, 0x83, 0x89, 0x89, 0xB0, 0xB1});
  CHECK(alloc_89 == std::vector<unsigned>{252, 572});
  CHECK(p->raw.at("INQUIRY VPD 0x89").size() == 572);
  CHECK(p->raw.at("INQUIRY").size() == 96);
}

TEST_CASE("probe_scsi: fallbacks and failures are recorded, results kept") {
  FakeScsi dev;
  dev.refuse = [](std::span<const std::uint8_t> cdb) {
    return cdb[0] == scsi::kServiceActionIn16 || cdb[0] == scsi::kModeSense10 ||
           (cdb[0] == scsi::kInquiry && (cdb[1] & 1) && cdb[2] == 0xB0);
  };
  dev.pages[0x83] = {0x00, 0x83, 0x00, 0x08, 0x01, 0x03, 0x00, 0x20, 0x50, 0x00};  // runs past
  auto p = probe::probe_scsi(dev);
  REQUIRE(p.ok());
  CHECK(p->any_failed());
  REQUIRE(p->capacity.has_value());
  CHECK_FALSE(p->capacity->from_16);
  CHECK(p->capacity->blocks() == 0xE8E088B0ull);
  REQUIRE(p->caching.has_value());
  CHECK(p->caching->dra);  // from the MODE SENSE(6) answer
  CHECK_FALSE(p->block_limits.has_value());
  CHECK_FALSE(p->device_id.has_value());
  CHECK(p->serial == std::optional<std::string>("2000"));

  const auto* rc16 = step(*p, "READ CAPACITY(16)");
  REQUIRE(rc16);
  CHECK(rc16->outcome == Outcome::check_condition);
  CHECK(rc16->sense.size() == 14);
  const auto* bl = step(*p, "INQUIRY VPD 0xb0");
  REQUIRE(bl);
  CHECK_FALSE(bl->ok());
  const auto* di = step(*p, "INQUIRY VPD 0x83");
  REQUIRE(di);
  CHECK(di->outcome == Outcome::good);
  CHECK_FALSE(di->decode_error.empty());
}

TEST_CASE("probe_scsi: nothing answers") {
  FakeScsi dev;
  dev.refuse = [](std::span<const std::uint8_t>) { return true; };
  auto p = probe::probe_scsi(dev);
  REQUIRE_FALSE(p.ok());
  CHECK(p.error().message.find("fake-scsi") != std::string::npos);
}

#include "report/scsi_report.hpp"

TEST_CASE("scsi report: the documented JSON keys and text") {
  FakeScsi dev;
  auto p = probe::probe_scsi(dev);
  REQUIRE(p.ok());
  sysfs::DriveFacts facts;
  facts.name = "sdc";
  facts.dev_path = "/dev/sdc";
  facts.transport = sysfs::Transport::scsi;
  facts.queue_depth = 31;
  facts.queue_depth_writable = true;
  facts.scheduler = "mq-deadline";

  const auto j = report::scsi_identity_to_json(*p, &facts);
  CHECK(j["model"] == "scsi_debug");
  CHECK(j["vendor"] == "Linux");
  CHECK(j["firmware"] == "0191");
  CHECK(j["serial"] == "2000");
  CHECK(j["capacity_sectors"] == 3907029168ull);
  CHECK(j["logical_sector_bytes"] == 512);
  CHECK(j["physical_sector_bytes"] == 4096);
  CHECK(j["rotation_rate_rpm"] == 1);
  CHECK(j["form_factor"] == "less than 1.8 inch");
  CHECK(j["tcq"]["supported"] == true);
  CHECK(j["tcq"]["depth"] == 31);
  CHECK(j["write_cache"]["enabled"] == true);
  CHECK(j["read_ahead"]["enabled"] == true);
  // What Linux knows goes once, at the top level of the report (app/identify.cpp), not here too.
  CHECK_FALSE(j.contains("host"));
  CHECK(j["scsi"]["device_id"].size() == 7);
  CHECK(j["scsi"]["device_id"][1]["value"] == "0x33333330000007d0");
  CHECK(j["scsi"]["device_id"][2]["protocol"] == "SAS");
  CHECK(j["scsi"]["device_id"][0]["protocol"].is_null());
  CHECK(j["scsi"]["block_limits"]["max_transfer_length_blocks"] == 16384);
  CHECK(j["scsi"]["ata_information"]["ata_model"] == "ST380013AS");
  CHECK(j["scsi"]["vpd_pages"].size() == 12);
  CHECK(j["scsi"]["inquiry"]["cmd_que"] == true);
  CHECK(j["probe_errors"].empty());

  const auto text = report::scsi_identity_to_text(*p, &facts);
  CHECK(text.find("scsi_debug") != std::string::npos);
  CHECK(text.find("Command queuing (CmdQue):") != std::string::npos);
  CHECK(text.find("non-rotating") != std::string::npos);
  CHECK(text.find("Host queue depth:") != std::string::npos);
  CHECK(text.find("Problems") == std::string::npos);

  // Without host facts the depth is unknown, not invented.
  CHECK(report::scsi_identity_to_json(*p)["tcq"]["depth"].is_null());
}

TEST_CASE("scsi report: missing pages give nulls and listed problems") {
  FakeScsi dev;
  dev.pages.erase(0xB1);  // still listed in page 0x00, so asked for and refused
  dev.refuse = [](std::span<const std::uint8_t> cdb) {
    return cdb[0] == scsi::kModeSense10 || cdb[0] == scsi::kModeSense6;
  };
  auto p = probe::probe_scsi(dev);
  REQUIRE(p.ok());
  const auto j = report::scsi_identity_to_json(*p);
  CHECK(j["rotation_rate_rpm"].is_null());
  CHECK(j["write_cache"]["enabled"].is_null());
  CHECK(j["read_ahead"]["supported"].is_null());
  CHECK(j["model"] == "scsi_debug");
  REQUIRE(j["probe_errors"].size() == 3);
  CHECK(j["probe_errors"][0]["command"] == "INQUIRY VPD 0xb1");
  CHECK(j["probe_errors"][0]["outcome"] == "check condition");
  const auto text = report::scsi_identity_to_text(*p);
  CHECK(text.find("Problems") != std::string::npos);
  CHECK(text.find("MODE SENSE(6) 0x08") != std::string::npos);
}

TEST_CASE("probe_scsi: a host-aware dual-actuator device: VPD 0xB9 and REPORT ZONES are read and reported") {
  FakeScsi dev;
  // Lists B9h too; B1h says host aware; the pages are the hand-built ones of tests/data/pages.
  auto& list = dev.pages.at(0x00);
  list.push_back(0xB9);
  list[3] = static_cast<std::uint8_t>(list.size() - 4);
  dev.pages[0xB9] = load_hex("../pages/vpd_b9_dual.hex");
  dev.pages[0xB1] = load_hex("../pages/vpd_b1_hostaware.hex");
  dev.zones = load_hex("../pages/report_zones_zbc.hex");
  auto p = probe::probe_scsi(dev);
  REQUIRE(p.ok());
  CHECK_FALSE(p->any_failed());
  REQUIRE(p->positioning_ranges.has_value());
  REQUIRE(p->positioning_ranges->ranges.size() == 2);
  CHECK(p->positioning_ranges->ranges[1].lowest_lba == p->positioning_ranges->ranges[0].lba_count);
  REQUIRE(p->zones.has_value());
  CHECK(p->zones->zones_listed == 4);
  const auto* st = step(*p, "REPORT ZONES");
  REQUIRE(st != nullptr);
  // One REPORT ZONES of 64 KiB from LBA 0 (ZBC IN, service action 00h, allocation length in
  // bytes 10..13): the four zones fit in it, so no second one follows.
  int asked = 0;
  for (const auto& c : dev.cdbs)
    if (c[0] == scsi::kZbcIn) {
      ++asked;
      CHECK(c.size() == 16);
      CHECK(c[1] == 0);
      CHECK(((std::uint32_t{c[10]} << 24) | (std::uint32_t{c[11]} << 16) | (std::uint32_t{c[12]} << 8) | c[13]) ==
            probe::kZoneReplyBytes);
    }
  CHECK(asked == 1);
  const auto j = report::scsi_identity_to_json(*p);
  CHECK(j["zoned"] == "host aware");
  CHECK(j["concurrent_positioning_ranges"]["count"] == 2);
  CHECK(j["zones"]["types"][0]["type"] == "conventional");
  const auto text = report::scsi_identity_to_text(*p);
  CHECK(text.find("Concurrent positioning ranges (VPD page 0xb9)") != std::string::npos);
  CHECK(text.find("Zones (ZBC REPORT ZONES)") != std::string::npos);

  // Not zoned (the scsi_debug pages as captured): no REPORT ZONES is sent.
  FakeScsi plain;
  auto q = probe::probe_scsi(plain);
  REQUIRE(q.ok());
  CHECK_FALSE(q->zones.has_value());
  for (const auto& c : plain.cdbs) CHECK(c[0] != scsi::kZbcIn);
}
