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
#include <atomic>
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
#include <vector>

#include "drivescope/expected.hpp"
#include "drivescope/io.hpp"
#include "serve/store.hpp"
#include "sim/sim.hpp"

namespace ds::serve {

inline constexpr double kDefaultMaxWaitMs = 500;  // a choice: no preset says its firmware's bound

struct ServeOptions {
  double speed = 1.0;  // drive seconds per real second (> 1: faster than life)
  std::optional<std::uint64_t> seed;  // overrides the model's noise.seed
  // Run the threads that time requests under SCHED_FIFO (priority kRealtimePriority): a thread
  // woken at a request's simulated completion then runs at once, whatever else the host is doing.
  // On a loaded 2-core host answers came 0.1-1 ms late on average at normal priority and 20-40 us
  // under SCHED_FIFO (docs/serve.md). Needs root or CAP_SYS_NICE; without, serving goes on at
  // normal priority and stats() says why.
  bool realtime = false;
  // The longest a queued command may be passed over, for a model that sets no bound of its own
  // (queue.max_wait_ms; every /1 model and preset): see sim::SimOptions::max_wait_ms_if_unset.
  // Through QEMU the pieces of a stream's reads arrive out of order now and then, and plain SPTF
  // then left one waiting 2.7-12.6 s while the stream went on. 0: no bound (plain SPTF).
  double max_wait_ms = kDefaultMaxWaitMs;
};

inline constexpr int kRealtimePriority = 2;  // above a client run at priority 1 (tests/vm)

// What serving added on top of the drive: how late (in real time) each request was answered
// after its simulated completion time (thread wake-up, lock, data copy).
struct ServeStats {
  std::uint64_t requests = 0;
  double mean_late_us = 0;
  double max_late_us = 0;
  int realtime_errno = 0;  // why SCHED_FIFO was refused (0: granted, or not asked for)
};

// One request as the drive served it, for the request log (plugin option log=PATH): when it
// arrived and when it was answered in real time (CLOCK_MONOTONIC, ns), and when the simulated
// drive took it and completed it (the drive's clock, ns from the start of serving). Comparing a
// client's own completion stamps with these tells what the host added, request by request.
struct ServedRequest {
  std::int64_t arrived_real_ns = 0, answered_real_ns = 0;
  std::int64_t submit_drive_ns = 0, complete_drive_ns = 0;
  std::uint64_t offset = 0;
  std::uint32_t length = 0;
  bool write = false;
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
  // Keep a record of every request from now on (at most `max` of them; the rest are counted
  // only), for the request log. Off by default: serving keeps no history.
  void keep_log(std::size_t max);
  std::vector<ServedRequest> log() const;

 private:
  RealTimeDrive(sim::SimTarget t, SparseStore s, const ServeOptions& o);
  using Clock = std::chrono::steady_clock;  // CLOCK_MONOTONIC
  std::int64_t virtual_now() const;
  Clock::time_point real_time_of(std::int64_t virtual_ns) const;
  // Time one request on the drive (the sectors it touches) and wait until it is done; `move_data`
  // runs meanwhile, once the request is in the drive, so that copying the data (page faults in
  // the server's fresh buffers included) overlaps the drive's time instead of adding to it.
  int timed(std::uint64_t offset, std::uint64_t length, bool write, const std::function<int()>& move_data);
  // With mu_ held: bring the drive up to now and collect what it has completed.
  void catch_up();
  void account(Clock::time_point due, const ServedRequest& r);
  // Once per thread when realtime: the calling thread to SCHED_FIFO.
  void raise_priority();

  sim::SimTarget target_;
  SparseStore store_;
  double speed_;
  bool realtime_;
  std::atomic<int> realtime_errno_{0};
  Clock::time_point t0_;
  std::int64_t v0_;

  mutable std::mutex mu_;
  std::condition_variable cv_;  // a completion was collected, or a host slot came free
  std::uint64_t next_tag_ = 1;
  std::unordered_map<std::uint64_t, IoCompletion> done_;  // collected, not yet taken by their thread
  std::uint64_t requests_ = 0;
  double late_sum_us_ = 0, late_max_us_ = 0;
  std::size_t log_max_ = 0;
  std::vector<ServedRequest> log_;
};

}  // namespace ds::serve
