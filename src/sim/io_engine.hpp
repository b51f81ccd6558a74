// Block I/O on the simulated drive: the same IoEngine interface as the libaio engine, with
// completion stamps in the drive's virtual time (info().virtual_time is set).
#pragma once
#include <memory>

#include "drivescope/io.hpp"
#include "sim/drive.hpp"

namespace ds::sim {

class SimIoEngine final : public IoEngine {
 public:
  SimIoEngine(std::shared_ptr<SimDrive> drive, std::string name, bool writable);
  const IoTargetInfo& info() const override { return info_; }
  std::int64_t now_ns() override { return drive_->now_ns(); }
  Expected<std::size_t> submit(std::span<const IoRequest> reqs) override;
  // The timeout counts in virtual time from now; zero or negative: no deadline (the simulator
  // never blocks for real, it runs the drive until enough completions exist).
  Expected<std::size_t> reap(std::span<IoCompletion> out, std::size_t min_events,
                             std::chrono::milliseconds timeout) override;
  void idle(std::chrono::nanoseconds d) override;
  std::size_t in_flight() const override { return drive_->in_flight(); }

 private:
  std::shared_ptr<SimDrive> drive_;
  IoTargetInfo info_;
};

}  // namespace ds::sim
