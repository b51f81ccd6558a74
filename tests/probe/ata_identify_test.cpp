// decode_identify() on the 13 real IDENTIFY dumps of tests/data/identify, from all three dump
// formats, checked against summary.csv and against hdparm's own decode (the stored
// hdparm-Istdin.txt, and hdparm run live when it is installed).
#include <doctest/doctest.h>

#include <cstdio>
#include <string>

#include "ata_test_util.hpp"
#include "probe/dump_reader.hpp"
#include "probe/identify.hpp"
#include "../support/skip.hpp"

using namespace ds::probe;
using namespace ds::atatest;

namespace {

AtaIdentity decode_file(const std::string& path, DumpFormat want_format) {
  auto dump = read_identify_dump(path);
  REQUIRE_MESSAGE(dump.ok(), (dump.ok() ? "" : dump.error().message));
  CHECK(dump->format == want_format);
  auto id = decode_identify(dump->identify);
  REQUIRE_MESSAGE(id.ok(), (id.ok() ? "" : id.error().message));
  return *id;
}

bool flag(const CsvRow& r, const char* col) { return r.at(col) == "1"; }

// Every CSV column we decode, for one drive.
void check_against_csv(const AtaIdentity& id, const CsvRow& r) {
  CHECK(id.model == r.at("model"));
  CHECK(id.serial == r.at("serial"));
  CHECK(id.firmware == r.at("firmware"));
  CHECK(id.lba28_sectors == to_u64(r.at("lba28_sectors")).value());
  CHECK(id.lba48_supported == flag(r, "lba48_supported"));
  if (id.lba48_supported) CHECK(id.lba48_sectors == to_u64(r.at("lba48_sectors")).value());
  CHECK(id.logical_sector_bytes == to_u64(r.at("logical_sector_bytes")).value());
  CHECK(id.capacity_bytes == to_u64(r.at("capacity_bytes")).value());
  CHECK(id.general_config == to_u64(r.at("w0_general_config")).value());

  CHECK(id.sata == flag(r, "sata_w76_valid"));
  CHECK(id.ncq.supported == flag(r, "ncq_supported"));
  if (id.ncq.supported) CHECK(id.ncq_depth == to_u64(r.at("ncq_queue_depth")).value());
  else CHECK(r.at("ncq_queue_depth").empty());

  CHECK(id.aam.supported == flag(r, "aam_supported"));
  CHECK(id.aam.is_enabled() == flag(r, "aam_enabled"));
  if (id.aam.supported) {
    REQUIRE(id.aam_current_level.has_value());
    REQUIRE(id.aam_recommended_level.has_value());
    CHECK(*id.aam_current_level == to_u64(r.at("aam_current")).value());
    CHECK(*id.aam_recommended_level == to_u64(r.at("aam_recommended")).value());
  } else {
    CHECK_FALSE(id.aam_current_level.has_value());
    CHECK(r.at("aam_current").empty());
  }

  CHECK(id.apm.supported == flag(r, "apm_supported"));
  CHECK(id.apm.is_enabled() == flag(r, "apm_enabled"));
  if (id.apm.supported) CHECK(id.apm_level.value() == to_u64(r.at("apm_level")).value());
  else CHECK_FALSE(id.apm_level.has_value());

  CHECK(id.smart.supported == flag(r, "smart_supported"));
  CHECK(id.write_cache.supported == flag(r, "write_cache_supported"));
  CHECK(id.write_cache.is_enabled() == flag(r, "write_cache_enabled"));
  CHECK(id.read_look_ahead.is_enabled() == flag(r, "read_lookahead_enabled"));
  CHECK(id.trim.supported == flag(r, "trim_supported"));

  const std::string rot = r.at("rotation");
  if (rot == "not reported") CHECK_FALSE(id.rotation_rate_rpm.has_value());
  else if (rot == "non-rotating") CHECK((id.solid_state && id.rotation_rate_rpm == 1));
  else CHECK(id.rotation_rate_rpm == to_u64(rot));
  CHECK(id.rotation_raw == to_u64(r.at("w217")).value());

  CHECK(std::string(checksum_name(id.checksum)) == r.at("w255_checksum"));
  if (!r.at("w21_buffer_KiB").empty())
    CHECK(id.buffer_size_kib() == to_u64(r.at("w21_buffer_KiB")).value());

  // "16383/16/63"
  const std::string chs = std::to_string(id.chs.cylinders) + "/" + std::to_string(id.chs.heads) +
                          "/" + std::to_string(id.chs.sectors_per_track);
  CHECK(chs == r.at("chs_cyl_head_spt"));

  // "1.5 3.0" (empty for PATA)
  std::string gbps;
  for (int g : id.sata_gens_supported) {
    const double v = sata_gen_gbps(g);
    gbps += (gbps.empty() ? "" : " ") + std::string(v == 1.5 ? "1.5" : v == 3.0 ? "3.0" : "6.0");
  }
  CHECK(gbps == r.at("sata_gbps"));

  // Newest supported major version: ATA8-ACS = 8, ATA/ATAPI-7 = 7, ...
  int newest = 0;
  for (int n = 14; n >= 1 && !newest; --n)
    if ((id.ata_major_versions >> n) & 1) newest = n;
  CHECK(newest == to_u64(r.at("ata_major_max")).value());

  // The raw words the CSV lists.
  for (int w : {75, 76, 80, 82, 83, 85, 86, 94, 217, 255}) {
    CAPTURE(w);
    const std::string col = w == 80 ? "w80_major" : "w" + std::to_string(w);
    CHECK(id.words[static_cast<std::size_t>(w)] == to_u64(r.at(col)).value());
  }
}

// hdparm's text decode of the same words.
void check_against_hdparm(const AtaIdentity& id, const HdparmText& h) {
  CHECK(id.model == h.model);
  CHECK(id.serial == h.serial);
  CHECK(id.firmware == h.firmware);
  REQUIRE(h.lba28.has_value());
  CHECK(id.lba28_sectors == *h.lba28);
  CHECK(id.lba48_supported == h.lba48.has_value());
  if (h.lba48) CHECK(id.lba48_sectors == *h.lba48);
  CHECK(h.checksum == "correct");
  CHECK(id.checksum == ChecksumState::kValid);

  // hdparm prints "Queue depth" whenever w75 holds a depth > 1; every drive here that does
  // supports NCQ, and the two agree on the figure.
  if (h.queue_depth) {
    CHECK(id.ncq.supported);
    CHECK(id.ncq_depth == *h.queue_depth);
  } else {
    CHECK((!id.ncq.supported || id.ncq_depth == 1));
  }

  // Feature lines: present = supported, '*' = enabled.
  auto check_feature = [&](const char* name, const Feature& f) {
    CAPTURE(name);
    CHECK(h.has_feature(name) == f.supported);
    if (h.has_feature(name)) CHECK(h.features.at(name) == f.is_enabled());
  };
  check_feature("Write cache", id.write_cache);
  check_feature("Look-ahead", id.read_look_ahead);
  check_feature("SMART feature set", id.smart);
  check_feature("Advanced Power Management feature set", id.apm);
  check_feature("Automatic Acoustic Management feature set", id.aam);
  check_feature("48-bit Address feature set", id.lba48);
  // NCQ has no enable bit; hdparm marks it '*' when listed.
  CHECK(h.has_feature("Native Command Queueing (NCQ)") == id.ncq.supported);
  bool trim_line = false;
  for (const auto& [name, on] : h.features)
    if (name.rfind("Data Set Management TRIM supported", 0) == 0) trim_line = true;
  CHECK(trim_line == id.trim.supported);
  CHECK(h.has_feature("Deterministic read ZEROs after TRIM") == id.trim_zeroes);

  if (id.apm.supported && id.apm.is_enabled()) CHECK(h.apm_level == id.apm_level);

  // Security block (w128, w89/w90) and the WWN (w108-111).
  // hdparm leaves the section out when the feature set is not supported (w82 bit 1 clear).
  CHECK((h.security.count("supported") == 1 && h.security.at("supported")) == id.security.supported);
  if (id.security.supported) {
    CHECK(h.security.at("enabled") == id.security.is_enabled());
    CHECK(h.security.at("locked") == id.security_locked);
    CHECK(h.security.at("frozen") == id.security_frozen);
    CHECK(h.security.at("expired: security count") == id.security_count_expired);
    CHECK(h.security.at("supported: enhanced erase") == id.security_enhanced_erase);
    // No erase-time line when w89 is zero (ST320410A).
    CHECK(h.erase_minutes.value_or(0) == id.security_erase_minutes);
    if (id.security_enhanced_erase) CHECK(h.enhanced_erase_minutes == id.security_enhanced_erase_minutes);
  }
  if (id.wwn) {
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(*id.wwn));
    CHECK(h.wwn == buf);
  } else {
    CHECK(h.wwn.empty());
  }

