// libFuzzer target: sense data (src/passthrough/sense.hpp) and the SAT-3 views of it
// (src/passthrough/sat.hpp: ATA Status Return descriptor / fixed-format registers), plus the ATA
// PASS-THROUGH CDB decoder the allowlist relies on: garbage from a device or a capture file must
// give an error or a decoded value, never a crash.
#include <cstddef>
#include <cstdint>
#include <span>

#include "drivescope/sat.hpp"
#include "passthrough/sense.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::uint8_t> in(data, size);
  if (auto s = ds::decode_sense(in); s.ok()) (void)ds::sense_summary(*s);
  (void)ds::describe_sense(in);
  (void)ds::sat::decode_ata_status_return(in);
  (void)ds::sat::decode_ata_output(in);
  (void)ds::sat::decode_pass_through_cdb(in);
  return 0;
}
