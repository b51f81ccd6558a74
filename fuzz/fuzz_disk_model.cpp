// libFuzzer target: the disk-model loader (src/sim/model_json.cpp, docs/disk-model.md) including
// the optional "faults" object. A model that parses is also opened as a simulated drive (layout,
// seek curve) and written back: a file that passes validation must not crash what comes next.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "sim/model.hpp"
#include "sim/sim.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto m = ds::sim::parse_model(text);
  if (!m.ok()) return 0;
  const std::string back = ds::sim::model_to_json(*m);
  auto again = ds::sim::parse_model(back);
  if (!again.ok()) __builtin_trap();  // what we write we must read
  // Opening builds the layout and seek curve from the model; bounded so that a huge model does
  // not turn into a slow unit.
  if (m->capacity() <= (1ull << 36) && m->zones.size() <= 256) (void)ds::sim::open(std::move(*m));
  return 0;
}
