#include "sim/mechanics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ds::sim {

namespace {
std::int64_t ms_to_ns(double ms) { return static_cast<std::int64_t>(std::llround(ms * 1e6)); }
// Format /2 seek jitter is a normal draw: the SPTF planner allows this many standard deviations
// (a plan then misses its sector on about 2 % of the seeks, each costing a revolution).
constexpr double kPlanJitterSd = 2.0;
constexpr double kOverheadFloor = 0.3;  // /2: the command overhead never drops below 0.3 × nominal
// Independent noise streams, each from the drive's seed, so that one key does not shift another.
constexpr std::uint64_t kOverheadStream = 0x6F76657268656164ull;
constexpr std::uint64_t kRecalStream = 0x726563616C696272ull;
}  // namespace

Mechanics::Mechanics(const DiskModel& m, Layout layout, SeekCurve seek, std::uint64_t seed)
    : model_(m), layout_(std::move(layout)), seek_(std::move(seek)), rng_(seed),
      overhead_rng_(seed ^ kOverheadStream) {
  rot_ns_ = layout_.rotation_ns();
  inv_rot_ = 1.0 / static_cast<double>(rot_ns_);
  overhead_ns_ = ms_to_ns(m.command_overhead_ms);
  head_switch_ns_ = ms_to_ns(m.head_switch_ms);
  settle_ns_ = ms_to_ns(m.controller.write_settle_ms.value_or(m.write_settle_ms));
  bulk_sector_ns_ = ms_to_ns(m.controller.bulk_sector_ms.value_or(0));
  if (const auto& b = m.controller.bus) {
    // DiskSim's block time on a bus is the slower of the bus's and the drive's (bulk sector) own,
    // and the interface rate stays a floor.
    const std::int64_t floor_ns = std::max(bulk_sector_ns_, interface_ns(m.logical_sector_bytes));
    bus_read_ns_ = std::max(ms_to_ns(b->read_block_ms), floor_ns);
    bus_write_ns_ = std::max(ms_to_ns(b->write_block_ms), floor_ns);
  }
  jitter_ = m.noise.seek_jitter_pct / 100.0;
  v2_ = m.format_version >= 2;
  short_seek_ = m.aam.short_seek_cylinders;
  per_physical_ = std::max<std::uint32_t>(1, m.physical_sector_bytes / m.logical_sector_bytes);
  overhead_sd_ns_ = ms_to_ns(m.noise.overhead_jitter_ms);
  for (const auto& r : m.remapped) remapped_.emplace_back(r.lba, ms_to_ns(r.extra_ms));
  std::sort(remapped_.begin(), remapped_.end());
  if (m.recalibration.every_s > 0) {
    recal_every_ns_ = std::llround(m.recalibration.every_s * 1e9);
    recal_ns_ = ms_to_ns(m.recalibration.duration_ms);
    next_recal_ = static_cast<std::int64_t>(Rng(seed ^ kRecalStream).below(static_cast<std::uint64_t>(recal_every_ns_)));
  }
  cache_.configure(m.cache.bytes, m.cache.segments, m.logical_sector_bytes);
  const bool write_back = m.controller.write_behind_level ? *m.controller.write_behind_level > 0 : m.cache.write_back;
  write_cache_ = write_back && cache_.enabled();
  look_ahead_ = cache_.enabled();
  set_aam_scales(1.0, 1.0, 0);
}

void Mechanics::set_aam_scales(double seek_scale, double rate_scale, std::int64_t now) {
  // The read-ahead timeline was computed for the old switch times: end it where the head is when
  // the mechanism is next free (the firmware aborts read-ahead for a SET FEATURES anyway).
  stop_stream(std::max(now, mech_free_));
  pos_memo_.valid = false;  // positions are about to follow other switch times
  seek_fp_ = std::llround(seek_scale * (1 << kFpShift));
  seek_floor_.clear();  // the seeks change with the scale
  switch_table_.clear();
  planned_table_.clear();
  // The rate scale r < 1 is a longer switch, never a longer sector: at a quiet level the head
  // settles slower after a track or cylinder switch, and a share of the switches overrun their
  // skew and wait one more revolution. The share is set so that a stretch whose clean stream
  // time is T costs T / r: (1/r − 1)·T / rotation revolutions, lost one at a time at the track
  // starts where that count steps up (evenly spread; lost_revs()). Rotation and sector time
  // stay as they are, so the drive keeps one rotation period.
  lost_per_ns_ = rate_scale < 1.0 ? (1.0 / rate_scale - 1.0) / static_cast<double>(rot_ns_) : 0.0;
  // Streaming pays a whole revolution wherever a switch outlasts its skew.
  layout_.set_switch_times(head_switch_ns_, std::max(seek_ns(1), head_switch_ns_),
                           [this](std::uint32_t d) { return std::max(seek_ns(d), head_switch_ns_); });
}

