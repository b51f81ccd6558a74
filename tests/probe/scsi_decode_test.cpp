// SCSI decoders against sg3_utils' fixtures and decodes (tests/data/scsi), field by field.
#include <doctest/doctest.h>

#include <random>

#include "probe/scsi_decode.hpp"
#include "scsi_test_util.hpp"

using namespace ds::scsi;
using namespace ds::scsitest;

namespace {

int flag(const std::map<std::string, std::string>& m, const std::string& k) {
  auto it = m.find(k);
  REQUIRE_MESSAGE(it != m.end(), "sg_inq output lacks " << k);
  return static_cast<int>(std::stoul(it->second, nullptr, 0));
}

// sg_vpd 1.46 decodes of the pages of vpd_sdeb.hex other than page 0x00 (whose decode is in
// tests/data/scsi/vpd_sdeb.sg_vpd.txt); produced with `sg_vpd --inhex=` on each page alone.
const char* kSdebDevId = R"(Device Identification VPD page:
  Addressed logical unit:
    designator type: T10 vendor identification,  code set: ASCII
      vendor id: Linux   
      vendor specific: scsi_debug      2000
    designator type: NAA,  code set: Binary
      0x33333330000007d0
  Target port:
    designator type: Relative target port,  code set: Binary
     transport: Serial Attached SCSI Protocol (SPL-4)
      Relative target port: 0x1
    designator type: NAA,  code set: Binary
     transport: Serial Attached SCSI Protocol (SPL-4)
      0x32222220000007ce
    designator type: Target port group,  code set: Binary
     transport: Serial Attached SCSI Protocol (SPL-4)
      Target port group: 0x100
  Target device that contains addressed lu:
    designator type: NAA,  code set: Binary
     transport: Serial Attached SCSI Protocol (SPL-4)
      0x32222220000007cd
    designator type: SCSI name string,  code set: UTF-8
     transport: Serial Attached SCSI Protocol (SPL-4)
      SCSI name string:
      naa.32222220000007CD
)";

const char* kSdebBl = R"(Block limits VPD page (SBC):
  Write same non-zero (WSNZ): 0
  Maximum compare and write length: 0 blocks [Command not implemented]
  Optimal transfer length granularity: 1 blocks
  Maximum transfer length: 16384 blocks
  Optimal transfer length: 1024 blocks
  Maximum prefetch transfer length: 0 blocks [ignored]
  Maximum unmap LBA count: 0 [Unmap command not implemented]
  Maximum unmap block descriptor count: 0 [Unmap command not implemented]
  Optimal unmap granularity: 1 blocks
  Unmap granularity alignment valid: false
  Unmap granularity alignment: 0 [invalid]
  Maximum write same length: 0xffff blocks
  Maximum atomic transfer length: 0 blocks [not reported]
  Atomic alignment: 0 [unaligned atomic writes permitted]
  Atomic transfer length granularity: 0 [no granularity requirement
  Maximum atomic transfer length with atomic boundary: 0 blocks [not reported]
  Maximum atomic boundary size: 0 blocks [can only write atomic 1 block]
)";

void check_designators(const DeviceIdentification& di, const std::string& sg_text) {
  const auto want = sg_designators(sg_text);
  REQUIRE(want.size() >= 4);
  REQUIRE(di.designators.size() == want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    CAPTURE(i);
    const auto& d = di.designators[i];
    CHECK(lower(std::string(association_name(d.association))) == lower(want[i].association));
    CHECK(std::string(designator_type_name(d.type)) == want[i].type);
    CHECK(std::string(code_set_name(d.code_set)) == want[i].code_set);
    CHECK(d.protocol_valid == !want[i].transport.empty());
    if (!want[i].transport.empty()) {
      CHECK(want[i].transport.find("Serial Attached SCSI") != std::string::npos);
      CHECK(d.protocol_identifier == 6);
    }
    CHECK(d.value == want[i].value);
  }
}

