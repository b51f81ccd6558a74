// The media stream into the buffer (DiskSim's cache/prefetch side of the disk): the read-ahead
// that goes on reading after a read missed, into one segment of the segmented cache, until
// read_ahead_sectors past the request or where controller.prefetch's rules stop it (a track, a
// cylinder, the segment, only once reads continue one another), or until another command needs
// the mechanism. It answers where the streaming head is at a virtual time, what the segment being
// filled holds then (it keeps only the last segment_sectors()), and when the head reaches an LBA.
// It owns the stream's timeline; the positioner (times over LBAs) and the cache (the segment's
// range once the stream stops) are the drive's, bound once (ReadAhead::bind).
#pragma once
#include <cstdint>

#include "sim/cache.hpp"
#include "sim/model.hpp"
#include "sim/positioner.hpp"

namespace ds::sim {

class ReadAhead {
 public:
  // The drive's positioner and cache (owned beside this one, at fixed addresses) and its model.
  void bind(const Positioner* pos, SegmentCache* cache, const DiskModel* model) {
    pos_ = pos;
    cache_ = cache;
    model_ = model;
  }
  bool look_ahead() const { return look_ahead_; }
  void set_look_ahead(bool on) { look_ahead_ = on; }

  bool active() const { return s_.active; }
  int seg() const { return s_.seg; }                  // the segment being filled
  std::uint64_t limit() const { return s_.limit; }    // where the read-ahead stops
  std::int64_t t_limit() const { return s_.t_limit; }  // ... and when it gets there
  // The segment being filled, or -1 without a stream (a hit must be in another segment).
  int skip() const { return s_.active ? s_.seg : -1; }

  std::int64_t reach_ns(std::uint64_t lba) const;  // when the streaming head reaches lba
  std::int64_t reach_end(std::uint64_t end) const;  // when it has read the sector before end
  std::uint64_t pos(std::int64_t t) const;  // first LBA not yet read at t
  // First LBA the streaming segment still holds at t: it keeps only the last segment_sectors().
  std::uint64_t window_first(std::int64_t t) const;
  // A bound window_first(t) never goes below (the head is never before the stream's start): a
  // cheap test that spares computing the head's position for a request far from the stream.
  std::uint64_t window_floor() const;
  // Where the head is at t: on the stream, or `rest` when there is none.
  HeadPos head_at(std::int64_t t, HeadPos rest) const;
  // head_at's memo of the last track, which a media access fills for the track it ends on.
  TrackMemo* track_memo() const { return &track_memo_; }

  // The read-ahead of read [first, end) into segment seg, reading from `from` on at t0.
  void start(int seg, std::uint64_t first, std::uint64_t from, std::int64_t s_from, std::uint64_t end, std::int64_t t0);
  // The head stops `extra` ns at the first sector not yet read at t (a slow region's retries).
  void pause(std::int64_t t, std::int64_t extra);
  // A read [first, end) served from the stream: the read-ahead goes on past it (unless it was an
  // idle hit and prefetch does not go on after one), and the segment holds at least it.
  void served(std::uint64_t first, std::uint64_t end, bool idle_hit);
  // End the stream at t: the segment keeps what the head has read; returns where the head is.
  HeadPos stop(std::int64_t t);
  // A read [lba, end) reached the drive (controller.prefetch.after_sequential_reads counts the
  // reads in a row that continue one another); a write ends the run.
  void note_read(std::uint64_t lba, std::uint64_t end) {
    run_ = lba == last_read_end_ ? run_ + 1 : 0;
    last_read_end_ = end;
  }
  void note_write() { run_ = 0; }
  // The positions were worked out for other switch times (AAM): forget the memo.
  void forget_positions() { memo_.valid = false; }

 private:
  std::uint64_t pos_at(std::int64_t t) const;  // pos(t), computed
  // Where the read-ahead after read [first, end) stops: read_ahead_sectors on, or where
  // controller.prefetch's rule says (the segment holding from seg_first on).
  std::uint64_t ahead_limit(std::uint64_t first, std::uint64_t end, std::uint64_t seg_first) const;

  const Positioner* pos_ = nullptr;
  SegmentCache* cache_ = nullptr;
  const DiskModel* model_ = nullptr;
  bool look_ahead_ = true;
  // Reads in a row that each began where the read before ended (a write ends the run), and
  // where the last read ended (controller.prefetch.after_sequential_reads).
  std::uint32_t run_ = 0;
  std::uint64_t last_read_end_ = ~std::uint64_t{0};

  struct Stream {
    bool active = false;
    int seg = -1;
    std::uint64_t lba0 = 0;
    std::int64_t s0 = 0;  // stream_ns(lba0)
    std::int64_t l0 = 0;  // lost_revs(lba0)
    std::int64_t t0 = 0;  // when the head is at the start of lba0
    std::uint64_t limit = 0;
    std::int64_t t_limit = 0;
    // End of the requests served from this stream: they are complete whenever the stream is
    // stopped (nothing else gets the mechanism earlier), so the segment holds at least them even
    // where pos() rounds a nanosecond short.
    std::uint64_t served_end = 0;
  } s_;

  // pos's last answer and what it depends on (the stream's timeline and t).
  struct PosMemo {
    bool valid = false;
    std::int64_t t = 0;
    std::uint64_t lba0 = 0, limit = 0;
    std::int64_t t0 = 0, s0 = 0, l0 = 0, t_limit = 0;
    std::uint64_t pos = 0;
  };
  mutable PosMemo memo_;
  mutable TrackMemo track_memo_;  // head_at's last track
};

}  // namespace ds::sim
