#include "sim/mechanics.hpp"

#include <algorithm>
#include <cmath>

namespace ds::sim {

namespace {
std::int64_t ms_to_ns(double ms) { return static_cast<std::int64_t>(std::llround(ms * 1e6)); }
std::int64_t pos_mod(std::int64_t v, std::int64_t m) {
  const std::int64_t r = v % m;
  return r < 0 ? r + m : r;
}
}  // namespace

Mechanics::Mechanics(const DiskModel& m, Layout layout, SeekCurve seek, std::uint64_t seed)
    : model_(m), layout_(std::move(layout)), seek_(std::move(seek)), rng_(seed) {
  rot_ns_ = layout_.rotation_ns();
  overhead_ns_ = ms_to_ns(m.command_overhead_ms);
  head_switch_ns_ = ms_to_ns(m.head_switch_ms);
  settle_ns_ = ms_to_ns(m.write_settle_ms);
  jitter_ = m.noise.seek_jitter_pct / 100.0;
  cache_.configure(m.cache.bytes, m.cache.segments, m.logical_sector_bytes);
  write_cache_ = m.cache.write_back && cache_.enabled();
  look_ahead_ = cache_.enabled();
  set_aam_scales(1.0, 1.0, 0);
}

void Mechanics::set_aam_scales(double seek_scale, double rate_scale, std::int64_t now) {
  // The read-ahead timeline was computed for the old switch times: end it where the head is when
  // the mechanism is next free (the firmware aborts read-ahead for a SET FEATURES anyway).
  stop_stream(std::max(now, mech_free_));
  seek_fp_ = std::llround(seek_scale * (1 << kFpShift));
  // The rate scale r < 1 is a longer switch, never a longer sector: at a quiet level the head
  // settles slower after a track or cylinder switch, and a share of the switches overrun their
  // skew and wait one more revolution. The share is set so that a stretch whose clean stream
  // time is T costs T / r: (1/r − 1)·T / rotation revolutions, lost one at a time at the track
  // starts where that count steps up (evenly spread; lost_revs()). Rotation and sector time
  // stay as they are, so the drive keeps one rotation period.
  lost_per_ns_ = rate_scale < 1.0 ? (1.0 / rate_scale - 1.0) / static_cast<double>(rot_ns_) : 0.0;
  // Streaming pays a whole revolution wherever a switch outlasts its skew.
  layout_.set_switch_times(head_switch_ns_, std::max(seek_ns(1), head_switch_ns_));
}

std::int64_t Mechanics::lost_revs(std::uint64_t lba) const {
  if (lost_per_ns_ == 0) return 0;
  lba = std::min(lba, layout_.capacity() - 1);
  const std::uint64_t track_start = lba - layout_.locate(lba).sector;
  return static_cast<std::int64_t>(std::floor(static_cast<double>(layout_.stream_ns(track_start)) * lost_per_ns_));
}

std::int64_t Mechanics::media_ns(std::uint64_t from, std::uint64_t end) const {
  return layout_.stream_ns(end) - layout_.stream_ns(from) + rot_ns_ * (lost_revs(end - 1) - lost_revs(from));
}

std::int64_t Mechanics::interface_ns(std::uint64_t bytes) const {
  // MB/s = 10^6 bytes per second: bytes·1000/rate ns.
  return static_cast<std::int64_t>(std::ceil(static_cast<double>(bytes) * 1000.0 / model_.interface_mb_s));
}

Access Mechanics::make_access(std::uint64_t lba, std::uint32_t sectors, bool write) const {
  Access a;
  a.lba = lba;
  a.sectors = sectors;
  a.write = write;
  a.chs = layout_.locate(lba);
  a.s_ns = layout_.stream_ns(lba);
  return a;
}

std::int64_t Mechanics::switch_ns(HeadPos from, const Chs& to) const {
  const std::uint32_t d = from.cyl > to.cyl ? from.cyl - to.cyl : to.cyl - from.cyl;
  if (d == 0) return from.head == to.head ? 0 : head_switch_ns_;
  return std::max(seek_ns(d), head_switch_ns_);
}

std::int64_t Mechanics::defect_extra(std::uint64_t first, std::uint64_t end) const {
  std::int64_t extra = 0;
  if (first >= end) return 0;  // (a stream already past a request's end has nothing to read)
  for (const auto& d : model_.defects)
    if (d.first_lba < end && first < d.first_lba + d.sectors) extra += ms_to_ns(d.extra_ms);
  return extra;
}

// ---- read-ahead stream ----------------------------------------------------------------------

std::int64_t Mechanics::reach_ns(std::uint64_t lba) const {
  return stream_.t0 + layout_.stream_ns(lba) - stream_.s0 + rot_ns_ * (lost_revs(lba) - stream_.l0);
}

std::int64_t Mechanics::reach_end(std::uint64_t end) const {
  return stream_.t0 + layout_.stream_ns(end) - stream_.s0 + rot_ns_ * (lost_revs(end - 1) - stream_.l0);
}

std::uint64_t Mechanics::stream_pos(std::int64_t t) const {
  if (t >= stream_.t_limit) return stream_.limit;
  if (t <= stream_.t0) return stream_.lba0;
  if (lost_per_ns_ == 0) {
    const std::uint64_t lba = layout_.lba_at_stream_ns(stream_.s0 + (t - stream_.t0));
    return std::clamp(lba, stream_.lba0, stream_.limit);
  }
  // With revolutions lost at some switches: the last sector whose start the head has reached
  // (reach_ns is monotonic), then within it as without losses.
  std::uint64_t lo = stream_.lba0, hi = stream_.limit;  // reach_ns(lo) <= t < reach_ns(hi)
  while (hi - lo > 1) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    (reach_ns(mid) <= t ? lo : hi) = mid;
  }
  const std::uint64_t lba = layout_.lba_at_stream_ns(layout_.stream_ns(lo) + (t - reach_ns(lo)));
  return std::clamp(lba, lo, lo + 1);
}

