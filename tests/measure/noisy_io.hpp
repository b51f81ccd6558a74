// A host in front of a drive: wraps an IoEngine and adds, to every completion, what a real host
// and drive add on top of the mechanics — a lognormal host latency, rare host stalls of a few
// milliseconds and drive recalibration pauses of ~100 ms every couple of minutes. The wrapped
// engine's clock is advanced by the same time (the next command goes out that much later), so
// the platter turns on as it would. Used by the measurement tests to check that no slow region,
// overhead or seek figure is made of this noise.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "drivescope/io.hpp"

namespace ds::measure::testing {

struct HostNoise {
  double host_median_ms = 0.03;   // lognormal host latency per completion
  double host_sigma = 0.6;
  double stall_prob = 0.003;      // per completion: a stall of stall_min..max ms
  double stall_min_ms = 2, stall_max_ms = 8;
  double recal_every_s = 90;      // a recalibration pause of recal_min..max ms this often
  double recal_min_ms = 50, recal_max_ms = 150;
  std::uint64_t seed = 1;
};

class NoisyIo final : public ForwardingIo {
 public:
  NoisyIo(ds::IoEngine& inner, HostNoise n) : ForwardingIo(inner), n_(n), s_(n.seed * 0x9E3779B97F4A7C15ull + 1) {
    next_recal_ns_ = inner_.now_ns() + static_cast<std::int64_t>(uniform() * n_.recal_every_s * 1e9);
  }
  ds::Expected<std::size_t> reap(std::span<ds::IoCompletion> out, std::size_t min_events,
                                 std::chrono::milliseconds timeout) override {
    auto r = inner_.reap(out, min_events, timeout);
    if (!r) return r;
    for (std::size_t i = 0; i < *r; ++i) {
      double ms = n_.host_median_ms * std::exp(n_.host_sigma * normal());
      if (uniform() < n_.stall_prob) ms += n_.stall_min_ms + uniform() * (n_.stall_max_ms - n_.stall_min_ms);
      if (out[i].complete_ns >= next_recal_ns_) {
        ms += n_.recal_min_ms + uniform() * (n_.recal_max_ms - n_.recal_min_ms);
        next_recal_ns_ = out[i].complete_ns + static_cast<std::int64_t>((0.5 + uniform()) * n_.recal_every_s * 1e9);
      }
      const auto d = static_cast<std::int64_t>(ms * 1e6);
      inner_.idle(std::chrono::nanoseconds(d));
      out[i].complete_ns += d;
    }
    return r;
  }

 private:
  double uniform() {
    s_ += 0x9E3779B97F4A7C15ull;
    std::uint64_t z = s_;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (static_cast<double>(z >> 11) + 0.5) / 9007199254740992.0;
  }
  double normal() { return std::sqrt(-2 * std::log(uniform())) * std::cos(6.283185307179586 * uniform()); }
  HostNoise n_;
  std::uint64_t s_;
  std::int64_t next_recal_ns_ = 0;
};

}  // namespace ds::measure::testing
