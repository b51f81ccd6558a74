#include "sim/sptf.hpp"

#include <algorithm>
#include <limits>

namespace ds::sim {

// ---- the queue -------------------------------------------------------------------------------

void CommandQueue::push(const Access& a, std::uint16_t slot, const SegmentCache* cache) {
  if (slot_.size() <= slot) slot_.resize(std::size_t{slot} + 1);
  if (cache) sync(*cache);  // the others first, so that one journal position holds for every count
  Held& h = slot_[slot];
  h.access = a;
  h.seq = next_seq_++;
  h.holders = 0;
  if (cache) {
    set_holders(h, cache->holders(a.lba, a.sectors));
    counted_ = true;
  }
  writes_ += a.write ? 1 : 0;
  order_.push_back(slot);
  const Key c{a.chs.cyl, slot}, l{a.lba, slot};
  by_cyl_.insert(std::upper_bound(by_cyl_.begin(), by_cyl_.end(), c), c);
  by_lba_.insert(std::upper_bound(by_lba_.begin(), by_lba_.end(), l), l);
}

void CommandQueue::take(std::uint16_t slot) {
  Held& h = slot_[slot];
  set_holders(h, 0);
  writes_ -= h.access.write ? 1 : 0;
  order_.erase(std::find(order_.begin(), order_.end(), slot));
  // (key, slot) is unique: lower_bound finds the command itself.
  by_cyl_.erase(std::lower_bound(by_cyl_.begin(), by_cyl_.end(), Key{h.access.chs.cyl, slot}));
  by_lba_.erase(std::lower_bound(by_lba_.begin(), by_lba_.end(), Key{h.access.lba, slot}));
}

void CommandQueue::set_holders(Held& h, std::uint32_t n) {
  held_ = held_ - (h.holders > 0 ? 1 : 0) + (n > 0 ? 1 : 0);
  h.holders = n;
}

void CommandQueue::sync(const SegmentCache& cache) {
  const std::uint64_t now = cache.changes();
  if (seen_ == now) return;
  if (!counted_ || !cache.replayable(seen_)) {
    // Older than the journal reaches (or never counted): count afresh.
    for (const std::uint16_t s : order_) {
      Held& h = slot_[s];
      set_holders(h, cache.holders(h.access.lba, h.access.sectors));
    }
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
  for (auto it = std::lower_bound(by_lba_.begin(), by_lba_.end(), Key{first, 0}); it != by_lba_.end() && it->key < end; ++it) {
    Held& h = slot_[it->slot];
    if (h.access.lba + h.access.sectors <= end) set_holders(h, static_cast<std::uint32_t>(static_cast<int>(h.holders) + d));
  }
}

// ---- the scorer ------------------------------------------------------------------------------

std::int64_t SptfScheduler::bound(const SptfDecision& d, const Access& a, std::uint32_t holders, bool* exact) {
  *exact = true;
  if (!a.write) {
    // A hit: held by a segment other than the one being read ahead (whose range lags the head).
    if (holders > 0 && holders > (d.skip >= 0 && (*d.cache)[static_cast<std::size_t>(d.skip)].holds(a.lba, a.sectors) ? 1u : 0u))
      return 0;
    if (d.streaming && a.lba >= d.window_first && a.lba <= d.limit) return std::max<std::int64_t>(0, d.stream->reach_ns(a.lba) - d.t);
  } else if (d.write_back) {
    return 0;  // a write-back write only needs the interface
  }
  const std::int64_t t_mech = std::max(d.ready, a.arrival_ns + (a.write ? d.write_overhead : d.read_overhead));
  const std::int64_t settle = a.write ? d.pos->settle_ns() : 0;
  const std::uint32_t dist = d.from.cyl > a.chs.cyl ? d.from.cyl - a.chs.cyl : a.chs.cyl - d.from.cyl;
  if (dist == 0) {
    const std::int64_t arrive = t_mech + (d.from.head == a.chs.head ? 0 : d.pos->head_switch_ns()) + settle;
    return arrive + d.pos->rot_mod(a.s_ns - arrive) - d.t;
  }
  // The least move of the distance's bucket instead of the seek: a lower bound, since the time
  // the sector next comes round after an arrival never decreases as the arrival gets later (and
  // a bucket spans a few cylinders, so it is close).
  *exact = false;
  const std::int64_t floor = d.pos->seek_floor(dist);  // the same head's least plan
  const std::int64_t early =
      t_mech + (d.from.head == a.chs.head ? floor : std::max(floor, d.pos->head_switch_plan())) + settle;
  return early + d.pos->rot_mod(a.s_ns - early) - d.t;
}

std::int64_t SptfScheduler::seek_estimate(const SptfDecision& d, const Access& a) {
  const std::int64_t t_mech = std::max(d.ready, a.arrival_ns + (a.write ? d.write_overhead : d.read_overhead));
  const std::uint32_t dist = d.from.cyl > a.chs.cyl ? d.from.cyl - a.chs.cyl : a.chs.cyl - d.from.cyl;
  const std::int64_t arrive = t_mech + d.pos->planned_seek_ns(dist, d.from.head != a.chs.head) + (a.write ? d.pos->settle_ns() : 0);
  return arrive + d.pos->rot_mod(a.s_ns - arrive) - d.t;
}

std::uint16_t SptfScheduler::in_order(const SptfDecision& d, const CommandQueue& q, std::size_t n) const {
  // First every command's bound (exact where that is as cheap), then the exact estimate of the
  // one with the least bound, then, in arrival order, the exact estimates of the few whose bound
  // could still beat it. Estimates are never negative: a bound b that is not exact is kept as
  // -1 - b.
  bounds_.resize(n);
  std::int64_t* bound = bounds_.data();
  std::size_t cand = 0;
  auto value = [](std::int64_t b) { return b < 0 ? -1 - b : b; };
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint16_t slot = q.at(i);
    bool exact = false;
    const std::int64_t b = SptfScheduler::bound(d, q.access(slot), q.holders(slot), &exact);
    bound[i] = exact ? b : -1 - b;
    if (b < value(bound[cand])) cand = i;
  }
  auto estimate = [&](std::size_t i) { return bound[i] >= 0 ? bound[i] : seek_estimate(d, q.access(q.at(i))); };
  std::int64_t best = estimate(cand);
  std::size_t pick = cand;
  for (std::size_t i = 0; i < n; ++i) {
    const std::int64_t b = value(bound[i]);
    if (i == cand || b > best || (b == best && i > pick)) continue;
    const std::int64_t e = estimate(i);
    if (e < best || (e == best && i < pick)) {
      best = e;
      pick = i;
    }
  }
  return q.at(pick);
}

std::uint16_t SptfScheduler::nearest_first(const SptfDecision& d, const CommandQueue& q) {
  struct Best {
    std::int64_t est = std::numeric_limits<std::int64_t>::max();
    std::uint64_t seq = std::numeric_limits<std::uint64_t>::max();
    std::uint16_t slot = 0;
  } best;
  auto consider = [&](std::uint16_t slot) {
    const Access& a = q.access(slot);
    const std::uint64_t seq = q.arrival_seq(slot);
    bool exact = false;
    const std::int64_t b = bound(d, a, 0, &exact);
    if (b > best.est || (b == best.est && seq > best.seq)) return;
    const std::int64_t e = exact ? b : seek_estimate(d, a);
    if (e < best.est || (e == best.est && seq < best.seq)) best = {e, seq, slot};
  };
  // Reads the read-ahead is about to pass need no seek at all: weighed first, whatever their
  // cylinder (weighing one twice changes nothing).
  if (d.streaming) {
    const auto& l = q.by_lba();
    for (auto it = std::lower_bound(l.begin(), l.end(), CommandQueue::Key{d.window_first, 0}); it != l.end() && it->key <= d.limit; ++it)
      consider(it->slot);
  }
  // Then outward from the head's cylinder, the nearer side first: nothing at distance dist or
  // beyond can come sooner than ready + the least move over any such distance.
  const auto& c = q.by_cylinder();
  const std::int64_t base = d.ready - d.t;
  const std::uint64_t from = d.from.cyl;
  std::size_t right = static_cast<std::size_t>(std::lower_bound(c.begin(), c.end(), CommandQueue::Key{from, 0}) - c.begin());
  std::size_t left = right;  // c[left - 1] is the next on the left
  while (left > 0 || right < c.size()) {
    const std::uint64_t dl = left > 0 ? from - c[left - 1].key : std::numeric_limits<std::uint64_t>::max();
    const std::uint64_t dr = right < c.size() ? c[right].key - from : std::numeric_limits<std::uint64_t>::max();
    const bool go_right = dr <= dl;
    const std::uint64_t dist = go_right ? dr : dl;
    if (base + (dist == 0 ? 0 : d.pos->seek_floor_beyond(dist)) > best.est) break;
    consider(go_right ? c[right++].slot : c[--left].slot);
  }
  return best.slot;
}

std::uint16_t SptfScheduler::pick(const SptfDecision& d, CommandQueue& q, std::size_t window) const {
  q.sync(*d.cache);
  const std::size_t n = window == 0 ? q.size() : std::min(window, q.size());
  // The answer either way: the least estimate, the oldest among equals, as if every command's
  // were worked out. The nearest-first search skips commands by their cylinder alone, which a
  // hit or a write (a write-back one costs nothing, a settle may be negative) would defeat, and
  // it weighs every command, not only the window's.
  if (n < q.size() || q.held() > 0 || q.writes() > 0) return in_order(d, q, n);
  return nearest_first(d, q);
}

}  // namespace ds::sim
