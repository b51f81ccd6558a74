// A small physical fake of a zoned disk for the measurement tests: rotation, zones, surfaces,
// track and cylinder skews, a square-root seek curve, a per-command overhead, a bus rate, one
// read-ahead cache segment, a FIFO queue and optional slow regions, in virtual time. It lets the
// plans and analyses be exercised before (and independently of) the project's simulator in
// src/sim; it is deliberately simpler than that simulator.
#pragma once
#include <algorithm>
#include <cmath>
#include <deque>
#include <vector>

#include "drivescope/io.hpp"

namespace fake {

struct Zone { std::uint32_t cyls, spt, tskew, cskew; };
struct Defect { std::uint64_t first, count; double extra_ms; };

struct Params {
  double rpm = 7200;
  unsigned heads = 4;
  std::vector<Zone> zones{{400, 200, 20, 30}, {400, 160, 16, 26}};
  double t2t_ms = 1.0, full_ms = 15.0, overhead_ms = 0.2, bus_mb_s = 100;
  std::uint32_t ra_sectors = 256;
  std::vector<Defect> defects;
  bool fail_at_lba = false;
  std::uint64_t fail_lba = 0;
};

class Drive final : public ds::IoEngine {
 public:
  explicit Drive(Params p) : p_(std::move(p)) {
    std::uint64_t lba = 0, cyl = 0;
    for (auto& z : p_.zones) {
      zstart_.push_back(lba);
      zcyl_.push_back(cyl);
      lba += static_cast<std::uint64_t>(z.cyls) * p_.heads * z.spt;
      cyl += z.cyls;
    }
    cyls_ = cyl;
    info_.name = "fake";
    info_.capacity_bytes = lba * 512;
    info_.virtual_time = true;
    info_.max_queue_depth = 32;
    rev_ns_ = 60e9 / p_.rpm;
  }
  const ds::IoTargetInfo& info() const override { return info_; }
  std::int64_t now_ns() override { return static_cast<std::int64_t>(now_); }
  ds::Expected<std::size_t> submit(std::span<const ds::IoRequest> r) override {
    for (auto& q : r) queue_.push_back({q, now_});
    return r.size();
  }
  ds::Expected<std::size_t> reap(std::span<ds::IoCompletion> out, std::size_t min_events,
                                 std::chrono::milliseconds) override {
    while (done_.size() < std::max<std::size_t>(min_events, 1) && !queue_.empty()) serve();
    std::size_t n = 0;
    while (n < out.size() && !done_.empty()) {
      out[n++] = done_.front();
      done_.pop_front();
    }
    if (n) now_ = std::max(now_, static_cast<double>(out[n - 1].complete_ns));
    return n;
  }
  void idle(std::chrono::nanoseconds d) override { now_ += static_cast<double>(d.count()); }
  std::size_t in_flight() const override { return queue_.size() + done_.size(); }
  std::uint64_t ios = 0;