std::uint64_t Mechanics::window_first(std::int64_t t) const {
  const std::uint64_t pos = stream_pos(t), seg = cache_.segment_sectors();
  return std::max(cache_[stream_.seg].first, pos > seg ? pos - seg : 0);
}

void Mechanics::pause_stream(std::int64_t t, std::int64_t extra) {
  const std::uint64_t p = stream_pos(t);
  const std::int64_t at = reach_ns(p);
  stream_.lba0 = p;
  stream_.s0 = layout_.stream_ns(p);
  stream_.l0 = lost_revs(p);
  stream_.t0 = at + extra;
  stream_.t_limit = reach_end(stream_.limit);
}

HeadPos Mechanics::head_at(std::int64_t t) const {
  if (!stream_.active) return head_;
  const std::uint64_t pos = stream_pos(t);
  const Chs c = layout_.locate(pos > stream_.lba0 ? pos - 1 : pos);
  return {c.cyl, c.head};
}

void Mechanics::stop_stream(std::int64_t t) {
  if (!stream_.active) return;
  head_ = head_at(t);
  Segment& s = cache_[stream_.seg];
  s.first = window_first(t);
  s.end = std::max({s.end, stream_pos(t), stream_.served_end});
  s.first = std::max(s.first, s.end > cache_.segment_sectors() ? s.end - cache_.segment_sectors() : 0);
  stream_.active = false;
}

std::uint64_t Mechanics::ahead_limit(std::uint64_t end) const {
  if (!look_ahead_) return end;
  return std::min(layout_.capacity(), end + model_.cache.read_ahead_sectors);
}

