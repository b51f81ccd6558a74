#include "io/aio_engine.hpp"

#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <optional>

#include <fmt/core.h>

namespace ds::io {
namespace {

constexpr unsigned kMaxQueueDepth = 256;
constexpr std::string_view kFilePrefix = "file:";

std::int64_t monotonic_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

std::string errno_text(int e) { return std::strerror(e); }

std::byte* aligned_alloc_bytes(std::size_t align, std::size_t bytes) {
  void* p = nullptr;
  if (posix_memalign(&p, align, bytes) != 0) return nullptr;
  return static_cast<std::byte*>(p);
}

bool is_pow2(std::uint64_t v) { return v && !(v & (v - 1)); }

// Finds the smallest O_DIRECT transfer unit a regular file accepts by reading one unit at offset
// 0 (Linux rejects a misaligned O_DIRECT request with EINVAL before doing any I/O). Returns 0 when
// neither 512 nor 4096 works.
std::uint32_t probe_direct_unit(int fd) {
  std::byte* buf = aligned_alloc_bytes(4096, 4096);
  if (!buf) return 0;
  std::uint32_t unit = 0;
  for (std::uint32_t candidate : {512u, 4096u}) {
    ssize_t r;
    do {
      r = pread(fd, buf, candidate, 0);
    } while (r < 0 && errno == EINTR);
    if (r >= 0) {
      unit = candidate;
      break;
    }
    if (errno != EINVAL) break;
  }
  std::free(buf);
  return unit;
}

// Opens the target for direct I/O into fd. A regular file on a filesystem without O_DIRECT is
// opened buffered only when the caller allows it, since its timings would measure the page cache.
std::optional<Error> open_target(const std::string& path, int flags, bool is_reg, const AioOptions& opt,
                                 int& fd, bool& direct) {
  fd = ::open(path.c_str(), flags | O_DIRECT);
  if (fd < 0 && errno == EINVAL && is_reg) {
    // The filesystem has no O_DIRECT at all (e.g. tmpfs before Linux 6.6).
    if (!opt.allow_buffered)
      return make_error(fmt::format("{}: the filesystem does not support O_DIRECT, so timings "
                                    "would measure the page cache; allow buffered I/O "
                                    "explicitly to use it anyway",
                                    path),
                        EINVAL);
    direct = false;
    fd = ::open(path.c_str(), flags);
  }
  if (fd < 0) {
    const int err = errno;
    std::string why = errno_text(err);
    if (err == EBUSY && (flags & O_EXCL)) why = "device is busy (mounted or held), O_EXCL failed";
    return make_error(fmt::format("cannot open {} ({}): {}", path,
                                  opt.writable ? "read-write" : "read-only", why),
                      err);
  }
  return std::nullopt;
}

// A block device's sizes, as the kernel reports them.
std::optional<Error> block_device_size(int fd, const std::string& path, IoTargetInfo& info) {
  int lbs = 0;
  unsigned int pbs = 0;
  std::uint64_t bytes = 0;
  if (ioctl(fd, BLKSSZGET, &lbs) != 0 || ioctl(fd, BLKGETSIZE64, &bytes) != 0)
    return make_error(fmt::format("{}: cannot read the block size or capacity: {}", path,
                                  errno_text(errno)),
                      errno);
  if (ioctl(fd, BLKPBSZGET, &pbs) != 0) pbs = static_cast<unsigned>(lbs);
  if (lbs <= 0 || !is_pow2(static_cast<std::uint64_t>(lbs)))
    return make_error(fmt::format("{}: implausible logical block size {}", path, lbs), EIO);
  info.logical_block_bytes = static_cast<std::uint32_t>(lbs);
  info.physical_block_bytes = std::max<std::uint32_t>(pbs, info.logical_block_bytes);
  info.capacity_bytes = bytes;
  // BLKSECTGET: the queue's max_sectors (max_sectors_kb), in 512-byte units (block/ioctl.c).
  unsigned short max_sectors = 0;
  if (ioctl(fd, BLKSECTGET, &max_sectors) == 0 && max_sectors > 0)
    info.max_command_bytes = static_cast<std::uint32_t>(max_sectors) * 512u;
  return std::nullopt;
}

// A regular file's sizes: its block is the smallest O_DIRECT unit it accepts. When it accepts
// none, it is reopened buffered (fd and direct change) if the caller allows it.
std::optional<Error> file_size(const std::string& path, const struct stat& st, int flags,
                               const AioOptions& opt, int& fd, bool& direct, IoTargetInfo& info) {
  if (st.st_size < 512)
    return make_error(fmt::format("{} is too small to measure ({} bytes)", path, st.st_size),
                      EINVAL);
  std::uint32_t unit = 512;
  if (direct) {
    unit = probe_direct_unit(fd);
    if (unit == 0) {
      if (!opt.allow_buffered)
        return make_error(fmt::format("{}: O_DIRECT reads of 512 and 4096 bytes both fail; "
                                      "allow buffered I/O explicitly to use this file",
                                      path),
                          EINVAL);
      ::close(fd);
      direct = false;
      fd = ::open(path.c_str(), flags);
      if (fd < 0)
        return make_error(fmt::format("cannot open {}: {}", path, errno_text(errno)), errno);
      unit = 512;
    }
  }
  info.logical_block_bytes = unit;
  info.physical_block_bytes = unit;
  // Whole blocks only: a request never straddles end of file (it would come back short).
  info.capacity_bytes = static_cast<std::uint64_t>(st.st_size) / unit * unit;
  return std::nullopt;
}

}  // namespace

void AioEngine::AlignedFree::operator()(std::byte* p) const { std::free(p); }

void AioEngine::fill_write_pattern(std::span<std::byte> out) {
  // xorshift64 from a fixed seed: deterministic, incompressible enough for zram/dedup devices.
  std::uint64_t x = 0x9E3779B97F4A7C15ull;
  for (std::size_t i = 0; i < out.size(); i += 8) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    for (std::size_t j = 0; j < 8 && i + j < out.size(); ++j)
      out[i + j] = static_cast<std::byte>(x >> (8 * j));
  }
}

