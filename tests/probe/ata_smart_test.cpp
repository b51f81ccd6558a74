// SMART through libatasmart, from the 13 real blobs and from loose pages, checked against the
// stored skdump output (an independent run of libatasmart's own tool) and summary.csv.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <string>

#include "ata_test_util.hpp"
#include "probe/dump_reader.hpp"
#include "probe/smart.hpp"

using namespace ds::probe;
using namespace ds::atatest;

namespace {

const SmartAttribute* find_attr(const SmartReport& r, int id) {
  for (const auto& a : r.attributes)
    if (a.id == id) return &a;
  return nullptr;
}

// "71 sectors" → 71
std::optional<std::uint64_t> leading_number(const std::string& s) {
  if (s.empty() || !std::isdigit(static_cast<unsigned char>(s[0]))) return std::nullopt;
  return std::strtoull(s.c_str(), nullptr, 10);
}

}  // namespace

TEST_CASE("SMART: every real blob decodes through libatasmart and agrees with skdump") {
  const auto rows = read_summary();
  REQUIRE(rows.size() == 13);
  for (const auto& row : rows) {
    const std::string drive = row.at("blob");
    CAPTURE(drive);
    const auto blob = read_bytes(drive_path(drive, "blob.bin"));
    auto rep = smart_from_blob(blob);
    REQUIRE_MESSAGE(rep.ok(), (rep.ok() ? "" : rep.error().message));
    const auto sk = parse_skdump(read_text(drive_path(drive, "skdump.txt")));

    CHECK(rep->available);
    const bool bad = drive == "Maxtor_96147H8--BAC51KJ0--2";
    REQUIRE(rep->status_good.has_value());
    CHECK(*rep->status_good == !bad);
    CHECK(*rep->status_good == (row.at("blob_smart_status_good") == "1"));
    CHECK(sk.keys.at("SMART Disk Health Good") == (bad ? "no" : "yes"));

    // Overall verdict and bad sectors as skdump printed them.
    REQUIRE(rep->overall.has_value());
    CHECK(*rep->overall == sk.keys.at("Overall Status"));
    if (bad) CHECK(*rep->overall == "BAD_STATUS");
    if (sk.keys.count("Bad Sectors")) {
      const auto n = leading_number(sk.keys.at("Bad Sectors"));
      if (n) CHECK(rep->bad_sectors == n);
    }
    if (sk.keys.count("Power Cycles")) {
      const auto n = leading_number(sk.keys.at("Power Cycles"));
      if (n) CHECK(rep->power_cycles == n);
    }
    if (sk.keys.count("Temperature")) {
      // "36.0 C" or an error text when the drive has no temperature attribute.
      const std::string t = sk.keys.at("Temperature");
      if (!t.empty() && std::isdigit(static_cast<unsigned char>(t[0]))) {
        REQUIRE(rep->temperature_c().has_value());
        CHECK(std::fabs(*rep->temperature_c() - std::strtod(t.c_str(), nullptr)) < 0.051);
      } else {
        CHECK_FALSE(rep->temperature_c().has_value());
      }
    }

    // Attribute table: same attributes in the same order, same fields.
    CHECK(rep->attributes.size() > 0);
    REQUIRE(rep->attributes.size() == sk.attrs.size());
    for (std::size_t i = 0; i < sk.attrs.size(); ++i) {
      const auto& e = sk.attrs[i];
      const auto& a = rep->attributes[i];
      CAPTURE(e.id);
      CHECK(a.id == e.id);
      CHECK(a.name == e.name);
      CHECK(a.value == e.value);
      CHECK(a.worst == e.worst);
      if (e.threshold == "n/a") CHECK_FALSE(a.threshold.has_value());
      else CHECK(a.threshold == std::stoi(e.threshold));
      // skdump prints the six raw bytes in stored order (byte 0 first); drivescope's raw_hex is
      // the 48-bit number they make (little-endian), so raw 1 reads 0x000000000001, not
      // 0x010000000000 (issue 15): the same bytes, reversed, and the same number as `raw`.
      REQUIRE(e.raw_hex.size() == 14);
      std::string reversed = "0x";
      for (int b = 5; b >= 0; --b) reversed += e.raw_hex.substr(2 + 2 * b, 2);
      CHECK(a.raw_hex() == reversed);
      CHECK(std::stoull(a.raw_hex().substr(2), nullptr, 16) == a.raw);
      CHECK(a.prefailure == (e.type == "prefail"));
      if (e.good == "n/a") CHECK_FALSE(a.good_now.has_value());
      else CHECK(a.good_now == (e.good == "yes"));
    }
  }
}