std::uint64_t Mechanics::track_first_lba(std::uint64_t lba) const {
  std::uint64_t first = 0, end = 0;
  layout_.locate(lba, &first, &end);
  return first;
}

std::uint64_t Mechanics::track_end_lba(std::uint64_t lba) const {
  std::uint64_t first = 0, end = 0;
  layout_.locate(lba, &first, &end);
  return end;
}

std::int64_t Mechanics::lost_revs(std::uint64_t lba) const {
  if (lost_per_ns_ == 0) return 0;
  lba = std::min(lba, layout_.capacity() - 1);
  const std::uint64_t track_start = track_first_lba(lba);
  return static_cast<std::int64_t>(std::floor(static_cast<double>(layout_.stream_ns(track_start)) * lost_per_ns_));
}

std::int64_t Mechanics::end_s(std::uint64_t end) const {
  Chs last;
  return layout_.end_ns(end, &last);
}

std::int64_t Mechanics::media_ns(std::uint64_t from, std::uint64_t end, std::int64_t s_from, Chs* last,
                                 TrackMemo* memo) const {
  const std::int64_t s_end = layout_.end_ns(end, last, memo ? &memo->first : nullptr, memo ? &memo->end : nullptr);
  if (memo) memo->at = {last->cyl, last->head};
  return s_end - s_from + rot_ns_ * (lost_revs(end - 1) - lost_revs(from));
}

std::int64_t Mechanics::media_ns(std::uint64_t from, std::uint64_t end) const {
  Chs last;
  return media_ns(from, end, layout_.stream_ns(from), &last);
}

std::int64_t Mechanics::interface_ns(std::uint64_t bytes) const {
  // MB/s = 10^6 bytes per second: bytes·1000/rate ns.
  return static_cast<std::int64_t>(std::ceil(static_cast<double>(bytes) * 1000.0 / model_.interface_mb_s));
}

std::int64_t Mechanics::buffer_ns(std::uint64_t bytes, bool write) const {
  const std::uint64_t blocks = (bytes + model_.logical_sector_bytes - 1) / model_.logical_sector_bytes;
  if (bus_on()) return static_cast<std::int64_t>(blocks) * (write ? bus_write_ns_ : bus_read_ns_);
  const std::int64_t by_rate = interface_ns(bytes);
  if (bulk_sector_ns_ == 0) return by_rate;
  // DiskSim's bulk sector transfer time against the bus rate: the slower of the two. Only for
  // data the buffer already holds or takes in (hits, write-behind): a media transfer overlaps
  // with the bus, and at 0.1 ms a sector the bus would hold the drives to 5 MB/s, a third of
  // their media rate (controller.bus says otherwise, block by block: bus_done).
  return std::max(by_rate, static_cast<std::int64_t>(blocks) * bulk_sector_ns_);
}

Access Mechanics::make_access(std::uint64_t lba, std::uint32_t sectors, bool write) const {
  Access a;
  a.lba = lba;
  a.sectors = sectors;
  a.write = write;
  a.chs = layout_.locate(lba, &a.s_ns);
  return a;
}

std::int64_t Mechanics::switch_ns(HeadPos from, const Chs& to) const {
  // A move on the same head is the seek alone (the 1-cylinder seek is what datasheets call
  // track to track); a head change overlaps the seek, so the slower of the two (DiskSim's rule).
  const std::uint32_t d = from.cyl > to.cyl ? from.cyl - to.cyl : to.cyl - from.cyl;
  const std::int64_t hs = from.head == to.head ? 0 : head_switch_ns_;
  if (d == 0) return hs;
  return std::max(d < switch_table_.size() ? std::int64_t{switch_table_[d]} : seek_ns(d), hs);
}

std::int64_t Mechanics::sequential_switch_ns(HeadPos from, const Chs& to) const {
  // The stream's own rule (the spec's and the layout's skews): the next cylinder costs
  // max(seek, head switch) whichever head it starts on.
  const std::uint32_t d = from.cyl > to.cyl ? from.cyl - to.cyl : to.cyl - from.cyl;
  if (d == 0) return from.head == to.head ? 0 : head_switch_ns_;
  return std::max(switch_ns(from, to), head_switch_ns_);
}

std::int64_t Mechanics::move_ns(HeadPos from, const Chs& to, bool write) {
  std::int64_t move = switch_ns(from, to);
  const bool seek = to.cyl != from.cyl;
  if (!v2_) {  // /1: the seek uniform within ±pct, the settle apart (kept exactly as it was)
    if (jitter_ > 0 && seek)
      move += static_cast<std::int64_t>(std::llround(static_cast<double>(move) * jitter_ * rng_.symmetric()));
    // (A negative settle, controller.write_settle_ms, can shorten a move but not below zero.)
    return write ? std::max<std::int64_t>(0, move + settle_ns_) : move;
  }
  // /2: the whole seek, settle included, with a standard deviation of pct (never below zero).
  if (write) move = std::max<std::int64_t>(0, move + settle_ns_);
  if (jitter_ > 0 && seek)
    move = std::llround(static_cast<double>(move) * std::max(0.0, 1.0 + jitter_ * rng_.normal()));
  return move;
}

