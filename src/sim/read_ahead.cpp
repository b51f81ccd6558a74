#include "sim/read_ahead.hpp"

#include <algorithm>

namespace ds::sim {

std::int64_t ReadAhead::reach_ns(std::uint64_t lba) const {
  return s_.t0 + pos_->layout().stream_ns(lba) - s_.s0 + pos_->rotation_ns() * (pos_->lost_revs(lba) - s_.l0);
}

std::int64_t ReadAhead::reach_end(std::uint64_t end) const {
  return s_.t0 + pos_->end_s(end) - s_.s0 + pos_->rotation_ns() * (pos_->lost_revs(end - 1) - s_.l0);
}

std::uint64_t ReadAhead::pos(std::int64_t t) const {
  // A dispatch asks for the same position several times (where the head is, what the segment
  // holds, what is left to read): the last answer is kept with everything it depends on.
  PosMemo& m = memo_;
  if (m.valid && m.t == t && m.lba0 == s_.lba0 && m.limit == s_.limit && m.t0 == s_.t0 && m.s0 == s_.s0 &&
      m.l0 == s_.l0 && m.t_limit == s_.t_limit)
    return m.pos;
  const std::uint64_t p = pos_at(t);
  m = {true, t, s_.lba0, s_.limit, s_.t0, s_.s0, s_.l0, s_.t_limit, p};
  return p;
}

std::uint64_t ReadAhead::pos_at(std::int64_t t) const {
  if (t >= s_.t_limit) return s_.limit;
  if (t <= s_.t0) return s_.lba0;
  const Layout& layout = pos_->layout();
  if (!pos_->loses_revs()) {
    const std::uint64_t lba = layout.lba_at_stream_ns(s_.s0 + (t - s_.t0));
    return std::clamp(lba, s_.lba0, s_.limit);
  }
  // With revolutions lost at some switches: the last sector whose start the head has reached
  // (reach_ns is monotonic), then within it as without losses.
  std::uint64_t lo = s_.lba0, hi = s_.limit;  // reach_ns(lo) <= t < reach_ns(hi)
  while (hi - lo > 1) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    (reach_ns(mid) <= t ? lo : hi) = mid;
  }
  const std::uint64_t lba = layout.lba_at_stream_ns(layout.stream_ns(lo) + (t - reach_ns(lo)));
  return std::clamp(lba, lo, lo + 1);
}

std::uint64_t ReadAhead::window_first(std::int64_t t) const {
  const std::uint64_t p = pos(t), seg = cache_->segment_sectors();
  return std::max((*cache_)[s_.seg].first, p > seg ? p - seg : 0);
}

std::uint64_t ReadAhead::window_floor() const {
  const std::uint64_t seg = cache_->segment_sectors();
  return std::max((*cache_)[s_.seg].first, s_.lba0 > seg ? s_.lba0 - seg : 0);
}

void ReadAhead::pause(std::int64_t t, std::int64_t extra) {
  const std::uint64_t p = pos(t);
  const std::int64_t at = reach_ns(p);
  s_.lba0 = p;
  s_.s0 = pos_->layout().stream_ns(p);
  s_.l0 = pos_->lost_revs(p);
  s_.t0 = at + extra;
  s_.t_limit = reach_end(s_.limit);
}

HeadPos ReadAhead::head_at(std::int64_t t, HeadPos rest) const {
  if (!s_.active) return rest;
  const std::uint64_t p = pos(t);
  const std::uint64_t lba = p > s_.lba0 ? p - 1 : p;
  // A stream stays on one track for hundreds of sectors: the last track looked up is kept.
  TrackMemo& m = track_memo_;
  if (lba < m.first || lba >= m.end) {
    const Chs c = pos_->layout().locate(lba, &m.first, &m.end);
    m.at = {c.cyl, c.head};
  }
  return m.at;
}

HeadPos ReadAhead::stop(std::int64_t t) {
  const HeadPos at = head_at(t, {});
  const std::uint64_t seg = cache_->segment_sectors();
  const std::uint64_t end = std::max({(*cache_)[s_.seg].end, pos(t), s_.served_end});
  const std::uint64_t first = std::max(window_first(t), end > seg ? end - seg : 0);
  cache_->set_range(s_.seg, first, end);
  s_.active = false;
  return at;
}

void ReadAhead::served(std::uint64_t first, std::uint64_t end, bool idle_hit) {
  if (end > s_.limit || (look_ahead_ && !idle_hit)) {
    s_.limit = std::max(s_.limit, ahead_limit(first, end, (*cache_)[s_.seg].first));
    s_.t_limit = reach_end(s_.limit);
  }
  s_.served_end = std::max(s_.served_end, end);
  cache_->touch(s_.seg);
}

std::uint64_t ReadAhead::ahead_limit(std::uint64_t first, std::uint64_t end, std::uint64_t seg_first) const {
  if (!look_ahead_) return end;
  const Layout& layout = pos_->layout();
  const std::uint64_t cap = layout.capacity();
  std::uint64_t limit = std::min(cap, end + model_->cache.read_ahead_sectors);
  const auto& pf = model_->controller.prefetch;
  if (!pf || end >= cap) return limit;
  // A drive that waits for a stream reads nothing ahead of reads that do not continue one.
  if (run_ < pf->after_sequential_reads) return end;
  switch (pf->continuous_read) {
    case 0: return end;
    case 1: limit = std::min(limit, pos_->track_end_lba(end - 1)); break;
    case 2: limit = std::min(limit, pos_->cylinder_end_lba(end - 1)); break;
    case 4: {
      // DiskSim's one-track-ahead scheme: to the end of the track after the request, and one
      // track further when the segment already holds an earlier track (a stream goes on).
      std::uint64_t tf = 0, te = 0;
      layout.locate(end, &tf, &te);
      limit = seg_first < tf ? std::min(cap, te + (te - tf)) : te;
      break;
    }
    default: break;  // 3: until the segment is full (read_ahead_sectors, the window)
  }
  // Read-ahead over requested 0: the prefetch may not push the request's own data out.
  if (pf->over_requested == 0 && cache_->enabled()) limit = std::min(limit, first + cache_->segment_sectors());
  return std::max(limit, end);
}

void ReadAhead::start(int seg, std::uint64_t first, std::uint64_t from, std::int64_t s_from, std::uint64_t end,
                      std::int64_t t0) {
  s_.active = true;
  s_.seg = seg;
  s_.lba0 = from;
  s_.s0 = s_from;
  s_.l0 = pos_->lost_revs(from);
  s_.t0 = t0;
  s_.limit = ahead_limit(first, end, (*cache_)[seg].first);
  s_.t_limit = reach_end(s_.limit);
  s_.served_end = end;
  cache_->touch(seg);
}

}  // namespace ds::sim
