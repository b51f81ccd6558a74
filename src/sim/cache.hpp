// The drive's segmented read cache: a few contiguous LBA ranges, replaced least recently used
// (the usual ATA/SCSI drive design of the 2000s; DiskSim's "segmented cache"). The segment the
// read-ahead is filling is managed by the mechanics, which move its end as the head reads on.
#pragma once
#include <cstdint>
#include <vector>

namespace ds::sim {

struct Segment {
  std::uint64_t first = 0;
  std::uint64_t end = 0;  // exclusive; first == end: empty
  std::uint64_t last_use = 0;
};

class SegmentCache {
 public:
  void configure(std::uint64_t bytes, std::uint32_t segments, std::uint32_t sector_bytes) {
    const std::uint64_t per = segments ? bytes / segments / sector_bytes : 0;
    seg_sectors_ = per;
    segs_.assign(per ? segments : 0, Segment{});
  }
  bool enabled() const { return seg_sectors_ > 0; }
  std::uint64_t segment_sectors() const { return seg_sectors_; }
  std::size_t size() const { return segs_.size(); }
  Segment& operator[](std::size_t i) { return segs_[i]; }
  const Segment& operator[](std::size_t i) const { return segs_[i]; }

  // A segment other than `skip` holding all of [lba, lba + n), or -1.
  int find(std::uint64_t lba, std::uint64_t n, int skip) const {
    for (std::size_t i = 0; i < segs_.size(); ++i)
      if (static_cast<int>(i) != skip && segs_[i].first <= lba && lba + n <= segs_[i].end)
        return static_cast<int>(i);
    return -1;
  }
  void touch(int i) { segs_[i].last_use = ++tick_; }
  // The least recently used segment other than `skip`.
  int victim(int skip) const {
    int best = -1;
    for (std::size_t i = 0; i < segs_.size(); ++i)
      if (static_cast<int>(i) != skip && (best < 0 || segs_[i].last_use < segs_[best].last_use))
        best = static_cast<int>(i);
    return best;
  }
  // Drop cached copies of [lba, lba + n) (a write went past them).
  void invalidate(std::uint64_t lba, std::uint64_t n, int skip) {
    for (std::size_t i = 0; i < segs_.size(); ++i)
      if (static_cast<int>(i) != skip && segs_[i].first < lba + n && lba < segs_[i].end)
        segs_[i].first = segs_[i].end = 0;
  }

 private:
  std::vector<Segment> segs_;
  std::uint64_t seg_sectors_ = 0;
  std::uint64_t tick_ = 0;
};

}  // namespace ds::sim