void Mechanics::start_stream(int seg, std::uint64_t from, std::uint64_t end, std::int64_t t0) {
  stream_.active = true;
  stream_.seg = seg;
  stream_.lba0 = from;
  stream_.s0 = layout_.stream_ns(from);
  stream_.l0 = lost_revs(from);
  stream_.t0 = t0;
  stream_.limit = ahead_limit(end);
  stream_.t_limit = reach_end(stream_.limit);
  stream_.served_end = end;
  cache_.touch(seg);
}

// ---- service ----------------------------------------------------------------------------------

std::int64_t Mechanics::media_access(const Access& a, std::uint64_t from, std::int64_t t_mech,
                                     std::int64_t* data_start) {
  stop_stream(t_mech);
  const std::uint64_t end = a.lba + a.sectors;
  const Chs to = from == a.lba ? a.chs : layout_.locate(from);
  const std::int64_t s_from = from == a.lba ? a.s_ns : layout_.stream_ns(from);
  std::int64_t move = switch_ns(head_, to);
  if (jitter_ > 0 && to.cyl != head_.cyl)
    move += static_cast<std::int64_t>(std::llround(static_cast<double>(move) * jitter_ * rng_.symmetric()));
  if (a.write) move += settle_ns_;
  const std::int64_t arrive = t_mech + move;
  const std::int64_t start = arrive + pos_mod(s_from - arrive, rot_ns_);
  const std::int64_t extra = defect_extra(from, end);
  *data_start = start + extra;
  const std::int64_t done = *data_start + media_ns(from, end);
  const Chs last = layout_.locate(end - 1);
  head_ = {last.cyl, last.head};
  mech_free_ = done;
  return done;
}

// A destage waits for the mechanism and for a read-ahead in progress to reach its limit (a short
// run, read_ahead_sectors long: the firmware lets it finish rather than lose the track).
std::int64_t Mechanics::destage_start() const {
  return std::max({mech_free_, dirty_.front().ack_ns, stream_.active ? stream_.t_limit : std::int64_t{0}});
}

void Mechanics::destage_one() {
  const std::int64_t start = destage_start();
  const Dirty d = dirty_.front();
  dirty_.pop_front();
  dirty_bytes_ -= d.bytes;
  std::int64_t data_start = 0;
  media_access(d.access, d.access.lba, start, &data_start);
}

void Mechanics::destage_started_before(std::int64_t t) {
  while (!dirty_.empty() && destage_start() < t) destage_one();
}

std::int64_t Mechanics::flush() {
  while (!dirty_.empty()) destage_one();
  return mech_free_;
}

std::int64_t Mechanics::write_back(const Access& a, std::int64_t t) {
  const std::uint64_t bytes = std::uint64_t{a.sectors} * model_.logical_sector_bytes;
  std::int64_t ack = t + interface_ns(bytes);
  // The buffer holds at most cache.bytes of data not yet on the media, one write per segment
  // (a segmented cache gives each write a segment): make room first. The segment bound keeps the
  // backlog to what real firmware holds (tens of commands, not thousands of small writes).
  const std::size_t max_writes = std::max<std::size_t>(1, model_.cache.segments);
  while (!dirty_.empty() && (dirty_bytes_ + bytes > model_.cache.bytes || dirty_.size() >= max_writes)) {
    destage_one();
    ack = std::max(ack, mech_free_);
  }
  if (stream_.active) {
    const Segment& s = cache_[stream_.seg];
    if (s.first < a.lba + a.sectors && a.lba < stream_.limit) stop_stream(ack);
  }
  cache_.invalidate(a.lba, a.sectors, stream_.active ? stream_.seg : -1);
  dirty_.push_back({a, ack, bytes});
  dirty_bytes_ += bytes;
  return ack;
}

