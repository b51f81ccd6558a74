// Engines that wrap the target's in the commands' runs: every call passed through, one or two
// changed (bench's --offset window, Ctrl-C for bench and the twin's workloads).
#pragma once
#include <cerrno>
#include <functional>
#include <utility>

#include "drivescope/io.hpp"

namespace ds::app {

// An engine that passes every call through to the target's.
class ForwardingIo : public IoEngine {
 public:
  explicit ForwardingIo(IoEngine& inner) : inner_(inner) {}
  const IoTargetInfo& info() const override { return inner_.info(); }
  std::int64_t now_ns() override { return inner_.now_ns(); }
  Expected<std::size_t> submit(std::span<const IoRequest> reqs) override { return inner_.submit(reqs); }
  Expected<std::size_t> reap(std::span<IoCompletion> out, std::size_t min_events,
                             std::chrono::milliseconds timeout) override {
    return inner_.reap(out, min_events, timeout);
  }
  void idle(std::chrono::nanoseconds d) override { inner_.idle(d); }
  std::size_t in_flight() const override { return inner_.in_flight(); }

 protected:
  IoEngine& inner_;
};

// Passes everything through until `stop` says so; from then on a submit fails with ECANCELED, so
// the run ends at its next request instead of running out its budget (completions already in
// flight are still reaped).
class StoppableIo final : public ForwardingIo {
 public:
  StoppableIo(IoEngine& inner, std::function<bool()> stop) : ForwardingIo(inner), stop_(std::move(stop)) {}
  Expected<std::size_t> submit(std::span<const IoRequest> reqs) override {
    if (stop_ && stop_()) return make_error("interrupted", ECANCELED);
    return inner_.submit(reqs);
  }

 private:
  std::function<bool()> stop_;
};

}  // namespace ds::app
