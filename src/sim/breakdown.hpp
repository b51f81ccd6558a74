// Where a command's service time went (DiskSim's access-time breakdown): each command served by
// the simulated drive comes back with its time from submission to the host seeing its completion
// split into parts that sum to it exactly (integer ns). The parts follow the command's critical
// path: each interval of it is charged to what the command waited for then.
#pragma once
#include <array>
#include <cstdint>
#include <utility>

namespace ds::sim {

struct ServiceBreakdown {
  std::int64_t overhead = 0;   // the controller decoding the command, and its completion overhead
  std::int64_t queue = 0;      // waiting: on the host side, in the drive's queue, for the mechanism
                               // (a command or destage before it), for room in the write buffer
  std::int64_t seek = 0;       // the move to the first sector's track: seek or head switch (jitter in)
  std::int64_t settle = 0;     // a write's settle after the move
  std::int64_t rotation = 0;   // waiting for the first sector to come round
  std::int64_t media = 0;      // the head passing over the sectors (track and cylinder skews in)
  std::int64_t lost_revs = 0;  // whole revolutions lost: slowed switches (AAM), a 512e read-modify-write
  std::int64_t bus = 0;        // data crossing to or from the host beyond the media work (a hit's
                               // whole transfer; a miss's last blocks, reconnection, write pacing)
  std::int64_t other = 0;      // recalibration, slow regions and remapped sectors, host latency
  std::int64_t total() const {
    return overhead + queue + seek + settle + rotation + media + lost_revs + bus + other;
  }
};

// The parts by name, in the order reports give them (replay --json's "breakdown").
inline constexpr std::array<std::pair<const char*, std::int64_t ServiceBreakdown::*>, 9> kServiceParts{{
    {"overhead", &ServiceBreakdown::overhead},
    {"queue", &ServiceBreakdown::queue},
    {"seek", &ServiceBreakdown::seek},
    {"settle", &ServiceBreakdown::settle},
    {"rotation", &ServiceBreakdown::rotation},
    {"media", &ServiceBreakdown::media},
    {"lost_revs", &ServiceBreakdown::lost_revs},
    {"bus", &ServiceBreakdown::bus},
    {"other", &ServiceBreakdown::other},
}};

// The breakdown of one command as its time runs: a cursor along its critical path from a start
// time; to(part, t) charges part with the time from the cursor to t (nothing when t is not later)
// and moves the cursor there. When the last call is to(…, completion), the parts sum to
// completion − start. Off (the default: nobody reads the breakdown), it keeps nothing.
class ServiceClock {
 public:
  void set_on(bool on) { on_ = on; }
  bool on() const { return on_; }
  void start(std::int64_t t) {
    parts_ = {};
    at_ = t;
  }
  void to(std::int64_t ServiceBreakdown::*part, std::int64_t t) {
    if (!on_ || t <= at_) return;
    parts_.*part += t - at_;
    at_ = t;
  }
  void add(std::int64_t ServiceBreakdown::*part, std::int64_t d) { to(part, at_ + d); }
  std::int64_t at() const { return at_; }
  const ServiceBreakdown& parts() const { return parts_; }

 private:
  ServiceBreakdown parts_;
  std::int64_t at_ = 0;
  bool on_ = false;
};

}  // namespace ds::sim
