// The drive's mechanism and buffer: one command at a time, in integer-nanosecond virtual time.
// This class orchestrates the parts, each in its own files along DiskSim's seams:
//   sim/positioner.hpp   seek, head switch, settle, rotation, media time over LBAs (Positioner)
//   sim/read_ahead.hpp   the media stream into the buffer: read-ahead, prefetch rules (ReadAhead)
//   sim/cache.hpp        the segmented cache's ranges (SegmentCache)
//   sim/controller.hpp   decode and completion overheads, the interface and bus (Controller)
//   sim/write_back.hpp   buffered writes not yet on the media (WriteBuffer)
//   sim/sptf.hpp         the scheduler: the queue and the SPTF scorer (SptfScheduler)
//   sim/defects.hpp      remaps, slow regions, recalibration
// and says what a command does with them:
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
//
// Each command's time is also kept broken down (sim/breakdown.hpp): last_breakdown() after
// serve() or serve_log_write() covers [arrival, completion] of that command.
#pragma once
#include <cstdint>

#include "sim/breakdown.hpp"
#include "sim/cache.hpp"
#include "sim/controller.hpp"
#include "sim/defects.hpp"
#include "sim/layout.hpp"
#include "sim/model.hpp"
#include "sim/positioner.hpp"
#include "sim/read_ahead.hpp"
#include "sim/seek.hpp"
#include "sim/sptf.hpp"
#include "sim/write_back.hpp"

namespace ds::sim {

class Mechanics {
 public:
  Mechanics(const DiskModel& m, Layout layout, SeekCurve seek, std::uint64_t seed);
  // The parts point at one another: a Mechanics stays where it was built.
  Mechanics(const Mechanics&) = delete;
  Mechanics& operator=(const Mechanics&) = delete;

  const Layout& layout() const { return pos_.layout(); }
  const SeekCurve& seek() const { return pos_.seek(); }
  Access make_access(std::uint64_t lba, std::uint32_t sectors, bool write) const;

  // Serve a command handed to the mechanism at t; returns its completion time.
  std::int64_t serve(const Access& a, std::int64_t t);
  // The breakdown of the last command served (serve, serve_log_write), from its arrival to its
  // completion; kept only while set_breakdown(true) (a service hook wants it).
  void set_breakdown(bool on) { clock_.set_on(on); }
  const ServiceBreakdown& last_breakdown() const { return clock_.parts(); }
  // Shortest positioning time first (sim/sptf.hpp): of the `window` oldest commands of q (all
  // when window is 0 or beyond its size), the one whose data could start to flow soonest after t
  // (a cache hit at once), the oldest among equals; returns its slot.
  std::uint16_t sptf_pick(std::int64_t t, CommandQueue& q, std::size_t window) const;
  const SegmentCache& cache() const { return cache_; }

  // Settings (SET FEATURES / AAM).
  void set_write_cache(bool on) { write_cache_ = on; }
  void set_look_ahead(bool on) { stream_.set_look_ahead(on); }
  void set_aam_scales(double seek_scale, double rate_scale, std::int64_t now);
  bool write_cache() const { return write_cache_; }
  bool look_ahead() const { return stream_.look_ahead(); }

  std::int64_t rotation_ns() const { return pos_.rotation_ns(); }
  // Nominal seek for d cylinders at the current AAM level (0 for d == 0).
  std::int64_t seek_ns(std::uint32_t d) const { return pos_.seek_ns(d); }
  std::int64_t interface_ns(std::uint64_t bytes) const { return ctl_.interface_ns(bytes); }
  std::int64_t buffer_ns(std::uint64_t bytes, bool write) const { return ctl_.buffer_ns(bytes, write); }
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
  std::int64_t stream_ns(std::uint64_t from, std::uint64_t end) const { return pos_.media_ns(from, end); }

 private:
  SptfDecision sptf_decision(std::int64_t t) const;
  // The decode time of this command: controller.overheads_ms by its type, whether it hits the
  // buffer on arrival and the type of the command before it; else command_overhead_ms.
  std::int64_t command_overhead_ns(const Access& a);
  // The command decoded from its arrival on, by t_dispatch at the earliest (recalibrations
  // first); returns when that is done, the breakdown started.
  std::int64_t decode(const Access& a, std::int64_t t_dispatch, std::int64_t nominal);
  // The command once decoded at t (everything but the controller's overheads).
  std::int64_t serve_decoded(const Access& a, std::int64_t t);
  std::int64_t serve_read_miss(const Access& a, std::int64_t t, std::int64_t t_if, std::uint64_t from, int seg);
  // A read the read-ahead stream has read or is reading through (no positioning).
  std::int64_t serve_from_stream(const Access& a, std::int64_t t, std::int64_t t_if);
  std::int64_t serve_write_through(const Access& a, std::int64_t t, std::int64_t t_if);
  // Run the recalibrations due by t (each when the mechanism is next free); returns when the
  // drive can serve a command that is ready at t.
  std::int64_t recalibrate(std::int64_t t);
  void stop_stream(std::int64_t t) {
    if (stream_.active()) pos_.set_head(stream_.stop(t));
  }
  HeadPos head_at(std::int64_t t) const { return stream_.head_at(t, pos_.head()); }

  // Where a media access's time went (media_access, for the command's breakdown).
  struct MediaTiming {
    MoveParts move;
    std::int64_t arrive = 0;      // on the track (after the move)
    std::int64_t start = 0;       // the first sector comes round (zero-latency: arrive)
    std::int64_t extra = 0;       // slow regions and remaps
    std::int64_t lost = 0;        // of the media time: whole revolutions lost
    std::int64_t media_end = 0;   // the head has passed the sectors (before pacing by the bus)
  };
  // Position and transfer [from, end) starting no earlier than t_mech; returns the media end.
  // zl: when given, a read may be served as a zero-latency read (cache.zero_latency_read).
  // pace: a write whose data crosses the bus while the head seeks (controller.bus, written
  // through): the head writes no sector before its block is in the buffer.
  std::int64_t media_access(const Access& a, std::uint64_t from, std::int64_t t_mech, std::int64_t* data_start,
                            ZeroLatency* zl = nullptr, const WritePacing* pace = nullptr,
                            MediaTiming* timing = nullptr);
  // The command's breakdown over a media access from t_mech (queue before it).
  void charge_media(std::int64_t t_mech, const MediaTiming& m);
  std::int64_t write_back(const Access& a, std::int64_t t);
  // Destage the oldest buffered write, starting when both it and the mechanism are ready.
  void destage_one();
  std::int64_t destage_start() const;  // when the oldest buffered write can go to the media
  // Destage what the mechanism would have started before t (it was free, nothing else to do).
  void destage_started_before(std::int64_t t);

  DiskModel model_;
  Positioner pos_;
  SegmentCache cache_;
  ReadAhead stream_;
  Controller ctl_;
  WriteBuffer wb_;
  SurfaceDefects defects_;
  Recalibration recal_;
  SptfScheduler sched_;
  std::uint32_t per_physical_ = 1;  // logical sectors per physical one (8 on a 512e drive)
  bool write_cache_ = false;
  std::int64_t mech_free_ = 0;
  ServiceClock clock_;  // the command being served
};

}  // namespace ds::sim
