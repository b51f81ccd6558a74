// The drive's mechanism and buffer: one command at a time, in integer-nanosecond virtual time.
//
// A read that misses the cache pays command overhead, a seek (or head switch), the rotational
// wait until its first sector comes round (rotation never stops: the angle is t mod rotation),
// and the media time of its sectors. The head then reads on into a cache segment (read-ahead)
// until `read_ahead_sectors` past the request, or until another command needs the mechanism.
// A read that starts inside the segment being read ahead completes when the head gets past its
// last sector: this is what lets a host stream at the media rate with skews paid, and nothing
// else (command overhead overlaps with the media work). Hits are served at the interface rate.
// The segment being filled holds at most segment_sectors(): what the head read before that has
// scrolled out of it.
// On a 512e drive (physical_sector_bytes > logical) a write that does not cover whole physical
// sectors costs a read-modify-write on the media: one revolution more (media_access).
// Writes with the write cache on complete when their data is in the buffer; the mechanism writes
// them to the media (destages) in arrival order whenever it is otherwise free. A read miss does
// not wait behind the whole backlog, only behind the destage already under way when it arrives
// (as drives give reads priority over write-back); a write that finds the buffer full waits until
// destaging has made room.
#pragma once
#include <cstdint>
#include <deque>
#include <utility>
#include <vector>

#include "sim/cache.hpp"
#include "sim/layout.hpp"
#include "sim/model.hpp"
#include "sim/rng.hpp"
#include "sim/seek.hpp"

namespace ds::sim {

class CommandQueue;

// A command as the mechanism sees it (location precomputed once, on arrival in the drive).
struct Access {
  std::uint64_t lba = 0;
  std::uint32_t sectors = 0;
  bool write = false;
  Chs chs;
  std::int64_t s_ns = 0;  // Layout::stream_ns(lba)
  // When the command reached the drive: a queued command's controller overhead runs while the
  // mechanism serves earlier ones, so it is counted from here, not from dispatch.
  std::int64_t arrival_ns = 0;
};

struct HeadPos {
  std::uint32_t cyl = 0;
  std::uint32_t head = 0;
};

class Mechanics {
 public:
  Mechanics(const DiskModel& m, Layout layout, SeekCurve seek, std::uint64_t seed);

  const Layout& layout() const { return layout_; }
  const SeekCurve& seek() const { return seek_; }
  Access make_access(std::uint64_t lba, std::uint32_t sectors, bool write) const;

  // Serve a command handed to the mechanism at t; returns its completion time.
  std::int64_t serve(const Access& a, std::int64_t t);
  // Shortest positioning time first (sim/sptf.cpp): of the `window` oldest commands of q (all
  // when window is 0 or beyond its size), the one whose data could start to flow soonest after t
  // (a cache hit at once), the oldest among equals; returns its slot.
  std::uint16_t sptf_pick(std::int64_t t, CommandQueue& q, std::size_t window) const;
  const SegmentCache& cache() const { return cache_; }

  // Settings (SET FEATURES / AAM).
  void set_write_cache(bool on) { write_cache_ = on; }
  void set_look_ahead(bool on) { look_ahead_ = on; }
  void set_aam_scales(double seek_scale, double rate_scale, std::int64_t now);
  bool write_cache() const { return write_cache_; }
  bool look_ahead() const { return look_ahead_; }

