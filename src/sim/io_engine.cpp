#include "sim/io_engine.hpp"

#include <cerrno>

namespace ds::sim {

SimIoEngine::SimIoEngine(std::shared_ptr<SimDrive> drive, std::string name, bool writable)
    : drive_(std::move(drive)) {
  const DiskModel& m = drive_->model();
  info_.name = std::move(name);
  info_.logical_block_bytes = m.logical_sector_bytes;
  info_.physical_block_bytes = m.physical_sector_bytes;
  info_.capacity_bytes = drive_->capacity() * m.logical_sector_bytes;
  info_.virtual_time = true;
  info_.writable = writable;
  info_.max_queue_depth = static_cast<unsigned>(SimDrive::kHostDepth);
}

Expected<std::size_t> SimIoEngine::submit(std::span<const IoRequest> reqs) {
  if (drive_->faults().vanished(drive_->now_ns()))  // injected fault (sim/faults.hpp)
    return make_error(info_.name + ": the device is gone (injected fault: it vanished)", ENODEV);
  return drive_->submit(reqs, info_.writable);
}

Expected<std::size_t> SimIoEngine::reap(std::span<IoCompletion> out, std::size_t min_events,
                                        std::chrono::milliseconds timeout) {
  const std::int64_t deadline =
      timeout.count() > 0 ? drive_->now_ns() + static_cast<std::int64_t>(timeout.count()) * 1'000'000 : -1;
  const std::size_t n = drive_->reap(out, min_events, deadline);
  // Like the libaio engine: nothing completed from a drive that stopped answering is an error
  // (injected fault, sim/faults.hpp). The wait was virtual, so this returns at once.
  if (n == 0 && min_events > 0 && drive_->in_flight() > 0 && drive_->faults().stopped(drive_->now_ns()))
    return make_error(info_.name + ": none of " + std::to_string(drive_->in_flight()) +
                          " outstanding I/O(s) completed within " + std::to_string(timeout.count()) +
                          " ms: the device stopped answering (injected fault)",
                      ETIMEDOUT);
  return n;
}

void SimIoEngine::idle(std::chrono::nanoseconds d) {
  if (d.count() > 0) drive_->advance_to(drive_->now_ns() + d.count());
}

}  // namespace ds::sim