void check_block_limits(const BlockLimits& b, const std::string& sg_text) {
  const auto m = labelled(sg_text);
  auto num = [&](const char* k) {
    REQUIRE_MESSAGE(m.count(k), k);
    return first_number(m.at(k));
  };
  CHECK(b.wsnz == (num("Write same non-zero (WSNZ)") != 0));
  CHECK(b.max_compare_write_length == num("Maximum compare and write length"));
  CHECK(b.optimal_transfer_length_granularity == num("Optimal transfer length granularity"));
  CHECK(b.max_transfer_length == num("Maximum transfer length"));
  CHECK(b.optimal_transfer_length == num("Optimal transfer length"));
  CHECK(b.max_prefetch_length.value() == num("Maximum prefetch transfer length"));
  CHECK(b.max_unmap_lba_count.value() == num("Maximum unmap LBA count"));
  CHECK(b.max_unmap_descriptor_count.value() == num("Maximum unmap block descriptor count"));
  CHECK(b.optimal_unmap_granularity.value() == num("Optimal unmap granularity"));
  CHECK(b.unmap_granularity_alignment_valid.value() ==
        (trim(m.at("Unmap granularity alignment valid")) == "true"));
  CHECK(b.unmap_granularity_alignment.value() == num("Unmap granularity alignment"));
  CHECK(b.max_write_same_length.value() == num("Maximum write same length"));
  CHECK(b.max_atomic_transfer_length.value() == num("Maximum atomic transfer length"));
  CHECK(b.atomic_alignment.value() == num("Atomic alignment"));
  CHECK(b.atomic_transfer_length_granularity.value() == num("Atomic transfer length granularity"));
  CHECK(b.max_atomic_transfer_length_with_boundary.value() ==
        num("Maximum atomic transfer length with atomic boundary"));
  CHECK(b.max_atomic_boundary_size.value() == num("Maximum atomic boundary size"));
}

}  // namespace

TEST_CASE("standard INQUIRY agrees with sg_inq") {
  const auto bytes = load_hex("inq_standard.hex");
  REQUIRE(bytes.size() == 96);
  auto q = decode_standard_inquiry(bytes);
  REQUIRE(q.ok());
  const std::string text = read_text(data_path("inq_standard.sg_inq.txt"));
  const auto f = flag_tokens(text);
  CHECK(q->peripheral_qualifier == flag(f, "PQual"));
  CHECK(q->device_type == flag(f, "PDT"));
  CHECK(q->rmb == flag(f, "RMB"));
  CHECK(q->lu_cong == flag(f, "LU_CONG"));
  CHECK(q->hot_pluggable == flag(f, "hot_pluggable"));
  CHECK(q->version == flag(f, "version"));
  CHECK(q->aerc == flag(f, "AERC"));
  CHECK(q->trmtsk == flag(f, "TrmTsk"));
  CHECK(q->norm_aca == flag(f, "NormACA"));
  CHECK(q->hisup == flag(f, "HiSUP"));
  CHECK(q->response_data_format == flag(f, "Resp_data_format"));
  CHECK(q->sccs == flag(f, "SCCS"));
  CHECK(q->acc == flag(f, "ACC"));
  CHECK(q->tpgs == flag(f, "TPGS"));
  CHECK(q->third_party_copy == flag(f, "3PC"));
  CHECK(q->protect == flag(f, "Protect"));
  CHECK(q->bque == flag(f, "BQue"));
  CHECK(q->enc_serv == flag(f, "EncServ"));
  CHECK(q->multi_p == flag(f, "MultiP"));
  CHECK(q->vs6 == flag(f, "VS"));
  CHECK(q->mchngr == flag(f, "MChngr"));
  CHECK(q->addr16 == flag(f, "Addr16"));
  CHECK(q->rel_adr == flag(f, "RelAdr"));
  CHECK(q->wbus16 == flag(f, "WBus16"));
  CHECK(q->sync == flag(f, "Sync"));
  CHECK(q->linked == flag(f, "Linked"));
  CHECK(q->tran_dis == flag(f, "TranDis"));
  CHECK(q->cmd_que == flag(f, "CmdQue"));
  CHECK(q->cmd_que);  // the fixture exists to show CmdQue=1
  REQUIRE(q->spi_clocking.has_value());
  CHECK(*q->spi_clocking == flag(f, "Clocking"));
  CHECK(q->qas == flag(f, "QAS"));
  CHECK(q->ius == flag(f, "IUS"));
  CHECK(q->length == static_cast<std::size_t>(flag(f, "length")));
  CHECK(text.find("Peripheral device type: " + std::string(device_type_name(q->device_type))) !=
        std::string::npos);
  CHECK(text.find("[" + std::string(version_name(q->version)) + "]") != std::string::npos);
  const auto m = labelled(text);
  CHECK(q->vendor == trim(m.at("Vendor identification")));
  CHECK(q->product == trim(m.at("Product identification")));
  CHECK(q->revision == trim(m.at("Product revision level")));
  CHECK(q->vendor == "Linux");
  // sg_inq -d names them SAM-6, SPC-5, SBC-4, SPL-4.
  CHECK(q->version_descriptors == std::vector<std::uint16_t>{0x00C0, 0x05C0, 0x0600, 0x2100});
}

