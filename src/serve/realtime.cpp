#include "serve/realtime.hpp"

#include <pthread.h>
#include <sched.h>
#include <sys/prctl.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>

#include "sim/drive.hpp"

namespace ds::serve {

namespace {
// Idle with a request waiting is the fault case (the drive stopped answering, sim/faults.hpp):
// look again now and then, as the host's timeout would.
constexpr auto kStuckPoll = std::chrono::milliseconds(50);
}  // namespace

Expected<std::unique_ptr<RealTimeDrive>> RealTimeDrive::open(std::string_view spec, const ServeOptions& o) {
  if (!(o.speed > 0) || !std::isfinite(o.speed) || o.speed > 1e6)
    return make_error("speed must be a number above 0 and at most 1e6 (drive seconds per real second)", EINVAL);
  if (!(o.max_wait_ms >= 0) || !std::isfinite(o.max_wait_ms))
    return make_error("max_wait_ms must be a number of milliseconds, 0 or more", EINVAL);
  sim::SimOptions so;
  so.seed = o.seed;
  so.writable = true;  // a read-only export is the server's business (nbdkit -r)
  if (o.max_wait_ms > 0) so.max_wait_ms_if_unset = o.max_wait_ms;
  auto t = sim::open(spec, so);
  if (!t) return t.error();
  auto store = SparseStore::create(t->io->info().capacity_bytes);
  if (!store) return store.error();
  return std::unique_ptr<RealTimeDrive>(new RealTimeDrive(std::move(*t), std::move(*store), o));
}

RealTimeDrive::RealTimeDrive(sim::SimTarget t, SparseStore s, const ServeOptions& o)
    : target_(std::move(t)),
      store_(std::move(s)),
      speed_(o.speed),
      realtime_(o.realtime),
      t0_(Clock::now()),
      v0_(target_.drive->now_ns()) {}

void RealTimeDrive::raise_priority() {
  static thread_local bool tried = false;
  if (tried || !realtime_) return;
  tried = true;
  sched_param sp{};
  sp.sched_priority = kRealtimePriority;
  const int e = ::pthread_setschedparam(::pthread_self(), SCHED_FIFO, &sp);
  if (e != 0) {
    int none = 0;
    realtime_errno_.compare_exchange_strong(none, e);
  }
}

std::int64_t RealTimeDrive::virtual_now() const {
  const auto real = std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0_).count();
  return v0_ + static_cast<std::int64_t>(static_cast<double>(real) * speed_);
}

RealTimeDrive::Clock::time_point RealTimeDrive::real_time_of(std::int64_t virtual_ns) const {
  // Rounded up, so that waking at that instant finds the drive's clock at the event.
  const double real = std::ceil(static_cast<double>(virtual_ns - v0_) / speed_);
  return t0_ + std::chrono::nanoseconds(static_cast<std::int64_t>(real));
}

void RealTimeDrive::catch_up() {
  sim::SimDrive& d = *target_.drive;
  // Even with no time passed this dispatches a command just queued to an idle drive.
  d.advance_to(std::max(virtual_now(), d.now_ns()));
  std::array<IoCompletion, 64> got{};
  bool any = false;
  for (;;) {
    // min_events 0, no timeout: only what is complete by now, the drive is not run further.
    auto n = target_.io->reap(got, 0, std::chrono::milliseconds(0));
    if (!n || *n == 0) break;
    for (std::size_t i = 0; i < *n; ++i) done_[got[i].tag] = got[i];
    any = true;
  }
  if (any) cv_.notify_all();
}

