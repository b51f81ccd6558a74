#include "sim/positioner.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ds::sim {

namespace {
// Format /2 seek jitter is a normal draw: the SPTF planner allows this many standard deviations
// (a plan then misses its sector on about 2 % of the seeks, each costing a revolution).
constexpr double kPlanJitterSd = 2.0;
}  // namespace

Positioner::Positioner(const DiskModel& m, Layout layout, SeekCurve seek, std::uint64_t seed)
    : layout_(std::move(layout)), seek_(std::move(seek)), rng_(seed) {
  rot_ns_ = layout_.rotation_ns();
  inv_rot_ = 1.0 / static_cast<double>(rot_ns_);
  head_switch_ns_ = ms_to_ns(m.head_switch_ms);
  settle_ns_ = ms_to_ns(m.controller.write_settle_ms.value_or(m.write_settle_ms));
  jitter_ = m.noise.seek_jitter_pct / 100.0;
  v2_ = m.format_version >= 2;
  short_seek_ = m.aam.short_seek_cylinders;
}

void Positioner::set_aam_scales(double seek_scale, double rate_scale) {
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

std::uint64_t Positioner::track_first_lba(std::uint64_t lba) const {
  std::uint64_t first = 0, end = 0;
  layout_.locate(lba, &first, &end);
  return first;
}

std::uint64_t Positioner::track_end_lba(std::uint64_t lba) const {
  std::uint64_t first = 0, end = 0;
  layout_.locate(lba, &first, &end);
  return end;
}

std::uint64_t Positioner::cylinder_end_lba(std::uint64_t lba) const {
  const std::uint32_t cyl = layout_.locate(lba).cyl;
  std::uint64_t e = track_end_lba(lba);
  while (e < layout_.capacity() && layout_.locate(e).cyl == cyl) e = track_end_lba(e);
  return e;
}

std::int64_t Positioner::lost_revs(std::uint64_t lba) const {
  if (lost_per_ns_ == 0) return 0;
  lba = std::min(lba, layout_.capacity() - 1);
  const std::uint64_t track_start = track_first_lba(lba);
  return static_cast<std::int64_t>(std::floor(static_cast<double>(layout_.stream_ns(track_start)) * lost_per_ns_));
}

std::int64_t Positioner::end_s(std::uint64_t end) const {
  Chs last;
  return layout_.end_ns(end, &last);
}

std::int64_t Positioner::media_ns(std::uint64_t from, std::uint64_t end, std::int64_t s_from, Chs* last,
                                  TrackMemo* memo) const {
  const std::int64_t s_end = layout_.end_ns(end, last, memo ? &memo->first : nullptr, memo ? &memo->end : nullptr);
  if (memo) memo->at = {last->cyl, last->head};
  return s_end - s_from + rot_ns_ * (lost_revs(end - 1) - lost_revs(from));
}

std::int64_t Positioner::media_ns(std::uint64_t from, std::uint64_t end) const {
  Chs last;
  return media_ns(from, end, layout_.stream_ns(from), &last);
}

std::int64_t Positioner::switch_ns(HeadPos from, const Chs& to) const {
  // A move on the same head is the seek alone (the 1-cylinder seek is what datasheets call
  // track to track); a head change overlaps the seek, so the slower of the two (DiskSim's rule).
  const std::uint32_t d = from.cyl > to.cyl ? from.cyl - to.cyl : to.cyl - from.cyl;
  const std::int64_t hs = from.head == to.head ? 0 : head_switch_ns_;
  if (d == 0) return hs;
  return std::max(d < switch_table_.size() ? std::int64_t{switch_table_[d]} : seek_ns(d), hs);
}

std::int64_t Positioner::sequential_switch_ns(HeadPos from, const Chs& to) const {
  // The stream's own rule (the spec's and the layout's skews): the next cylinder costs
  // max(seek, head switch) whichever head it starts on.
  const std::uint32_t d = from.cyl > to.cyl ? from.cyl - to.cyl : to.cyl - from.cyl;
  if (d == 0) return from.head == to.head ? 0 : head_switch_ns_;
  return std::max(switch_ns(from, to), head_switch_ns_);
}

std::int64_t Positioner::move_ns(HeadPos from, const Chs& to, bool write, MoveParts* parts) {
  std::int64_t move = switch_ns(from, to);
  const bool seek = to.cyl != from.cyl;
  std::int64_t settled = 0;  // the move before the settle is added (for parts)
  if (!v2_) {  // /1: the seek uniform within ±pct, the settle apart (kept exactly as it was)
    if (jitter_ > 0 && seek)
      move += static_cast<std::int64_t>(std::llround(static_cast<double>(move) * jitter_ * rng_.symmetric()));
    settled = move;
    // (A negative settle, controller.write_settle_ms, can shorten a move but not below zero.)
    if (write) move = std::max<std::int64_t>(0, move + settle_ns_);
  } else {
    // /2: the whole seek, settle included, with a standard deviation of pct (never below zero).
    // The settle's share of a jittered move is the settle itself, as far as the move allows.
    settled = move;
    if (write) move = std::max<std::int64_t>(0, move + settle_ns_);
    if (jitter_ > 0 && seek)
      move = std::llround(static_cast<double>(move) * std::max(0.0, 1.0 + jitter_ * rng_.normal()));
    if (write) settled = move - std::clamp<std::int64_t>(settle_ns_, 0, move);
  }
  if (parts) {
    parts->settle = std::clamp<std::int64_t>(move - settled, 0, move);
    parts->seek = move - parts->settle;
  }
  return move;
}

std::int64_t Positioner::planned_seek_ns(std::uint32_t dist, bool head_change) const {
  // planned_move never decreases as the move grows, so the plan of max(seek, head switch) is the
  // larger of the two plans (planned_table_[0] is the head switch's).
  const std::int64_t seek = dist < planned_table_.size() ? planned_table_[dist] : planned_move(seek_ns(dist));
  return head_change ? std::max(seek, planned_move(head_switch_ns_)) : seek;
}

std::int64_t Positioner::planned_move(std::int64_t move) const {
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

void Positioner::build_seek_floor() const {
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

ZeroLatency Positioner::zero_latency(std::uint64_t lba, std::uint32_t sectors, const Chs& to,
                                     std::int64_t arrive) const {
  ZeroLatency z;
  // Positions on the track are physical sectors (spares pass under the head too); the mapping
  // back to LBAs counts the track's LBAs from its first, which is exact without slipped sectors.
  const std::uint32_t n = layout_.zones()[to.zone].surface[to.head].spt;
  const std::uint64_t first = track_first_lba(lba), end = lba + sectors;
  z.cached_first = lba;
  z.track_end = track_end_lba(lba);
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

// Within a track the head passes a sector every rotation / spt and the bus delivers a block every
// write block time: the data's lead over the head changes linearly, so a track whose first and
// last sectors both have their data in time has it for every sector, and only a track where one
// of them does not is walked sector by sector. Each overrun costs whole revolutions (the sector
// comes back under the head once per turn), after which the head goes on from that sector.
std::int64_t Positioner::paced_write(std::uint64_t from, std::uint64_t end, std::int64_t s_from,
                                     std::int64_t start, const WritePacing& pace) const {
  const std::uint64_t first = from;
  auto in_buffer = [&](std::uint64_t k) {
    return pace.bus_from + static_cast<std::int64_t>(std::max(k - first + 1, pace.min_blocks)) * pace.block_ns;
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

}  // namespace ds::sim