TEST_CASE("standard INQUIRY: short and inconsistent inputs are errors") {
  auto bytes = load_hex("inq_standard.hex");
  for (std::size_t n : {0, 1, 4, 5, 8, 35}) {
    CAPTURE(n);
    auto q = decode_standard_inquiry(std::span(bytes).first(n));
    CHECK_FALSE(q.ok());
    if (!q.ok()) CHECK(q.error().message.find("too short") != std::string::npos);
  }
  CHECK(decode_standard_inquiry(std::span(bytes).first(36)).ok());
  bytes[4] = 10;  // additional length says 15 bytes: not enough for the identification
  CHECK_FALSE(decode_standard_inquiry(bytes).ok());
  // Additional length larger than the buffer: decode what is there, no more.
  bytes[4] = 0xFF;
  auto q = decode_standard_inquiry(bytes);
  REQUIRE(q.ok());
  CHECK(q->length == bytes.size());
}

TEST_CASE("VPD 0x83 device identification agrees with sg_vpd (SAS drive)") {
  auto di = decode_device_identification(load_hex("vpd_dev_id.hex"));
  REQUIRE(di.ok());
  CHECK_FALSE(di->truncated);
  check_designators(*di, read_text(data_path("vpd_dev_id.sg_vpd.txt")));
  CHECK(di->designators[0].naa == 5);
}

TEST_CASE("VPD pages of a scsi_debug device agree with sg_vpd") {
  const auto pages = split_vpd_pages(load_hex("vpd_sdeb.hex"));
  REQUIRE(pages.size() == 12);

  SUBCASE("0x00 supported pages") {
    auto sp = decode_supported_vpd_pages(pages.at(0x00));
    REQUIRE(sp.ok());
    const auto want = lines_of(read_text(data_path("vpd_sdeb.sg_vpd.txt")));
    REQUIRE(want.size() == sp->size() + 1);
    for (std::size_t i = 0; i < sp->size(); ++i) {
      const auto w = trim(want[i + 1]);
      CHECK(lower(std::string(vpd_page_name((*sp)[i]))) == lower(w.substr(0, w.find(" ["))));
    }
  }
  SUBCASE("0x80 serial") {
    auto s = decode_unit_serial(pages.at(0x80));
    REQUIRE(s.ok());
    CHECK(*s == "2000");
  }
  SUBCASE("0x83 designators") {
    auto di = decode_device_identification(pages.at(0x83));
    REQUIRE(di.ok());
    check_designators(*di, kSdebDevId);
  }
  SUBCASE("0xB0 block limits") {
    auto bl = decode_block_limits(pages.at(0xB0));
    REQUIRE(bl.ok());
    check_block_limits(*bl, kSdebBl);
  }
  SUBCASE("0xB1 block device characteristics") {
    // sg_vpd: "Non-rotating medium", "Nominal form factor: less then 1.8 inch", the rest 0.
    auto bc = decode_block_characteristics(pages.at(0xB1));
    REQUIRE(bc.ok());
    CHECK(bc->medium_rotation_rate == 1);
    CHECK(bc->rotation_rate_rpm() == std::optional<std::uint32_t>(1));
    CHECK(bc->nominal_form_factor == 5);
    CHECK(form_factor_name(bc->nominal_form_factor) == "less than 1.8 inch");
    CHECK(bc->product_type == 0);
    CHECK(bc->wabereq == 0);
    CHECK(bc->wacereq == 0);
    CHECK(bc->zoned == 0);
    CHECK_FALSE(bc->fuab);
    CHECK_FALSE(bc->vbuls);
  }
  SUBCASE("0x89 equals the standalone ATA information page") {
    CHECK(pages.at(0x89) == load_hex("vpd_atai.hex"));
  }
}

TEST_CASE("VPD 0xB0 block limits agree with sg_vpd") {
  auto bl = decode_block_limits(load_hex("vpd_bl.hex"));
  REQUIRE(bl.ok());
  check_block_limits(*bl, read_text(data_path("vpd_bl.sg_vpd.txt")));
  CHECK(bl->max_unmap_lba_count == 393216u);
}

