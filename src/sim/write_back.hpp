// The write-back buffer (DiskSim's write-behind, "Fast write level"): writes the drive has
// acknowledged whose data is not on the media yet, oldest first. It holds at most cache.bytes of
// data and one write per segment (write-behind level 1: one write, and none while an earlier one
// is still being written). The mechanism destages them in arrival order whenever it is otherwise
// free (Mechanics::destage_one); this class holds the backlog and says what fits.
#pragma once
#include <cstdint>
#include <deque>

#include "sim/controller.hpp"
#include "sim/model.hpp"

namespace ds::sim {

class WriteBuffer {
 public:
  explicit WriteBuffer(const DiskModel& m);

  struct Dirty {
    Access access;
    std::int64_t ack_ns;  // in the buffer from then on
    std::uint64_t bytes;
  };
  bool empty() const { return dirty_.empty(); }
  const Dirty& oldest() const { return dirty_.front(); }
  Dirty take_oldest();
  void push(const Access& a, std::int64_t ack, std::uint64_t bytes);

  // A write of `bytes` must wait for a destage first (the buffer is full, in bytes or writes).
  bool full_for(std::uint64_t bytes) const {
    return !dirty_.empty() && (dirty_bytes_ + bytes > capacity_ || dirty_.size() >= max_writes_);
  }
  // It can go into the buffer at t without waiting for room (a write "hit").
  bool takes(std::int64_t t, std::uint64_t bytes) const {
    return !busy(t) && dirty_.size() < max_writes_ && dirty_bytes_ + bytes <= capacity_;
  }
  // Write-behind level 1 takes no write while an earlier one is still being written.
  bool busy(std::int64_t t) const { return one_at_a_time_ && destage_end_ > t; }
  // When the last destage started is on the media.
  std::int64_t destage_end() const { return destage_end_; }
  void set_destage_end(std::int64_t t) { destage_end_ = t; }

 private:
  std::deque<Dirty> dirty_;  // buffered writes not yet on the media, oldest first
  std::uint64_t dirty_bytes_ = 0;
  std::uint64_t capacity_ = 0;    // cache.bytes
  std::size_t max_writes_ = 1;    // how many writes the buffer holds before a new one must wait
  bool one_at_a_time_ = false;    // write-behind level 1
  std::int64_t destage_end_ = 0;
};

}  // namespace ds::sim