  if (id.aam.supported) {
    REQUIRE(h.aam_recommended.has_value());
    CHECK(*h.aam_recommended == *id.aam_recommended_level);
    CHECK(*h.aam_current == *id.aam_current_level);
  }
}

}  // namespace

TEST_CASE("ATA IDENTIFY: the 13 real drives, every dump format, against summary.csv and hdparm") {
  const auto rows = read_summary();
  REQUIRE(rows.size() == 13);
  for (const auto& r : rows) {
    const std::string drive = r.at("blob");
    CAPTURE(drive);
    const auto hdparm = parse_hdparm(read_text(drive_path(drive, "hdparm-Istdin.txt")));
    // (Not a structured binding: clang 14, used by the sanitizer build, cannot capture one in
    // the lambda that CAPTURE makes.)
    for (const auto& c : {std::pair{std::string("identify.hex"), DumpFormat::kHdparmHex},
                          std::pair{std::string("identify.bin"), DumpFormat::kRaw512},
                          std::pair{std::string("blob.bin"), DumpFormat::kAtasmartBlob}}) {
      const std::string& file = c.first;
      const DumpFormat fmt = c.second;
      CAPTURE(file);
      const AtaIdentity id = decode_file(drive_path(drive, file), fmt);
      check_against_csv(id, r);
      if (drive.rfind("ST9100821AS", 0) != 0) check_against_hdparm(id, hdparm);
    }
  }
}