std::int64_t Mechanics::overhead_draw(std::int64_t nominal) {
  if (overhead_sd_ns_ == 0) return nominal;
  const double v = static_cast<double>(nominal) + static_cast<double>(overhead_sd_ns_) * overhead_rng_.normal();
  return std::max(std::llround(v), std::llround(kOverheadFloor * static_cast<double>(nominal)));
}

std::size_t Mechanics::max_dirty_writes() const {
  // Level 1 holds one write behind; level 2 (and a plain write_back model) one per segment.
  if (model_.controller.write_behind_level == 1) return 1;
  return std::max<std::size_t>(1, model_.cache.segments);
}

std::int64_t Mechanics::command_overhead_ns(const Access& a) {
  if (!model_.controller.overheads) return overhead_ns_;
  const OverheadTable& o = *model_.controller.overheads;
  const int after = last_write_ ? 1 : 0;
  const std::int64_t tc = a.arrival_ns;  // the firmware picks its path when the command arrives
  const std::uint64_t end = a.lba + a.sectors;
  if (!a.write) {
    // A hit: all of its data is in the buffer already (a segment, or what the read-ahead has read).
    const int skip = stream_.active ? stream_.seg : -1;
    const bool hit = cache_.find(a.lba, a.sectors, skip) >= 0 ||
                     (stream_.active && a.lba >= window_first(tc) && end <= stream_pos(tc));
    return ms_to_ns(hit ? o.read_hit[after] : o.read_miss[after]);
  }
  // A write hits when write-behind takes it into the buffer without waiting for room.
  destage_started_before(tc);
  const std::uint64_t bytes = std::uint64_t{a.sectors} * model_.logical_sector_bytes;
  const bool hit = write_cache_ && !write_behind_busy(tc) && dirty_.size() < max_dirty_writes() &&
                   dirty_bytes_ + bytes <= model_.cache.bytes;
  return ms_to_ns(hit ? o.write_hit[after] : o.write_miss[after]);
}

std::int64_t Mechanics::completion_ns(const Access& a) const {
  if (!model_.controller.overheads) return 0;
  return ms_to_ns(a.write ? model_.controller.overheads->write_completion : model_.controller.overheads->read_completion);
}

std::int64_t Mechanics::recalibrate(std::int64_t t) {
  if (recal_every_ns_ == 0) return t;
  // A recalibration due while the mechanism works waits for the command in progress; the
  // read-ahead is dropped for it.
  while (next_recal_ <= t) {
    const std::int64_t start = std::max(next_recal_, mech_free_);
    stop_stream(start);
    recal_start_ = start;
    recal_end_ = mech_free_ = start + recal_ns_;
    next_recal_ += recal_every_ns_;
  }
  return t >= recal_start_ && t < recal_end_ ? recal_end_ : t;
}

std::int64_t Mechanics::remap_extra(std::uint64_t first, std::uint64_t end) const {
  std::int64_t extra = 0;
  auto it = std::lower_bound(remapped_.begin(), remapped_.end(), std::pair<std::uint64_t, std::int64_t>{first, 0});
  for (; it != remapped_.end() && it->first < end; ++it) extra += it->second;
  return extra;
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
  return stream_.t0 + end_s(end) - stream_.s0 + rot_ns_ * (lost_revs(end - 1) - stream_.l0);
}

std::uint64_t Mechanics::stream_pos(std::int64_t t) const {
  // A dispatch asks for the same position several times (where the head is, what the segment
  // holds, what is left to read): the last answer is kept with everything it depends on.
  PosMemo& m = pos_memo_;
  if (m.valid && m.t == t && m.lba0 == stream_.lba0 && m.limit == stream_.limit && m.t0 == stream_.t0 &&
      m.s0 == stream_.s0 && m.l0 == stream_.l0 && m.t_limit == stream_.t_limit)
    return m.pos;
  const std::uint64_t pos = stream_pos_at(t);
  m = {true, t, stream_.lba0, stream_.limit, stream_.t0, stream_.s0, stream_.l0, stream_.t_limit, pos};
  return pos;
}

