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
  bool empty() const { return order_.empty(); }
  std::size_t size() const { return order_.size(); }
  // The slot of the command at arrival position i (0: the oldest).
  std::uint16_t at(std::size_t i) const { return order_[i]; }
  const Access& access(std::uint16_t slot) const { return slot_[slot].access; }
  std::uint64_t arrival_seq(std::uint16_t slot) const { return slot_[slot].seq; }  // grows with arrival
  // Cache segments holding all of the command (after sync()), and how many commands some
  // segment holds.
  std::uint32_t holders(std::uint16_t slot) const { return slot_[slot].holders; }
  std::size_t held() const { return held_; }
  std::size_t writes() const { return writes_; }

  // A command arrives (last in arrival order). cache: the positioner's, when the commands are
  // scored (SPTF), so that its count starts right; nullptr when they never are (FIFO).
  void push(const Access& a, std::uint16_t slot, const SegmentCache* cache);
  // The command leaves for the mechanism.
  void take(std::uint16_t slot);
  // Brings every command's count of holding segments up to the cache's present ranges.
  void sync(const SegmentCache& cache);

  // The commands by cylinder, and by LBA: (key, slot), sorted.
  struct Key {
    std::uint64_t key = 0;
    std::uint16_t slot = 0;
    bool operator<(const Key& o) const { return key != o.key ? key < o.key : slot < o.slot; }
  };
  const std::vector<Key>& by_cylinder() const { return by_cyl_; }
  const std::vector<Key>& by_lba() const { return by_lba_; }

 private:
  struct Held {
    Access access;
    std::uint64_t seq = 0;
    std::uint32_t holders = 0;
  };
  // Adds d to the count of every command inside [first, end).
  void count_range(std::uint64_t first, std::uint64_t end, int d);
  void set_holders(Held& h, std::uint32_t n);

  std::vector<std::uint16_t> order_;  // slots, in arrival order
  std::vector<Held> slot_;            // by slot
  std::vector<Key> by_cyl_, by_lba_;
  std::uint64_t next_seq_ = 0;
  std::size_t held_ = 0, writes_ = 0;
  std::uint64_t seen_ = 0;  // the cache journal position the counts are at
  bool counted_ = false;    // the counts are kept (a cache was given)
};

}  // namespace ds::sim
