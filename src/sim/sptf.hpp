// The scheduler (DiskSim's ioqueue): the commands one positioner holds, waiting for the
// mechanism, in arrival order, with what the shortest-positioning-time-first scorer
// (SptfScheduler, called by Mechanics::sptf_pick) keeps of each between its decisions.
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
#include "sim/controller.hpp"
#include "sim/positioner.hpp"
#include "sim/read_ahead.hpp"

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

// What an SPTF decision at t needs, worked out once for all the commands it weighs (where the
// head will be, what the read-ahead holds, the overheads), and the drive parts it looks at.
struct SptfDecision {
  std::int64_t t = 0;
  HeadPos from;
  int skip = -1;             // the segment being read ahead (a hit must be in another one)
  bool streaming = false;    // a read-ahead is still reading at t ...
  std::uint64_t window_first = 0, limit = 0;  // ... over [window_first, limit]
  std::int64_t ready = 0;    // max(t, the mechanism free)
  std::int64_t read_overhead = 0, write_overhead = 0;  // of a command that needs the media
  bool write_back = false;   // writes go to the buffer (they only need the interface)
  const Positioner* pos = nullptr;   // (its seek floor built)
  const SegmentCache* cache = nullptr;
  const ReadAhead* stream = nullptr;
};

// Shortest positioning time first: of the `window` oldest commands of q (all when window is 0 or
// beyond its size), the one whose data could start to flow soonest after d.t (a cache hit at
// once), the oldest among equals.
class SptfScheduler {
 public:
  std::uint16_t pick(const SptfDecision& d, CommandQueue& q, std::size_t window) const;

 private:
  // The nominal time from d.t until the command's data could start to flow (0 for a cache hit:
  // `holders` segments hold it), or where that needs the seek worked out (seek_estimate), a
  // lower bound of it (*exact = false).
  static std::int64_t bound(const SptfDecision& d, const Access& a, std::uint32_t holders, bool* exact);
  static std::int64_t seek_estimate(const SptfDecision& d, const Access& a);
  // pick's two ways: every one of the n oldest commands' bound in arrival order, or outward from
  // the head's cylinder until no command further out can win.
  std::uint16_t in_order(const SptfDecision& d, const CommandQueue& q, std::size_t n) const;
  static std::uint16_t nearest_first(const SptfDecision& d, const CommandQueue& q);
  mutable std::vector<std::int64_t> bounds_;  // in_order's scratch
};

}  // namespace ds::sim
