#include "sim/mechanics.hpp"

#include <algorithm>

namespace ds::sim {

namespace {
using SB = ServiceBreakdown;
}  // namespace

Mechanics::Mechanics(const DiskModel& m, Layout layout, SeekCurve seek, std::uint64_t seed)
    : model_(m), pos_(model_, std::move(layout), std::move(seek), seed), ctl_(model_, seed), wb_(model_),
      defects_(model_), recal_(model_, seed) {
  stream_.bind(&pos_, &cache_, &model_);
  per_physical_ = std::max<std::uint32_t>(1, m.physical_sector_bytes / m.logical_sector_bytes);
  cache_.configure(m.cache.bytes, m.cache.segments, m.logical_sector_bytes);
  const bool write_back = m.controller.write_behind_level ? *m.controller.write_behind_level > 0 : m.cache.write_back;
  write_cache_ = write_back && cache_.enabled();
  stream_.set_look_ahead(cache_.enabled());
  set_aam_scales(1.0, 1.0, 0);
}

void Mechanics::set_aam_scales(double seek_scale, double rate_scale, std::int64_t now) {
  // The read-ahead timeline was computed for the old switch times: end it where the head is when
  // the mechanism is next free (the firmware aborts read-ahead for a SET FEATURES anyway).
  stop_stream(std::max(now, mech_free_));
  stream_.forget_positions();  // positions are about to follow other switch times
  pos_.set_aam_scales(seek_scale, rate_scale);
}

Access Mechanics::make_access(std::uint64_t lba, std::uint32_t sectors, bool write) const {
  Access a;
  a.lba = lba;
  a.sectors = sectors;
  a.write = write;
  a.chs = pos_.layout().locate(lba, &a.s_ns);
  return a;
}

std::int64_t Mechanics::command_overhead_ns(const Access& a) {
  if (!ctl_.has_table()) return ctl_.decode_ns();
  const std::int64_t tc = a.arrival_ns;  // the firmware picks its path when the command arrives
  const std::uint64_t end = a.lba + a.sectors;
  if (!a.write) {
    // A hit: all of its data is in the buffer already (a segment, or what the read-ahead has read).
    const bool hit = cache_.find(a.lba, a.sectors, stream_.skip()) >= 0 ||
                     (stream_.active() && a.lba >= stream_.window_first(tc) && end <= stream_.pos(tc));
    return ctl_.decode_ns(false, hit);
  }
  // A write hits when write-behind takes it into the buffer without waiting for room.
  destage_started_before(tc);
  const std::uint64_t bytes = std::uint64_t{a.sectors} * model_.logical_sector_bytes;
  return ctl_.decode_ns(true, write_cache_ && wb_.takes(tc, bytes));
}

std::int64_t Mechanics::recalibrate(std::int64_t t) {
  // A recalibration due while the mechanism works waits for the command in progress; the
  // read-ahead is dropped for it.
  return recal_.run(t, &mech_free_, [this](std::int64_t start) { stop_stream(start); });
}

std::int64_t Mechanics::decode(const Access& a, std::int64_t t_dispatch, std::int64_t nominal) {
  clock_.start(a.arrival_ns);
  const std::int64_t decoded = a.arrival_ns + ctl_.overhead_draw(nominal);
  const std::int64_t t = recalibrate(std::max(t_dispatch, decoded));
  clock_.to(&SB::overhead, decoded);
  clock_.to(&SB::queue, t_dispatch);  // decoded, waiting to be dispatched
  clock_.to(&SB::other, t);           // a recalibration
  return t;
}

std::int64_t Mechanics::serve(const Access& a, std::int64_t t_dispatch) {
  // The command is decoded (overhead) from its arrival on; t is when that is done. (On the extra
  // write disconnect path the mechanism starts at the extra command overhead plus the seek delta.)
  const std::int64_t nominal =
      ctl_.extra_write_disconnect(a, write_cache_) ? ctl_.extra_write_decode_ns() : command_overhead_ns(a);
  const std::int64_t t = decode(a, t_dispatch, nominal);
  const std::int64_t done = serve_decoded(a, t);
  ctl_.after(a.write, a.lba + a.sectors);
  const std::int64_t complete = done + ctl_.completion_ns(a);
  clock_.add(&SB::overhead, complete - done);
  return complete;
}

std::int64_t Mechanics::serve_decoded(const Access& a, std::int64_t t) {
  const std::uint64_t bytes = std::uint64_t{a.sectors} * model_.logical_sector_bytes;
  const std::int64_t t_if = t + (ctl_.bus_on() ? ctl_.buffer_ns(bytes, a.write) : ctl_.interface_ns(bytes));
  // What the mechanism destaged while it had nothing else to do.
  destage_started_before(t);
  const std::uint64_t end = a.lba + a.sectors;
  if (a.write) {
    stream_.note_write();
    if (write_cache_) return write_back(a, t);
    return serve_write_through(a, t, t_if);
  }
  stream_.note_read(a.lba, end);
  if (int i = cache_.find(a.lba, a.sectors, stream_.skip()); i >= 0) {
    cache_.touch(i);
    const std::int64_t done = t + ctl_.buffer_ns(bytes, false);
    clock_.to(&SB::bus, done);
    return done;
  }
  std::uint64_t from = a.lba;
  int seg = -1;
  if (stream_.active()) {
    if (a.lba <= stream_.limit() && a.lba >= stream_.window_floor() && a.lba >= stream_.window_first(t)) {
      if (t < stream_.t_limit() || end <= stream_.limit()) return serve_from_stream(a, t, t_if);
      // The read-ahead stopped at its limit before this command came: the cached part is
      // kept and the rest is read after a rotational wait on the same track.
      from = stream_.limit();
      seg = stream_.seg();
    }
  }
  return serve_read_miss(a, t, t_if, from, seg);
}

std::int64_t Mechanics::serve_from_stream(const Access& a, std::int64_t t, std::int64_t t_if) {
  // The head is still reading on (or has read) through this request: no positioning. Only
  // what it has not read yet can cost a slow region's time. (What it has read is there now;
  // after a zero-latency read that is the whole track before the stream's start.)
  const std::uint64_t end = a.lba + a.sectors;
  const std::uint64_t unread = std::max(a.lba, stream_.pos(t));
  const std::int64_t extra = defects_.defect_extra(unread, end) + defects_.remap_extra(unread, end);
  if (extra > 0) stream_.pause(t, extra);
  const std::int64_t done = end <= unread ? t : stream_.reach_end(end);
  // (controller.prefetch.on_idle_hit false: a read the buffer holds whole starts no read-ahead.)
  const bool idle_hit = end <= unread && model_.controller.prefetch && !model_.controller.prefetch->on_idle_hit;
  stream_.served(a.lba, end, idle_hit);
  mech_free_ = std::max(mech_free_, done);
  if (extra > 0) clock_.to(&SB::other, std::min(t + extra, done));
  clock_.to(&SB::media, done);
  const std::int64_t finish =
      ctl_.bus_on() ? ctl_.bus_done(pos_, cache_.segment_sectors(), a, t, unread,
                                    [this](std::uint64_t e) { return stream_.reach_end(e); })
                    : std::max(done, t_if);
  clock_.to(&SB::bus, finish);
  return finish;
}

std::int64_t Mechanics::serve_read_miss(const Access& a, std::int64_t t, std::int64_t t_if, std::uint64_t from,
                                        int seg) {
  const std::uint64_t end = a.lba + a.sectors;
  const std::int64_t t_mech = std::max(t, mech_free_);
  if (seg < 0) {
    stop_stream(t_mech);
    seg = cache_.enabled() ? cache_.victim(-1) : -1;
    if (seg >= 0) cache_.set_range(seg, a.lba, a.lba);
  }
  std::int64_t data_start = 0;
  ZeroLatency zl;
  MediaTiming m;
  const bool zero_latency = model_.cache.zero_latency_read && from == a.lba;
  const std::int64_t done =
      media_access(a, from, t_mech, &data_start, zero_latency ? &zl : nullptr, nullptr, clock_.on() ? &m : nullptr);
  charge_media(t_mech, m);
  // (A zero-latency read of a whole track sends its data once the track is read.)
  const auto media_done = [&](std::uint64_t e) {
    return zero_latency && zl.whole_track ? done : data_start + pos_.media_ns(from, e);
  };
  const std::int64_t finish =
      ctl_.bus_on() ? ctl_.bus_done(pos_, cache_.segment_sectors(), a, t, from, media_done) : std::max(done, t_if);
  clock_.to(&SB::bus, finish);
  if (seg < 0) return finish;
  const Layout& layout = pos_.layout();
  if (zero_latency && zl.whole_track) {
    // The whole track is in the segment; the read-ahead goes on from the next one.
    std::int64_t t_next = done;
    if (zl.track_end < layout.capacity()) {
      const std::int64_t ready = done + pos_.sequential_switch_ns(pos_.head(), layout.locate(zl.track_end));
      t_next = ready + pos_.rot_mod(layout.stream_ns(zl.track_end) - ready);
    }
    stream_.start(seg, a.lba, zl.track_end, layout.stream_ns(zl.track_end), zl.track_end, t_next);
  } else {
    stream_.start(seg, a.lba, from, from == a.lba ? a.s_ns : layout.stream_ns(from), end, data_start);
  }
  if (zero_latency) cache_.set_range(seg, zl.cached_first, cache_[seg].end);
  return finish;
}

std::int64_t Mechanics::serve_write_through(const Access& a, std::int64_t t, std::int64_t t_if) {
  flush();  // a write-through write goes to the media after everything buffered before it
  const std::int64_t t_mech = std::max(t, mech_free_);
  stop_stream(t_mech);
  cache_.invalidate(a.lba, a.sectors, -1);
  std::int64_t data_start = 0, done = 0;
  MediaTiming m;
  if (ctl_.bus_on()) {
    // Its data crosses the bus while the head seeks, and its status after the media is written.
    const WritePacing pace = ctl_.write_pacing(a, t, write_cache_);
    const std::int64_t written = media_access(a, a.lba, t_mech, &data_start, nullptr, &pace, clock_.on() ? &m : nullptr);
    done = ctl_.write_through_done(a, written, pace, write_cache_);
  } else {
    done = std::max(media_access(a, a.lba, t_mech, &data_start, nullptr, nullptr, clock_.on() ? &m : nullptr), t_if);
  }
  charge_media(t_mech, m);
  clock_.to(&SB::bus, done);
  return done;
}

// ---- the media --------------------------------------------------------------------------------

std::int64_t Mechanics::media_access(const Access& a, std::uint64_t from, std::int64_t t_mech,
                                     std::int64_t* data_start, ZeroLatency* zl, const WritePacing* pace,
                                     MediaTiming* timing) {
  stop_stream(t_mech);
  std::uint64_t end = a.lba + a.sectors;
  const Layout& layout = pos_.layout();
  const std::int64_t rot = pos_.rotation_ns();
  // 512e: a write that does not cover whole physical sectors is a read-modify-write. The head
  // reads the physical sectors it touches as they pass, turns once more and writes them whole:
  // the media time of the widened span and one revolution more (however long the write: the
  // partly written sectors are its first and last, read on the first pass when they share a
  // track, which is all the model charges).
  const bool rmw = a.write && per_physical_ > 1 && (from % per_physical_ != 0 || end % per_physical_ != 0);
  if (rmw) {
    from -= from % per_physical_;
    end = std::min(layout.capacity(), (end + per_physical_ - 1) / per_physical_ * per_physical_);
  }
  const Chs to = from == a.lba ? a.chs : layout.locate(from);
  const std::int64_t s_from = from == a.lba ? a.s_ns : layout.stream_ns(from);
  MoveParts parts;
  std::int64_t move = pos_.move_ns(pos_.head(), to, a.write, timing ? &parts : nullptr);
  if (pace) move = std::max(move, pace->min_move_ns);
  const std::int64_t arrive = t_mech + move;
  const std::int64_t start = arrive + pos_.rot_mod(s_from - arrive);
  const std::int64_t extra = defects_.defect_extra(from, end) + (a.write ? 0 : defects_.remap_extra(from, end));
  *data_start = start + extra;
  // The last sector's track is where the read-ahead goes on from: head_at's memo starts there
  // (the next dispatch asks where the head is, mostly a few sectors on).
  Chs last;
  std::int64_t done = *data_start + pos_.media_ns(from, end, s_from, &last, stream_.track_memo()) + (rmw ? rot : 0);
  if (zl) {
    *zl = pos_.zero_latency(a.lba, a.sectors, to, arrive);
    if (zl->whole_track) done = zl->done + extra;
  }
  if (timing) {
    const bool whole = zl && zl->whole_track;
    *timing = {parts, arrive, whole ? arrive : start, extra,
               whole ? 0 : rot * (pos_.lost_revs(end - 1) - pos_.lost_revs(from)) + (rmw ? rot : 0), done};
  }
  // (A read-modify-write has the data before it starts: its first pass reads.)
  if (pace && !rmw) done = pos_.paced_write(from, end, s_from, *data_start, *pace);
  pos_.set_head(last);
  mech_free_ = done;
  return done;
}

void Mechanics::charge_media(std::int64_t t_mech, const MediaTiming& m) {
  if (!clock_.on()) return;  // (m was not filled)
  clock_.to(&SB::queue, t_mech);  // the mechanism busy with what came before
  clock_.add(&SB::seek, m.move.seek);
  clock_.add(&SB::settle, m.move.settle);
  clock_.to(&SB::seek, m.arrive);  // (a minimum seek delay lengthens the move)
  clock_.to(&SB::rotation, m.start);
  clock_.add(&SB::other, m.extra);
  clock_.to(&SB::media, m.media_end - m.lost);
  clock_.to(&SB::lost_revs, m.media_end);
}

// ---- write-back -------------------------------------------------------------------------------

std::int64_t Mechanics::write_back(const Access& a, std::int64_t t) {
  const std::uint64_t bytes = std::uint64_t{a.sectors} * model_.logical_sector_bytes;
  std::int64_t ack = t + ctl_.buffer_ns(bytes, true);
  clock_.to(&SB::bus, ack);
  // The buffer holds at most cache.bytes of data not yet on the media, one write per segment
  // (a segmented cache gives each write a segment): make room first. The segment bound keeps the
  // backlog to what real firmware holds (tens of commands, not thousands of small writes).
  while (wb_.full_for(bytes)) {
    destage_one();
    ack = std::max(ack, mech_free_);
  }
  if (wb_.busy(t)) ack = std::max(ack, wb_.destage_end());
  if (stream_.active()) {
    const Segment& s = cache_[stream_.seg()];
    if (s.first < a.lba + a.sectors && a.lba < stream_.limit()) stop_stream(ack);
  }
  cache_.invalidate(a.lba, a.sectors, stream_.skip());
  wb_.push(a, ack, bytes);
  clock_.to(&SB::queue, ack);  // waiting for room in the buffer
  return ack;
}

// A destage waits for the mechanism and for a read-ahead in progress to reach its limit (a short
// run, read_ahead_sectors long: the firmware lets it finish rather than lose the track).
std::int64_t Mechanics::destage_start() const {
  return std::max({mech_free_, wb_.oldest().ack_ns, stream_.active() ? stream_.t_limit() : std::int64_t{0}});
}

void Mechanics::destage_one() {
  const std::int64_t start = destage_start();
  const WriteBuffer::Dirty d = wb_.take_oldest();
  std::int64_t data_start = 0;
  wb_.set_destage_end(media_access(d.access, d.access.lba, start, &data_start));
}

void Mechanics::destage_started_before(std::int64_t t) {
  while (!wb_.empty() && destage_start() < t) destage_one();
}

std::int64_t Mechanics::flush() {
  while (!wb_.empty()) destage_one();
  return mech_free_;
}

// ---- the drive's own work (SMR) ---------------------------------------------------------------

std::int64_t Mechanics::occupy(std::int64_t t, std::uint64_t lba, std::int64_t busy_ns) {
  const std::int64_t start = std::max(t, flush());
  stop_stream(start);
  const Chs to = pos_.layout().locate(lba);
  const std::int64_t move = pos_.switch_ns(pos_.head(), to);
  mech_free_ = start + move + busy_ns;
  pos_.set_head(to);
  clock_.to(&SB::queue, start);
  clock_.to(&SB::seek, start + move);
  return mech_free_;
}

std::int64_t Mechanics::serve_log_write(const Access& a, std::int64_t t_dispatch) {
  const std::int64_t t = decode(a, t_dispatch, command_overhead_ns(a));
  const std::uint64_t bytes = std::uint64_t{a.sectors} * model_.logical_sector_bytes;
  const std::int64_t occupied = occupy(t, a.lba, pos_.media_ns(a.lba, a.lba + a.sectors));
  const std::int64_t done = std::max(occupied, t + ctl_.interface_ns(bytes));
  clock_.to(&SB::media, occupied);
  clock_.to(&SB::bus, done);
  cache_.invalidate(a.lba, a.sectors, -1);
  ctl_.after(true, a.lba + a.sectors);
  const std::int64_t complete = done + ctl_.completion_ns(a);
  clock_.add(&SB::overhead, complete - done);
  return complete;
}

// ---- the scheduler's view -----------------------------------------------------------------------

SptfDecision Mechanics::sptf_decision(std::int64_t t) const {
  SptfDecision d;
  d.t = t;
  d.from = head_at(std::max(t, mech_free_));
  d.skip = stream_.skip();
  d.streaming = stream_.active() && t < stream_.t_limit();
  if (d.streaming) {
    d.window_first = stream_.window_first(t);
    d.limit = stream_.limit();
  }
  d.ready = std::max(t, mech_free_);
  // A command that needs the media pays the miss overhead (controller.overheads_ms).
  d.read_overhead = ctl_.miss_decode_ns(false);
  d.write_overhead = ctl_.miss_decode_ns(true);
  d.write_back = write_cache_;
  d.pos = &pos_;
  d.cache = &cache_;
  d.stream = &stream_;
  if (!pos_.seek_floor_built()) pos_.build_seek_floor();
  return d;
}

std::uint16_t Mechanics::sptf_pick(std::int64_t t, CommandQueue& q, std::size_t window) const {
  return sched_.pick(sptf_decision(t), q, window);
}

}  // namespace ds::sim
