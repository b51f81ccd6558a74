#include "control/signals.hpp"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

namespace ds::control {

SignalGuard::SignalGuard(std::function<void(int)> forced, int exit_status)
    : forced_(std::move(forced)), exit_status_(exit_status) {
  static_assert(sizeof(sigset_t) <= sizeof(old_mask_));
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  if (pthread_sigmask(SIG_BLOCK, &set, reinterpret_cast<sigset_t*>(old_mask_)) != 0) return;
  active_ = true;
  watcher_ = std::thread([this, set] {
    const timespec tick{0, 100'000'000};
    while (!stop_.load()) {
      siginfo_t info;
      int s = sigtimedwait(&set, &info, &tick);
      if (s <= 0) continue;
      int expected = 0;
      if (sig_.compare_exchange_strong(expected, s)) continue;  // first: the loops unwind
      // Second signal: the user insists. This is an ordinary thread, so restoring here is safe.
      if (forced_) forced_(s);
      ::_exit(exit_status_);
    }
  });
}

SignalGuard::~SignalGuard() {
  if (!active_) return;
  stop_ = true;
  if (watcher_.joinable()) watcher_.join();
  // Swallow a signal that came after the watcher stopped, so unblocking does not kill us midway
  // through printing the results.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  const timespec zero{0, 0};
  siginfo_t info;
  while (int s = sigtimedwait(&set, &info, &zero)) {
    if (s < 0) break;
    int expected = 0;
    sig_.compare_exchange_strong(expected, s);
  }
  pthread_sigmask(SIG_SETMASK, reinterpret_cast<sigset_t*>(old_mask_), nullptr);
}

}  // namespace ds::control