  std::int64_t rotation_ns() const { return rot_ns_; }
  // Nominal seek for d cylinders at the current AAM level (0 for d == 0); seeks up to
  // aam.short_seek_cylinders keep their speed at every level.
  std::int64_t seek_ns(std::uint32_t d) const {
    return d <= short_seek_ ? seek_.ns(d) : scale(seek_.ns(d), seek_fp_);
  }
  std::int64_t interface_ns(std::uint64_t bytes) const;
  // A transfer of data the buffer holds (a hit) or takes in (write-behind): interface_ns, or
  // controller.bulk_sector_ms per sector when that is slower; with controller.bus, its block
  // time for the direction (write: into the drive) per block.
  std::int64_t buffer_ns(std::uint64_t bytes, bool write) const;
  // Write every buffered write to the media (FLUSH CACHE, write cache turned off); returns when
  // the mechanism is done with them.
  std::int64_t flush();
  // Work of the drive's own (an SMR band clean, sim/smr.hpp): once the buffer is on the media and
  // the mechanism free (at t at the earliest), move to lba's track and stay busy there busy_ns.
  // Returns when the mechanism is free again.
  std::int64_t occupy(std::int64_t t, std::uint64_t lba, std::int64_t busy_ns);
  // A write the firmware appends to a log (the SMR media cache, sim/smr.hpp): decoded like any
  // command, then written where the head is once on the target's track, with no rotational wait
  // (a log takes the next free sector, wherever it is), after the buffer; returns its completion.
  std::int64_t serve_log_write(const Access& a, std::int64_t t_dispatch);
  // Time for the head to pass over [from, end) without a break (no positioning).
  std::int64_t stream_ns(std::uint64_t from, std::uint64_t end) const { return media_ns(from, end); }

