// The ideal greedy SPTF gain over FIFO on a simulated model: the physical bound that the
// simulator's queue (tests/sim) and the read-queuing measurement (tests/measure) are held to.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "sim/rng.hpp"
#include "sim/sim.hpp"
#include "sim/drive.hpp"

namespace simtest {

// What an ideal greedy SPTF scheduler gains over FIFO on a model, worked out here apart from the
// simulator's queue and service code: the same kind of requests (uniform random single-sector
// LBAs, 32 outstanding), placed by the model's layout (cylinder, head, angle = stream time mod
// one revolution) and timed by its seek curve, head switch and rotation only — perfect knowledge,
// no seek jitter, no planning margin, command overhead left out (with 32 queued it overlaps the
// mechanism, as in the simulator). Each step serves the request with the least seek-or-switch
// plus rotational wait from where the head is; FIFO serves them in arrival order.
inline double ideal_greedy_gain(const ds::sim::SimTarget& t, unsigned depth, int n) {
  const auto& lay = t.drive->layout();
  const auto& seek = t.drive->seek_curve();
  const std::int64_t rot = lay.rotation_ns();
  const auto hs = static_cast<std::int64_t>(std::llround(t.model.head_switch_ms * 1e6));
  struct Req { std::uint32_t cyl, head; std::int64_t angle, xfer; };
  ds::sim::Rng rng(99);
  auto draw = [&] {
    const std::uint64_t lba = rng.below(lay.capacity());
    const auto c = lay.locate(lba);
    return Req{c.cyl, c.head, lay.stream_ns(lba) % rot,
               static_cast<std::int64_t>(lay.sector_ns(lay.zone_of(lba)))};
  };
  auto position = [&](std::uint32_t cyl, std::uint32_t head, std::int64_t now, const Req& r) {
    const std::uint32_t d = cyl > r.cyl ? cyl - r.cyl : r.cyl - cyl;
    const std::int64_t move = d == 0 ? (head == r.head ? 0 : hs) : std::max(seek.ns(d), hs);
    const std::int64_t arrive = now + move;
    return move + ((r.angle - arrive % rot) % rot + rot) % rot;
  };
  auto run = [&](bool greedy) {
    std::vector<Req> q;
    for (unsigned i = 0; i < depth; ++i) q.push_back(draw());
    std::int64_t now = 0;
    std::uint32_t cyl = 0, head = 0;
    for (int k = 0; k < n; ++k) {
      std::size_t pick = 0;
      if (greedy)
        for (std::size_t i = 1; i < q.size(); ++i)
          if (position(cyl, head, now, q[i]) < position(cyl, head, now, q[pick])) pick = i;
      const Req r = q[pick];
      now += position(cyl, head, now, r) + r.xfer;
      cyl = r.cyl;
      head = r.head;
      q.erase(q.begin() + static_cast<std::ptrdiff_t>(pick));
      q.push_back(draw());
    }
    return static_cast<double>(now);
  };
  const double fifo_ns = run(false);
  return fifo_ns / run(true);
}

}  // namespace simtest