TEST_CASE("SMART: specific values of two drives (read from skdump.txt)") {
  // Maxtor snapshot 2: BAD_STATUS, 71 bad sectors, attribute 5 = 69 reallocated sectors,
  // attribute 10 below its threshold (212 < 223) and so not good now.
  auto rep = smart_from_blob(read_bytes(drive_path("Maxtor_96147H8--BAC51KJ0--2", "blob.bin")));
  REQUIRE(rep.ok());
  CHECK(rep->overall == std::string("BAD_STATUS"));
  CHECK(rep->bad_sectors == 71u);
  const auto* a5 = find_attr(*rep, 5);
  REQUIRE(a5);
  CHECK(a5->name == "reallocated-sector-count");
  CHECK(a5->raw == 69u);
  CHECK(a5->pretty_unit == "sectors");
  CHECK(a5->pretty == "69 sectors");
  const auto* a10 = find_attr(*rep, 10);
  REQUIRE(a10);
  CHECK(a10->value == 212);
  CHECK(a10->threshold == 223);
  CHECK(a10->good_now == false);
  // The Maxtor counts power-on time in minutes (libatasmart quirk 9_POWERONMINUTES):
  // raw 0x021254 minutes = 135764 min ≈ 2262.7 h ("3.1 months" in skdump).
  REQUIRE(rep->power_on_hours().has_value());
  CHECK(std::fabs(*rep->power_on_hours() - 135764.0 / 60.0) < 0.1);
}

TEST_CASE("SMART: smart_from_pages builds a blob libatasmart decodes like the original") {
  for (const auto& row : read_summary()) {
    const std::string drive = row.at("blob");
    CAPTURE(drive);
    const auto idf = read_bytes(drive_path(drive, "identify.bin"));
    const auto data = read_bytes(drive_path(drive, "smart_data.bin"));
    const auto thr = read_bytes(drive_path(drive, "smart_thresholds.bin"));
    REQUIRE(idf.size() == 512);
    REQUIRE(data.size() == 512);
    REQUIRE(thr.size() == 512);
    const std::optional<bool> status = row.at("blob_smart_status_good") == "1";
    auto built = smart_from_pages(std::span<const std::uint8_t, 512>(idf.data(), 512),
                                  std::span<const std::uint8_t, 512>(data.data(), 512),
                                  std::span<const std::uint8_t, 512>(thr.data(), 512), status);
    REQUIRE(built.ok());
    auto orig = smart_from_blob(read_bytes(drive_path(drive, "blob.bin")));
    REQUIRE(orig.ok());
    CHECK(built->overall == orig->overall);
    CHECK(built->status_good == orig->status_good);
    CHECK(built->bad_sectors == orig->bad_sectors);
    REQUIRE(built->attributes.size() == orig->attributes.size());
    for (std::size_t i = 0; i < built->attributes.size(); ++i) {
      CHECK(built->attributes[i].id == orig->attributes[i].id);
      CHECK(built->attributes[i].raw == orig->attributes[i].raw);
      CHECK(built->attributes[i].threshold == orig->attributes[i].threshold);
    }
    // The blob we build is byte-identical to the one skdump saved (same record order).
    const auto made = make_atasmart_blob(std::span<const std::uint8_t, 512>(idf.data(), 512),
                                         data.data(), thr.data(), status);
    CHECK(made == read_bytes(drive_path(drive, "blob.bin")));
  }
}

TEST_CASE("SMART: without a captured status libatasmart gives no overall verdict") {
  const std::string drive = "SAMSUNG_HD501LJ--CR100-12";
  const auto idf = read_bytes(drive_path(drive, "identify.bin"));
  const auto data = read_bytes(drive_path(drive, "smart_data.bin"));
  const auto thr = read_bytes(drive_path(drive, "smart_thresholds.bin"));
  auto rep = smart_from_pages(std::span<const std::uint8_t, 512>(idf.data(), 512),
                              std::span<const std::uint8_t, 512>(data.data(), 512),
                              std::span<const std::uint8_t, 512>(thr.data(), 512), std::nullopt);
  REQUIRE(rep.ok());
  CHECK_FALSE(rep->status_good.has_value());
  CHECK(rep->attributes.size() > 0);  // attributes still decode
}

TEST_CASE("SMART: dump reader carries SMART pages and status from a blob") {
  auto d = read_identify_dump(drive_path("Maxtor_96147H8--BAC51KJ0--2", "blob.bin"));
  REQUIRE(d.ok());
  CHECK(d->format == DumpFormat::kAtasmartBlob);
  CHECK(d->smart_status_good == false);
  REQUIRE(d->smart_data.has_value());
  REQUIRE(d->smart_thresholds.has_value());
  CHECK(*d->smart_data == [] {
    auto v = read_bytes(drive_path("Maxtor_96147H8--BAC51KJ0--2", "smart_data.bin"));
    std::array<std::uint8_t, 512> a{};
    std::memcpy(a.data(), v.data(), 512);
    return a;
  }());
  auto rep = smart_from_blob(d->blob);
  REQUIRE(rep.ok());
  CHECK(rep->status_good == false);

  auto good = read_identify_dump(drive_path("WDC_WD5000AAKS--00TMA0-12.01C01", "blob.bin"));
  REQUIRE(good.ok());
  CHECK(good->smart_status_good == true);
  // Text and raw dumps have no SMART.
  auto hex = read_identify_dump(drive_path("WDC_WD5000AAKS--00TMA0-12.01C01", "identify.hex"));
  REQUIRE(hex.ok());
  CHECK_FALSE(hex->smart_data.has_value());
  CHECK_FALSE(hex->smart_status_good.has_value());
  CHECK(hex->blob.empty());
}