 private:
  static constexpr int kFpShift = 20;
  static std::int64_t scale(std::int64_t v, std::int64_t fp) {
    return static_cast<std::int64_t>((static_cast<__int128>(v) * fp) >> kFpShift);
  }
  // What an SPTF decision at t needs, worked out once for all the commands it weighs (where the
  // head will be, what the read-ahead holds, the overheads).
  struct SptfDecision {
    std::int64_t t = 0;
    HeadPos from;
    int skip = -1;             // the segment being read ahead (a hit must be in another one)
    bool streaming = false;    // a read-ahead is still reading at t ...
    std::uint64_t window_first = 0, limit = 0;  // ... over [window_first, limit]
    std::int64_t ready = 0;    // max(t, the mechanism free)
    std::int64_t read_overhead = 0, write_overhead = 0;  // of a command that needs the media
  };
  SptfDecision sptf_decision(std::int64_t t) const;
  // The nominal time from d.t until the command's data could start to flow (0 for a cache hit:
  // `holders` segments hold it), or where that needs the seek worked out (sptf_seek_estimate),
  // a lower bound of it (*exact = false).
  std::int64_t sptf_bound(const SptfDecision& d, const Access& a, std::uint32_t holders, bool* exact) const;
  std::int64_t sptf_seek_estimate(const SptfDecision& d, const Access& a) const;
  // sptf_pick's two ways: every one of the n oldest commands' bound in arrival order, or
  // outward from the head's cylinder until no command further out can win.
  std::uint16_t sptf_in_order(const SptfDecision& d, const CommandQueue& q, std::size_t n) const;
  std::uint16_t sptf_nearest_first(const SptfDecision& d, const CommandQueue& q) const;
  // A random move: the seek alone on the same head, max(seek, head switch) with a head change.
  std::int64_t switch_ns(HeadPos from, const Chs& to) const;
  // The move to where a stream goes on (read-ahead to the next track): the spec's streaming
  // switch, max(seek, head switch) to another cylinder whichever head it starts on.
  std::int64_t sequential_switch_ns(HeadPos from, const Chs& to) const;
  // The SPTF plan's move over dist ≥ 1 cylinders: switch_ns with the jitter margin.
  std::int64_t planned_seek_ns(std::uint32_t dist, bool head_change) const;
  std::int64_t planned_move(std::int64_t move) const;  // a move with the jitter margin
  // seek_floor_[dist >> floor_shift_]: the least same-head planned_seek_ns over that bucket of
  // distances (a lower bound with a head change too).
  void build_seek_floor() const;
  static constexpr std::uint32_t kSeekFloorBuckets = 2048;
  // v mod rotation, in [0, rotation), without a division instruction: a quotient from the
  // reciprocal, off by at most one for any virtual time, then corrected, so the remainder is exact.
  std::int64_t rot_mod(std::int64_t v) const {
    const auto q = static_cast<std::int64_t>(static_cast<double>(v) * inv_rot_);  // (truncated)
    std::int64_t r = v - q * rot_ns_;
    while (r < 0) r += rot_ns_;
    while (r >= rot_ns_) r -= rot_ns_;
    return r;
  }
  // The head's move for a media access, seek jitter and write settle included (draws noise).
  std::int64_t move_ns(HeadPos from, const Chs& to, bool write);
  // The controller time of one command around `nominal` (draws noise in a /2 model with
  // overhead_jitter_ms).
  std::int64_t overhead_draw(std::int64_t nominal);
  // controller.overheads_ms: the nominal decode time of this command by its type, whether it
  // hits the buffer on arrival and the type of the command before it; else command_overhead_ms.
  std::int64_t command_overhead_ns(const Access& a);
  std::int64_t completion_ns(const Access& a) const;
  // The command once decoded at t (everything but the controller's overheads).
  std::int64_t serve_decoded(const Access& a, std::int64_t t);
  // A read the read-ahead stream has read or is reading through (no positioning).
  std::int64_t serve_from_stream(const Access& a, std::int64_t t, std::int64_t t_if);
  bool bus_on() const { return bus_read_ns_ > 0; }
  // controller.bus: when the last block of read a has crossed the bus, the command decoded at t,
  // the blocks before `split` in the buffer by then and the sector before e there at at(e)
  // (controller.read_reconnect: with the disconnect and reselect of a read that waits).
  template <class At>
  std::int64_t bus_done(const Access& a, std::int64_t t, std::uint64_t split, At&& at) const;
  // How many writes the buffer holds before a new one must wait (write-behind level 1: one).
  std::size_t max_dirty_writes() const;
  // Write-behind level 1 takes no write while an earlier one is still being written.
  bool write_behind_busy(std::int64_t t) const {
    return model_.controller.write_behind_level == 1 && destage_end_ > t;
  }
  // Run the recalibrations due by t (each when the mechanism is next free); returns when the
  // drive can serve a command that is ready at t.
  std::int64_t recalibrate(std::int64_t t);
  // Extra time of the remapped LBAs in [first, end) (reads only).
  std::int64_t remap_extra(std::uint64_t first, std::uint64_t end) const;
  // Extra time of the slow regions [first, end) touches; nothing for an empty range.
  std::int64_t defect_extra(std::uint64_t first, std::uint64_t end) const;
  // AAM rate scale r < 1: whole revolutions lost to slowed switches before lba's track (see
  // set_aam_scales); 0 at r = 1.
  std::int64_t lost_revs(std::uint64_t lba) const;
  // Time from the start of sector `from` until the last sector before `end` has passed, for a
  // head reading without a break.
  std::int64_t media_ns(std::uint64_t from, std::uint64_t end) const;
  // The same with S(from) known, and where the sector before `end` lies (*last); with memo, also
  // that sector's track (head_at's memo).
  struct TrackMemo;
  std::int64_t media_ns(std::uint64_t from, std::uint64_t end, std::int64_t s_from, Chs* last,
                        TrackMemo* memo = nullptr) const;
  // Stream time at which the sector before `end` has passed (S(end) but for the skew gap).
  std::int64_t end_s(std::uint64_t end) const;
  // The LBAs of the track holding lba: [track_first_lba, track_end_lba). A track's LBAs are
  // consecutive (spares and slipped sectors hold none), so both follow from locate() alone.
  std::uint64_t track_first_lba(std::uint64_t lba) const;
  std::uint64_t track_end_lba(std::uint64_t lba) const;