std::int64_t Mechanics::serve(const Access& a, std::int64_t t_dispatch) {
  const std::uint64_t bytes = std::uint64_t{a.sectors} * model_.logical_sector_bytes;
  // The command is decoded (overhead) from its arrival on; t is when that is done.
  const std::int64_t t = std::max(t_dispatch, a.arrival_ns + overhead_ns_);
  const std::int64_t t_if = t + interface_ns(bytes);
  // What the mechanism destaged while it had nothing else to do.
  destage_started_before(t);
  const std::uint64_t end = a.lba + a.sectors;
  if (a.write) {
    if (write_cache_) return write_back(a, t);
    flush();  // a write-through write goes to the media after everything buffered before it
    const std::int64_t t_mech = std::max(t, mech_free_);
    stop_stream(t_mech);
    cache_.invalidate(a.lba, a.sectors, -1);
    std::int64_t data_start = 0;
    return std::max(media_access(a, a.lba, t_mech, &data_start), t_if);
  }
  const int skip = stream_.active ? stream_.seg : -1;
  if (int i = cache_.find(a.lba, a.sectors, skip); i >= 0) {
    cache_.touch(i);
    return t_if;
  }
  std::uint64_t from = a.lba;
  int seg = -1;
  if (stream_.active) {
    if (a.lba >= window_first(t) && a.lba <= stream_.limit) {
      if (t < stream_.t_limit || end <= stream_.limit) {
        // The head is still reading on (or has read) through this request: no positioning.
        // Only what it has not read yet can cost a slow region's time.
        if (const std::int64_t extra = defect_extra(std::max(a.lba, stream_pos(t)), end); extra > 0)
          pause_stream(t, extra);
        const std::int64_t done = reach_end(end);
        if (end > stream_.limit || look_ahead_) {
          stream_.limit = std::max(stream_.limit, ahead_limit(end));
          stream_.t_limit = reach_end(stream_.limit);
        }
        mech_free_ = std::max(mech_free_, done);
        stream_.served_end = std::max(stream_.served_end, end);
        cache_.touch(stream_.seg);
        return std::max(done, t_if);
      }
      // The read-ahead stopped at its limit before this command came: the cached part is
      // kept and the rest is read after a rotational wait on the same track.
      from = stream_.limit;
      seg = stream_.seg;
    }
  }
  const std::int64_t t_mech = std::max(t, mech_free_);
  if (seg < 0) {
    stop_stream(t_mech);
    seg = cache_.enabled() ? cache_.victim(-1) : -1;
    if (seg >= 0) cache_[seg].first = cache_[seg].end = a.lba;
  }
  std::int64_t data_start = 0;
  const std::int64_t done = media_access(a, from, t_mech, &data_start);
  if (seg >= 0) start_stream(seg, from, end, data_start);
  return std::max(done, t_if);
}

HeadPos Mechanics::head_for_decision(std::int64_t t) const {
  return head_at(std::max(t, mech_free_));
}

std::int64_t Mechanics::positioning_estimate(const Access& a, std::int64_t t, HeadPos from) const {
  if (!a.write || !write_cache_) {
    if (!a.write) {
      const int skip = stream_.active ? stream_.seg : -1;
      if (cache_.find(a.lba, a.sectors, skip) >= 0) return 0;
      if (stream_.active && a.lba >= window_first(t) && a.lba <= stream_.limit && t < stream_.t_limit)
        return std::max<std::int64_t>(0, reach_ns(a.lba) - t);
    }
  } else {
    return 0;  // a write-back write only needs the interface
  }
  const std::int64_t t_mech = std::max({t, a.arrival_ns + overhead_ns_, mech_free_});
  std::int64_t move = switch_ns(from, a.chs);
  // Plan with the slowest the seek may turn out (jitter): a plan that cuts it too fine would
  // lose a whole revolution whenever the seek runs long, as real firmware knows.
  if (jitter_ > 0 && from.cyl != a.chs.cyl) move += static_cast<std::int64_t>(std::ceil(static_cast<double>(move) * jitter_));
  std::int64_t arrive = t_mech + move;
  if (a.write) arrive += settle_ns_;
  return arrive + pos_mod(a.s_ns - arrive, rot_ns_) - t;
}

}  // namespace ds::sim
