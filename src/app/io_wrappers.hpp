// Engines that wrap the target's in the commands' runs (on ForwardingIo, drivescope/io.hpp): Ctrl-C
// for bench and the twin's workloads.
#pragma once
#include <cerrno>
#include <functional>
#include <utility>

#include "drivescope/io.hpp"

namespace ds::app {

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