  // Read-ahead stream.
  std::int64_t reach_ns(std::uint64_t lba) const;  // when the streaming head reaches lba
  std::int64_t reach_end(std::uint64_t end) const;  // when it has read the sector before end
  std::uint64_t stream_pos(std::int64_t t) const;  // first LBA not yet read at t
  std::uint64_t stream_pos_at(std::int64_t t) const;  // the same, computed
  // First LBA the streaming segment still holds at t: it keeps only the last segment_sectors().
  std::uint64_t window_first(std::int64_t t) const;
  // A bound window_first(t) never goes below (the head is never before the stream's start): a
  // cheap test that spares computing the head's position for a request far from the stream.
  std::uint64_t window_floor() const;
  // The head stops `extra` ns at the first sector not yet read at t (a slow region's retries).
  void pause_stream(std::int64_t t, std::int64_t extra);
  void stop_stream(std::int64_t t);
  HeadPos head_at(std::int64_t t) const;
  // The read-ahead of read [first, end) into segment seg, reading from `from` on at t0.
  void start_stream(int seg, std::uint64_t first, std::uint64_t from, std::int64_t s_from, std::uint64_t end,
                    std::int64_t t0);
  // Where the read-ahead after read [first, end) stops: read_ahead_sectors on, or where
  // controller.prefetch's rule says (the segment holding from seg_first on).
  std::uint64_t ahead_limit(std::uint64_t first, std::uint64_t end, std::uint64_t seg_first) const;
  std::uint64_t cylinder_end_lba(std::uint64_t lba) const;  // the first LBA past lba's cylinder

  // cache.zero_latency_read: what a read that lands on its track at `arrive` does.
  struct ZeroLatency {
    std::uint64_t cached_first = 0;  // the segment holds from here on once the read is done
    bool whole_track = false;        // it landed inside its sectors: the track is read in one turn
    std::int64_t done = 0;           // ... and done then (media only)
    std::uint64_t track_end = 0;
  };
  ZeroLatency zero_latency(const Access& a, const Chs& to, std::int64_t arrive) const;
  // Position and transfer [from, end) starting no earlier than t_mech; returns the media end.
  // zl: when given, a read may be served as a zero-latency read (cache.zero_latency_read).
  // pace: a write whose data crosses the bus while the head seeks (controller.bus, written
  // through): the head writes no sector before its block is in the buffer (bus_paced_write).
  struct WritePacing {
    std::int64_t bus_from = 0;     // the first block starts across the bus
    std::uint64_t min_blocks = 1;  // the head writes nothing before this many are in
    std::int64_t min_move_ns = 0;  // the positioning lasts at least this (minimum seek delay)
  };
  std::int64_t media_access(const Access& a, std::uint64_t from, std::int64_t t_mech,
                            std::int64_t* data_start, ZeroLatency* zl = nullptr, const WritePacing* pace = nullptr);
  // When the head has written [from, end), starting at sector `from` at `start` (its stream time
  // s_from), each sector only once its block has crossed the bus: where the head would overrun
  // the data it waits for the sector to come round again.
  std::int64_t bus_paced_write(std::uint64_t from, std::uint64_t end, std::int64_t s_from, std::int64_t start,
                               const WritePacing& pace) const;
  // A write the drive does not cache, over controller.bus: its bus phases (write_reconnect) around
  // the paced media write, from the decode at t.
  std::int64_t write_through_bus(const Access& a, std::int64_t t, std::int64_t t_mech);
  // DiskSim's extra write disconnect: a write that does not continue the write before it.
  bool extra_write_disconnect(const Access& a) const {
    const auto& w = model_.controller.write_reconnect;
    return w && w->extra && a.write && !write_cache_ && last_write_ && a.lba != last_write_end_;
  }
  std::int64_t write_back(const Access& a, std::int64_t t);
  // Destage the oldest buffered write, starting when both it and the mechanism are ready.
  void destage_one();
  std::int64_t destage_start() const;  // when the oldest buffered write can go to the media
  // Destage what the mechanism would have started before t (it was free, nothing else to do).
  void destage_started_before(std::int64_t t);

