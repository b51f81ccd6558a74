// The head positioner (DiskSim's mechanism): where the head rests, what a move costs (seek, head
// switch, write settle, seek jitter, the AAM level's seek scale), the platter's angle at a virtual
// time (rotation never stops: the angle is t mod rotation), and how long a head reading without a
// break takes over a run of LBAs (skews and the revolutions an AAM rate scale loses included).
// The SPTF planner's view of a move (the jitter margin, the least move of a bucket of distances)
// is here too: it is the positioner's cost seen ahead of time. No cache, no controller.
#pragma once
#include <cstdint>
#include <vector>

#include "sim/layout.hpp"
#include "sim/model.hpp"
#include "sim/rng.hpp"
#include "sim/seek.hpp"

namespace ds::sim {

inline std::int64_t ms_to_ns(double ms) { return static_cast<std::int64_t>(std::llround(ms * 1e6)); }

struct HeadPos {
  std::uint32_t cyl = 0;
  std::uint32_t head = 0;
};

// A track's LBAs [first, end) and where it is (a track's place never changes): the last track
// looked up, kept by a caller that asks about the same track many times.
struct TrackMemo {
  std::uint64_t first = 1, end = 0;  // (empty)
  HeadPos at;
};

// A move as the positioner made it: the seek (or head switch; jitter included) and the write
// settle. seek + settle is the move; a negative settle (controller.write_settle_ms) is taken off
// the seek, so that both parts are never negative.
struct MoveParts {
  std::int64_t seek = 0;
  std::int64_t settle = 0;
};

// cache.zero_latency_read: what a read that lands on its track at `arrive` does.
struct ZeroLatency {
  std::uint64_t cached_first = 0;  // the segment holds from here on once the read is done
  bool whole_track = false;        // it landed inside its sectors: the track is read in one turn
  std::int64_t done = 0;           // ... and done then (media only)
  std::uint64_t track_end = 0;
};

// A write whose data crosses the bus while the head seeks (controller.bus, written through): the
// head writes no sector before its block is in the buffer (Positioner::paced_write).
struct WritePacing {
  std::int64_t bus_from = 0;     // the first block starts across the bus
  std::uint64_t min_blocks = 1;  // the head writes nothing before this many are in
  std::int64_t min_move_ns = 0;  // the positioning lasts at least this (minimum seek delay)
  std::int64_t block_ns = 0;     // the bus's time per block (write)
};

class Positioner {
 public:
  Positioner(const DiskModel& m, Layout layout, SeekCurve seek, std::uint64_t seed);

  const Layout& layout() const { return layout_; }
  const SeekCurve& seek() const { return seek_; }
  std::int64_t rotation_ns() const { return rot_ns_; }
  std::int64_t head_switch_ns() const { return head_switch_ns_; }
  std::int64_t settle_ns() const { return settle_ns_; }
  // Where the head rests when no read-ahead is running.
  HeadPos head() const { return head_; }
  void set_head(HeadPos h) { head_ = h; }
  void set_head(const Chs& c) { head_ = {c.cyl, c.head}; }

  // AAM: the seek scale (fixed point) and the rate scale's lost revolutions; the layout's switch
  // times follow. The planner's tables are rebuilt at the next SPTF decision.
  void set_aam_scales(double seek_scale, double rate_scale);

  // Nominal seek for d cylinders at the current AAM level (0 for d == 0); seeks up to
  // aam.short_seek_cylinders keep their speed at every level.
  std::int64_t seek_ns(std::uint32_t d) const {
    return d <= short_seek_ ? seek_.ns(d) : scale(seek_.ns(d), seek_fp_);
  }
  // A random move: the seek alone on the same head, max(seek, head switch) with a head change.
  std::int64_t switch_ns(HeadPos from, const Chs& to) const;
  // The move to where a stream goes on (read-ahead to the next track): the spec's streaming
  // switch, max(seek, head switch) to another cylinder whichever head it starts on.
  std::int64_t sequential_switch_ns(HeadPos from, const Chs& to) const;
  // The head's move for a media access, seek jitter and write settle included (draws noise);
  // parts (when given): how it splits into seek and settle.
  std::int64_t move_ns(HeadPos from, const Chs& to, bool write, MoveParts* parts = nullptr);

