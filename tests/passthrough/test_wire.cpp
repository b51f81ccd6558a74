// The shared wire toolkit (drivescope/wire.hpp): big-endian fields round-trip at every width and
// land in SCSI byte order; fixed-format sense built by it is what the sense decoder reads.
#include <doctest/doctest.h>

#include <array>

#include "drivescope/wire.hpp"
#include "passthrough/sense.hpp"

TEST_CASE("wire: big-endian fields, most significant byte first, every width") {
  std::array<std::uint8_t, 16> b{};
  ds::wire::put_be32(b.data(), 0x12345678u);
  CHECK(b[0] == 0x12);
  CHECK(b[3] == 0x78);
  CHECK(ds::wire::get_be32(b, 0) == 0x12345678u);
  ds::wire::put_be64(b.data() + 4, 0x0102030405060708ull);
  CHECK(b[4] == 0x01);
  CHECK(b[11] == 0x08);
  CHECK(ds::wire::get_be64(b, 4) == 0x0102030405060708ull);
  ds::wire::put_be16(b.data() + 12, 0xBEEF);
  CHECK(ds::wire::get_be16(b, 12) == 0xBEEF);
  ds::wire::put_be(b.data(), 0xABCDEF, 3);  // odd widths (CDB fields such as a 21-bit LBA)
  CHECK(ds::wire::get_be(b, 0, 3) == 0xABCDEF);
  CHECK(b[3] == 0x78);  // nothing past the field written
}

TEST_CASE("wire: fixed-format sense reads back with its key and ASC/ASCQ") {
  const auto s = ds::wire::fixed_sense(ds::wire::sense_key::kIllegalRequest, 0x24, 0x00);
  CHECK(s[0] == 0x70);
  CHECK((s[2] & 0x0F) == 0x05);
  CHECK(s[7] == 10);
  const std::string text = ds::describe_sense(s);
  CHECK(text.find("Illegal") != std::string::npos);
  CHECK(text.find("nvalid field in cdb") != std::string::npos);
}