TEST_CASE("VPD 0x89 ATA information agrees with sg_vpd") {
  const auto bytes = load_hex("vpd_atai.hex");
  REQUIRE(bytes.size() == 572);
  auto a = decode_ata_information(bytes);
  REQUIRE(a.ok());
  const std::string text = read_text(data_path("vpd_atai.sg_vpd.txt"));
  const auto m = labelled(text);
  CHECK(a->sat_vendor == trim(m.at("SAT Vendor identification")));
  CHECK(a->sat_product == trim(m.at("SAT Product identification")));
  CHECK(a->sat_revision == trim(m.at("SAT Product revision level")));
  CHECK(a->signature_sata == (text.find("indicates SATA transport") != std::string::npos));
  CHECK(a->signature_sata);
  CHECK(a->signature_device == "ata");
  CHECK(a->command_code == first_number(m.at("Command code")));
  REQUIRE(a->has_identify);
  CHECK(a->ata_model == trim(m.at("model")));
  CHECK(a->ata_serial == trim(m.at("serial number")));
  CHECK(a->ata_firmware == trim(m.at("firmware revision")));
  CHECK(a->ata_model == "ST380013AS");
  // The IDENTIFY data is handed on intact: word 0 (5A 0C) and the integrity word 255 (A5 51).
  CHECK(a->identify_data()[0] == 0x5A);
  CHECK(a->identify_data()[510] == 0xA5);
  CHECK(a->identify_data()[511] == 0x51);
}

TEST_CASE("VPD decoders: wrong page, truncation and short pages") {
  const auto atai = load_hex("vpd_atai.hex");
  CHECK_FALSE(decode_block_limits(atai).ok());  // page 0x89 is not 0xB0
  auto wrong = decode_unit_serial(atai);
  REQUIRE_FALSE(wrong.ok());
  CHECK(wrong.error().message.find("0x89") != std::string::npos);
  // Truncated ATA information: strings still there, IDENTIFY absent.
  auto part = decode_ata_information(std::span(atai).first(100));
  REQUIRE(part.ok());
  CHECK_FALSE(part->has_identify);
  CHECK(part->sat_vendor == "linux");
  CHECK_FALSE(decode_ata_information(std::span(atai).first(40)).ok());

  const auto bl = load_hex("vpd_bl.hex");
  auto old = decode_block_limits(std::span(bl).first(16));  // an SBC-2 sized page
  REQUIRE(old.ok());
  CHECK(old->max_transfer_length == 65535u);
  CHECK_FALSE(old->max_unmap_lba_count.has_value());
  CHECK_FALSE(decode_block_limits(std::span(bl).first(15)).ok());

  // A designator whose length runs past the page is dropped and flagged.
  auto di = load_hex("vpd_dev_id.hex");
  auto cut = decode_device_identification(std::span(di).first(30));
  REQUIRE(cut.ok());
  CHECK(cut->truncated);
  CHECK(cut->designators.size() == 2);
  CHECK_FALSE(decode_device_identification(std::span(di).first(10)).ok());
  for (std::size_t n = 0; n < 4; ++n) CHECK_FALSE(decode_supported_vpd_pages(std::span(di).first(n)).ok());
}

TEST_CASE("READ CAPACITY(10) and (16)") {
  // 2 TB - 1 block of 512-byte blocks, then a 4Kn-emulating 512e drive with LBPME.
  const std::uint8_t rc10[8] = {0xE8, 0xE0, 0x88, 0xAF, 0x00, 0x00, 0x02, 0x00};
  auto c10 = decode_read_capacity10(rc10);
  REQUIRE(c10.ok());
  CHECK(c10->last_lba == 0xE8E088AFu);
  CHECK(c10->block_length == 512);
  CHECK(c10->blocks() == 0xE8E088B0u);
  CHECK_FALSE(c10->needs_16());
  const std::uint8_t big[8] = {0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 2, 0};
  CHECK(decode_read_capacity10(big)->needs_16());

  std::uint8_t rc16[32] = {0x00, 0x00, 0x00, 0x01, 0xD1, 0xC0, 0xBE, 0xAF,  // 7814037167
                           0x00, 0x00, 0x02, 0x00,                          // 512
                           0x05,  // P_TYPE 2 (type 3 protection), PROT_EN
                           0x23,  // P_I_EXPONENT 2, LBPPBE 3 (8 logical per physical)
                           0xC0, 0x07};  // LBPME, LBPRZ, lowest aligned LBA 7
  auto c16 = decode_read_capacity16(rc16);
  REQUIRE(c16.ok());
  CHECK(c16->from_16);
  CHECK(c16->last_lba == 7814037167ull);
  CHECK(c16->bytes() == 7814037168ull * 512);
  CHECK(c16->p_type == 2);
  CHECK(c16->prot_en);
  CHECK(c16->p_i_exponent == 2);
  CHECK(c16->lbppbe == 3);
  CHECK(c16->physical_block_length() == 4096);
  CHECK(c16->lbpme);
  CHECK(c16->lbprz);
  CHECK(c16->lowest_aligned_lba == 7);

  CHECK_FALSE(decode_read_capacity16(std::span(rc16).first(15)).ok());
  CHECK_FALSE(decode_read_capacity10(std::span(rc10).first(7)).ok());
  rc16[10] = 0;
  rc16[11] = 0;
  CHECK_FALSE(decode_read_capacity16(rc16).ok());  // block length 0 is not a disk
}

