// The block-I/O engine interface (fio's queue / commit / getevents shape): every measurement
// module issues its reads and writes through this and times them with the completion stamps the
// engine puts on each one: steady time on a real device, virtual time on the simulated drive.
#pragma once
#include <chrono>
#include <cstdint>
#include <span>
#include <string>

#include "drivescope/expected.hpp"

namespace ds {

struct IoRequest {
  std::uint64_t offset_bytes = 0;  // multiple of the logical block size
  std::uint32_t length_bytes = 0;  // multiple of the logical block size, > 0
  bool write = false;
  std::uint64_t tag = 0;           // returned unchanged in the completion
};

struct IoCompletion {
  std::uint64_t tag = 0;
  std::int64_t submit_ns = 0;    // engine clock when the request was handed to the device
  std::int64_t complete_ns = 0;  // engine clock when its completion was seen
  std::int32_t result = 0;       // bytes transferred, or -errno
  bool ok() const { return result >= 0; }
  std::int64_t latency_ns() const { return complete_ns - submit_ns; }
};

struct IoTargetInfo {
  std::string name;
  std::uint64_t capacity_bytes = 0;
  std::uint32_t logical_block_bytes = 512;
  std::uint32_t physical_block_bytes = 512;
  bool virtual_time = false;  // completion stamps are simulated time
  bool writable = false;      // opened for writing (the write guard already passed)
  unsigned max_queue_depth = 1;
  // The largest request the kernel hands the device as one command (a block device's
  // max_sectors_kb); a larger one reaches the drive as several commands, which it may serve in
  // any order. 0: no such limit known.
  std::uint32_t max_command_bytes = 0;
  // Where byte 0 of this view lies on the device: non-zero for a window (bench --offset), whose
  // tests count positions from its start. An error names the device's own LBA with it, the one
  // the kernel's log and the drive's sense data give.
  std::uint64_t origin_bytes = 0;
};

class IoEngine {
 public:
  virtual ~IoEngine() = default;
  virtual const IoTargetInfo& info() const = 0;
  // The clock completion stamps are in, nanoseconds from an arbitrary origin.
  virtual std::int64_t now_ns() = 0;
  // Hand requests to the device. Returns how many were accepted (fewer when the queue is full).
  virtual Expected<std::size_t> submit(std::span<const IoRequest> reqs) = 0;
  // Wait until at least min_events completions are available (or timeout), and move up to
  // out.size() of them into out. Returns how many were written.
  virtual Expected<std::size_t> reap(std::span<IoCompletion> out, std::size_t min_events,
                                     std::chrono::milliseconds timeout) = 0;
  // Let time pass with nothing new submitted (the simulator advances its virtual clock).
  virtual void idle(std::chrono::nanoseconds d) = 0;
  virtual std::size_t in_flight() const = 0;
};

// An engine that passes every call through to another: the base of the wrappers that watch or
// change one or two calls (a bench's failure watch and drive-time meter, --offset, Ctrl-C).
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

}  // namespace ds
