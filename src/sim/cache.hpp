// The drive's segmented read cache: a few contiguous LBA ranges, replaced least recently used
// (the usual ATA/SCSI drive design of the 2000s; DiskSim's "segmented cache"). The segment the
// read-ahead is filling is managed by the mechanics, which move its end as the head reads on.
//
// Every change of a segment's range goes through set_range() and is kept in a short journal, so
// that the SPTF scorer can keep, per queued command, how many segments hold it and bring that
// count up to date from the few changes since it last looked (sim/sptf.hpp) instead of testing
// every queued command against every segment at every dispatch.
#pragma once
#include <array>
#include <cstdint>
#include <vector>

namespace ds::sim {

struct Segment {
  std::uint64_t first = 0;
  std::uint64_t end = 0;  // exclusive; first == end: empty
  std::uint64_t last_use = 0;
  bool holds(std::uint64_t lba, std::uint64_t n) const { return first <= lba && lba + n <= end; }
};

class SegmentCache {
 public:
  void configure(std::uint64_t bytes, std::uint32_t segments, std::uint32_t sector_bytes) {
    const std::uint64_t per = segments ? bytes / segments / sector_bytes : 0;
    seg_sectors_ = per;
    segs_.assign(per ? segments : 0, Segment{});
    // Counts kept before are stale: move the journal on past what it can replay.
    changes_ += kJournal + 1;
  }
  bool enabled() const { return seg_sectors_ > 0; }
  std::uint64_t segment_sectors() const { return seg_sectors_; }
  std::size_t size() const { return segs_.size(); }
  const Segment& operator[](std::size_t i) const { return segs_[i]; }

  void set_range(int i, std::uint64_t first, std::uint64_t end) {
    Segment& s = segs_[static_cast<std::size_t>(i)];
    if (s.first == first && s.end == end) return;
    journal_[changes_ % kJournal] = {s.first, s.end, first, end};
    ++changes_;
    s.first = first;
    s.end = end;
  }

  // A segment other than `skip` holding all of [lba, lba + n), or -1.
  int find(std::uint64_t lba, std::uint64_t n, int skip) const {
    for (std::size_t i = 0; i < segs_.size(); ++i)
      if (static_cast<int>(i) != skip && segs_[i].holds(lba, n)) return static_cast<int>(i);
    return -1;
  }
  // How many segments hold all of [lba, lba + n).
  std::uint32_t holders(std::uint64_t lba, std::uint64_t n) const {
    std::uint32_t k = 0;
    for (const Segment& s : segs_) k += s.holds(lba, n) ? 1 : 0;
    return k;
  }

  // The journal: changes() counts every change of a range so far; change(c) is change number c,
  // kept while c is one of the last kJournal (replayable(c): every change from c on is kept).
  struct Change {
    std::uint64_t old_first = 0, old_end = 0, new_first = 0, new_end = 0;
  };
  std::uint64_t changes() const { return changes_; }
  bool replayable(std::uint64_t c) const { return c <= changes_ && changes_ - c <= kJournal; }
  const Change& change(std::uint64_t c) const { return journal_[c % kJournal]; }

  void touch(int i) { segs_[static_cast<std::size_t>(i)].last_use = ++tick_; }
  // The least recently used segment other than `skip`.
  int victim(int skip) const {
    int best = -1;
    for (std::size_t i = 0; i < segs_.size(); ++i)
      if (static_cast<int>(i) != skip && (best < 0 || segs_[i].last_use < segs_[static_cast<std::size_t>(best)].last_use))
        best = static_cast<int>(i);
    return best;
  }
  // Drop cached copies of [lba, lba + n) (a write went past them).
  void invalidate(std::uint64_t lba, std::uint64_t n, int skip) {
    for (std::size_t i = 0; i < segs_.size(); ++i)
      if (static_cast<int>(i) != skip && segs_[i].first < lba + n && lba < segs_[i].end)
        set_range(static_cast<int>(i), 0, 0);
  }

 private:
  // Enough for the changes of a few dispatches (a miss changes two or three segments).
  static constexpr std::uint64_t kJournal = 32;
  std::vector<Segment> segs_;
  std::uint64_t seg_sectors_ = 0;
  std::uint64_t tick_ = 0;
  std::array<Change, kJournal> journal_{};
  std::uint64_t changes_ = kJournal + 1;  // (so that a count kept from change 0 on starts stale)
};

}  // namespace ds::sim
