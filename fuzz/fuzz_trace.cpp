// libFuzzer target: the block-trace readers of `drivescope replay` (src/tests/trace.hpp): DiskSim
// validate lines, fio iologs v2/v3, blkparse text output, and the format detection in front.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "tests/trace.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)ds::measure::parse_trace(text);
  (void)ds::measure::parse_disksim_validate(text);
  (void)ds::measure::parse_fio_iolog(text);
  (void)ds::measure::parse_blkparse(text);
  return 0;
}
