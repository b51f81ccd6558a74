// Malformed dumps: every one must give a clear error (naming the problem), never a crash.
// Fixtures are derived from a real dump and written to a temporary directory.
#include <doctest/doctest.h>

#include <string>

#include "ata_test_util.hpp"
#include "probe/dump_reader.hpp"
#include "probe/identify.hpp"
#include "probe/smart.hpp"
#include "report/ata_identity_report.hpp"

using namespace ds::probe;
using namespace ds::atatest;

namespace {

const std::string kDrive = "TOSHIBA_MK1651GSY--38IGT0G5T";

std::string error_of(const std::string& path, bool allow_bad = false) {
  auto r = read_identify_dump(path, allow_bad);
  if (r.ok()) return "";
  return r.error().message;
}

bool contains(const std::string& s, const std::string& what) {
  return s.find(what) != std::string::npos;
}

void put_be32(std::vector<std::uint8_t>& b, std::size_t at, std::uint32_t v) {
  b[at] = static_cast<std::uint8_t>(v >> 24);
  b[at + 1] = static_cast<std::uint8_t>(v >> 16);
  b[at + 2] = static_cast<std::uint8_t>(v >> 8);
  b[at + 3] = static_cast<std::uint8_t>(v);
}

}  // namespace

TEST_CASE("malformed dumps: clear errors") {
  TempDir tmp;
  REQUIRE_FALSE(tmp.path.empty());
  const auto raw = read_bytes(drive_path(kDrive, "identify.bin"));
  const auto hex = read_text(drive_path(kDrive, "identify.hex"));
  const auto blob = read_bytes(drive_path(kDrive, "blob.bin"));
  REQUIRE(raw.size() == 512);
  REQUIRE(blob.size() == 1572);

  SUBCASE("missing file") {
    const auto e = error_of((tmp.path / "nope.bin").string());
    CHECK(contains(e, "cannot open"));
  }
  SUBCASE("empty file") {
    const auto e = error_of(tmp.write("empty", {}));
    CHECK(contains(e, "empty"));
  }
  SUBCASE("raw block of 511 bytes: truncated") {
    const auto e = error_of(tmp.write("r511", {raw.begin(), raw.end() - 1}));
    CHECK(contains(e, "exactly 512"));
    CHECK(contains(e, "511"));
    CHECK(contains(e, "truncated"));
  }
  SUBCASE("raw block of 513 bytes") {
    auto b = raw;
    b.push_back(0);
    const auto e = error_of(tmp.write("r513", b));
    CHECK(contains(e, "exactly 512"));
    CHECK(contains(e, "513"));
  }
  SUBCASE("raw block, short binary (100 bytes)") {
    const auto e = error_of(tmp.write("r100", {raw.begin(), raw.begin() + 100}));
    CHECK(contains(e, "truncated"));
  }
  SUBCASE("bad checksum: refused, and decodable on request") {
    auto b = raw;
    b[54] ^= 0x01;  // one bit of the model string
    const auto p = tmp.write("badsum", b);
    const auto e = error_of(p);
    CHECK(contains(e, "checksum"));
    auto forced = read_identify_dump(p, true);
    REQUIRE(forced.ok());
    auto id = decode_identify(forced->identify, DecodeOptions{true});
    REQUIRE(id.ok());
    CHECK(id->checksum == ChecksumState::kInvalid);
    CHECK_FALSE(decode_identify(forced->identify).ok());
  }
  SUBCASE("bad checksum in hex and blob forms too") {
    std::string h = hex;
    // Last word is d2a5 (checksum d2, signature a5): change the checksum byte.
    const auto at = h.rfind("d2a5");
    REQUIRE(at != std::string::npos);
    h.replace(at, 4, "d3a5");
    CHECK(contains(error_of(tmp.write_text("badsum.hex", h)), "checksum"));
    auto b = blob;
    b[8 + 100] ^= 0x10;  // inside IDFY payload
    CHECK(contains(error_of(tmp.write("badsum.blob", b)), "checksum"));
  }
  SUBCASE("hex: truncated (255 words)") {
    const auto cut = hex.rfind(' ');
    REQUIRE(cut != std::string::npos);
    const auto e = error_of(tmp.write_text("t.hex", hex.substr(0, cut) + "\n"));
    CHECK(contains(e, "truncated"));
    CHECK(contains(e, "255 words"));
  }
  SUBCASE("hex: too many words") {
    const auto e = error_of(tmp.write_text("long.hex", hex + "0000\n"));
    CHECK(contains(e, "more than 256"));
  }
  SUBCASE("hex: garbage token") {
    std::string h = hex;
    h.replace(h.find(' ') + 1, 4, "zz12");
    const auto e = error_of(tmp.write_text("garbage.hex", h));
    CHECK(contains(e, "zz12"));
    CHECK(contains(e, "not a 4-digit hex word"));
  }
  SUBCASE("hex: words of the wrong width") {
    std::string h = hex;
    h.replace(0, 4, "40");
    CHECK(contains(error_of(tmp.write_text("narrow.hex", h)), "not a 4-digit hex word"));
  }
  SUBCASE("text that is not hex at all") {
    const auto e = error_of(tmp.write_text("prose.txt", "hello, this is not a dump\n"));
    CHECK(contains(e, "not an hdparm hex dump"));
  }
  SUBCASE("whitespace only") {
    CHECK(contains(error_of(tmp.write_text("ws.hex", " \n\t\n")), "no hex words"));
  }
  SUBCASE("blob without IDFY") {
    std::vector<std::uint8_t> b(blob.begin() + 520, blob.end());  // SMST, SMDT, SMTH
    REQUIRE(std::string(b.begin(), b.begin() + 4) == "SMST");
    const auto e = error_of(tmp.write("noidfy.blob", b));
    CHECK(contains(e, "no IDFY"));
  }
  SUBCASE("blob with a wrong record size") {
    // Cut SMDT's payload to 500 bytes and say so in its header: libatasmart's sizes are fixed.
    // Layout: IDFY@0, SMST@520, SMDT@532 (length field at 536, payload at 540), SMTH@1052.
    REQUIRE(std::string(blob.begin() + 532, blob.begin() + 536) == "SMDT");
    std::vector<std::uint8_t> b(blob.begin(), blob.begin() + 540 + 500);
    put_be32(b, 536, 500);
    b.insert(b.end(), blob.begin() + 1052, blob.end());  // SMTH record intact
    const auto e = error_of(tmp.write("size.blob", b));
    CHECK(contains(e, "SMDT"));
    CHECK(contains(e, "must be 512"));
    // libatasmart itself also refuses it.
    CHECK_FALSE(smart_from_blob(b).ok());
  }
  SUBCASE("blob with a length running past the end") {
    auto b = blob;
    put_be32(b, 4, 0x7FFFFFFF);
    const auto e = error_of(tmp.write("huge.blob", b));
    CHECK(contains(e, "truncated"));
  }
  SUBCASE("blob cut in the middle of a record") {
    std::vector<std::uint8_t> b(blob.begin(), blob.begin() + 700);
    CHECK(contains(error_of(tmp.write("cut.blob", b)), "truncated"));
    std::vector<std::uint8_t> c(blob.begin(), blob.begin() + 515);  // inside IDFY
    CHECK(contains(error_of(tmp.write("cut2.blob", c)), "truncated"));
    std::vector<std::uint8_t> d(blob.begin(), blob.begin() + 6);  // partial header
    CHECK(contains(error_of(tmp.write("cut3.blob", d)), "truncated"));
  }
  SUBCASE("blob with a repeated record") {
    auto b = blob;
    b.insert(b.end(), blob.begin() + 520, blob.begin() + 532);  // a second SMST
    const auto e = error_of(tmp.write("twice.blob", b));
    CHECK(contains(e, "twice"));
  }
  SUBCASE("blob with an unknown record is accepted (libatasmart skips them)") {
    auto b = blob;
    const std::uint8_t extra[] = {'X', 'T', 'R', 'A', 0, 0, 0, 2, 0xAB, 0xCD};
    b.insert(b.end(), std::begin(extra), std::end(extra));
    auto r = read_identify_dump(tmp.write("extra.blob", b));
    REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
    CHECK(smart_from_blob(b).ok());
  }
  SUBCASE("a directory") {
    const auto e = error_of(tmp.path.string());
    CHECK_FALSE(e.empty());
  }
}