Expected<std::unique_ptr<AioEngine>> AioEngine::open(const std::string& target,
                                                     const AioOptions& opt) {
  std::string path = target;
  bool must_be_file = false;
  if (path.starts_with(kFilePrefix)) {
    path = path.substr(kFilePrefix.size());
    must_be_file = true;
  }
  if (path.empty()) return make_error("no target path given", EINVAL);
  if (opt.max_queue_depth < 1 || opt.max_queue_depth > kMaxQueueDepth)
    return make_error(fmt::format("queue depth {} is out of range (1..{})", opt.max_queue_depth,
                                  kMaxQueueDepth),
                      EINVAL);

  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    return make_error(fmt::format("cannot open {}: {}", path, errno_text(errno)), errno);
  const bool is_blk = S_ISBLK(st.st_mode);
  const bool is_reg = S_ISREG(st.st_mode);
  if (!is_blk && !is_reg)
    return make_error(fmt::format("{} is neither a block device nor a regular file", path),
                      ENOTBLK);
  if (must_be_file && !is_reg)
    return make_error(fmt::format("{} is not a regular file (file: targets must be)", path),
                      EINVAL);

  std::unique_ptr<AioEngine> e(new AioEngine());
  int flags = (opt.writable ? O_RDWR : O_RDONLY) | O_CLOEXEC;
  // O_EXCL without O_CREAT only means something for block devices (exclusive claim).
  if (opt.exclusive && is_blk) flags |= O_EXCL;

  if (auto err = open_target(path, flags, is_reg, opt, e->fd_, e->direct_)) return *err;

  IoTargetInfo& info = e->info_;
  info.name = target;
  info.writable = opt.writable;
  info.virtual_time = false;
  info.max_queue_depth = opt.max_queue_depth;
  if (auto err = is_blk ? block_device_size(e->fd_, path, info)
                        : file_size(path, st, flags, opt, e->fd_, e->direct_, info))
    return *err;
  if (info.capacity_bytes == 0) return make_error(fmt::format("{} has no capacity", path), EINVAL);

  e->align_ = std::max<std::uint32_t>(info.logical_block_bytes, 4096);
  e->max_io_bytes_ = std::max(opt.max_io_bytes / info.logical_block_bytes, 1u) *
                     info.logical_block_bytes;

  const int rc = io_setup(static_cast<int>(opt.max_queue_depth), &e->ctx_);
  if (rc < 0) {
    e->ctx_ = nullptr;
    std::string why = errno_text(-rc);
    if (rc == -EAGAIN) why += " (the system-wide limit /proc/sys/fs/aio-max-nr is exhausted)";
    return make_error(fmt::format("cannot create an AIO context of depth {}: {}",
                                  opt.max_queue_depth, why),
                      -rc);
  }

  e->slots_.resize(opt.max_queue_depth);
  e->free_.reserve(opt.max_queue_depth);
  for (unsigned i = opt.max_queue_depth; i-- > 0;) e->free_.push_back(i);
  for (auto& s : e->slots_) {
    s.buf = aligned_alloc_bytes(e->align_, e->align_);
    if (!s.buf) return make_error("out of memory for I/O buffers", ENOMEM);
    s.buf_bytes = e->align_;
  }
  e->batch_.resize(opt.max_queue_depth);
  e->events_.resize(opt.max_queue_depth);
  if (opt.writable) {
    // Sized for the largest request up front: writes in flight share it, so it must never move.
    e->pattern_.reset(aligned_alloc_bytes(e->align_, e->max_io_bytes_));
    if (!e->pattern_) return make_error("out of memory for the write pattern", ENOMEM);
    e->pattern_bytes_ = e->max_io_bytes_;
    fill_write_pattern({e->pattern_.get(), e->pattern_bytes_});
  }
  return e;
}

