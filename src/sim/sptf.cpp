#include "sim/sptf.hpp"

#include <algorithm>
#include <limits>

namespace ds::sim {

// ---- the queue -------------------------------------------------------------------------------

void CommandQueue::push(const Access& a, std::uint16_t slot, const SegmentCache* cache) {
  if (holders_.size() <= slot) holders_.resize(std::size_t{slot} + 1, 0);
  if (cache) {
    // The others first, so that one journal position holds for every count.
    sync(*cache);
    holders_[slot] = cache->holders(a.lba, a.sectors);
    counted_ = true;
  }
  e_.push_back({a, slot});
  const Span s{a.lba, a.sectors, slot};
  by_lba_.insert(std::upper_bound(by_lba_.begin(), by_lba_.end(), s), s);
}

std::uint16_t CommandQueue::take(std::size_t i) {
  const Entry e = e_[i];
  e_.erase(e_.begin() + static_cast<std::ptrdiff_t>(i));
  // (LBA, slot) is unique: lower_bound finds the command itself.
  by_lba_.erase(std::lower_bound(by_lba_.begin(), by_lba_.end(), Span{e.access.lba, e.access.sectors, e.slot}));
  return e.slot;
}

void CommandQueue::sync(const SegmentCache& cache) {
  const std::uint64_t now = cache.changes();
  if (seen_ == now) return;
  if (!counted_ || !cache.replayable(seen_)) {
    // Older than the journal reaches (or never counted): count afresh.
    for (const Span& s : by_lba_) holders_[s.slot] = cache.holders(s.lba, s.sectors);
  } else {
    for (std::uint64_t c = seen_; c < now; ++c) {
      const SegmentCache::Change& ch = cache.change(c);
      count_range(ch.old_first, ch.old_end, -1);
      count_range(ch.new_first, ch.new_end, 1);
    }
  }
  counted_ = true;
  seen_ = now;
}

void CommandQueue::count_range(std::uint64_t first, std::uint64_t end, int d) {
  if (first >= end) return;
  auto it = std::lower_bound(by_lba_.begin(), by_lba_.end(), Span{first, 0, 0});
  for (; it != by_lba_.end() && it->lba < end; ++it)
    if (it->lba + it->sectors <= end) holders_[it->slot] = static_cast<std::uint32_t>(static_cast<int>(holders_[it->slot]) + d);
}

// ---- the scorer ------------------------------------------------------------------------------

std::int64_t Mechanics::sptf_seek_estimate(const SptfDecision& d, const Access& a) const {
  const std::int64_t t_mech = std::max(d.ready, a.arrival_ns + (a.write ? d.write_overhead : d.read_overhead));
  const std::uint32_t dist = d.from.cyl > a.chs.cyl ? d.from.cyl - a.chs.cyl : a.chs.cyl - d.from.cyl;
  const std::int64_t arrive = t_mech + planned_seek_ns(dist) + (a.write ? settle_ns_ : 0);
  return arrive + rot_mod(a.s_ns - arrive) - d.t;
}

void Mechanics::sptf_bounds(const SptfDecision& d, const CommandQueue& q, std::size_t n, std::int64_t* out) const {
  // (The decision's fields in locals: the loop stores through `out`, which the compiler would
  // otherwise have to assume may change them.)
  const std::int64_t t = d.t, ready = d.ready, read_overhead = d.read_overhead, write_overhead = d.write_overhead;
  const bool streaming = d.streaming, write_back = write_cache_;
  const std::uint64_t window_first = d.window_first, limit = d.limit;
  const HeadPos from = d.from;
  const Segment* skip = d.skip >= 0 ? &cache_[static_cast<std::size_t>(d.skip)] : nullptr;
  const std::int64_t* floor = seek_floor_.data();
  const std::uint32_t shift = floor_shift_;
  for (std::size_t i = 0; i < n; ++i) {
    const Access& a = q[i].access;
    if (!a.write) {
      // A hit: held by a segment other than the one being read ahead (whose range lags the head).
      const std::uint32_t h = q.holders(i);
      if (h > 0 && h > (skip && skip->holds(a.lba, a.sectors) ? 1u : 0u)) {
        out[i] = 0;
        continue;
      }
      if (streaming && a.lba >= window_first && a.lba <= limit) {
        out[i] = std::max<std::int64_t>(0, reach_ns(a.lba) - t);
        continue;
      }
    } else if (write_back) {
      out[i] = 0;  // a write-back write only needs the interface
      continue;
    }
    const std::int64_t t_mech = std::max(ready, a.arrival_ns + (a.write ? write_overhead : read_overhead));
    const std::int64_t settle = a.write ? settle_ns_ : 0;
    const std::uint32_t dist = from.cyl > a.chs.cyl ? from.cyl - a.chs.cyl : a.chs.cyl - from.cyl;
    if (dist == 0) {
      const std::int64_t arrive = t_mech + (from.head == a.chs.head ? 0 : head_switch_ns_) + settle;
      out[i] = arrive + rot_mod(a.s_ns - arrive) - t;
      continue;
    }
    // The least move of the distance's bucket instead of the seek: a lower bound, since the time
    // the sector next comes round after an arrival never decreases as the arrival gets later (and
    // a bucket spans a few cylinders, so it is close).
    const std::int64_t early = t_mech + floor[dist >> shift] + settle;
    out[i] = -1 - (early + rot_mod(a.s_ns - early) - t);
  }
}

std::size_t Mechanics::sptf_pick(std::int64_t t, CommandQueue& q, std::size_t window) const {
  const SptfDecision d = sptf_decision(t);
  q.sync(cache_);
  const std::size_t n = window == 0 ? q.size() : std::min(window, q.size());
  if (n <= 1) return 0;
  // First every command's bound (exact where that is as cheap), then the exact estimate of the
  // one with the least bound, then, in arrival order, the exact estimates of the few whose bound
  // could still beat it. The answer is the least estimate, the oldest among equals, as if every
  // command's were worked out: one skipped has a bound above the best, or equal and is younger.
  // Estimates are never negative: a bound b that is not exact is kept as -1 - b.
  sptf_bounds_.resize(n);
  std::int64_t* bound = sptf_bounds_.data();
  sptf_bounds(d, q, n, bound);
  auto value = [](std::int64_t b) { return b < 0 ? -1 - b : b; };
  std::size_t cand = 0;
  for (std::size_t i = 1; i < n; ++i)
    if (value(bound[i]) < value(bound[cand])) cand = i;
  auto exact = [&](std::size_t i) { return bound[i] >= 0 ? bound[i] : sptf_seek_estimate(d, q[i].access); };
  std::int64_t best = exact(cand);
  std::size_t pick = cand;
  for (std::size_t i = 0; i < n; ++i) {
    const std::int64_t b = value(bound[i]);
    if (i == cand || b > best || (b == best && i > pick)) continue;
    const std::int64_t e = exact(i);
    if (e < best || (e == best && i < pick)) {
      best = e;
      pick = i;
    }
  }
  return pick;
}

}  // namespace ds::sim
