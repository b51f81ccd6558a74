// Dump readers for `identify --from-file`. See dump_reader.hpp for the formats.
#include "probe/dump_reader.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>

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

}  // namespace

const char* dump_format_name(DumpFormat f) {
  switch (f) {
    case DumpFormat::kHdparmHex: return "hdparm-hex";
    case DumpFormat::kRaw512: return "raw-512";
    case DumpFormat::kAtasmartBlob: return "libatasmart-blob";
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

Expected<IdentifyDump> read_identify_dump(const std::string& path, bool allow_bad_checksum) {
  std::ifstream f(path, std::ios::binary);
  if (!f) {
    const int e = errno;
    return make_error(fmt::format("{}: cannot open: {}", path, std::strerror(e ? e : ENOENT)), e);
  }
  std::vector<std::uint8_t> bytes;
  char buf[4096];
  while (f.read(buf, sizeof buf) || f.gcount() > 0) {
    bytes.insert(bytes.end(), buf, buf + f.gcount());
    if (bytes.size() > kMaxDumpBytes) {
      return make_error(fmt::format("{}: file is larger than {} bytes: not an IDENTIFY dump", path,
                                    kMaxDumpBytes));
    }
  }
  if (f.bad()) return make_error(fmt::format("{}: read error", path));
  return parse_identify_dump(bytes, path, allow_bad_checksum);
}

}  // namespace ds::probe
