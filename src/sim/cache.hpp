// The drive's segmented read cache: a few contiguous LBA ranges, replaced least recently used
// (the usual ATA/SCSI drive design of the 2000s; DiskSim's "segmented cache"). The segment the
// read-ahead is filling is managed by the mechanics, which move its end as the head reads on.
//
// Every change of a segment's range goes through set_range() and is kept in a short journal, so
// that the SPTF scorer can keep, per queued command, how many segments hold it and bring that
// count up to date from the few changes since it last looked (sim/sptf.hpp) instead of testing
// every queued command against every segment at every dispatch.
//
// Lookups cost a few steps, not one per segment (a drive of the 2010s has 64 segments, and every
// command looks up at least twice): the segments are also kept sorted by their first LBA, and a
// segment holding an LBA starts at most the longest range any segment has had before it; the
// recency order is a list, so that the least recently used one is its head.
#pragma once
#include <array>
#include <cstdint>
#include <utility>
#include <vector>

namespace ds::sim {

struct Segment {
  std::uint64_t first = 0;
  std::uint64_t end = 0;  // exclusive; first == end: empty
  bool holds(std::uint64_t lba, std::uint64_t n) const { return first <= lba && lba + n <= end; }
};

class SegmentCache {
 public:
  void configure(std::uint64_t bytes, std::uint32_t segments, std::uint32_t sector_bytes);
  bool enabled() const { return seg_sectors_ > 0; }
  std::uint64_t segment_sectors() const { return seg_sectors_; }
  std::size_t size() const { return segs_.size(); }
  const Segment& operator[](std::size_t i) const { return segs_[i]; }

  void set_range(int i, std::uint64_t first, std::uint64_t end);
  // The lowest-numbered segment other than `skip` holding all of [lba, lba + n), or -1.
  int find(std::uint64_t lba, std::uint64_t n, int skip) const;
  // How many segments hold all of [lba, lba + n).
  std::uint32_t holders(std::uint64_t lba, std::uint64_t n) const;

  // The journal: changes() counts every change of a range so far; change(c) is change number c,
  // kept while c is one of the last kJournal (replayable(c): every change from c on is kept).
  struct Change {
    std::uint64_t old_first = 0, old_end = 0, new_first = 0, new_end = 0;
  };
  std::uint64_t changes() const { return changes_; }
  bool replayable(std::uint64_t c) const { return c <= changes_ && changes_ - c <= kJournal; }
  const Change& change(std::uint64_t c) const { return journal_[c % kJournal]; }

  // Segment i was used now.
  void touch(int i);
  // The least recently used segment other than `skip` (among never used ones, the lowest
  // numbered), or -1.
  int victim(int skip) const;
  // Drop cached copies of [lba, lba + n) (a write went past them).
  void invalidate(std::uint64_t lba, std::uint64_t n, int skip);

 private:
  // Enough for the changes of a few dispatches (a miss changes two or three segments).
  static constexpr std::uint64_t kJournal = 32;
  // The index range of by_first_ whose segments could hold [lba, lba + n).
  std::pair<std::size_t, std::size_t> candidates(std::uint64_t lba, std::uint64_t n) const;

  std::vector<Segment> segs_;
  std::uint64_t seg_sectors_ = 0;
  std::vector<std::pair<std::uint64_t, std::uint32_t>> by_first_;  // (first, segment), sorted
  std::uint64_t longest_ = 0;  // no segment's range has been longer
  // Recency: a list of the segments, least recently used first.
  std::vector<int> prev_, next_;
  int lru_ = -1, mru_ = -1;
  std::array<Change, kJournal> journal_{};
  std::uint64_t changes_ = kJournal + 1;  // (so that a count kept from change 0 on starts stale)
};

}  // namespace ds::sim
