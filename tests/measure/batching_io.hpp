// A host that hands completions over in batches, as a QEMU guest did with a drive served over NBD
// (docs/serve.md): the reader sees nothing until a batch's worth of completions has come in, then
// all of them at once, stamped when the last one came. The batch sizes cycle through `groups`
// ({1, 2, 1, 3}: 3 of 7 spacings 0, as through QEMU, where 7-68 % were). The stamps' spacings are then 0, 0, …, and a
// group's worth: ties, as a real kernel gives when the reader is late, instead of the independent
// per-stamp noise of NoisyIo. The reader's next requests go out only after a batch, so the drive
// sees its queue refilled in steps, as it did through QEMU. A `Release` rule in place of the sizes
// says when instead (a hold that drifts: batching_host_sim.cpp).
#pragma once
#include <algorithm>
#include <cstdint>
#include <deque>
#include <functional>
#include <vector>

#include "drivescope/io.hpp"

namespace ds::measure::testing {

class BatchingIo final : public ds::IoEngine {
 public:
  // When what is held goes: `release` sees it (oldest first, never empty) and says whether now.
  using Release = std::function<bool(const std::vector<ds::IoCompletion>& held)>;
  BatchingIo(ds::IoEngine& inner, std::vector<std::size_t> groups) : in_(inner) {
    if (groups.empty()) groups = {1};
    release_now_ = [g = std::move(groups), next = std::size_t{0}](const std::vector<ds::IoCompletion>& held) mutable {
      if (held.size() < std::max<std::size_t>(1, g[next % g.size()])) return false;
      ++next;
      return true;
    };
  }
  BatchingIo(ds::IoEngine& inner, Release release) : in_(inner), release_now_(std::move(release)) {}
  const ds::IoTargetInfo& info() const override { return in_.info(); }
  std::int64_t now_ns() override { return in_.now_ns(); }
  ds::Expected<std::size_t> submit(std::span<const ds::IoRequest> reqs) override { return in_.submit(reqs); }
  ds::Expected<std::size_t> reap(std::span<ds::IoCompletion> out, std::size_t min_events,
                                 std::chrono::milliseconds timeout) override {
    for (;;) {
      if (!ready_.empty() || min_events == 0) {
        std::size_t n = 0;
        for (; n < out.size() && !ready_.empty(); ++n) {
          out[n] = ready_.front();
          ready_.pop_front();
        }
        return n;
      }
      // Everything still in flight is held here: nothing more will come, so it all goes.
      if (!held_.empty() && in_.in_flight() == 0) {
        release();
        continue;
      }
      std::vector<ds::IoCompletion> got(std::max<std::size_t>(out.size(), 1));
      auto r = in_.reap(got, 1, timeout);
      if (!r) return r;
      if (*r == 0) return std::size_t{0};
      held_.insert(held_.end(), got.begin(), got.begin() + static_cast<std::ptrdiff_t>(*r));
      if (release_now_(held_)) release();
    }
  }
  void idle(std::chrono::nanoseconds d) override { in_.idle(d); }
  // What the reader has not been handed yet is still in flight for it.
  std::size_t in_flight() const override { return in_.in_flight() + held_.size() + ready_.size(); }

 private:
  void release() {
    std::int64_t last = 0;
    for (const auto& c : held_) last = std::max(last, c.complete_ns);
    for (auto& c : held_) {
      c.complete_ns = last;
      ready_.push_back(c);
    }
    held_.clear();
  }
  ds::IoEngine& in_;
  Release release_now_;
  std::vector<ds::IoCompletion> held_;
  std::deque<ds::IoCompletion> ready_;
};

}  // namespace ds::measure::testing