std::uint64_t Mechanics::stream_pos_at(std::int64_t t) const {
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

std::uint64_t Mechanics::window_floor() const {
  const std::uint64_t seg = cache_.segment_sectors();
  return std::max(cache_[stream_.seg].first, stream_.lba0 > seg ? stream_.lba0 - seg : 0);
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
  const std::uint64_t lba = pos > stream_.lba0 ? pos - 1 : pos;
  // A stream stays on one track for hundreds of sectors: the last track looked up is kept.
  TrackMemo& m = track_memo_;
  if (lba < m.first || lba >= m.end) {
    const Chs c = layout_.locate(lba, &m.first, &m.end);
    m.at = {c.cyl, c.head};
  }
  return m.at;
}

void Mechanics::stop_stream(std::int64_t t) {
  if (!stream_.active) return;
  head_ = head_at(t);
  const std::uint64_t seg = cache_.segment_sectors();
  const std::uint64_t end = std::max({cache_[stream_.seg].end, stream_pos(t), stream_.served_end});
  const std::uint64_t first = std::max(window_first(t), end > seg ? end - seg : 0);
  cache_.set_range(stream_.seg, first, end);
  stream_.active = false;
}

std::uint64_t Mechanics::ahead_limit(std::uint64_t first, std::uint64_t end, std::uint64_t seg_first) const {
  if (!look_ahead_) return end;
  const std::uint64_t cap = layout_.capacity();
  std::uint64_t limit = std::min(cap, end + model_.cache.read_ahead_sectors);
  const auto& pf = model_.controller.prefetch;
  if (!pf || end >= cap) return limit;
  // A drive that waits for a stream reads nothing ahead of reads that do not continue one.
  if (sequential_run_ < pf->after_sequential_reads) return end;
  switch (pf->continuous_read) {
    case 0: return end;
    case 1: limit = std::min(limit, track_end_lba(end - 1)); break;
    case 2: limit = std::min(limit, cylinder_end_lba(end - 1)); break;
    case 4: {
      // DiskSim's one-track-ahead scheme: to the end of the track after the request, and one
      // track further when the segment already holds an earlier track (a stream goes on).
      std::uint64_t tf = 0, te = 0;
      layout_.locate(end, &tf, &te);
      limit = seg_first < tf ? std::min(cap, te + (te - tf)) : te;
      break;
    }
    default: break;  // 3: until the segment is full (read_ahead_sectors, the window)
  }
  // Read-ahead over requested 0: the prefetch may not push the request's own data out.
  if (pf->over_requested == 0 && cache_.enabled()) limit = std::min(limit, first + cache_.segment_sectors());
  return std::max(limit, end);
}

std::uint64_t Mechanics::cylinder_end_lba(std::uint64_t lba) const {
  const std::uint32_t cyl = layout_.locate(lba).cyl;
  std::uint64_t e = track_end_lba(lba);
  while (e < layout_.capacity() && layout_.locate(e).cyl == cyl) e = track_end_lba(e);
  return e;
}

void Mechanics::start_stream(int seg, std::uint64_t first, std::uint64_t from, std::int64_t s_from, std::uint64_t end,
                             std::int64_t t0) {
  stream_.active = true;
  stream_.seg = seg;
  stream_.lba0 = from;
  stream_.s0 = s_from;
  stream_.l0 = lost_revs(from);
  stream_.t0 = t0;
  stream_.limit = ahead_limit(first, end, cache_[seg].first);
  stream_.t_limit = reach_end(stream_.limit);
  stream_.served_end = end;
  cache_.touch(seg);
}

// ---- service ----------------------------------------------------------------------------------

Mechanics::ZeroLatency Mechanics::zero_latency(const Access& a, const Chs& to, std::int64_t arrive) const {
  ZeroLatency z;
  // Positions on the track are physical sectors (spares pass under the head too); the mapping
  // back to LBAs counts the track's LBAs from its first, which is exact without slipped sectors.
  const std::uint32_t n = layout_.zones()[to.zone].surface[to.head].spt;
  const std::uint64_t first = track_first_lba(a.lba), end = a.lba + a.sectors;
  z.cached_first = a.lba;
  z.track_end = track_end_lba(a.lba);
  // A read going on to the next track needs the rest of this one in order anyway.
  if (end > z.track_end) return z;
  // The head reads from the next sector boundary on (sector h), round the track.
  const double sector = static_cast<double>(rot_ns_) / n;
  const double offset = static_cast<double>(rot_mod(arrive - layout_.stream_ns(first)));
  auto h = static_cast<std::uint64_t>(std::ceil(offset / sector - 1e-9));
  if (h >= n) h = 0;
  const std::uint64_t i0 = to.sector, i1 = layout_.locate(end - 1).sector;
  if (h <= i0) {  // before the request: the sectors from h on come first
    z.cached_first = first + h;
    return z;
  }
  z.cached_first = first;  // past it, or inside: the head wraps round through the track start
  if (h > i1) return z;
  // Inside: the last of its sectors to pass is h − 1, one revolution after h.
  z.whole_track = true;
  z.done = arrive + std::llround(static_cast<double>(h) * sector - offset) + rot_ns_;
  return z;
}

std::int64_t Mechanics::media_access(const Access& a, std::uint64_t from, std::int64_t t_mech,
                                     std::int64_t* data_start, ZeroLatency* zl, const WritePacing* pace) {
  stop_stream(t_mech);
  std::uint64_t end = a.lba + a.sectors;
  // 512e: a write that does not cover whole physical sectors is a read-modify-write. The head
  // reads the physical sectors it touches as they pass, turns once more and writes them whole:
  // the media time of the widened span and one revolution more (however long the write: the
  // partly written sectors are its first and last, read on the first pass when they share a
  // track, which is all the model charges).
  const bool rmw = a.write && per_physical_ > 1 && (from % per_physical_ != 0 || end % per_physical_ != 0);
  if (rmw) {
    from -= from % per_physical_;
    end = std::min(layout_.capacity(), (end + per_physical_ - 1) / per_physical_ * per_physical_);
  }
  const Chs to = from == a.lba ? a.chs : layout_.locate(from);
  const std::int64_t s_from = from == a.lba ? a.s_ns : layout_.stream_ns(from);
  std::int64_t move = move_ns(head_, to, a.write);
  if (pace) move = std::max(move, pace->min_move_ns);
  const std::int64_t arrive = t_mech + move;
  const std::int64_t start = arrive + rot_mod(s_from - arrive);
  const std::int64_t extra = defect_extra(from, end) + (a.write ? 0 : remap_extra(from, end));
  *data_start = start + extra;
  // The last sector's track is where the read-ahead goes on from: head_at's memo starts there
  // (the next dispatch asks where the head is, mostly a few sectors on).
  Chs last;
  std::int64_t done = *data_start + media_ns(from, end, s_from, &last, &track_memo_) + (rmw ? rot_ns_ : 0);
  if (zl) {
    *zl = zero_latency(a, to, arrive);
    if (zl->whole_track) done = zl->done + extra;
  }
  // (A read-modify-write has the data before it starts: its first pass reads.)
  if (pace && !rmw) done = bus_paced_write(from, end, s_from, *data_start, *pace);
  head_ = {last.cyl, last.head};
  mech_free_ = done;
  return done;
}

// Within a track the head passes a sector every rotation / spt and the bus delivers a block every
// write block time: the data's lead over the head changes linearly, so a track whose first and
// last sectors both have their data in time has it for every sector, and only a track where one
// of them does not is walked sector by sector. Each overrun costs whole revolutions (the sector
// comes back under the head once per turn), after which the head goes on from that sector.
std::int64_t Mechanics::bus_paced_write(std::uint64_t from, std::uint64_t end, std::int64_t s_from,
                                        std::int64_t start, const WritePacing& pace) const {
  const std::uint64_t first = from;
  auto in_buffer = [&](std::uint64_t k) {
    return pace.bus_from + static_cast<std::int64_t>(std::max(k - first + 1, pace.min_blocks)) * bus_write_ns_;
  };
  std::uint64_t k0 = from;
  std::int64_t origin = start, s0 = s_from, lost0 = lost_revs(from);
  auto under_head = [&](std::uint64_t k) {
    return origin + layout_.stream_ns(k) - s0 + rot_ns_ * (lost_revs(k) - lost0);
  };
  for (std::uint64_t p = from; p < end;) {
    const std::uint64_t q = std::min(end, track_end_lba(p));
    if (in_buffer(p) <= under_head(p) && in_buffer(q - 1) <= under_head(q - 1)) {
      p = q;
      continue;
    }
    std::uint64_t k = p;
    while (in_buffer(k) <= under_head(k)) ++k;
    const std::int64_t at = under_head(k);
    const std::int64_t turns = (in_buffer(k) - at + rot_ns_ - 1) / rot_ns_;
    origin = at + turns * rot_ns_;
    s0 = layout_.stream_ns(k);
    lost0 = lost_revs(k);
    k0 = p = k;  // the rest of this track again, from the new start
  }
  Chs last;
  return origin + media_ns(k0, end, s0, &last);
}

// DiskSim's write path for a drive that does not cache writes: the drive takes the data from the
// decode on (after its data preparation) while the head seeks; on the extra write disconnect
// path it lets the bus go first and reselects after the inter-disconnect delay, the seek starting
// at the extra command overhead plus the seek delta (serve charged that as the overhead, so t is
// then). Once the data has crossed it disconnects, and once the media is written it reselects to
// send the status. The drives with an extra write disconnect also hold the head until
// min(blocks, 10) blocks are in (15 from 45 blocks on: DiskSim 4.0 disk_buffer_block_available).
std::int64_t Mechanics::write_through_bus(const Access& a, std::int64_t t, std::int64_t t_mech) {
  static const WriteReconnectSpec kNone{};
  const WriteReconnectSpec& w = model_.controller.write_reconnect ? *model_.controller.write_reconnect : kNone;
  const bool extra = extra_write_disconnect(a);
  WritePacing pace;
  pace.bus_from = t + ms_to_ns(w.data_prep_ms);
  if (extra) {
    const ExtraDisconnectSpec& x = *w.extra;
    pace.bus_from += ms_to_ns(x.disconnect_ms + x.inter_disconnect_ms + w.reselect_ms - x.seek_delta_ms);
  }
  if (w.extra) pace.min_blocks = std::min<std::uint64_t>(a.sectors, a.sectors < 45 ? 10 : 15);
  pace.min_move_ns = ms_to_ns(w.min_seek_ms);
  std::int64_t data_start = 0;
  const std::int64_t written = media_access(a, a.lba, t_mech, &data_start, nullptr, &pace);
  const std::int64_t crossed = pace.bus_from + static_cast<std::int64_t>(a.sectors) * bus_write_ns_;
  const double disconnect = extra ? w.extra->second_disconnect_ms : w.disconnect_ms;
  const double reselect = extra ? w.extra->reselect_ms : w.reselect_ms;
  return std::max(written, crossed + ms_to_ns(disconnect)) + ms_to_ns(reselect);
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
  destage_end_ = media_access(d.access, d.access.lba, start, &data_start);
}

void Mechanics::destage_started_before(std::int64_t t) {
  while (!dirty_.empty() && destage_start() < t) destage_one();
}

std::int64_t Mechanics::flush() {
  while (!dirty_.empty()) destage_one();
  return mech_free_;
}

std::int64_t Mechanics::occupy(std::int64_t t, std::uint64_t lba, std::int64_t busy_ns) {
  const std::int64_t start = std::max(t, flush());
  stop_stream(start);
  const Chs to = layout_.locate(lba);
  mech_free_ = start + switch_ns(head_, to) + busy_ns;
  head_ = {to.cyl, to.head};
  return mech_free_;
}

std::int64_t Mechanics::serve_log_write(const Access& a, std::int64_t t_dispatch) {
  const std::int64_t nominal = command_overhead_ns(a);
  const std::int64_t t = recalibrate(std::max(t_dispatch, a.arrival_ns + overhead_draw(nominal)));
  const std::uint64_t bytes = std::uint64_t{a.sectors} * model_.logical_sector_bytes;
  const std::int64_t done = std::max(occupy(t, a.lba, media_ns(a.lba, a.lba + a.sectors)), t + interface_ns(bytes));
  cache_.invalidate(a.lba, a.sectors, -1);
  last_write_ = true;
  last_write_end_ = a.lba + a.sectors;
  return done + completion_ns(a);
}

std::int64_t Mechanics::write_back(const Access& a, std::int64_t t) {
  const std::uint64_t bytes = std::uint64_t{a.sectors} * model_.logical_sector_bytes;
  std::int64_t ack = t + buffer_ns(bytes, true);
  // The buffer holds at most cache.bytes of data not yet on the media, one write per segment
  // (a segmented cache gives each write a segment): make room first. The segment bound keeps the
  // backlog to what real firmware holds (tens of commands, not thousands of small writes).
  const std::size_t max_writes = max_dirty_writes();
  while (!dirty_.empty() && (dirty_bytes_ + bytes > model_.cache.bytes || dirty_.size() >= max_writes)) {
    destage_one();
    ack = std::max(ack, mech_free_);
  }
  if (write_behind_busy(t)) ack = std::max(ack, destage_end_);
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
  // The command is decoded (overhead) from its arrival on; t is when that is done. (On the extra
  // write disconnect path the mechanism starts at the extra command overhead plus the seek delta.)
  const std::int64_t nominal =
      extra_write_disconnect(a)
          ? ms_to_ns(model_.controller.write_reconnect->extra->command_ms +
                     model_.controller.write_reconnect->extra->seek_delta_ms)
          : command_overhead_ns(a);
  const std::int64_t t = recalibrate(std::max(t_dispatch, a.arrival_ns + overhead_draw(nominal)));
  const std::int64_t done = serve_decoded(a, t);
  last_write_ = a.write;
  if (a.write) last_write_end_ = a.lba + a.sectors;
  return done + completion_ns(a);
}

// controller.bus: the blocks of [a.lba, end) cross the bus one by one in order, from when the
// drive holds the bus, each once it is in the buffer: at(e) is when the sector before e is
// there (at most t). Within a track the sectors pass at one rate, so the last block's time
// follows from the first and last sector of each track the read touches (and of each side of
// `split`, before which everything is in the buffer already).
template <class At>
std::int64_t Mechanics::bus_done(const Access& a, std::int64_t t, std::uint64_t split, At&& at) const {
  const std::uint64_t end = a.lba + a.sectors;
  const std::int64_t b = bus_read_ns_;
  auto ready = [&](std::uint64_t e) { return e <= split ? t : std::max(t, at(e)); };
  std::int64_t r = t;
  if (const auto& w = model_.controller.read_reconnect) {
    // A read that would wait for the media lets the bus go and takes it back once its
    // high-water mark of blocks is in the buffer (DiskSim: at least one block).
    const std::uint64_t seg = cache_.enabled() ? cache_.segment_sectors() : a.sectors;
    const double base = w->by_request_size ? static_cast<double>(std::min<std::uint64_t>(seg, a.sectors))
                                           : static_cast<double>(seg);
    const auto mark = std::clamp<std::uint64_t>(static_cast<std::uint64_t>(w->by_request_size
                                                    ? std::floor(base * w->high_water)
                                                    : std::ceil(base * w->high_water - 1e-9)),
                                                1, a.sectors);
    const std::int64_t reached = ready(a.lba + mark);
    if (reached > t)
      r = std::max(t + ms_to_ns(w->disconnect_ms[last_write_ ? 1 : 0]), reached) +
          ms_to_ns(w->first_reselect_ms + w->data_prep_ms);
  }
  std::int64_t c = r + static_cast<std::int64_t>(a.sectors) * b;
  for (std::uint64_t p = a.lba; p < end;) {
    std::uint64_t q = std::min(end, track_end_lba(p));
    if (p < split) q = std::min(q, split);
    c = std::max(c, ready(p + 1) + static_cast<std::int64_t>(end - p) * b);
    c = std::max(c, ready(q) + static_cast<std::int64_t>(end - q + 1) * b);
    p = q;
  }
  return c;
}

std::int64_t Mechanics::serve_from_stream(const Access& a, std::int64_t t, std::int64_t t_if) {
  // The head is still reading on (or has read) through this request: no positioning. Only
  // what it has not read yet can cost a slow region's time. (What it has read is there now;
  // after a zero-latency read that is the whole track before the stream's start.)
  const std::uint64_t end = a.lba + a.sectors;
  const std::uint64_t unread = std::max(a.lba, stream_pos(t));
  if (const std::int64_t extra = defect_extra(unread, end) + remap_extra(unread, end); extra > 0)
    pause_stream(t, extra);
  const std::int64_t done = end <= unread ? t : reach_end(end);
  // (controller.prefetch.on_idle_hit false: a read the buffer holds whole starts no read-ahead.)
  const bool idle_hit = end <= unread && model_.controller.prefetch && !model_.controller.prefetch->on_idle_hit;
  if (end > stream_.limit || (look_ahead_ && !idle_hit)) {
    stream_.limit = std::max(stream_.limit, ahead_limit(a.lba, end, cache_[stream_.seg].first));
    stream_.t_limit = reach_end(stream_.limit);
  }
  mech_free_ = std::max(mech_free_, done);
  stream_.served_end = std::max(stream_.served_end, end);
  cache_.touch(stream_.seg);
  if (!bus_on()) return std::max(done, t_if);
  return bus_done(a, t, unread, [this](std::uint64_t e) { return reach_end(e); });
}

std::int64_t Mechanics::serve_decoded(const Access& a, std::int64_t t) {
  const std::uint64_t bytes = std::uint64_t{a.sectors} * model_.logical_sector_bytes;
  const std::int64_t t_if = t + (bus_on() ? buffer_ns(bytes, a.write) : interface_ns(bytes));
  // What the mechanism destaged while it had nothing else to do.
  destage_started_before(t);
  const std::uint64_t end = a.lba + a.sectors;
  if (a.write) {
    sequential_run_ = 0;
    if (write_cache_) return write_back(a, t);
    flush();  // a write-through write goes to the media after everything buffered before it
    const std::int64_t t_mech = std::max(t, mech_free_);
    stop_stream(t_mech);
    cache_.invalidate(a.lba, a.sectors, -1);
    if (bus_on()) return write_through_bus(a, t, t_mech);
    std::int64_t data_start = 0;
    return std::max(media_access(a, a.lba, t_mech, &data_start), t_if);
  }
  sequential_run_ = a.lba == last_read_end_ ? sequential_run_ + 1 : 0;
  last_read_end_ = end;
  const int skip = stream_.active ? stream_.seg : -1;
  if (int i = cache_.find(a.lba, a.sectors, skip); i >= 0) {
    cache_.touch(i);
    return t + buffer_ns(bytes, false);
  }
  std::uint64_t from = a.lba;
  int seg = -1;
  if (stream_.active) {
    if (a.lba <= stream_.limit && a.lba >= window_floor() && a.lba >= window_first(t)) {
      if (t < stream_.t_limit || end <= stream_.limit) return serve_from_stream(a, t, t_if);
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
    if (seg >= 0) cache_.set_range(seg, a.lba, a.lba);
  }
  std::int64_t data_start = 0;
  ZeroLatency zl;
  const bool zero_latency = model_.cache.zero_latency_read && from == a.lba;
  const std::int64_t done = media_access(a, from, t_mech, &data_start, zero_latency ? &zl : nullptr);
  // (A zero-latency read of a whole track sends its data once the track is read.)
  const auto media_done = [&](std::uint64_t e) {
    return zero_latency && zl.whole_track ? done : data_start + media_ns(from, e);
  };
  const std::int64_t finish = bus_on() ? bus_done(a, t, from, media_done) : std::max(done, t_if);
  if (seg < 0) return finish;
  if (zero_latency && zl.whole_track) {
    // The whole track is in the segment; the read-ahead goes on from the next one.
    std::int64_t t_next = done;
    if (zl.track_end < layout_.capacity()) {
      const std::int64_t ready = done + sequential_switch_ns(head_, layout_.locate(zl.track_end));
      t_next = ready + rot_mod(layout_.stream_ns(zl.track_end) - ready);
    }
    start_stream(seg, a.lba, zl.track_end, layout_.stream_ns(zl.track_end), zl.track_end, t_next);
  } else {
    start_stream(seg, a.lba, from, from == a.lba ? a.s_ns : layout_.stream_ns(from), end, data_start);
  }
  if (zero_latency) cache_.set_range(seg, zl.cached_first, cache_[seg].end);
  return finish;
}

Mechanics::SptfDecision Mechanics::sptf_decision(std::int64_t t) const {
  SptfDecision d;
  d.t = t;
  d.from = head_at(std::max(t, mech_free_));
  d.skip = stream_.active ? stream_.seg : -1;
  d.streaming = stream_.active && t < stream_.t_limit;
  if (d.streaming) {
    d.window_first = window_first(t);
    d.limit = stream_.limit;
  }
  d.ready = std::max(t, mech_free_);
  // A command that needs the media pays the miss overhead (controller.overheads_ms).
  d.read_overhead = d.write_overhead = overhead_ns_;
  if (const auto& o = model_.controller.overheads) {
    d.read_overhead = ms_to_ns(o->read_miss[last_write_ ? 1 : 0]);
    d.write_overhead = ms_to_ns(o->write_miss[last_write_ ? 1 : 0]);
  }
  if (seek_floor_.empty()) build_seek_floor();
  return d;
}

std::int64_t Mechanics::planned_seek_ns(std::uint32_t dist, bool head_change) const {
  // planned_move never decreases as the move grows, so the plan of max(seek, head switch) is the
  // larger of the two plans (planned_table_[0] is the head switch's).
  const std::int64_t seek = dist < planned_table_.size() ? planned_table_[dist] : planned_move(seek_ns(dist));
  return head_change ? std::max(seek, planned_move(head_switch_ns_)) : seek;
}

std::int64_t Mechanics::planned_move(std::int64_t move) const {
  if (jitter_ > 0) {
    // Plan with the slowest the seek may turn out (jitter): a plan that cuts it too fine would
    // lose a whole revolution whenever the seek runs long, as real firmware knows. (/2: the
    // jitter is normal, unbounded: kPlanJitterSd standard deviations.) std::ceil without the
    // library call (exact: the product is far below 2^53).
    const double x = static_cast<double>(move) * (v2_ ? kPlanJitterSd * jitter_ : jitter_);
    auto c = static_cast<std::int64_t>(x);
    if (static_cast<double>(c) < x) ++c;
    move += c;
  }
  return move;
}

void Mechanics::build_seek_floor() const {
  // The least planned move over each bucket of distances, from every distance (no assumption
  // that the curve rises: a model's table need not). Built at the first SPTF decision after the
  // AAM level changed: one pass over the cylinders, a few ms for the largest drives.
  const std::uint32_t cyls = std::max<std::uint32_t>(layout_.cylinders(), 2);
  floor_shift_ = 0;
  while ((cyls >> floor_shift_) > kSeekFloorBuckets) ++floor_shift_;
  seek_floor_.assign((cyls >> floor_shift_) + 1, std::numeric_limits<std::int64_t>::max());
  // Every distance's move and planned move on the way, kept: the scorer and the service ask for
  // several per command, and a fitted curve costs a power function each time. (A move fits 32
  // bits: it is far below 4 s.)
  switch_table_.assign(cyls, 0);
  planned_table_.assign(cyls, 0);
  for (std::uint32_t dist = 1; dist < cyls; ++dist) {
    const std::int64_t move = seek_ns(dist), planned = planned_move(move);  // the same head's move
    switch_table_[dist] = static_cast<std::uint32_t>(move);
    planned_table_[dist] = static_cast<std::uint32_t>(planned);
    std::int64_t& f = seek_floor_[dist >> floor_shift_];
    f = std::min(f, planned);
  }
  planned_table_[0] = static_cast<std::uint32_t>(planned_move(head_switch_ns_));
  seek_floor_beyond_ = seek_floor_;
  for (std::size_t b = seek_floor_beyond_.size() - 1; b-- > 0;)
    seek_floor_beyond_[b] = std::min(seek_floor_beyond_[b], seek_floor_beyond_[b + 1]);
}

}  // namespace ds::sim