AioEngine::~AioEngine() {
  bool buffers_safe = in_flight_ == 0;
  if (ctx_) {
    // Let outstanding requests finish before their buffers go away (DMA would land in freed
    // memory otherwise); bounded so a dead device cannot hang the exit forever.
    const std::int64_t deadline = monotonic_ns() + 30'000'000'000;
    while (in_flight_ > 0 && monotonic_ns() < deadline) {
      timespec ts{1, 0};
      const int n = io_getevents(ctx_, 1, static_cast<long>(events_.size()), events_.data(), &ts);
      if (n > 0) in_flight_ -= std::min<std::size_t>(in_flight_, static_cast<std::size_t>(n));
      else if (n < 0 && n != -EINTR) break;
    }
    buffers_safe = in_flight_ == 0;
    io_destroy(ctx_);
  }
  if (fd_ >= 0) ::close(fd_);
  if (buffers_safe) {
    for (auto& s : slots_) std::free(s.buf);
  } else {
    (void)pattern_.release();  // deliberately leaked: the kernel may still write into them
  }
}

std::int64_t AioEngine::now_ns() { return monotonic_ns(); }

Expected<std::byte*> AioEngine::slot_buffer(Slot& s, std::size_t bytes) {
  if (bytes > s.buf_bytes) {
    // Grows only past the largest request this slot has seen; steady state never allocates.
    std::byte* nb = aligned_alloc_bytes(align_, bytes);
    if (!nb) return make_error("out of memory for an I/O buffer", ENOMEM);
    std::free(s.buf);
    s.buf = nb;
    s.buf_bytes = bytes;
  }
  return s.buf;
}

Error AioEngine::reject(const IoRequest& r, const std::string& why) const {
  return make_error(fmt::format("{} of {} bytes at offset {} on {} rejected: {}",
                                r.write ? "write" : "read", r.length_bytes, r.offset_bytes,
                                info_.name, why),
                    EINVAL);
}

