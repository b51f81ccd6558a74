// `drivescope decode` (see decode.hpp): read the bytes, tell their format, hand them to the pure
// decoders, and render them with the report code `identify` uses.
#include "app/decode.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cstdio>
#include <cstring>
#include <iterator>

#include "drivescope/opcodes.hpp"
#include "passthrough/inhex.hpp"
#include "passthrough/sense.hpp"
#include "probe/ata_logs.hpp"
#include "probe/dump_reader.hpp"
#include "probe/scsi_probe.hpp"
#include "probe/zones.hpp"
#include "report/ata_logs_report.hpp"
#include "report/scsi_report.hpp"
#include "report/zones_report.hpp"

namespace ds::app {

using nlohmann::json;

namespace {

constexpr std::size_t kMaxInput = 1 << 20;  // far above any page: refuse rather than slurp

struct Captured {
  std::string format;  // "inhex", "raw", or a dump_reader format for IDENTIFY
  std::vector<std::uint8_t> bytes;
};

bool looks_like_text(std::span<const std::uint8_t> b) {
  for (auto c : b) {
    const bool ws = c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
    if (!ws && (c < 0x21 || c > 0x7E)) return false;
  }
  return true;
}

// hdparm --Istdout: whitespace-separated tokens of exactly four hex digits (one per word), after
// hdparm's device line ("/dev/sda:"). An inhex file writes bytes as pairs, and '#' comments or
// "0x" prefixes never appear in hdparm's.
bool looks_like_hdparm_words(std::string_view t) {
  std::size_t tokens = 0, i = 0;
  while (i < t.size()) {
    if (std::isspace(static_cast<unsigned char>(t[i]))) { ++i; continue; }
    std::size_t j = i;
    while (j < t.size() && !std::isspace(static_cast<unsigned char>(t[j]))) ++j;
    if (tokens == 0 && j - i > 1 && t[j - 1] == ':') {  // the device line
      i = j;
      continue;
    }
    if (j - i != 4) return false;
    for (std::size_t k = i; k < j; ++k)
      if (!std::isxdigit(static_cast<unsigned char>(t[k]))) return false;
    ++tokens;
    i = j;
  }
  return tokens > 0;
}

Expected<Captured> capture(std::span<const std::uint8_t> in, std::string_view name) {
  if (in.empty()) return make_error(fmt::format("{}: the input is empty", name));
  if (!looks_like_text(in)) return Captured{"raw", {in.begin(), in.end()}};
  const std::string_view text(reinterpret_cast<const char*>(in.data()), in.size());
  auto b = parse_inhex(text);
  if (!b) return make_error(fmt::format("{}: not sg3_utils inhex text ({}) nor raw bytes", name, b.error().message));
  return Captured{"inhex", std::move(*b)};
}

json header(std::string_view name, std::string_view format, std::string_view decoded_as) {
  return json{{"drivescope", {{"version", version()}}},
              {"target", {{"kind", "dump"}, {"name", name}, {"format", format}, {"decoded_as", decoded_as}}}};
}

// ---- IDENTIFY -------------------------------------------------------------------------------

Expected<Report> decode_identify(std::span<const std::uint8_t> in, std::string_view name, const DecodeOptions& o) {
  const IdentifyOptions io{.allow_bad_checksum = o.allow_bad_checksum};
  const bool text = looks_like_text(in);
  const std::string_view t(reinterpret_cast<const char*>(in.data()), in.size());
  Expected<Report> r = make_error("");
  if (!text || looks_like_hdparm_words(t) || probe::is_drivescope_capture(in)) {
    // hdparm words, a raw block, a libatasmart blob or what `identify --raw` printed: the reader
    // `identify --from-file` uses.
    auto dump = probe::parse_identify_dump(in, name, o.allow_bad_checksum);
    if (!dump) return dump.error();
    r = identify_block_report(name, probe::dump_format_name(dump->format), dump->identify, io);
  } else {
    auto c = capture(in, name);
    if (!c) return c.error();
    if (c->bytes.size() != 512)
      return make_error(fmt::format("{}: IDENTIFY data is 512 bytes, this inhex text holds {}", name, c->bytes.size()));
    r = identify_block_report(name, "inhex", std::span<const std::uint8_t, 512>(c->bytes.data(), 512), io);
  }
  if (r) r->json["target"]["decoded_as"] = "identify";
  return r;
}

// ---- ATA logs -------------------------------------------------------------------------------

Expected<Report> decode_ata_log(const Captured& c, std::string_view name, std::uint8_t log) {
  Report r;
  r.json = header(name, c.format, fmt::format("ata-log {:#04x}", log));
  json& id = r.json["identify"];
  if (log == ata::kLogDirectory) {
    auto d = probe::decode_log_directory(c.bytes);
    if (!d) return make_error(fmt::format("{}: {}", name, d.error().message));
    id["general_purpose_logs"] = report::log_directory_to_json(*d);
    r.text = report::log_directory_to_text(*d);
  } else if (log == ata::kLogIdentifyDeviceData) {
    auto p = probe::decode_identify_log_pages(c.bytes);
    if (!p) return make_error(fmt::format("{}: {} (only page 0, the list of pages, is decoded)", name, p.error().message));
    id["general_purpose_logs"]["identify_data_pages"] = report::identify_log_pages_to_json(*p);
    std::string list;
    for (auto pg : *p) list += fmt::format("  {:#04x}  {}\n", pg, probe::identify_log_page_name(pg));
    r.text = "IDENTIFY DEVICE data log (0x30), supported pages\n" + (list.empty() ? "  none\n" : list);
  } else if (log == ata::kLogConcurrentPositioningRanges) {
    auto g = probe::decode_cpr_log(c.bytes);
    if (!g) return make_error(fmt::format("{}: {}", name, g.error().message));
    id["concurrent_positioning_ranges"] = report::ranges_to_json(*g, "ATA log 0x47");
    r.text = report::ranges_to_text(*g, "ATA log 0x47");
  } else {
    return make_error(fmt::format(
        "{}: ATA log {:#04x} ({}) is not one drivescope decodes; it decodes logs 0x00 (directory), "
        "0x30 (page 0) and 0x47 (concurrent positioning ranges)",
        name, log, probe::log_name(log)));
  }
  return r;
}

// ---- SCSI -----------------------------------------------------------------------------------

bool all_null(const json& v) {
  if (v.is_null()) return true;
  if (v.is_object()) {
    for (const auto& x : v)
      if (!x.is_null()) return false;
    return true;
  }
  return false;
}

// identify --json says "null" for everything a live probe could not read. A capture holds only
// what was captured: the keys of what is absent are dropped, the others are identify's own.
void prune(json& j) {
  for (auto it = j.begin(); it != j.end();) {
    if (all_null(*it) || (it->is_array() && it->empty())) it = j.erase(it);
    else ++it;
  }
}

Report scsi_report(const probe::ScsiProbe& p, std::string_view name, const Captured& c, std::string_view what) {
  Report r;
  r.json = header(name, c.format, what);
  json id = report::scsi_identity_to_json(p);
  prune(id["scsi"]);
  prune(id);
  r.json["identify"] = std::move(id);
  r.text = report::scsi_identity_to_text(p, nullptr, true);
  return r;
}

// Decodes one VPD page into the probe; an error for a page drivescope knows but cannot read.
// Returns false for a page it does not decode at all.
Expected<bool> vpd_into(probe::ScsiProbe& p, std::span<const std::uint8_t> page) {
  const std::uint8_t code = page[1];
  auto take = [](auto&& res, auto& slot) -> Expected<bool> {
    if (!res) return res.error();
    slot = std::move(*res);
    return true;
  };
  switch (code) {
    case 0x00: return take(scsi::decode_supported_vpd_pages(page), p.supported_vpd_pages);
    case 0x80: return take(scsi::decode_unit_serial(page), p.serial);
    case 0x83: return take(scsi::decode_device_identification(page), p.device_id);
    case 0x89: return take(scsi::decode_ata_information(page), p.ata_info);
    case 0xB0: return take(scsi::decode_block_limits(page), p.block_limits);
    case 0xB1: return take(scsi::decode_block_characteristics(page), p.block_characteristics);
    case 0xB9: return take(probe::decode_cpr_vpd(page), p.positioning_ranges);
    default: return false;
  }
}

// A capture may hold one page or several back to back (sg_vpd --all -HHHH): each page's length
// is in its header, which says where the next one starts.
Expected<Report> decode_vpd(const Captured& c, std::string_view name) {
  probe::ScsiProbe p;
  std::vector<std::uint8_t> undecoded;
  std::size_t at = 0, decoded = 0;
  const std::span<const std::uint8_t> all(c.bytes);
  while (at < all.size()) {
    const auto rest = all.subspan(at);
    if (rest.size() < 4)
      return make_error(fmt::format("{}: {} stray byte(s) at offset {} where a VPD page header (4 bytes) should be",
                                    name, rest.size(), at));
    const std::size_t len = 4 + ((std::size_t{rest[2]} << 8) | rest[3]);
    // A capture that stops inside a page is refused rather than decoded in part: it is how other
    // data shows up here too (standard INQUIRY data read as VPD page 0x00 announces ~1800 bytes).
    if (len > rest.size())
      return make_error(fmt::format(
          "{}: VPD page {:#04x} at offset {} announces {} bytes, the capture holds {}: truncated, or not VPD data",
          name, rest[1], at, len, rest.size()));
    const auto page = rest.first(len);
    auto ok = vpd_into(p, page);
    if (!ok) return make_error(fmt::format("{}: VPD page {:#04x} at offset {}: {}", name, rest[1], at, ok.error().message));
    if (*ok) ++decoded;
    else undecoded.push_back(rest[1]);
    at += len;
  }
  std::string known = "0x00, 0x80, 0x83, 0x89, 0xb0, 0xb1, 0xb9";
  if (decoded == 0)
    return make_error(fmt::format("{}: VPD page {:#04x} ({}) is not one drivescope decodes (it decodes {})", name,
                                  undecoded.front(), scsi::vpd_page_name(undecoded.front()), known));
  Report r = scsi_report(p, name, c, "vpd");
  json und = json::array();
  std::string list;
  for (auto u : undecoded) {
    und.push_back({{"code", fmt::format("0x{:02x}", u)}, {"name", scsi::vpd_page_name(u)}});
    list += fmt::format("  0x{:02x}  {}\n", u, scsi::vpd_page_name(u));
  }
  if (!list.empty()) r.text += "\nVPD pages in the capture that drivescope does not decode\n" + list;
  r.json["target"]["undecoded_vpd_pages"] = und;
  return r;
}

// SPC-4 4.3.1: the ASCII fields hold graphic codes 20h-7Eh only (NUL padding is tolerated, as
// some devices write it).
bool ascii_field(std::span<const std::uint8_t> b, std::size_t at, std::size_t n) {
  for (std::size_t i = at; i < at + n && i < b.size(); ++i)
    if (b[i] != 0 && (b[i] < 0x20 || b[i] > 0x7E)) return false;
  return true;
}

// Standard INQUIRY data that decodes but cannot be what a device sent: each problem one sentence.
// A capture is at most the data the device announced, plus zero padding (a larger buffer read).
std::vector<std::string> inquiry_implausibilities(std::span<const std::uint8_t> bytes, const scsi::StandardInquiry& q) {
  std::vector<std::string> p;
  const std::size_t announced = std::size_t{q.additional_length} + 5;
  std::size_t nonzero_after = 0;
  for (std::size_t i = announced; i < bytes.size(); ++i) nonzero_after += bytes[i] != 0;
  if (nonzero_after > 0)
    p.push_back(fmt::format("the capture holds {} bytes, the data announces {} (ADDITIONAL LENGTH {}): {} non-zero "
                            "byte(s) after it are not INQUIRY data", bytes.size(), announced, q.additional_length,
                            nonzero_after));
  if (q.response_data_format > 2)
    p.push_back(fmt::format("RESPONSE DATA FORMAT {} is reserved (SPC-4 requires 2)", q.response_data_format));
  if (q.peripheral_qualifier == 2 || q.peripheral_qualifier > 3)
    p.push_back(fmt::format("PERIPHERAL QUALIFIER {} is reserved or vendor specific", q.peripheral_qualifier));
  if (!ascii_field(bytes, 8, 8)) p.push_back("the vendor identification (bytes 8-15) is not printable ASCII");
  if (!ascii_field(bytes, 16, 16)) p.push_back("the product identification (bytes 16-31) is not printable ASCII");
  if (!ascii_field(bytes, 32, 4)) p.push_back("the product revision level (bytes 32-35) is not printable ASCII");
  return p;
}

Expected<Report> decode_inquiry(const Captured& c, std::string_view name) {
  auto q = scsi::decode_standard_inquiry(c.bytes);
  if (!q) return make_error(fmt::format("{}: {}", name, q.error().message));
  const auto problems = inquiry_implausibilities(c.bytes, *q);
  probe::ScsiProbe p;
  p.inquiry = std::move(*q);
  Report r = scsi_report(p, name, c, "inquiry");
  // As IDENTIFY data that decodes but is implausible (identify --from-file): warnings, exit 3.
  if (!problems.empty()) {
    r.json["identify"]["implausible"] = problems;
    for (const auto& m : problems) r.warnings.push_back("INQUIRY data implausible: " + m);
    r.exit_code = kExitPartial;
  }
  return r;
}

Expected<Report> decode_zones(const Captured& c, std::string_view name, bool zac) {
  auto z = probe::decode_report_zones(c.bytes, zac ? probe::ZoneByteOrder::kZacLittleEndian
                                                   : probe::ZoneByteOrder::kZbcBigEndian);
  if (!z) return make_error(fmt::format("{}: {}", name, z.error().message));
  const std::string source = zac ? "ZAC REPORT ZONES EXT" : "ZBC REPORT ZONES";
  Report r;
  r.json = header(name, c.format, zac ? "zones zac" : "zones zbc");
  r.json["identify"]["zones"] = report::zones_to_json(*z, source);
  r.text = report::zones_to_text(*z, source);
  return r;
}

Expected<Report> decode_sense_data(const Captured& c, std::string_view name) {
  auto s = ds::decode_sense(c.bytes);
  if (!s) return make_error(fmt::format("{}: {}", name, s.error().message));
  Report r;
  r.json = header(name, c.format, "sense");
  r.json["sense"] = {{"response_code", fmt::format("0x{:02x}", s->response_code)},
                     {"descriptor_format", s->descriptor_format},
                     {"deferred", s->deferred},
                     {"sense_key", s->sense_key},
                     {"sense_key_text", s->sense_key_text},
                     {"asc", fmt::format("0x{:02x}", s->asc)},
                     {"ascq", fmt::format("0x{:02x}", s->ascq)},
                     {"asc_text", s->asc_text},
                     {"information", s->information ? json(*s->information) : json(nullptr)},
                     {"summary", sense_summary(*s)},
                     {"text", s->text}};
  r.text = s->text + "\n";
  return r;
}

}  // namespace

std::optional<std::uint8_t> parse_log_address(std::string_view t) {
  int base = 10;
  if (t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) t.remove_prefix(2), base = 16;
  if (t.empty() || t.size() > 3) return std::nullopt;
  unsigned v = 0;
  for (char ch : t) {
    const int d = std::isdigit(static_cast<unsigned char>(ch)) ? ch - '0'
                  : base == 16 && std::isxdigit(static_cast<unsigned char>(ch))
                      ? std::tolower(static_cast<unsigned char>(ch)) - 'a' + 10
                      : -1;
    if (d < 0) return std::nullopt;
    v = v * static_cast<unsigned>(base) + static_cast<unsigned>(d);
  }
  if (v > 0xFF) return std::nullopt;
  return static_cast<std::uint8_t>(v);
}

Expected<Report> decode_bytes(std::span<const std::uint8_t> in, std::string_view name, const DecodeOptions& o) {
  if (in.empty()) return make_error(fmt::format("{}: the input is empty", name));
  if (o.kind == DecodeKind::identify) return decode_identify(in, name, o);
  auto c = capture(in, name);
  if (!c) return c.error();
  switch (o.kind) {
    case DecodeKind::ata_log: return decode_ata_log(*c, name, o.ata_log);
    case DecodeKind::inquiry: return decode_inquiry(*c, name);
    case DecodeKind::vpd: return decode_vpd(*c, name);
    case DecodeKind::sense: return decode_sense_data(*c, name);
    case DecodeKind::zones: return decode_zones(*c, name, o.zones_zac);
    case DecodeKind::identify: break;
  }
  return make_error("decode: unknown kind");
}

Expected<Report> decode_file(const std::string& path, const DecodeOptions& o) {
  auto bytes = probe::read_capture(path, kMaxInput, "a captured page");
  if (!bytes) return bytes.error();
  return decode_bytes(*bytes, path == "-" ? "stdin" : path, o);
}

}  // namespace ds::app
