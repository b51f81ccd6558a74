// What the drive's surface and servo add to the time of a command, apart from the mechanism's
// design: remapped LBAs (a read of one goes to its spare: extra time), slow regions (retries),
// and the periodic thermal recalibration that holds the mechanism now and then.
#pragma once
#include <cstdint>
#include <utility>
#include <vector>

#include "sim/model.hpp"

namespace ds::sim {

class SurfaceDefects {
 public:
  explicit SurfaceDefects(const DiskModel& m);
  // Extra time of the remapped LBAs in [first, end) (reads only).
  std::int64_t remap_extra(std::uint64_t first, std::uint64_t end) const;
  // Extra time of the slow regions [first, end) touches; nothing for an empty range.
  std::int64_t defect_extra(std::uint64_t first, std::uint64_t end) const;

 private:
  std::vector<std::pair<std::uint64_t, std::int64_t>> remapped_;  // (lba, extra ns), sorted
  std::vector<std::pair<std::uint64_t, std::uint64_t>> slow_;     // (first, end) of each slow region
  std::vector<std::int64_t> slow_ns_;                             // ... and its extra ns
};

// recalibration.every_s: a recalibration is due every that long (the first at a seeded offset);
// each runs when the mechanism is next free and holds it duration_ms.
class Recalibration {
 public:
  Recalibration(const DiskModel& m, std::uint64_t seed);
  // Run the recalibrations due by t, the mechanism free at *mech_free (moved on by each); stop(s)
  // is called with each one's start (the read-ahead is dropped for it). Returns when the drive
  // can serve a command that is ready at t.
  template <class Stop>
  std::int64_t run(std::int64_t t, std::int64_t* mech_free, Stop&& stop) {
    if (every_ns_ == 0) return t;
    // A recalibration due while the mechanism works waits for the command in progress.
    while (next_ <= t) {
      const std::int64_t start = std::max(next_, *mech_free);
      stop(start);
      start_ = start;
      end_ = *mech_free = start + ns_;
      next_ += every_ns_;
    }
    return t >= start_ && t < end_ ? end_ : t;
  }

 private:
  std::int64_t every_ns_ = 0, ns_ = 0;
  std::int64_t next_ = 0;              // when the next recalibration is due
  std::int64_t start_ = -1, end_ = -1;  // the last one run
};

}  // namespace ds::sim
