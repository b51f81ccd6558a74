// Zoned layout: LBA → (cylinder, head, sector), and where each sector sits in angle and time.
//
// LBAs fill a track, then the next surface of the same cylinder, then the next cylinder, zone by
// zone from the outside in (DiskSim's "diskmodel" layout, kept apart from the mechanics as there).
// Each track starts `track_skew` sectors later than the previous one on the same cylinder and
// `cylinder_skew` later across a cylinder boundary, so that a streaming read loses only the skew.
//
// The key quantity is the *stream time* S(lba) in ns: when a read streaming from LBA 0 without a
// break would reach the start of that sector. Because a streaming head follows the platter, the
// sector's angle is S(lba) mod rotation: sector `lba` is under the head at every virtual time t
// with t ≡ S(lba) (mod rotation_ns). When a switch takes longer than its skew, the stream loses
// whole revolutions there; these are added to S without changing any angle.
#pragma once
#include <cstdint>
#include <vector>

#include "drivescope/expected.hpp"
#include "sim/model.hpp"

namespace ds::sim {

struct Chs {
  std::uint32_t cyl = 0;   // 0 = outermost
  std::uint32_t head = 0;
  std::uint32_t sector = 0;
  std::uint32_t zone = 0;
};

struct ZoneGeometry {
  std::uint64_t first_lba = 0;
  std::uint64_t end_lba = 0;  // exclusive, cut to the capacity
  std::uint32_t first_cyl = 0;
  std::uint32_t cylinders = 0;
  std::uint32_t spt = 0;
  std::uint32_t track_skew = 0;     // as formatted (given or derived)
  std::uint32_t cylinder_skew = 0;
  // Stream units (sector times of this zone) from one track start / cylinder start to the next,
  // including any whole revolutions lost to a switch slower than its skew.
  std::uint64_t track_units = 0;
  std::uint64_t cylinder_units = 0;
  std::int64_t s0_ns = 0;  // S(first_lba)
};

class Layout {
 public:
  // seek1_worst_ns: the slowest 1-cylinder seek the drive may do (quietest AAM level, jitter),
  // used to derive skews the model leaves open ("just enough to cover the switch").
  static Expected<Layout> build(const DiskModel& m, std::int64_t head_switch_ns,
                                std::int64_t seek1_worst_ns);
  // Recompute the stream timing for the current switch times (AAM changes the seek).
  void set_switch_times(std::int64_t head_switch_ns, std::int64_t cylinder_switch_ns);

  std::uint64_t capacity() const { return capacity_; }
  std::uint32_t surfaces() const { return heads_; }
  std::uint32_t cylinders() const { return cylinders_; }
  std::int64_t rotation_ns() const { return rot_ns_; }
  const std::vector<ZoneGeometry>& zones() const { return zones_; }

  std::uint32_t zone_of(std::uint64_t lba) const;
  Chs locate(std::uint64_t lba) const;
  // S(lba) (see above); lba may equal capacity (the end of the last sector).
  std::int64_t stream_ns(std::uint64_t lba) const;
  // The LBA a streaming head is over (or about to read) at stream time s.
  std::uint64_t lba_at_stream_ns(std::int64_t s) const;
  // Media time of one sector in zone z.
  double sector_ns(std::uint32_t z) const { return static_cast<double>(rot_ns_) / zones_[z].spt; }

 private:
  std::int64_t units_to_ns(std::uint64_t units, std::uint32_t spt) const {
    return static_cast<std::int64_t>((static_cast<unsigned __int128>(units) * rot_ns_) / spt);
  }
  std::vector<ZoneGeometry> zones_;
  std::uint64_t capacity_ = 0;
  std::uint32_t heads_ = 1;
  std::uint32_t cylinders_ = 0;
  std::int64_t rot_ns_ = 0;
};

}  // namespace ds::sim