TEST_CASE("ATA IDENTIFY: ST9100821AS AAM follows the standard, not hdparm") {
  const std::string drive = "ST9100821AS--3.CME";
  const AtaIdentity id = decode_file(drive_path(drive, "identify.bin"), DumpFormat::kRaw512);
  const auto h = parse_hdparm(read_text(drive_path(drive, "hdparm-Istdin.txt")));
  // The drive fills w94 (FE00h) but clears w83 bit 9, with w83 valid (bits 15:14 = 01b).
  CHECK(id.w83_valid);
  CHECK(id.words[94] == 0xFE00);
  CHECK((id.words[83] & (1u << 9)) == 0);
  // hdparm 9.65 prints the w94 bytes regardless of w83 ...
  REQUIRE(h.aam_recommended.has_value());
  CHECK(*h.aam_recommended == 254);
  CHECK(*h.aam_current == 0);
  // ... and does not list the AAM feature set, like us: we report AAM as not supported and
  // do not report levels the drive does not define (see identify.cpp).
  CHECK_FALSE(h.has_feature("Automatic Acoustic Management feature set"));
  CHECK_FALSE(id.aam.supported);
  CHECK_FALSE(id.aam.enabled.has_value());
  CHECK_FALSE(id.aam_current_level.has_value());
  CHECK_FALSE(id.aam_recommended_level.has_value());
  // Everything else matches hdparm.
  CHECK(id.model == h.model);
  CHECK(id.ncq_depth == h.queue_depth.value());
  CHECK(id.apm_level == h.apm_level);
}

TEST_CASE("ATA IDENTIFY: live hdparm --Istdin agrees with our decode" * doctest::test_suite("env")) {
  const auto hdparm = find_hdparm();
  if (!hdparm) {
    DS_SKIP("hdparm not installed: live comparison skipped");
  }
  for (const auto& r : read_summary()) {
    const std::string drive = r.at("blob");
    CAPTURE(drive);
    int rc = -1;
    const std::string out =
        run_capture(*hdparm + " --Istdin < '" + drive_path(drive, "identify.hex") + "'", &rc);
    REQUIRE(rc == 0);
    const auto h = parse_hdparm(out);
    const AtaIdentity id = decode_file(drive_path(drive, "identify.hex"), DumpFormat::kHdparmHex);
    if (drive.rfind("ST9100821AS", 0) == 0) {
      CHECK(id.model == h.model);
      CHECK(id.lba48_sectors == h.lba48.value());
      CHECK_FALSE(id.aam.supported);  // hdparm prints levels anyway (see the test above)
    } else {
      check_against_hdparm(id, h);
    }
  }
}

