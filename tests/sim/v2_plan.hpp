// A fixed mixed plan run through the public I/O interface; returns every completion stamp in order.
#pragma once
#include "sim/rng.hpp"
#include "sim/sim.hpp"
#include <doctest/doctest.h>
#include <vector>

namespace v2test {

// Random reads and writes of mixed sizes with 1..8 outstanding, sequential runs across many
// tracks and zones, and idle gaps: everything that touches the layout (locate, stream time,
// streaming position) in the mechanics.
inline std::vector<std::int64_t> plan_stamps(ds::sim::SimTarget& t, int n, std::uint64_t seed) {
  ds::IoEngine& io = *t.io;
  const std::uint32_t bs = io.info().logical_block_bytes;
  const std::uint64_t cap = io.info().capacity_bytes / bs;
  ds::sim::Rng rng(seed);
  std::vector<std::int64_t> stamps;
  std::uint64_t seq = 0;
  int submitted = 0;
  ds::IoCompletion c[16];
  while (submitted < n) {
    const unsigned depth = 1 + static_cast<unsigned>(rng.below(8));
    for (unsigned k = 0; k < depth && submitted < n; ++k, ++submitted) {
      const bool sequential = rng.below(3) == 0;
      const std::uint32_t len = 1 + static_cast<std::uint32_t>(rng.below(sequential ? 512 : 64));
      std::uint64_t lba = sequential ? seq : rng.below(cap - len);
      if (lba + len > cap) lba = 0;
      seq = lba + len;
      const bool write = rng.below(5) == 0;
      ds::IoRequest r{lba * bs, len * bs, write, static_cast<std::uint64_t>(submitted)};
      REQUIRE(io.submit({&r, 1}).value() == 1);
    }
    while (io.in_flight() > 0) {
      const auto got = io.reap(c, 1, std::chrono::milliseconds(0)).value();
      for (std::size_t i = 0; i < got; ++i) stamps.push_back(c[i].complete_ns);
    }
    if (rng.below(4) == 0) io.idle(std::chrono::nanoseconds(rng.below(20'000'000)));
  }
  return stamps;
}

}  // namespace v2test
