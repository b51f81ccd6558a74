// identity_to_json / identity_to_text / identify_words_text on the real drives: the docs/cli.md
// JSON keys are present with the right types and values, the text keeps the three feature
// states apart, and the word table reads back to the original block.
#include <doctest/doctest.h>

#include <sstream>
#include <string>

#include "ata_test_util.hpp"
#include "probe/dump_reader.hpp"
#include "probe/identify.hpp"
#include "probe/smart.hpp"
#include "report/ata_identity_report.hpp"

using namespace ds::probe;
using namespace ds::atatest;
using nlohmann::json;

namespace {

struct Loaded {
  IdentifyDump dump;
  AtaIdentity id;
  std::optional<SmartReport> smart;
};

Loaded load(const std::string& drive) {
  auto d = read_identify_dump(drive_path(drive, "blob.bin"));
  REQUIRE(d.ok());
  auto id = decode_identify(d->identify);
  REQUIRE(id.ok());
  auto s = smart_from_blob(d->blob);
  REQUIRE(s.ok());
  return Loaded{*d, *id, *s};
}

// The text line whose label is `label` ("  Label:   value"), value part only.
std::string text_value(const std::string& text, const std::string& label) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("  " + label + ":", 0) == 0) return trim(line.substr(label.size() + 3));
  }
  return "<missing>";
}

}  // namespace

TEST_CASE("identity JSON: the documented keys on all 13 drives") {
  for (const auto& row : read_summary()) {
    const std::string drive = row.at("blob");
    CAPTURE(drive);
    const auto L = load(drive);
    const json j = ds::report::identity_to_json(L.id, &*L.smart);
    CHECK_NOTHROW((void)j.dump());  // strings are valid UTF-8

    CHECK(j.at("model") == row.at("model"));
    CHECK(j.at("serial") == row.at("serial"));
    CHECK(j.at("firmware") == row.at("firmware"));
    CHECK(j.at("capacity_sectors").get<std::uint64_t>() == L.id.capacity_sectors);
    CHECK(j.at("capacity_bytes").get<std::uint64_t>() == to_u64(row.at("capacity_bytes")).value());
    CHECK(j.at("logical_sector_bytes") == 512);

    const auto& rot = j.at("rotation_rate_rpm");
    if (row.at("rotation") == "non-rotating") CHECK(rot == 1);
    else CHECK(rot.is_null());

    CHECK(j.at("ncq").at("supported").get<bool>() == (row.at("ncq_supported") == "1"));
    if (row.at("ncq_supported") == "1")
      CHECK(j.at("ncq").at("depth") == to_u64(row.at("ncq_queue_depth")).value());
    else CHECK(j.at("ncq").at("depth").is_null());
    CHECK(j.at("tcq").at("supported").is_boolean());
    CHECK(j.at("tcq").contains("depth"));

    const auto& aam = j.at("aam");
    CHECK(aam.at("supported").get<bool>() == (row.at("aam_supported") == "1"));
    CHECK(aam.at("enabled").get<bool>() == (row.at("aam_enabled") == "1"));
    if (row.at("aam_supported") == "1") {
      CHECK(aam.at("current_level") == to_u64(row.at("aam_current")).value());
      CHECK(aam.at("recommended_level") == to_u64(row.at("aam_recommended")).value());
    } else {
      CHECK(aam.at("current_level").is_null());
      CHECK(aam.at("recommended_level").is_null());
    }
    CHECK(j.at("write_cache").at("supported").get<bool>() ==
          (row.at("write_cache_supported") == "1"));
    CHECK(j.at("write_cache").at("enabled").get<bool>() == (row.at("write_cache_enabled") == "1"));
    CHECK(j.at("read_ahead").at("enabled").get<bool>() == (row.at("read_lookahead_enabled") == "1"));
    CHECK(j.at("trim").at("supported").get<bool>() == (row.at("trim_supported") == "1"));
    CHECK(j.at("checksum") == "valid");

    const auto& sm = j.at("smart");
    CHECK(sm.at("supported") == true);
    CHECK(sm.at("status_good").get<bool>() == (row.at("blob_smart_status_good") == "1"));
    CHECK(sm.at("attributes").size() == L.smart->attributes.size());
    CHECK(sm.at("attributes").size() > 0);
  }
}