  DiskModel model_;
  Layout layout_;
  SeekCurve seek_;
  SegmentCache cache_;
  Rng rng_;
  std::int64_t rot_ns_ = 0;
  double inv_rot_ = 0;  // 1 / rot_ns_
  mutable std::vector<std::int64_t> seek_floor_;  // empty: to be built (build_seek_floor)
  mutable std::vector<std::int64_t> seek_floor_beyond_;  // [b]: the least of seek_floor_[b..]
  // By distance, built with seek_floor_ (empty until then): the seek on the same head (d >= 1)
  // and its plan (planned_seek_ns); [0]: the head switch's plan.
  mutable std::vector<std::uint32_t> switch_table_, planned_table_;
  mutable std::uint32_t floor_shift_ = 0;
  mutable std::vector<std::int64_t> sptf_bounds_;  // sptf_pick's scratch
  std::int64_t overhead_ns_ = 0;
  std::int64_t head_switch_ns_ = 0;
  std::int64_t settle_ns_ = 0;
  std::int64_t seek_fp_ = 1 << kFpShift;  // AAM seek scale, fixed point
  double lost_per_ns_ = 0;  // AAM rate scale r: (1/r − 1) / rotation, revolutions lost per ns streamed
  double jitter_ = 0;                      // fraction
  bool v2_ = false;                        // format /2 noise semantics
  std::uint32_t short_seek_ = 0;           // aam.short_seek_cylinders
  std::uint32_t per_physical_ = 1;         // logical sectors per physical one (8 on a 512e drive)
  Rng overhead_rng_;
  std::int64_t overhead_sd_ns_ = 0;
  std::vector<std::pair<std::uint64_t, std::int64_t>> remapped_;  // (lba, extra ns), sorted
  std::int64_t recal_every_ns_ = 0, recal_ns_ = 0;
  std::int64_t next_recal_ = 0;                     // when the next recalibration is due
  std::int64_t recal_start_ = -1, recal_end_ = -1;  // the last one run
  bool write_cache_ = false;
  bool look_ahead_ = true;
  std::int64_t bulk_sector_ns_ = 0;  // controller.bulk_sector_ms (0: the interface rate alone)
  std::int64_t bus_read_ns_ = 0, bus_write_ns_ = 0;  // controller.bus: per block (0: no bus key)
  // Reads in a row that each began where the read before ended (a write ends the run), and
  // where the last read ended (controller.prefetch.after_sequential_reads).
  std::uint32_t sequential_run_ = 0;
  std::uint64_t last_read_end_ = ~std::uint64_t{0};
  bool last_write_ = false;          // the previous command was a write (overheads "after write")
  std::uint64_t last_write_end_ = 0;  // ... and where the last write ended
  std::int64_t destage_end_ = 0;     // when the last destage started is on the media

  std::int64_t mech_free_ = 0;
  HeadPos head_;  // where the head rests when no stream is running

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
    // where stream_pos() rounds a nanosecond short.
    std::uint64_t served_end = 0;
  } stream_;

  // stream_pos's last answer and what it depends on (the stream's timeline and t).
  struct PosMemo {
    bool valid = false;
    std::int64_t t = 0;
    std::uint64_t lba0 = 0, limit = 0;
    std::int64_t t0 = 0, s0 = 0, l0 = 0, t_limit = 0;
    std::uint64_t pos = 0;
  };
  mutable PosMemo pos_memo_;
  // head_at's last track: its LBAs [first, end) and where it is (a track's place never changes).
  struct TrackMemo {
    std::uint64_t first = 1, end = 0;  // (empty)
    HeadPos at;
  };
  mutable TrackMemo track_memo_;

  struct Dirty {
    Access access;
    std::int64_t ack_ns;  // in the buffer from then on
    std::uint64_t bytes;
  };
  std::deque<Dirty> dirty_;  // buffered writes not yet on the media, oldest first
  std::uint64_t dirty_bytes_ = 0;
};

}  // namespace ds::sim
