// The simulated drive on real time: the adapter between a server that receives block requests
// on many threads at once (the nbdkit plugin, src/serve/nbdkit) and the simulator, which runs in
// virtual time (src/sim).
//
// The drive's clock follows CLOCK_MONOTONIC (times `speed`). A request enters the drive at the
// moment it arrives, so requests in flight together meet in the drive's queue (NCQ/TCQ in the
// model's policy, one at a time without a queue); the calling thread then sleeps until the
// simulated completion time comes round in real time, and returns. The simulator is never run
// ahead of real time: a request arriving later must still find the drive as it is then.
#pragma once
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>

#include "drivescope/expected.hpp"
#include "drivescope/io.hpp"
#include "serve/store.hpp"
#include "sim/sim.hpp"

namespace ds::serve {

struct ServeOptions {
  double speed = 1.0;  // drive seconds per real second (> 1: faster than life)
  std::optional<std::uint64_t> seed;  // overrides the model's noise.seed
};

// What serving added on top of the drive: how late (in real time) each request was answered
// after its simulated completion time (thread wake-up, lock, data copy).
struct ServeStats {
  std::uint64_t requests = 0;
  double mean_late_us = 0;
  double max_late_us = 0;
};

class RealTimeDrive {
 public:
  // spec: as sim::open ("sim:NAME", "NAME", "PATH.json"). A model the loader refuses is
  // refused with its message.
  static Expected<std::unique_ptr<RealTimeDrive>> open(std::string_view spec, const ServeOptions& o = {});

  std::uint64_t size_bytes() const { return store_.size(); }
  std::uint32_t logical_block_bytes() const { return target_.io->info().logical_block_bytes; }
  std::uint32_t physical_block_bytes() const { return target_.io->info().physical_block_bytes; }
  const std::string& name() const { return target_.io->info().name; }
  const sim::DiskModel& model() const { return target_.model; }
  double speed() const { return speed_; }

  // Each returns when the simulated drive has finished the request: 0, or an errno value (EINVAL
  // out of range; an injected fault's error).
  int read(std::span<std::byte> out, std::uint64_t offset);
  int write(std::span<const std::byte> in, std::uint64_t offset);
  // FLUSH CACHE: returns once the buffered writes are on the simulated media.
  int flush();

  ServeStats stats() const;

 private:
  RealTimeDrive(sim::SimTarget t, SparseStore s, double speed);
  using Clock = std::chrono::steady_clock;  // CLOCK_MONOTONIC
  std::int64_t virtual_now() const;
  Clock::time_point real_time_of(std::int64_t virtual_ns) const;
  // Time one request on the drive (the sectors it touches) and wait until it is done; `move_data`
  // runs meanwhile, once the request is in the drive, so that copying the data (page faults in
  // the server's fresh buffers included) overlaps the drive's time instead of adding to it.
  int timed(std::uint64_t offset, std::uint64_t length, bool write, const std::function<int()>& move_data);
  // With mu_ held: bring the drive up to now and collect what it has completed.
  void catch_up();
  void account(Clock::time_point due);

  sim::SimTarget target_;
  SparseStore store_;
  double speed_;
  Clock::time_point t0_;
  std::int64_t v0_;

  mutable std::mutex mu_;
  std::condition_variable cv_;  // a completion was collected, or a host slot came free
  std::uint64_t next_tag_ = 1;
  std::unordered_map<std::uint64_t, IoCompletion> done_;  // collected, not yet taken by their thread
  std::uint64_t requests_ = 0;
  double late_sum_us_ = 0, late_max_us_ = 0;
};

}  // namespace ds::serve