TEST_CASE("malformed input straight to the decoders") {
  std::vector<std::uint8_t> small(511, 0);
  auto r = decode_identify(small);
  REQUIRE_FALSE(r.ok());
  CHECK(contains(r.error().message, "512"));
  CHECK_FALSE(decode_identify(std::span<const std::uint8_t>()).ok());
  // All-zero block: no checksum signature, decodes to "nothing supported", no crash.
  std::vector<std::uint8_t> zero(512, 0);
  auto z = decode_identify(zero);
  REQUIRE(z.ok());
  CHECK(z->checksum == ChecksumState::kNotPresent);
  CHECK(z->model.empty());
  CHECK_FALSE(z->ncq.supported);
  CHECK(z->capacity_sectors == 0);
  // All-FFFFh: every "not implemented" marker at once.
  std::vector<std::uint8_t> ff(512, 0xFF);
  auto f = decode_identify(ff, DecodeOptions{true});
  REQUIRE(f.ok());
  CHECK_FALSE(f->sata);
  CHECK_FALSE(f->smart.supported);
  CHECK_FALSE(f->w83_valid);
  CHECK(f->model.find_first_not_of('?') == std::string::npos);  // 0xFF chars replaced
  // Blob decoders on junk.
  CHECK_FALSE(smart_from_blob(std::span<const std::uint8_t>()).ok());
  std::vector<std::uint8_t> junk(100, 0x5A);
  CHECK_FALSE(smart_from_blob(junk).ok());
  CHECK_FALSE(atasmart_check_blob(junk).ok());
  CHECK_FALSE(parse_identify_dump(junk, "junk").ok());
}