TEST_CASE("MODE SENSE caching page") {
  // MODE SENSE(10) header with one 8-byte block descriptor, then a Control page (0x0A) that
  // must be skipped, then the Caching page: WCE=1 RCD=0, DRA=1, 16 segments.
  std::vector<std::uint8_t> r = {0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x08,  // header
                                 0, 0, 0, 0, 0, 0, 2, 0,                          // block desc
                                 0x0A, 0x0A, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,        // control page
                                 0x88, 0x12, 0x04, 0x00, 0xFF, 0xFF, 0x00, 0x00,
                                 0xFF, 0xFF, 0xFF, 0xFF, 0x20, 0x10, 0x00, 0x00,
                                 0x00, 0x00, 0x00, 0x00};
  r[1] = static_cast<std::uint8_t>(r.size() - 2);
  auto c = decode_mode_sense_caching(r, true);
  REQUIRE(c.ok());
  CHECK(c->ps);
  CHECK(c->wce);
  CHECK_FALSE(c->rcd);
  CHECK(c->dra);
  CHECK(c->cache_segments == 16);
  CHECK(c->disable_prefetch_transfer_length == 0xFFFF);
  CHECK(c->max_prefetch_ceiling == 0xFFFF);

  // The same page behind a MODE SENSE(6) header without block descriptors; read-ahead on.
  std::vector<std::uint8_t> r6 = {0x00, 0x00, 0x00, 0x00};
  r6.insert(r6.end(), r.begin() + 28, r.end());
  r6[0] = static_cast<std::uint8_t>(r6.size() - 1);
  r6[4 + 12] = 0x00;
  auto c6 = decode_mode_sense_caching(r6, false);
  REQUIRE(c6.ok());
  CHECK(c6->wce);
  CHECK_FALSE(c6->dra);

  // Mode data length cutting the caching page off, and a response with no caching page.
  auto cut = r;
  cut[1] = 26;  // ends right after the control page
  CHECK_FALSE(decode_mode_sense_caching(cut, true).ok());
  CHECK_FALSE(decode_mode_sense_caching(std::span(r).first(28), true).ok());
  CHECK_FALSE(decode_mode_sense_caching(std::span(r).first(5), true).ok());
  CHECK_FALSE(decode_caching_page(std::span(r).subspan(16)).ok());  // that is the control page
}

TEST_CASE("SCSI decoders never crash on garbage") {
  std::mt19937 rng(1234);
  std::vector<std::vector<std::uint8_t>> seeds = {
      load_hex("inq_standard.hex"), load_hex("vpd_atai.hex"), load_hex("vpd_bl.hex"),
      load_hex("vpd_dev_id.hex")};
  int decoded = 0;
  for (int round = 0; round < 4000; ++round) {
    std::vector<std::uint8_t> buf;
    if (round % 2 == 0) {
      buf.resize(rng() % 700);
      for (auto& b : buf) b = static_cast<std::uint8_t>(rng());
    } else {  // mutate a real page: flip bytes, cut it anywhere
      buf = seeds[rng() % seeds.size()];
      for (int k = 0; k < 4; ++k)
        if (!buf.empty()) buf[rng() % buf.size()] = static_cast<std::uint8_t>(rng());
      buf.resize(rng() % (buf.size() + 1));
    }
    // Forcing the page code lets the garbage reach past the header checks.
    for (std::uint8_t page : {0x00, 0x80, 0x83, 0x89, 0xB0, 0xB1}) {
      if (buf.size() > 1) buf[1] = page;
      decoded += decode_supported_vpd_pages(buf).ok() + decode_unit_serial(buf).ok() +
                 decode_device_identification(buf).ok() + decode_ata_information(buf).ok() +
                 decode_block_limits(buf).ok() + decode_block_characteristics(buf).ok();
    }
    decoded += decode_standard_inquiry(buf).ok() + decode_read_capacity10(buf).ok() +
               decode_read_capacity16(buf).ok() + decode_mode_sense_caching(buf, true).ok() +
               decode_mode_sense_caching(buf, false).ok() + decode_caching_page(buf).ok();
  }
  CHECK(decoded > 0);
}
