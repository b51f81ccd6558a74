// General Purpose Log decoders (ACS-3 9.2 log directory, 9.10.2 IDENTIFY DEVICE data log page
// list) on pages built from the standard's layout, and the probe's handling of a drive that
// aborts READ LOG EXT (the simulated drive does not implement it).
#include <doctest/doctest.h>

#include <array>

#include "probe/ata_logs.hpp"
#include "report/ata_logs_report.hpp"
#include "sim/sim.hpp"

using namespace ds::probe;

namespace {
void put16(std::array<std::uint8_t, 512>& p, std::size_t word, std::uint16_t v) {
  p[2 * word] = static_cast<std::uint8_t>(v);
  p[2 * word + 1] = static_cast<std::uint8_t>(v >> 8);
}
}  // namespace

TEST_CASE("log directory: word 0 is the version, word N the page count of log N") {
  std::array<std::uint8_t, 512> p{};
  put16(p, 0, 0x0001);
  put16(p, 0x04, 8);      // device statistics, 8 pages
  put16(p, 0x30, 9);      // IDENTIFY DEVICE data
  put16(p, 0xE1, 0x100);  // SCT data transfer, 256 pages: the high byte counts too
  put16(p, 0xFF, 1);      // the last address is read as well
  auto d = decode_log_directory(p);
  REQUIRE(d.ok());
  CHECK(d->version == 1);
  REQUIRE(d->logs.size() == 4);
  CHECK(d->logs[0].address == 0x04);
  CHECK(d->logs[0].pages == 8);
  CHECK(d->logs[2].address == 0xE1);
  CHECK(d->logs[2].pages == 256);
  CHECK(d->logs[3].address == 0xFF);
  CHECK(d->lists(0x30));
  CHECK_FALSE(d->lists(0x10));
  CHECK(log_name(0x04) == "device statistics");
  CHECK(log_name(0xA5) == "vendor specific");
  CHECK(log_name(0x85) == "host specific");
}

TEST_CASE("log directory: wrong sizes and a zero version are errors, not crashes") {
  std::array<std::uint8_t, 512> p{};
  CHECK_FALSE(decode_log_directory(p).ok());  // version 0: no directory
  CHECK_FALSE(decode_log_directory(std::span(p).first(511)).ok());
  CHECK_FALSE(decode_log_directory({}).ok());
}

TEST_CASE("IDENTIFY DEVICE data log page 0 lists its pages after a count in byte 8") {
  std::array<std::uint8_t, 512> p{};
  p[0] = 0x01;  // revision 0001h, page number (byte 2) 00h
  p[7] = 0x80;
  p[8] = 4;
  p[9] = 0x00; p[10] = 0x01; p[11] = 0x03; p[12] = 0x08;
  auto l = decode_identify_log_pages(p);
  REQUIRE(l.ok());
  CHECK(*l == std::vector<std::uint8_t>{0x00, 0x01, 0x03, 0x08});
  CHECK(identify_log_page_name(0x08) == "serial ATA");
  p[2] = 0x03;  // a header naming another page
  CHECK_FALSE(decode_identify_log_pages(p).ok());
  p[2] = 0x00;
  p[8] = 0xFF;  // 9 + 255 entries still fit in 512 bytes
  CHECK(decode_identify_log_pages(p).ok());
  CHECK_FALSE(decode_identify_log_pages(std::span(p).first(100)).ok());
}

TEST_CASE("a drive that does not implement READ LOG EXT: the abort is kept as the drive's answer") {
  auto t = ds::sim::open("sim:raptor");
  REQUIRE(t.ok());
  const auto g = probe_gpl(*t->device);
  CHECK_FALSE(g.directory.has_value());
  REQUIRE(g.failures.size() == 1);
  const auto& f = g.failures[0];
  CHECK(f.command == "READ LOG EXT log 0x00 page 0");
  REQUIRE(f.ata.has_value());
  CHECK(f.ata->aborted());
  const auto j = ds::report::gpl_to_json(&g, false);
  CHECK(j["read"] == false);
  CHECK(j["error"]["aborted"] == true);
  CHECK(j["error"]["ata_error"] == "0x04");
  CHECK(ds::report::gpl_to_text(&g, false).find("ABRT set") != std::string::npos);
}
