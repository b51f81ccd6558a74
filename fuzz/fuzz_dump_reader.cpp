// libFuzzer target: the readers of user-supplied files: IDENTIFY dumps (hdparm hex words, raw
// 512 bytes, libatasmart blobs; src/probe/dump_reader.hpp), the blob record walker, and sg3_utils
// "inhex" text (src/passthrough/inhex.hpp).
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "passthrough/inhex.hpp"
#include "probe/dump_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::uint8_t> in(data, size);
  (void)ds::probe::parse_identify_dump(in, "fuzz", false);
  (void)ds::probe::parse_identify_dump(in, "fuzz", true);
  (void)ds::probe::list_blob_records(in);
  (void)ds::parse_inhex(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
