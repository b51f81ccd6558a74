#include "sim/write_back.hpp"

#include <algorithm>

namespace ds::sim {

WriteBuffer::WriteBuffer(const DiskModel& m) : capacity_(m.cache.bytes) {
  one_at_a_time_ = m.controller.write_behind_level == 1;
  // Level 1 holds one write behind; level 2 (and a plain write_back model) one per segment.
  max_writes_ = one_at_a_time_ ? 1 : std::max<std::size_t>(1, m.cache.segments);
}

WriteBuffer::Dirty WriteBuffer::take_oldest() {
  const Dirty d = dirty_.front();
  dirty_.pop_front();
  dirty_bytes_ -= d.bytes;
  return d;
}

void WriteBuffer::push(const Access& a, std::int64_t ack, std::uint64_t bytes) {
  dirty_.push_back({a, ack, bytes});
  dirty_bytes_ += bytes;
}

}  // namespace ds::sim
