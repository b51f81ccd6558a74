// The real block-I/O engine: Linux native AIO (libaio) on an O_DIRECT file descriptor.
//
// Why libaio and not io_uring or threads: it is what fio's default async engine uses, so numbers
// compare one-to-one with fio, it needs no kernel newer than the target machines have, and
// io_submit/io_getevents give exactly the queue/commit/getevents shape of ds::IoEngine.
//
// Hot-path rules (so the engine itself does not show up in latency figures): one buffer slot per
// possible in-flight request, allocated once (a slot's buffer only grows when a larger request
// than ever before arrives); one io_submit per submit() call; one clock read per batch.
#pragma once
#include <libaio.h>

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "drivescope/io.hpp"

namespace ds::io {

struct AioOptions {
  bool writable = false;   // open O_RDWR; the caller has already passed the write guard
  bool exclusive = false;  // O_EXCL: on a block device, fail if mounted or held by anyone
  unsigned max_queue_depth = 256;  // 1..256
  // Regular files on a filesystem without O_DIRECT (or whose O_DIRECT alignment cannot be
  // found): use the page cache instead of refusing. Timings then measure memory, not a drive.
  bool allow_buffered = false;
  std::uint32_t max_io_bytes = 8u << 20;  // largest single request accepted by submit()
};

class AioEngine final : public IoEngine {
 public:
  // path: a block device or a regular file; a leading "file:" is accepted and requires a
  // regular file.
  static Expected<std::unique_ptr<AioEngine>> open(const std::string& path,
                                                   const AioOptions& options);
  ~AioEngine() override;
  AioEngine(const AioEngine&) = delete;
  AioEngine& operator=(const AioEngine&) = delete;

  const IoTargetInfo& info() const override { return info_; }
  std::int64_t now_ns() override;
  Expected<std::size_t> submit(std::span<const IoRequest> reqs) override;
  Expected<std::size_t> reap(std::span<IoCompletion> out, std::size_t min_events,
                             std::chrono::milliseconds timeout) override;
  void idle(std::chrono::nanoseconds d) override;
  std::size_t in_flight() const override { return in_flight_; }

  bool direct() const { return direct_; }         // false only when allow_buffered was used
  std::uint32_t buffer_alignment() const { return align_; }
  // The payload every write carries: a fixed pseudo-random byte sequence (not zeros, so a
  // compressing or deduplicating device cannot shortcut it), the same for every call.
  static void fill_write_pattern(std::span<std::byte> out);

 private:
  struct Slot {
    iocb cb{};
    std::byte* buf = nullptr;
    std::size_t buf_bytes = 0;
    std::uint64_t tag = 0;
    std::int64_t submit_ns = 0;
  };
  struct AlignedFree {
    void operator()(std::byte* p) const;
  };

  AioEngine() = default;
  Expected<std::byte*> slot_buffer(Slot& s, std::size_t bytes);
  Expected<const std::byte*> pattern(std::size_t bytes);
  Error reject(const IoRequest& r, const std::string& why) const;

  int fd_ = -1;
  io_context_t ctx_ = nullptr;
  bool direct_ = true;
  std::uint32_t align_ = 4096;
  std::uint32_t max_io_bytes_ = 0;
  IoTargetInfo info_;
  std::vector<Slot> slots_;
  std::vector<unsigned> free_;            // stack of free slot indices
  std::vector<iocb*> batch_;              // reused io_submit argument
  std::vector<io_event> events_;          // reused io_getevents buffer
  std::unique_ptr<std::byte, AlignedFree> pattern_;
  std::size_t pattern_bytes_ = 0;
  std::size_t in_flight_ = 0;
};

}  // namespace ds::io