Expected<std::size_t> AioEngine::submit(std::span<const IoRequest> reqs) {
  const std::size_t n = std::min(reqs.size(), free_.size());
  if (n == 0) return std::size_t{0};
  const std::uint64_t lb = info_.logical_block_bytes;
  const std::uint64_t lb_mask = lb - 1;  // a power of two (checked at open), so no division
  // Validate the whole batch first so that a bad request submits nothing.
  for (std::size_t i = 0; i < n; ++i) {
    const IoRequest& r = reqs[i];
    if (r.length_bytes == 0) return reject(r, "length is zero");
    if ((r.offset_bytes | r.length_bytes) & lb_mask)
      return reject(r, fmt::format("not a multiple of the {}-byte logical block", lb));
    if (r.length_bytes > max_io_bytes_)
      return reject(r, fmt::format("larger than the {}-byte request limit", max_io_bytes_));
    if (r.offset_bytes > info_.capacity_bytes ||
        r.length_bytes > info_.capacity_bytes - r.offset_bytes)
      return reject(r, fmt::format("beyond the end of the target ({} bytes)",
                                   info_.capacity_bytes));
    if (r.write && !info_.writable)
      return reject(r, "the target was opened read-only (writes need --write)");
  }
  const std::size_t top = free_.size();
  for (std::size_t i = 0; i < n; ++i) {
    const IoRequest& r = reqs[i];
    const unsigned idx = free_[top - 1 - i];
    Slot& s = slots_[idx];
    if (r.write) {
      io_prep_pwrite(&s.cb, fd_, pattern_.get(), r.length_bytes,
                     static_cast<long long>(r.offset_bytes));
    } else {
      auto buf = slot_buffer(s, r.length_bytes);
      if (!buf) return buf.error();
      io_prep_pread(&s.cb, fd_, *buf, r.length_bytes, static_cast<long long>(r.offset_bytes));
    }
    s.cb.data = reinterpret_cast<void*>(static_cast<std::uintptr_t>(idx));
    s.tag = r.tag;
    batch_[i] = &s.cb;
  }
  // One stamp per batch, taken immediately before the hand-over (fio stamps the same way).
  const std::int64_t t = monotonic_ns();
  int rc;
  do {
    rc = io_submit(ctx_, static_cast<long>(n), batch_.data());
  } while (rc == -EINTR);
  if (rc == -EAGAIN) return std::size_t{0};  // the kernel queue is momentarily full
  if (rc < 0)
    return make_error(fmt::format("io_submit on {} failed: {}", info_.name, errno_text(-rc)),
                      -rc);
  const std::size_t accepted = static_cast<std::size_t>(rc);
  for (std::size_t i = 0; i < accepted; ++i) slots_[free_[top - 1 - i]].submit_ns = t;
  free_.resize(top - accepted);  // the accepted slots were the top of the stack
  in_flight_ += accepted;
  return accepted;
}

Expected<std::size_t> AioEngine::reap(std::span<IoCompletion> out, std::size_t min_events,
                                      std::chrono::milliseconds timeout) {
  const std::size_t max_n = std::min({out.size(), in_flight_, events_.size()});
  if (max_n == 0) return std::size_t{0};
  const std::size_t want = std::min(min_events, max_n);
  const std::int64_t budget_ns = std::max<std::int64_t>(
      0, std::chrono::duration_cast<std::chrono::nanoseconds>(timeout).count());
  // No clock read before the wait (this is the hot path at QD1): the first wait gets the whole
  // budget; only after a signal interrupts it is a deadline set, from the stamp taken then, so
  // an interrupted wait lasts at most about twice the timeout.
  std::int64_t left = budget_ns;
  std::int64_t deadline = -1;
  std::size_t got = 0;
  std::int64_t stamp = 0;
  for (;;) {
    timespec ts{static_cast<time_t>(left / 1'000'000'000), static_cast<long>(left % 1'000'000'000)};
    const int rc = io_getevents(ctx_, static_cast<long>(want), static_cast<long>(max_n),
                                events_.data(), &ts);
    stamp = monotonic_ns();  // the completion stamp: right after the events were seen
    if (rc == -EINTR) {
      if (deadline < 0) deadline = stamp + budget_ns;
      left = deadline - stamp;
      if (left > 0) continue;
      break;
    }
    if (rc < 0)
      return make_error(fmt::format("io_getevents on {} failed: {}", info_.name, errno_text(-rc)),
                        -rc);
    got = static_cast<std::size_t>(rc);
    break;
  }
  if (got == 0 && want > 0)
    return make_error(fmt::format("{} did not complete any of {} outstanding I/O(s) within {} ms: "
                                  "the device stopped answering",
                                  info_.name, in_flight_, timeout.count()),
                      ETIMEDOUT);
  for (std::size_t i = 0; i < got; ++i) {
    const io_event& ev = events_[i];
    const unsigned idx = static_cast<unsigned>(reinterpret_cast<std::uintptr_t>(ev.data));
    Slot& s = slots_[idx];
    IoCompletion& c = out[i];
    c.tag = s.tag;
    c.submit_ns = s.submit_ns;
    c.complete_ns = stamp;
    // res carries bytes transferred or a negated errno (io_getevents(2)).
    c.result = static_cast<std::int32_t>(static_cast<long>(ev.res));
    free_.push_back(idx);
  }
  in_flight_ -= got;
  return got;
}

void AioEngine::idle(std::chrono::nanoseconds d) {
  if (d.count() <= 0) return;
  timespec ts{static_cast<time_t>(d.count() / 1'000'000'000),
              static_cast<long>(d.count() % 1'000'000'000)};
  while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR) {
  }
}

}  // namespace ds::io