TEST_CASE("mutated dumps never crash the readers, decoders or reports") {
  // Deterministic pseudo-random mutations of the three formats of one real dump: byte flips,
  // truncations and insertions. Every outcome must be a value or an error; the reports must
  // render whatever decodes (nlohmann::json::dump throws on invalid UTF-8, so that is checked).
  const auto raw = read_bytes(drive_path(kDrive, "identify.bin"));
  const auto hex = read_bytes(drive_path(kDrive, "identify.hex"));
  const auto blob = read_bytes(drive_path(kDrive, "blob.bin"));
  std::uint64_t seed = 0x9E3779B97F4A7C15ull;
  auto next = [&seed] {
    seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
    return seed;
  };
  int decoded = 0, refused = 0;
  for (int round = 0; round < 3000; ++round) {
    const auto& base = round % 3 == 0 ? raw : round % 3 == 1 ? hex : blob;
    auto b = base;
    const int edits = 1 + static_cast<int>(next() % 4);
    for (int e = 0; e < edits && !b.empty(); ++e) {
      const std::size_t at = next() % b.size();
      switch (next() % 4) {
        case 0: b[at] = static_cast<std::uint8_t>(next()); break;
        case 1: b.resize(at); break;
        case 2: b.insert(b.begin() + static_cast<std::ptrdiff_t>(at), static_cast<std::uint8_t>(next())); break;
        default: b[at] ^= static_cast<std::uint8_t>(1u << (next() % 8)); break;
      }
    }
    auto d = parse_identify_dump(b, "mutant", /*allow_bad_checksum=*/round % 2 == 0);
    if (!d) {
      CHECK_FALSE(d.error().message.empty());
      ++refused;
      continue;
    }
    auto id = decode_identify(d->identify, DecodeOptions{true});
    REQUIRE(id.ok());
    std::optional<SmartReport> sm;
    if (!d->blob.empty()) {
      auto s = smart_from_blob(d->blob);
      if (s) sm = *s;
    }
    const auto j = ds::report::identity_to_json(*id, sm ? &*sm : nullptr);
    CHECK_NOTHROW((void)j.dump());
    CHECK_FALSE(ds::report::identity_to_text(*id, sm ? &*sm : nullptr).empty());
    ++decoded;
  }
  MESSAGE("mutants decoded: " << decoded << ", refused with an error: " << refused);
  CHECK(decoded > 0);
  CHECK(refused > 0);
}