TEST_CASE("ATA IDENTIFY: specific decodes") {
  SUBCASE("SSD word 0 = 0000h, non-rotating, TRIM (Intel)") {
    const auto id = decode_file(drive_path("INTEL_SSDSA2CW120G3--4PC10302", "identify.bin"),
                                DumpFormat::kRaw512);
    CHECK(id.solid_state);
    CHECK(id.rotation_rate_rpm == 1);
    CHECK(id.trim.supported);
    CHECK_FALSE(id.trim.enabled.has_value());  // TRIM has no enable bit
    CHECK_FALSE(id.aam.supported);
  }
  SUBCASE("SAMSUNG HD501LJ: AAM supported but disabled is distinct from not supported") {
    const auto id =
        decode_file(drive_path("SAMSUNG_HD501LJ--CR100-12", "identify.bin"), DumpFormat::kRaw512);
    CHECK(id.aam.supported);
    REQUIRE(id.aam.enabled.has_value());
    CHECK_FALSE(*id.aam.enabled);
    CHECK(id.aam_recommended_level == 254);
  }
  SUBCASE("PATA Maxtor: no w76, no NCQ, write cache supported but disabled") {
    const auto id =
        decode_file(drive_path("Maxtor_96147H8--BAC51KJ0", "identify.bin"), DumpFormat::kRaw512);
    CHECK_FALSE(id.sata);
    CHECK_FALSE(id.ncq.supported);
    CHECK(id.ncq_depth == 0);
    CHECK(id.write_cache.supported);
    CHECK(id.write_cache.enabled == false);
    CHECK_FALSE(id.lba48_supported);
    CHECK(id.capacity_sectors == id.lba28_sectors);
  }
  SUBCASE("LBA28 cap: WD2500JS, exactly 250 GB") {
    const auto id = decode_file(drive_path("WDC_WD2500JS-75NCB3--10.02E04", "identify.bin"),
                                DumpFormat::kRaw512);
    CHECK(id.lba28_sectors == 0x0FFFFFFF);
    CHECK(id.capacity_sectors == 488281250);
    CHECK(id.capacity_bytes == 250000000000ull);
  }
}

TEST_CASE("ATA IDENTIFY: synthetic words exercise fields no real dump here sets") {
  auto bytes = read_bytes(drive_path("TOSHIBA_MK1651GSY--38IGT0G5T", "identify.bin"));
  REQUIRE(bytes.size() == 512);
  auto set = [&](int w, std::uint16_t v) {
    bytes[2 * w] = static_cast<std::uint8_t>(v & 0xFF);
    bytes[2 * w + 1] = static_cast<std::uint8_t>(v >> 8);
  };
  set(255, 0x0000);  // drop the checksum signature so edits need no re-sum
  set(217, 7200);    // nominal rotation rate
  set(106, 0x6003);  // valid, 8 logical per physical
  set(209, 0x4001);  // LBA 0 at logical offset 1
  set(168, 0x0003);  // 2.5 inch
  set(77, 0x0004);   // current speed Gen2
  auto id = decode_identify(bytes);
  REQUIRE(id.ok());
  CHECK(id->checksum == ChecksumState::kNotPresent);
  CHECK(id->rotation_rate_rpm == 7200);
  CHECK_FALSE(id->solid_state);
  CHECK(id->physical_sector_bytes == 4096);
  CHECK(id->logical_per_physical == 8);
  CHECK(id->alignment_offset == 1);
  CHECK(std::string(form_factor_name(id->form_factor)) == "2.5 inch");
  CHECK(id->sata_gen_current == 2);

  set(217, 0x0200);  // reserved value: neither rpm nor solid state
  id = decode_identify(bytes);
  REQUIRE(id.ok());
  CHECK_FALSE(id->rotation_rate_rpm.has_value());
  CHECK(id->rotation_raw == 0x0200);

  // w83 not valid (bits 15:14 != 01b): w83/w86 features are not trusted.
  set(83, 0x3F09);
  id = decode_identify(bytes);
  REQUIRE(id.ok());
  CHECK_FALSE(id->w83_valid);
  CHECK_FALSE(id->aam.supported);
  CHECK_FALSE(id->lba48_supported);
  CHECK(id->capacity_sectors == id->lba28_sectors);

  // w76 = FFFFh: not SATA, no NCQ.
  set(76, 0xFFFF);
  id = decode_identify(bytes);
  REQUIRE(id.ok());
  CHECK_FALSE(id->sata);
  CHECK_FALSE(id->ncq.supported);

  // Logical sector longer than 256 words: w117-118 = 2048 words = 4096 bytes.
  set(106, 0x5000);
  set(117, 2048);
  set(118, 0);
  id = decode_identify(bytes);
  REQUIRE(id.ok());
  CHECK(id->logical_sector_bytes == 4096);
  CHECK(id->capacity_bytes == id->capacity_sectors * 4096);
}