TEST_CASE("identity JSON without SMART, and the ST9100821AS AAM levels") {
  const auto L = load("ST9100821AS--3.CME");
  const json j = ds::report::identity_to_json(L.id, nullptr);
  CHECK(j.at("aam").at("supported") == false);
  CHECK(j.at("aam").at("current_level").is_null());
  CHECK(j.at("aam").at("recommended_level").is_null());
  CHECK_FALSE(j.at("smart").contains("attributes"));
  CHECK(j.at("smart").at("enabled") == true);
}

TEST_CASE("identity text: sections, alignment and the three feature states") {
  SUBCASE("SAMSUNG HD501LJ: AAM supported, disabled") {
    const auto L = load("SAMSUNG_HD501LJ--CR100-12");
    const std::string t = ds::report::identity_to_text(L.id, &*L.smart);
    CHECK(text_value(t, "Acoustic management (AAM)") ==
          "supported, disabled, current level 0, vendor recommended 254");
    CHECK(text_value(t, "Power management (APM)") == "not supported");
    CHECK(text_value(t, "NCQ") == "supported, queue depth 32");
    CHECK(text_value(t, "Model") == "SAMSUNG HD501LJ");
    // Sections in order, each heading on its own line.
    std::size_t prev = 0;
    bool first = true;
    for (const char* s : {"Identity", "Capacity", "Interface", "Queuing", "Features", "SMART"}) {
      CAPTURE(s);
      const std::size_t p = first ? (t.rfind(std::string(s) + "\n", 0) == 0 ? 0 : std::string::npos)
                                  : t.find(std::string("\n") + s + "\n");
      REQUIRE(p != std::string::npos);
      if (!first) CHECK(p > prev);
      prev = p;
      first = false;
    }
    // Every "  Label: value" line has its value in the same column.
    std::istringstream in(t);
    std::string line;
    std::size_t col = 0;
    int lines = 0;
    while (std::getline(in, line)) {
      if (line.rfind("  ", 0) != 0 || line.find(':') == std::string::npos) continue;
      if (line.find("ID Name") != std::string::npos) break;  // the attribute table follows
      const auto c = line.find_first_not_of(' ', line.find(':') + 1);
      if (!col) col = c;
      CHECK(c == col);
      ++lines;
    }
    CHECK(lines > 20);
  }
  SUBCASE("FUJITSU: AAM enabled; Maxtor: write cache supported, disabled; ST9100821AS: AAM not supported") {
    auto t = ds::report::identity_to_text(load("FUJITSU_MHY2120BH--0085000B").id, nullptr);
    CHECK(text_value(t, "Acoustic management (AAM)") ==
          "enabled, current level 128, vendor recommended 254");
    CHECK(t.find("\nSMART\n") == std::string::npos);  // no SMART section without a report
    const auto M = load("Maxtor_96147H8--BAC51KJ0--2");
    t = ds::report::identity_to_text(M.id, &*M.smart);
    CHECK(text_value(t, "Write cache") == "supported, disabled");
    CHECK(text_value(t, "Read look-ahead") == "enabled");
    CHECK(text_value(t, "Self-assessment") == "FAILED");
    CHECK(text_value(t, "Overall (libatasmart)") == "BAD_STATUS");
    CHECK(text_value(t, "Transport") == "Parallel ATA (word 76 not reported)");
    t = ds::report::identity_to_text(load("ST9100821AS--3.CME").id, nullptr);
    CHECK(text_value(t, "Acoustic management (AAM)").rfind("not supported", 0) == 0);
  }
}

TEST_CASE("identify_words_text reads back to the block") {
  const auto L = load("INTEL_SSDSA2CW120G3--4PC10302");
  const std::string t = ds::report::identify_words_text(L.dump.identify);
  std::istringstream in(t);
  std::string line;
  std::getline(in, line);  // header
  std::array<std::uint8_t, 512> back{};
  int rows = 0;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::string label;
    ls >> label;
    const int base = std::stoi(label);
    CHECK(base == rows * 8);
    for (int c = 0; c < 8; ++c) {
      std::string w;
      ls >> w;
      const auto v = static_cast<std::uint16_t>(std::stoul(w, nullptr, 16));
      back[static_cast<std::size_t>(2 * (base + c))] = static_cast<std::uint8_t>(v & 0xFF);
      back[static_cast<std::size_t>(2 * (base + c) + 1)] = static_cast<std::uint8_t>(v >> 8);
    }
    ++rows;
  }
  CHECK(rows == 32);
  CHECK(back == L.dump.identify);
}