  // The SPTF plan's move over dist ≥ 1 cylinders: switch_ns with the jitter margin.
  std::int64_t planned_seek_ns(std::uint32_t dist, bool head_change) const;
  std::int64_t planned_move(std::int64_t move) const;  // a move with the jitter margin
  // The head switch's plan (built with the seek floor).
  std::int64_t head_switch_plan() const { return planned_table_[0]; }
  // seek_floor_[dist >> floor_shift_]: the least same-head planned_seek_ns over that bucket of
  // distances (a lower bound with a head change too).
  void build_seek_floor() const;
  bool seek_floor_built() const { return !seek_floor_.empty(); }
  std::int64_t seek_floor(std::uint32_t dist) const { return seek_floor_[dist >> floor_shift_]; }
  // The least planned move over every distance from dist's bucket on.
  std::int64_t seek_floor_beyond(std::uint64_t dist) const { return seek_floor_beyond_[dist >> floor_shift_]; }

  // v mod rotation, in [0, rotation), without a division instruction: a quotient from the
  // reciprocal, off by at most one for any virtual time, then corrected, so the remainder is exact.
  std::int64_t rot_mod(std::int64_t v) const {
    const auto q = static_cast<std::int64_t>(static_cast<double>(v) * inv_rot_);  // (truncated)
    std::int64_t r = v - q * rot_ns_;
    while (r < 0) r += rot_ns_;
    while (r >= rot_ns_) r -= rot_ns_;
    return r;
  }

  // AAM rate scale r < 1: whole revolutions lost to slowed switches before lba's track (see
  // set_aam_scales); 0 at r = 1.
  std::int64_t lost_revs(std::uint64_t lba) const;
  bool loses_revs() const { return lost_per_ns_ != 0; }
  // Time from the start of sector `from` until the last sector before `end` has passed, for a
  // head reading without a break.
  std::int64_t media_ns(std::uint64_t from, std::uint64_t end) const;
  // The same with S(from) known, and where the sector before `end` lies (*last); with memo, also
  // that sector's track.
  std::int64_t media_ns(std::uint64_t from, std::uint64_t end, std::int64_t s_from, Chs* last,
                        TrackMemo* memo = nullptr) const;
  // Stream time at which the sector before `end` has passed (S(end) but for the skew gap).
  std::int64_t end_s(std::uint64_t end) const;
  // The LBAs of the track holding lba: [track_first_lba, track_end_lba). A track's LBAs are
  // consecutive (spares and slipped sectors hold none), so both follow from locate() alone.
  std::uint64_t track_first_lba(std::uint64_t lba) const;
  std::uint64_t track_end_lba(std::uint64_t lba) const;
  std::uint64_t cylinder_end_lba(std::uint64_t lba) const;  // the first LBA past lba's cylinder

  // What a zero-latency read of [lba, lba + sectors) landing on its track (to) at `arrive` does.
  ZeroLatency zero_latency(std::uint64_t lba, std::uint32_t sectors, const Chs& to, std::int64_t arrive) const;
  // When the head has written [from, end), starting at sector `from` at `start` (its stream time
  // s_from), each sector only once its block has crossed the bus: where the head would overrun
  // the data it waits for the sector to come round again.
  std::int64_t paced_write(std::uint64_t from, std::uint64_t end, std::int64_t s_from, std::int64_t start,
                           const WritePacing& pace) const;

 private:
  static constexpr int kFpShift = 20;
  static constexpr std::uint32_t kSeekFloorBuckets = 2048;
  static std::int64_t scale(std::int64_t v, std::int64_t fp) {
    return static_cast<std::int64_t>((static_cast<__int128>(v) * fp) >> kFpShift);
  }

  Layout layout_;
  SeekCurve seek_;
  Rng rng_;  // seek jitter
  std::int64_t rot_ns_ = 0;
  double inv_rot_ = 0;  // 1 / rot_ns_
  mutable std::vector<std::int64_t> seek_floor_;  // empty: to be built (build_seek_floor)
  mutable std::vector<std::int64_t> seek_floor_beyond_;  // [b]: the least of seek_floor_[b..]
  // By distance, built with seek_floor_ (empty until then): the seek on the same head (d >= 1)
  // and its plan (planned_seek_ns); [0]: the head switch's plan.
  mutable std::vector<std::uint32_t> switch_table_, planned_table_;
  mutable std::uint32_t floor_shift_ = 0;
  std::int64_t head_switch_ns_ = 0;
  std::int64_t settle_ns_ = 0;
  std::int64_t seek_fp_ = 1 << kFpShift;  // AAM seek scale, fixed point
  double lost_per_ns_ = 0;  // AAM rate scale r: (1/r − 1) / rotation, revolutions lost per ns streamed
  double jitter_ = 0;                      // fraction
  bool v2_ = false;                        // format /2 noise semantics
  std::uint32_t short_seek_ = 0;           // aam.short_seek_cylinders
  HeadPos head_;
};

}  // namespace ds::sim
