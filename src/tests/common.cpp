#include "tests/common.hpp"

#include <cerrno>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <utility>

namespace ds::measure {

std::string io_errno_text(int e) {
  // A device that vanished fails its in-flight I/O with ENODEV/ENXIO: say so, like a refused submit.
  if (e == ENODEV || e == ENXIO) return "the device is gone (errno " + std::to_string(e) + ")";
  if (e == EIO) return "medium or device error (errno " + std::to_string(e) + ", EIO)";
  return "errno " + std::to_string(e);
}

bool device_errno(int e) { return e == EIO || e == ENODEV || e == ENXIO || e == ETIMEDOUT; }

std::string where_text(const IoTargetInfo& info, std::uint64_t offset_bytes) {
  const std::uint64_t lb = info.logical_block_bytes ? info.logical_block_bytes : 512;
  const std::uint64_t at = info.origin_bytes + offset_bytes;
  if (at % lb) return "LBA " + std::to_string(at / lb) + " (byte offset " + std::to_string(at) + ")";
  return "LBA " + std::to_string(at / lb);
}

Span span_of(const IoTargetInfo& info, std::uint64_t span_blocks) {
  Span s;
  if (info.logical_block_bytes) s.block_bytes = info.logical_block_bytes;
  s.blocks = info.capacity_bytes / s.block_bytes;
  if (span_blocks) s.blocks = std::min(s.blocks, span_blocks);
  return s;
}

std::vector<PlanEntry> sequential_plan(std::uint64_t lba, std::uint32_t blocks, std::size_t count,
                                       std::uint64_t end_lba) {
  std::vector<PlanEntry> p;
  p.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    std::uint64_t a = lba + static_cast<std::uint64_t>(i) * blocks;
    if (a + blocks > end_lba) break;
    p.push_back({a, blocks, false});
  }
  return p;
}

std::uint64_t Rng::next() {
  std::uint64_t z = (s_ += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

}  // namespace ds::measure
