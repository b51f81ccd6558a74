// Dump readers for `identify --from-file`. See dump_reader.hpp for the formats.
#include "probe/dump_reader.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <optional>
#include <string>

#include "drivescope/wire.hpp"
#include "probe/identify.hpp"
#include "probe/smart.hpp"

namespace ds::probe {
namespace {

constexpr std::size_t kBlock = 512;
constexpr std::size_t kMaxDumpBytes = 1 << 20;  // far above any real dump: refuse, don't slurp

bool is_known_tag(std::span<const std::uint8_t> b) {
  if (b.size() < 4) return false;
  const std::string_view t(reinterpret_cast<const char*>(b.data()), 4);
  return t == "IDFY" || t == "SMST" || t == "SMDT" || t == "SMTH";
}

bool looks_like_text(std::span<const std::uint8_t> b) {
  for (auto c : b) {
    const bool ws = c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
    if (!ws && (c < 0x21 || c > 0x7E)) return false;
  }
  return true;
}

bool is_device_line(std::string_view tok) { return tok.size() > 1 && tok.back() == ':'; }

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// hdparm --Istdin text: 256 tokens of exactly four hex digits. Each token is the word's value,
// so word w becomes bytes (w & 0xFF, w >> 8) in the little-endian block. `hdparm --Istdout DEV`
// writes its device line ("/dev/sda:") before the words: a token ending in ':' before the first
// word is that line and is skipped.
Expected<std::array<std::uint8_t, 512>> parse_hex_words(std::span<const std::uint8_t> b,
                                                        std::string_view name) {
  std::array<std::uint8_t, 512> out{};
  std::size_t count = 0, i = 0, line = 1;
  while (i < b.size()) {
    const char c = static_cast<char>(b[i]);
    if (c == '\n') ++line;
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f') {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < b.size() && b[j] > 0x20 && b[j] < 0x7F) ++j;
    const std::string_view tok(reinterpret_cast<const char*>(b.data() + i), j - i);
    if (count == 0 && is_device_line(tok)) {
      i = j;
      continue;
    }
    unsigned v = 0;
    bool good = tok.size() == 4;
    for (std::size_t k = 0; good && k < tok.size(); ++k) {
      const int h = hex_value(tok[k]);
      if (h < 0) good = false;
      else v = v * 16u + static_cast<unsigned>(h);
    }
    if (!good) {
      return make_error(fmt::format(
          "{}: not an hdparm hex dump: token '{}' on line {} (word {}) is not a 4-digit hex word",
          name, tok.substr(0, 16), line, count));
    }
    if (count >= 256) {
      return make_error(fmt::format(
          "{}: hdparm hex dump has more than 256 words (extra word '{}' on line {})", name, tok,
          line));
    }
    out[2 * count] = static_cast<std::uint8_t>(v & 0xFF);
    out[2 * count + 1] = static_cast<std::uint8_t>(v >> 8);
    ++count;
    i = j;
  }
  if (count == 0) return make_error(fmt::format("{}: text file holds no hex words", name));
  if (count < 256) {
    return make_error(fmt::format(
        "{}: hdparm hex dump is truncated: {} words, IDENTIFY data has 256", name, count));
  }
  return out;
}

std::uint32_t be32(const std::uint8_t* p) { return wire::get_be32({p, 4}, 0); }

std::optional<unsigned> hex_word(std::string_view t) {
  if (t.size() != 4) return std::nullopt;
  unsigned v = 0;
  for (char c : t) {
    const int h = hex_value(c);
    if (h < 0) return std::nullopt;
    v = v * 16u + static_cast<unsigned>(h);
  }
  return v;
}

void put_word(std::array<std::uint8_t, 512>& out, std::size_t i, unsigned v) {
  out[2 * i] = static_cast<std::uint8_t>(v & 0xFF);
  out[2 * i + 1] = static_cast<std::uint8_t>(v >> 8);
}

// `identify --raw`'s word table, wherever it sits in the saved output: a line "word +0 ... +7",
// then 32 lines "   N: w w w w w w w w" for N = 0, 8, ..., 248 (report/ata_identity_report.cpp,
// identify_words_text). The rest of the output (UTF-8 signs included) is not read.
std::optional<std::array<std::uint8_t, 512>> word_table(std::string_view t) {
  const auto head = t.find("word   +0   +1   +2   +3   +4   +5   +6   +7\n");
  if (head == std::string_view::npos) return std::nullopt;
  std::array<std::uint8_t, 512> out{};
  std::size_t at = t.find('\n', head) + 1;
  for (std::size_t row = 0; row < 32; ++row) {
    const auto end = t.find('\n', at);
    if (end == std::string_view::npos) return std::nullopt;
    std::string_view line = t.substr(at, end - at);
    at = end + 1;
    const auto colon = line.find(':');
    if (colon == std::string_view::npos) return std::nullopt;
    std::string_view label = line.substr(0, colon);
    while (!label.empty() && label.front() == ' ') label.remove_prefix(1);
    if (label != std::to_string(row * 8)) return std::nullopt;
    std::string_view rest = line.substr(colon + 1);
    for (std::size_t c = 0; c < 8; ++c) {
      if (rest.size() < 5 || rest[0] != ' ') return std::nullopt;
      auto v = hex_word(rest.substr(1, 4));
      if (!v) return std::nullopt;
      put_word(out, row * 8 + c, *v);
      rest.remove_prefix(5);
    }
  }
  return out;
}

// `identify --raw --json`'s "raw_words": an array of 256 strings of four hex digits.
std::optional<std::array<std::uint8_t, 512>> json_raw_words(std::string_view t) {
  auto at = t.find("\"raw_words\"");
  if (at == std::string_view::npos) return std::nullopt;
  at = t.find('[', at);
  const auto end = t.find(']', at);
  if (at == std::string_view::npos || end == std::string_view::npos) return std::nullopt;
  std::array<std::uint8_t, 512> out{};
  std::size_t n = 0;
  for (std::size_t q = t.find('"', at); q < end; q = t.find('"', q + 6)) {
    if (n == 256 || q + 5 >= t.size() || t[q + 5] != '"') return std::nullopt;
    auto v = hex_word(t.substr(q + 1, 4));
    if (!v) return std::nullopt;
    put_word(out, n++, *v);
  }
  if (n != 256) return std::nullopt;
  return out;
}

}  // namespace

const char* dump_format_name(DumpFormat f) {
  switch (f) {
    case DumpFormat::kHdparmHex: return "hdparm-hex";
    case DumpFormat::kRaw512: return "raw-512";
    case DumpFormat::kAtasmartBlob: return "libatasmart-blob";
    case DumpFormat::kDrivescopeRaw: return "drivescope-raw";
    case DumpFormat::kDrivescopeJson: return "drivescope-json";
  }
  return "?";
}

Expected<std::vector<BlobRecord>> list_blob_records(std::span<const std::uint8_t> blob) {
  // Container (libatasmart's sk_disk_get_blob/sk_disk_set_blob): records of a 4-byte ASCII tag,
  // a big-endian u32 payload length and the payload. Known tags have fixed sizes; unknown tags
  // are skipped as libatasmart does.
  std::vector<BlobRecord> recs;
  std::size_t off = 0;
  while (off < blob.size()) {
    if (blob.size() - off < 8) {
      return make_error(fmt::format(
          "blob is truncated: {} stray byte(s) at offset {} where a record header (8 bytes) "
          "should be",
          blob.size() - off, off));
    }
    BlobRecord r;
    r.offset = off;
    for (int k = 0; k < 4; ++k) {
      const auto c = blob[off + static_cast<std::size_t>(k)];
      r.tag.push_back(c >= 0x20 && c < 0x7F ? static_cast<char>(c) : '?');
    }
    r.size = be32(blob.data() + off + 4);
    if (r.size > blob.size() - off - 8) {
      return make_error(fmt::format(
          "blob is truncated: record '{}' at offset {} declares {} bytes, only {} remain", r.tag,
          off, r.size, blob.size() - off - 8));
    }
    const std::uint32_t want = r.tag == "SMST" ? 4u
                               : (r.tag == "IDFY" || r.tag == "SMDT" || r.tag == "SMTH") ? 512u
                                                                                          : 0u;
    if (want != 0 && r.size != want) {
      return make_error(fmt::format("blob record '{}' at offset {} has {} bytes, must be {}",
                                    r.tag, off, r.size, want));
    }
    for (const auto& o : recs) {
      if (want != 0 && o.tag == r.tag)
        return make_error(fmt::format("blob has record '{}' twice (offsets {} and {})", r.tag,
                                      o.offset, off));
    }
    recs.push_back(r);
    off += 8 + static_cast<std::size_t>(r.size);
  }
  return recs;
}

bool is_drivescope_capture(std::span<const std::uint8_t> bytes) {
  if (bytes.empty()) return false;
  const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  return (text.front() == '{' ? json_raw_words(text) : word_table(text)).has_value();
}

Expected<IdentifyDump> parse_identify_dump(std::span<const std::uint8_t> bytes,
                                           std::string_view name, bool allow_bad_checksum) {
  if (bytes.empty()) return make_error(fmt::format("{}: file is empty", name));
  IdentifyDump dump;

  if (is_known_tag(bytes)) {
    dump.format = DumpFormat::kAtasmartBlob;
    auto recs = list_blob_records(bytes);
    if (!recs) return make_error(fmt::format("{}: {}", name, recs.error().message));
    const BlobRecord* idfy = nullptr;
    for (const auto& r : *recs) {
      const auto* p = bytes.data() + r.offset + 8;
      if (r.tag == "IDFY") idfy = &r, std::memcpy(dump.identify.data(), p, kBlock);
      if (r.tag == "SMDT") std::memcpy(dump.smart_data.emplace().data(), p, kBlock);
      if (r.tag == "SMTH") std::memcpy(dump.smart_thresholds.emplace().data(), p, kBlock);
      if (r.tag == "SMST") dump.smart_status_good = be32(p) != 0;
    }
    if (!idfy) {
      return make_error(fmt::format(
          "{}: libatasmart blob has no IDFY record (IDENTIFY data), which it requires", name));
    }
    // Load it through libatasmart too: the blob must be one libatasmart itself accepts, and the
    // SMART status is libatasmart's reading of it when SMART is available.
    auto info = atasmart_check_blob(bytes);
    if (!info) return make_error(fmt::format("{}: {}", name, info.error().message));
    if (info->status_good) dump.smart_status_good = info->status_good;
    dump.blob.assign(bytes.begin(), bytes.end());
  } else if (const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
             auto words = text.front() == '{' ? json_raw_words(text) : word_table(text)) {
    // What `identify --raw` printed, as text or as JSON: it reads back.
    dump.format = text.front() == '{' ? DumpFormat::kDrivescopeJson : DumpFormat::kDrivescopeRaw;
    dump.identify = *words;
  } else if (looks_like_text(bytes)) {
    dump.format = DumpFormat::kHdparmHex;
    auto words = parse_hex_words(bytes, name);
    if (!words) return words.error();
    dump.identify = *words;
  } else {
    dump.format = DumpFormat::kRaw512;
    if (bytes.size() != kBlock) {
      return make_error(fmt::format(
          "{}: a raw IDENTIFY dump must be exactly 512 bytes, this binary file has {} ({}); nor "
          "is it a libatasmart blob (no IDFY/SMST/SMDT/SMTH tag at the start)",
          name, bytes.size(),
          bytes.size() < kBlock ? fmt::format("{} missing: truncated", kBlock - bytes.size())
                                : fmt::format("{} extra", bytes.size() - kBlock)));
    }
    std::memcpy(dump.identify.data(), bytes.data(), kBlock);
  }

  // Refuse a corrupt block here, once for all formats (decode_identify owns the rule).
  auto id = decode_identify(dump.identify, DecodeOptions{allow_bad_checksum});
  if (!id) return make_error(fmt::format("{}: {}", name, id.error().message));
  return dump;
}

Expected<std::vector<std::uint8_t>> read_capture(const std::string& path, std::size_t max_bytes, std::string_view what) {
  const bool stdin_input = path == "-";
  const std::string name = stdin_input ? "stdin" : path;
  std::ifstream f;
  if (!stdin_input) {
    f.open(path, std::ios::binary);
    if (!f) {
      const int e = errno;
      return make_error(fmt::format("{}: cannot open: {}", path, std::strerror(e ? e : ENOENT)), e);
    }
  }
  std::istream& in = stdin_input ? std::cin : static_cast<std::istream&>(f);
  std::vector<std::uint8_t> bytes;
  char buf[4096];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    bytes.insert(bytes.end(), buf, buf + in.gcount());
    if (bytes.size() > max_bytes) return make_error(fmt::format("{}: more than {} bytes: not {}", name, max_bytes, what));
  }
  if (in.bad()) return make_error(fmt::format("{}: read error", name));
  return bytes;
}

Expected<IdentifyDump> read_identify_dump(const std::string& path, bool allow_bad_checksum) {
  auto bytes = read_capture(path, kMaxDumpBytes, "an IDENTIFY dump");
  if (!bytes) return bytes.error();
  return parse_identify_dump(*bytes, path == "-" ? "stdin" : path, allow_bad_checksum);
}

}  // namespace ds::probe
