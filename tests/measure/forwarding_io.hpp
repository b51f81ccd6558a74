// An IoEngine in front of another that passes every call through: the measurement tests' engines
// that change one thing about a drive (stop after n submits, fail after n reads, add host noise)
// override that call alone.
#pragma once
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <span>

#include "drivescope/io.hpp"

namespace ds::measure::testing {

class ForwardingIo : public ds::IoEngine {
 public:
  explicit ForwardingIo(ds::IoEngine& inner) : in_(inner) {}
  const ds::IoTargetInfo& info() const override { return in_.info(); }
  std::int64_t now_ns() override { return in_.now_ns(); }
  ds::Expected<std::size_t> submit(std::span<const ds::IoRequest> r) override { return in_.submit(r); }
  ds::Expected<std::size_t> reap(std::span<ds::IoCompletion> out, std::size_t min_events,
                                 std::chrono::milliseconds timeout) override {
    return in_.reap(out, min_events, timeout);
  }
  void idle(std::chrono::nanoseconds d) override { in_.idle(d); }
  std::size_t in_flight() const override { return in_.in_flight(); }

 protected:
  ds::IoEngine& in_;
};

}  // namespace ds::measure::testing
