// The commands one positioner holds, waiting for the mechanism, in arrival order, with what the
// shortest-positioning-time-first scorer (Mechanics::sptf_pick, sim/sptf.cpp) keeps of each
// between its decisions.
//
// Incremental scoring: a command's place on the platter is worked out once, on arrival (Access);
// whether the cache holds it is kept as a count of the segments holding it, brought up to date
// from the cache's journal of range changes (SegmentCache::set_range) by looking up, for each
// change, only the commands inside the ranges it touched (an index by LBA), instead of testing
// every command against every segment at every decision.
#pragma once
#include <cstdint>
#include <utility>
#include <vector>

#include "sim/cache.hpp"
#include "sim/mechanics.hpp"

namespace ds::sim {

class CommandQueue {
 public:
  struct Entry {
    Access access;
    std::uint16_t slot = 0;  // the drive's slot of the command
  };

  bool empty() const { return e_.empty(); }
  std::size_t size() const { return e_.size(); }
  const Entry& operator[](std::size_t i) const { return e_[i]; }
  // Cache segments holding all of the command at arrival position i (after sync()).
  std::uint32_t holders(std::size_t i) const { return holders_[e_[i].slot]; }

  // A command arrives (last in arrival order). cache: the positioner's, when the commands are
  // scored (SPTF), so that its count starts right; nullptr when they never are (FIFO).
  void push(const Access& a, std::uint16_t slot, const SegmentCache* cache);
  // The command at arrival position i leaves for the mechanism; returns its slot.
  std::uint16_t take(std::size_t i);
  // Brings every command's count of holding segments up to the cache's present ranges.
  void sync(const SegmentCache& cache);

 private:
  struct Span {
    std::uint64_t lba = 0;
    std::uint32_t sectors = 0;
    std::uint16_t slot = 0;
    bool operator<(const Span& o) const { return lba != o.lba ? lba < o.lba : slot < o.slot; }
  };
  // Adds d to the count of every command inside [first, end).
  void count_range(std::uint64_t first, std::uint64_t end, int d);

  std::vector<Entry> e_;               // arrival order
  std::vector<Span> by_lba_;           // the same commands, sorted by LBA
  std::vector<std::uint32_t> holders_;  // by slot
  std::uint64_t seen_ = 0;             // the cache journal position the counts are at
  bool counted_ = false;               // the counts are kept (a cache was given)
};

}  // namespace ds::sim
