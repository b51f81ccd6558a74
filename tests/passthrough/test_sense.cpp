// Sense decoding through libsgutils2 checked against sg_decode_sense's own decodes of the
// sg3_utils inhex fixtures (tests/data/scsi/*.sg_decode_sense.txt), and the inhex reader.
#include <doctest/doctest.h>

#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "passthrough/inhex.hpp"
#include "passthrough/sense.hpp"

using namespace ds;
using Bytes = std::vector<std::uint8_t>;

namespace {

std::string slurp(const std::string& name) {
  std::ifstream f(std::string(DS_TEST_DATA) + "/scsi/" + name);
  REQUIRE_MESSAGE(f.good(), "missing fixture " << name);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// The text after `key` on the first line that has it, up to the end of the line.
std::string field(const std::string& text, const std::string& key) {
  auto p = text.find(key);
  if (p == std::string::npos) return {};
  p += key.size();
  auto e = text.find('\n', p);
  std::string v = text.substr(p, e - p);
  while (!v.empty() && v.back() == ' ') v.pop_back();
  return v;
}

}  // namespace

TEST_CASE("inhex reads the sg3_utils fixture format") {
  auto b = parse_inhex(slurp("fixed_sense.hex"));
  REQUIRE(b.ok());
  CHECK(*b == Bytes{0xf0, 0x00, 0x03, 0x00, 0x00, 0x12, 0x34, 0x0a, 0x00, 0x00, 0x00, 0x00,
                    0x11, 0x00, 0x77, 0x80, 0x01, 0x98});
  auto d = parse_inhex(slurp("descriptor_sense.hex"));
  REQUIRE(d.ok());
  CHECK(d->size() == 8 + 0x4c);
  auto v = parse_inhex(slurp("vpd_atai.hex"));
  REQUIRE(v.ok());
  CHECK(v->size() == 4 + 0x238);  // page length 0238h in bytes 2..3
}

TEST_CASE("inhex variants and errors") {
  CHECK(*parse_inhex("0x12, 0X3 ,a\n# c\n bc # trailing") == Bytes{0x12, 0x03, 0x0a, 0xbc});
  CHECK(*parse_inhex("0a0b0c\r\n") == Bytes{0x0a, 0x0b, 0x0c});
  CHECK_FALSE(parse_inhex("").ok());
  CHECK_FALSE(parse_inhex("# only a comment\n\n").ok());
  auto bad = parse_inhex("00 11\n22 zz\n");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message.find("line 2") != std::string::npos);
  CHECK_FALSE(parse_inhex("123").ok());
  CHECK_FALSE(parse_inhex("0x123").ok());
}

TEST_CASE("fixed-format sense agrees with sg_decode_sense") {
  auto b = parse_inhex(slurp("fixed_sense.hex"));
  REQUIRE(b.ok());
  const std::string ref = slurp("fixed_sense.sg_decode_sense.txt");
  auto s = decode_sense(*b);
  REQUIRE(s.ok());
  CHECK(ref.find("Fixed format, current") != std::string::npos);
  CHECK_FALSE(s->descriptor_format);
  CHECK_FALSE(s->deferred);
  CHECK(s->response_code == 0x70);
  CHECK(s->sense_key == 0x3);
  CHECK(s->sense_key_text == field(ref, "Sense key: "));
  CHECK(s->asc == 0x11);
  CHECK(s->ascq == 0x00);
  CHECK(s->asc_text == field(ref, "Additional sense: "));
  REQUIRE(s->information.has_value());
  const std::string info = field(ref, "Info fld=");  // "0x1234 [4660]"
  CHECK(*s->information == std::stoull(info.substr(0, info.find(' ')), nullptr, 16));
  CHECK(s->text.find("Medium Error") != std::string::npos);
  CHECK(sense_summary(*s) == "Medium Error: Unrecovered read error (information 0x1234)");
}

TEST_CASE("descriptor-format sense agrees with sg_decode_sense") {
  auto b = parse_inhex(slurp("descriptor_sense.hex"));
  REQUIRE(b.ok());
  const std::string ref = slurp("descriptor_sense.sg_decode_sense.txt");
  auto s = decode_sense(*b);
  REQUIRE(s.ok());
  CHECK(ref.find("Descriptor format, current") != std::string::npos);
  CHECK(s->descriptor_format);
  CHECK(s->response_code == 0x72);
  CHECK(s->sense_key == 0x1);
  CHECK(s->sense_key_text == field(ref, "Sense key: "));
  CHECK(s->asc == 0x03);
  CHECK(s->ascq == 0x02);
  CHECK(s->asc_text == field(ref, "Additional sense: "));
  REQUIRE(s->information.has_value());
  const std::string info = field(ref, "Descriptor type: Information: ");
  CHECK(*s->information == std::stoull(info, nullptr, 16));
  CHECK(*s->information == 0x11223344556677bbULL);
  // libsgutils2's full text carries the same descriptor list sg_decode_sense printed.
  CHECK(s->text.find("Field replaceable unit code: 0x45") != std::string::npos);
}

TEST_CASE("garbage, short and empty sense give errors, never a crash") {
  CHECK_FALSE(decode_sense(Bytes{}).ok());
  auto rc = decode_sense(Bytes{0x00, 0, 0, 0, 0, 0, 0, 0});
  REQUIRE_FALSE(rc.ok());
  CHECK(rc.error().message.find("response code") != std::string::npos);
  CHECK_FALSE(decode_sense(Bytes{0x70, 0x00, 0x03}).ok());
  CHECK_FALSE(decode_sense(Bytes{0x72, 0x03, 0x11}).ok());
  // Fixed format whose additional length stops before ASC/ASCQ.
  CHECK_FALSE(decode_sense(Bytes{0x70, 0, 3, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0x11, 0}).ok());
  // A minimal descriptor sense with no descriptors is fine.
  auto m = decode_sense(Bytes{0x72, 0x05, 0x24, 0x00, 0, 0, 0, 0});
  REQUIRE(m.ok());
  CHECK(m->sense_key == 5);
  CHECK(m->asc_text == "Invalid field in cdb");
  CHECK_FALSE(m->information.has_value());
  CHECK(describe_sense(Bytes{0x01}).find("undecodable") != std::string::npos);
  std::mt19937 rng(777);
  int decoded = 0;
  for (int i = 0; i < 5000; ++i) {
    Bytes b(rng() % 64);
    for (auto& x : b) x = static_cast<std::uint8_t>(rng());
    if (!b.empty() && (rng() & 1)) b[0] = static_cast<std::uint8_t>(0x70 + rng() % 4);
    decoded += decode_sense(b).ok();
  }
  CHECK(decoded > 0);
}

TEST_CASE("sense whose additional length claims more than is there: no read past the buffer") {
  // Found by fuzz_sense (fuzz/corpus/sense/sense-desc-length-overrun.bin): byte 7 says 72 more
  // bytes follow, only 4 do. Under ASan this read past the end inside libsgutils2.
  const std::vector<std::uint8_t> sense{0x72, 0x02, 0x80, 0x02, 0xf9, 0x00, 0x00, 0x48,
                                        0x00, 0x0a, 0x80, 0x00};
  auto s = ds::decode_sense(sense);
  REQUIRE(s.ok());
  CHECK(s->sense_key == 0x02);
  CHECK(s->asc == 0x80);
  CHECK(s->ascq == 0x02);
}