int RealTimeDrive::timed(std::uint64_t offset, std::uint64_t length, bool write,
                         const std::function<int()>& move_data) {
  // Sleeping threads wake when asked, not up to 50 us later (the default timer slack).
  static thread_local const bool slack_set = ::prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0) == 0;
  (void)slack_set;
  raise_priority();
  // The drive works in whole sectors: a request that starts or ends inside one is timed as the
  // sectors it touches.
  const std::uint64_t bs = logical_block_bytes();
  const std::uint64_t first = offset / bs * bs;
  const std::uint64_t end = std::min(size_bytes(), (offset + length + bs - 1) / bs * bs);
  if (length == 0 || end <= first) return move_data();
  const Clock::time_point arrived = Clock::now();
  std::unique_lock lk(mu_);
  catch_up();
  while (target_.io->in_flight() >= sim::SimDrive::kHostDepth) {  // 256 outstanding: wait for a slot
    cv_.wait_for(lk, kStuckPoll);
    catch_up();
  }
  IoRequest r;
  r.offset_bytes = first;
  r.length_bytes = static_cast<std::uint32_t>(end - first);
  r.write = write;
  r.tag = next_tag_++;
  const std::int64_t taken = target_.drive->now_ns();
  auto n = target_.io->submit({&r, 1});
  if (!n) return n.error().code ? n.error().code : EIO;
  if (*n == 0) return EAGAIN;  // cannot happen: a slot was free under the lock
  lk.unlock();
  const int data_err = move_data();
  lk.lock();
  for (;;) {
    catch_up();
    if (auto it = done_.find(r.tag); it != done_.end()) {
      const IoCompletion c = it->second;
      done_.erase(it);
      ServedRequest sr;
      sr.arrived_real_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(arrived.time_since_epoch()).count();
      sr.submit_drive_ns = taken - v0_;
      sr.complete_drive_ns = c.complete_ns - v0_;
      sr.offset = first;
      sr.length = r.length_bytes;
      sr.write = write;
      account(real_time_of(c.complete_ns), sr);
      return c.result < 0 ? -c.result : data_err;
    }
    const std::int64_t next = target_.drive->next_event_ns();
    if (next < 0) cv_.wait_for(lk, kStuckPoll);
    else cv_.wait_until(lk, real_time_of(next));
  }
}

void RealTimeDrive::account(Clock::time_point due, const ServedRequest& r) {
  const Clock::time_point now = Clock::now();
  const double late = std::max(0.0, std::chrono::duration<double, std::micro>(now - due).count());
  ++requests_;
  late_sum_us_ += late;
  late_max_us_ = std::max(late_max_us_, late);
  if (log_.size() < log_max_) {
    log_.push_back(r);
    log_.back().answered_real_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(now.time_since_epoch()).count();
  }
}

void RealTimeDrive::keep_log(std::size_t max) {
  std::lock_guard lk(mu_);
  log_max_ = max;
  log_.reserve(std::min<std::size_t>(max, 1 << 16));
}

std::vector<ServedRequest> RealTimeDrive::log() const {
  std::lock_guard lk(mu_);
  return log_;
}

int RealTimeDrive::read(std::span<std::byte> out, std::uint64_t offset) {
  if (offset > size_bytes() || out.size() > size_bytes() - offset) return EINVAL;
  return timed(offset, out.size(), false, [&] { return store_.read(out, offset); });
}

int RealTimeDrive::write(std::span<const std::byte> in, std::uint64_t offset) {
  if (offset > size_bytes() || in.size() > size_bytes() - offset) return EINVAL;
  // The data reaches the store while the drive works: a read overlapping a write in flight may
  // see either, as on a real drive.
  return timed(offset, in.size(), true, [&] { return store_.write(in, offset); });
}

int RealTimeDrive::flush() {
  raise_priority();
  std::unique_lock lk(mu_);
  catch_up();
  const Clock::time_point due = real_time_of(target_.drive->flush_cache());
  // Other requests go on meanwhile: they wait for the mechanism the flush holds.
  while (Clock::now() < due) cv_.wait_until(lk, due);
  return 0;
}

ServeStats RealTimeDrive::stats() const {
  std::lock_guard lk(mu_);
  ServeStats s;
  s.requests = requests_;
  s.mean_late_us = requests_ ? late_sum_us_ / static_cast<double>(requests_) : 0;
  s.max_late_us = late_max_us_;
  s.realtime_errno = realtime_errno_.load();
  return s;
}

}  // namespace ds::serve