 private:
  struct Pending { ds::IoRequest r; double t; };
  struct Loc { std::size_t z; std::uint64_t cyl; unsigned head; std::uint32_t sec; };
  Loc locate(std::uint64_t lba) const {
    std::size_t z = 0;
    while (z + 1 < zstart_.size() && lba >= zstart_[z + 1]) ++z;
    std::uint64_t off = lba - zstart_[z];
    const Zone& Z = p_.zones[z];
    std::uint64_t trk = off / Z.spt;
    return {z, zcyl_[z] + trk / p_.heads, static_cast<unsigned>(trk % p_.heads),
            static_cast<std::uint32_t>(off % Z.spt)};
  }
  double sector_ns(std::size_t z) const { return rev_ns_ / p_.zones[z].spt; }
  // Angle (in [0,1)) where a sector starts.
  double angle(const Loc& l) const {
    const Zone& Z = p_.zones[l.z];
    std::uint64_t c = l.cyl - zcyl_[l.z];
    std::uint64_t off = c * ((p_.heads - 1) * Z.tskew + Z.cskew) + l.head * Z.tskew + l.sec;
    return static_cast<double>(off % Z.spt) / Z.spt;
  }
  double wait_to(double t, double a) const {
    double ph = std::fmod(t, rev_ns_) / rev_ns_;
    double w = a - ph;
    if (w < -1e-9) w += 1;
    return std::max(0.0, w) * rev_ns_;
  }
  double seek_ns(std::uint64_t from, std::uint64_t to) const {
    std::uint64_t d = from > to ? from - to : to - from;
    if (!d) return 0;
    double x = std::sqrt(static_cast<double>(d - 1) / std::max<double>(1, cyls_ - 2));
    return (p_.t2t_ms + (p_.full_ms - p_.t2t_ms) * x) * 1e6;
  }
  // Media-read sectors [a, b) starting no earlier than t with the head on cylinder cur_cyl_.
  double media_read(std::uint64_t a, std::uint64_t b, double t, bool continuing = false) {
    Loc l = locate(a);
    t += seek_ns(cur_cyl_, l.cyl);
    if (!continuing && l.cyl == cur_cyl_ && l.head != cur_head_) t += 0.5e6;  // head switch
    t += wait_to(t, angle(l));
    std::uint64_t x = a;
    while (x < b) {
      l = locate(x);
      const Zone& Z = p_.zones[l.z];
      std::uint64_t n = std::min<std::uint64_t>(b - x, Z.spt - l.sec);
      t += n * sector_ns(l.z);
      x += n;
      cur_cyl_ = l.cyl;
      cur_head_ = l.head;
      if (x < b) {  // next track: the skew covers the switch
        Loc nl = locate(x);
        t += wait_to(t, angle(nl));
      }
    }
    return t;
  }
  double defect_extra(std::uint64_t a, std::uint64_t b) const {
    double e = 0;
    for (auto& d : p_.defects)
      if (a < d.first + d.count && b > d.first) e = std::max(e, d.extra_ms * 1e6);
    return e;
  }
  void serve() {
    Pending q = queue_.front();
    queue_.pop_front();
    ++ios;
    std::uint64_t a = q.r.offset_bytes / 512, b = a + q.r.length_bytes / 512;
    double t0 = std::max(q.t, free_);
    double bus = q.r.length_bytes / (p_.bus_mb_s * 1e6) * 1e9;
    double done;
    if (p_.fail_at_lba && a <= p_.fail_lba && p_.fail_lba < b) {
      free_ = t0 + 1e6;
      done_.push_back({q.r.tag, static_cast<std::int64_t>(q.t), static_cast<std::int64_t>(free_), -5});
      return;
    }
    double extra = defect_extra(a, b);
    if (a >= c_start_ && b <= c_end_) {  // hit in what is already cached
      done = t0 + p_.overhead_ms * 1e6 + bus;
    } else if (a >= c_start_ && a <= c_end_ && b <= c_end_ + p_.ra_sectors && ra_t_ > 0) {
      // Streaming: the read-ahead is reading these; continue the media read.
      double t_media = media_read(c_end_, b, std::max(ra_t_, 0.0), true);
      // If the drive stopped prefetching (limit) and restarted late, media_read waits a turn.
      done = std::max(t0 + p_.overhead_ms * 1e6 + bus, t_media + 512 / (p_.bus_mb_s * 1e6) * 1e9);
      c_end_ = b;
      ra_t_ = t_media;
    } else {
      double t_media = media_read(a, b, t0 + p_.overhead_ms * 1e6);
      done = t_media + 512 / (p_.bus_mb_s * 1e6) * 1e9;
      c_start_ = a;
      c_end_ = b;
      ra_t_ = t_media;
    }
    done += extra;
    free_ = done;
    done_.push_back({q.r.tag, static_cast<std::int64_t>(q.t), static_cast<std::int64_t>(done),
                     static_cast<std::int32_t>(q.r.length_bytes)});
  }
  Params p_;
  ds::IoTargetInfo info_;
  std::vector<std::uint64_t> zstart_, zcyl_;
  std::uint64_t cyls_ = 0, cur_cyl_ = 0;
  unsigned cur_head_ = 0;
  double rev_ns_ = 0, now_ = 0, free_ = 0, ra_t_ = -1;
  std::uint64_t c_start_ = 0, c_end_ = 0;
  std::deque<Pending> queue_;
  std::deque<ds::IoCompletion> done_;
};

}  // namespace fake
