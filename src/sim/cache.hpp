// The drive's segmented read cache: a few contiguous LBA ranges, replaced least recently used
// (the usual ATA/SCSI drive design of the 2000s; DiskSim's "segmented cache"). The segment the
// read-ahead is filling is managed by the mechanics, which move its end as the head reads on.
//
// Every change of a segment's range goes through set_range() and is kept in a short journal, so
// that the SPTF scorer can keep, per queued command, how many segments hold it and bring that
// count up to date from the few changes since it last looked (covers()) instead of scanning
// every segment for every queued command at every dispatch.
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

// A queued command's view of the cache (SegmentCache::covers): how many segments held it when
// the journal stood at `seen`.
struct CacheView {
  std::uint64_t seen = ~std::uint64_t{0};  // nothing seen yet
  std::uint32_t holders = 0;
};

class SegmentCache {
 public:
  void configure(std::uint64_t bytes, std::uint32_t segments, std::uint32_t sector_bytes) {
    const std::uint64_t per = segments ? bytes / segments / sector_bytes : 0;
    seg_sectors_ = per;
    segs_.assign(per ? segments : 0, Segment{});
    // Views taken before are stale: move the journal on past what it can replay.
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
  // find(lba, n, skip) >= 0, from the view's count brought up to date by the journal (a full
  // scan only when the view is older than the journal reaches).
  bool covers(std::uint64_t lba, std::uint64_t n, int skip, CacheView& v) const {
    if (v.seen > changes_ || changes_ - v.seen > kJournal) {
      v.holders = 0;
      for (const Segment& s : segs_) v.holders += s.holds(lba, n) ? 1 : 0;
    } else {
      for (std::uint64_t c = v.seen; c < changes_; ++c) {
        const Change& ch = journal_[c % kJournal];
        v.holders -= (ch.old_first <= lba && lba + n <= ch.old_end) ? 1 : 0;
        v.holders += (ch.new_first <= lba && lba + n <= ch.new_end) ? 1 : 0;
      }
    }
    v.seen = changes_;
    const std::uint32_t in_skip = skip >= 0 && segs_[static_cast<std::size_t>(skip)].holds(lba, n) ? 1 : 0;
    return v.holders > in_skip;
  }

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
  struct Change {
    std::uint64_t old_first = 0, old_end = 0, new_first = 0, new_end = 0;
  };
  std::vector<Segment> segs_;
  std::uint64_t seg_sectors_ = 0;
  std::uint64_t tick_ = 0;
  std::array<Change, kJournal> journal_{};
  std::uint64_t changes_ = kJournal + 1;  // views start stale
};

}  // namespace ds::sim
