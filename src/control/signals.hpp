// SIGINT and SIGTERM as a flag the run loops poll, so that a measurement stops between requests
// and the RestoreStack (control/restore.hpp) puts every changed setting back on its normal path.
#pragma once
#include <atomic>
#include <functional>
#include <thread>

namespace ds::control {

// Blocks SIGINT and SIGTERM in the calling thread (call it before starting other threads) and
// watches them from a thread of its own with sigtimedwait, so no work happens in a signal
// handler. The first signal sets interrupted(); the run loops check it and unwind, and the
// RestoreStack's normal path restores. A second signal runs `forced(sig)` on the watcher thread
// (e.g. restore from the state file through a fresh device handle) and then _exit(exit_status)
// (the CLI's "interrupted" status, app/identify.hpp).
class SignalGuard {
 public:
  SignalGuard(std::function<void(int)> forced, int exit_status);
  ~SignalGuard();
  SignalGuard(const SignalGuard&) = delete;
  SignalGuard& operator=(const SignalGuard&) = delete;
  bool interrupted() const { return sig_.load() != 0; }
  int signal_number() const { return sig_.load(); }

 private:
  std::atomic<int> sig_{0};
  std::atomic<bool> stop_{false};
  std::function<void(int)> forced_;
  int exit_status_;
  std::thread watcher_;
  bool active_ = false;
  unsigned char old_mask_[128] = {};  // a sigset_t, kept opaque here
};

}  // namespace ds::control
