#include "probe/ata_logs.hpp"

#include <algorithm>
#include <array>

#include <fmt/format.h>

namespace ds::probe {

namespace {
std::uint16_t le16(std::span<const std::uint8_t> p, std::size_t i) {
  return static_cast<std::uint16_t>(p[i] | p[i + 1] << 8);
}
}  // namespace

bool LogDirectory::lists(std::uint8_t address) const {
  return std::any_of(logs.begin(), logs.end(), [&](const auto& e) { return e.address == address; });
}

Expected<LogDirectory> decode_log_directory(std::span<const std::uint8_t> page) {
  if (page.size() != 512)
    return make_error(fmt::format("log directory: {} bytes, expected one 512-byte page", page.size()));
  LogDirectory d;
  d.version = le16(page, 0);
  if (d.version == 0) return make_error("log directory: version word is 0 (the drive keeps no directory)");
  for (unsigned a = 1; a < 256; ++a)
    if (const auto n = le16(page, 2 * a); n != 0) d.logs.push_back({static_cast<std::uint8_t>(a), n});
  return d;
}

Expected<std::vector<std::uint8_t>> decode_identify_log_pages(std::span<const std::uint8_t> page) {
  if (page.size() != 512)
    return make_error(fmt::format("IDENTIFY DEVICE data log page 0: {} bytes, expected 512", page.size()));
  // Header QWord: bits 15:0 revision, bits 23:16 page number (must be 00h here).
  if (page[2] != 0x00)
    return make_error(fmt::format("IDENTIFY DEVICE data log page 0: header names page {:#04x}", page[2]));
  const std::size_t n = page[8];
  if (9 + n > page.size()) return make_error("IDENTIFY DEVICE data log page 0: entry count overruns the page");
  return std::vector<std::uint8_t>(page.begin() + 9, page.begin() + 9 + static_cast<std::ptrdiff_t>(n));
}

std::string_view log_name(std::uint8_t a) {
  switch (a) {
    case 0x00: return "log directory";
    case 0x01: return "summary SMART error log";
    case 0x02: return "comprehensive SMART error log";
    case 0x03: return "extended comprehensive SMART error log";
    case 0x04: return "device statistics";
    case 0x06: return "SMART self-test log";
    case 0x07: return "extended SMART self-test log";
    case 0x08: return "power conditions";
    case 0x09: return "selective self-test log";
    case 0x0A: return "device statistics notification";
    case 0x0C: return "pending defects";
    case 0x0D: return "LPS mis-alignment log";
    case 0x10: return "NCQ command error log";
    case 0x11: return "SATA PHY event counters";
    case 0x12: return "SATA NCQ queue management";
    case 0x13: return "SATA NCQ send and receive";
    case 0x18: return "command duration limits";
    case 0x21: return "write stream error log";
    case 0x22: return "read stream error log";
    case 0x24: return "current device internal status";
    case 0x25: return "saved device internal status";
    case 0x30: return "IDENTIFY DEVICE data";
    case 0x47: return "concurrent positioning ranges";
    case 0xE0: return "SCT command/status";
    case 0xE1: return "SCT data transfer";
    default: break;
  }
  if (a >= 0x80 && a <= 0x9F) return "host specific";
  if (a >= 0xA0 && a <= 0xDF) return "vendor specific";
  return "reserved";
}

std::string_view identify_log_page_name(std::uint8_t p) {
  switch (p) {
    case 0x00: return "list of supported pages";
    case 0x01: return "copy of IDENTIFY DEVICE data";
    case 0x02: return "capacity";
    case 0x03: return "supported capabilities";
    case 0x04: return "current settings";
    case 0x05: return "ATA strings";
    case 0x06: return "security";
    case 0x07: return "parallel ATA";
    case 0x08: return "serial ATA";
    case 0x09: return "zoned device information";
    default: return "reserved";
  }
}

}  // namespace ds::probe

#include "drivescope/commands.hpp"

namespace ds::probe {

namespace {
std::optional<LogReadFailure> read_page(Device& dev, std::uint8_t log, std::span<std::uint8_t> out) {
  const auto res = ata::read_log_ext(dev, log, 0, out);
  if (res.ok()) return std::nullopt;
  return LogReadFailure{fmt::format("READ LOG EXT log {:#04x} page 0", log), res.outcome, res.ata,
                        res.message};
}

// Log 0x47: 64 bytes of header and 255 descriptors of 32 at most fit in 17 pages; a directory
// that says more is not believed beyond that.
void read_cpr(Device& dev, std::uint16_t pages, GplProbe& g) {
  std::vector<std::uint8_t> buf(std::size_t{std::min<std::uint16_t>(pages, 17)} * 512, 0);
  if (auto f = read_page(dev, ata::kLogConcurrentPositioningRanges, buf)) {
    g.failures.push_back(std::move(*f));
    return;
  }
  if (auto r = decode_cpr_log(buf)) g.positioning_ranges = std::move(*r);
  else g.failures.push_back({"READ LOG EXT log 0x47 page 0", Outcome::good, std::nullopt, r.error().message});
}
}  // namespace

GplProbe probe_gpl(Device& dev) {
  GplProbe g;
  std::array<std::uint8_t, 512> page{};
  if (auto f = read_page(dev, ata::kLogDirectory, page)) {
    g.failures.push_back(std::move(*f));
    return g;
  }
  auto d = decode_log_directory(page);
  if (!d) {
    g.failures.push_back({"READ LOG EXT log 0x00 page 0", Outcome::good, std::nullopt, d.error().message});
    return g;
  }
  g.directory = std::move(*d);
  for (const auto& e : g.directory->logs)
    if (e.address == ata::kLogConcurrentPositioningRanges) read_cpr(dev, e.pages, g);
  if (!g.directory->lists(ata::kLogIdentifyDeviceData)) return g;
  page.fill(0);
  if (auto f = read_page(dev, ata::kLogIdentifyDeviceData, page)) {
    g.failures.push_back(std::move(*f));
    return g;
  }
  if (auto p = decode_identify_log_pages(page)) g.identify_pages = std::move(*p);
  else g.failures.push_back({"READ LOG EXT log 0x30 page 0", Outcome::good, std::nullopt, p.error().message});
  return g;
}

}  // namespace ds::probe
