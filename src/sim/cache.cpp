#include "sim/cache.hpp"

#include <algorithm>

namespace ds::sim {

void SegmentCache::configure(std::uint64_t bytes, std::uint32_t segments, std::uint32_t sector_bytes) {
  const std::uint64_t per = segments ? bytes / segments / sector_bytes : 0;
  seg_sectors_ = per;
  const std::size_t n = per ? segments : 0;
  segs_.assign(n, Segment{});
  by_first_.clear();
  for (std::size_t i = 0; i < n; ++i) by_first_.emplace_back(0, static_cast<std::uint32_t>(i));
  longest_ = 0;
  // Never used: in number order.
  prev_.resize(n);
  next_.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    prev_[i] = static_cast<int>(i) - 1;
    next_[i] = i + 1 < n ? static_cast<int>(i) + 1 : -1;
  }
  lru_ = n ? 0 : -1;
  mru_ = static_cast<int>(n) - 1;
  // Counts kept before are stale: move the journal on past what it can replay.
  changes_ += kJournal + 1;
}

void SegmentCache::set_range(int i, std::uint64_t first, std::uint64_t end) {
  Segment& s = segs_[static_cast<std::size_t>(i)];
  if (s.first == first && s.end == end) return;
  journal_[changes_ % kJournal] = {s.first, s.end, first, end};
  ++changes_;
  if (s.first != first) {
    // Move its entry to its new place in by_first_ (the entries between shift by one).
    const std::pair<std::uint64_t, std::uint32_t> old{s.first, static_cast<std::uint32_t>(i)};
    const std::pair<std::uint64_t, std::uint32_t> now{first, static_cast<std::uint32_t>(i)};
    auto from = std::lower_bound(by_first_.begin(), by_first_.end(), old);
    auto to = std::lower_bound(by_first_.begin(), by_first_.end(), now);
    if (to > from) {
      std::move(from + 1, to, from);
      *(to - 1) = now;
    } else {
      std::move_backward(to, from, from + 1);
      *to = now;
    }
  }
  s.first = first;
  s.end = end;
  longest_ = std::max(longest_, end > first ? end - first : 0);
}

std::pair<std::size_t, std::size_t> SegmentCache::candidates(std::uint64_t lba, std::uint64_t n) const {
  if (n > longest_) return {0, 0};
  // A holder starts in [lba + n − longest_, lba].
  const std::uint64_t lo = lba + n > longest_ ? lba + n - longest_ : 0;
  auto a = std::lower_bound(by_first_.begin(), by_first_.end(), std::pair<std::uint64_t, std::uint32_t>{lo, 0});
  auto b = a;
  while (b != by_first_.end() && b->first <= lba) ++b;
  return {static_cast<std::size_t>(a - by_first_.begin()), static_cast<std::size_t>(b - by_first_.begin())};
}

int SegmentCache::find(std::uint64_t lba, std::uint64_t n, int skip) const {
  const auto [a, b] = candidates(lba, n);
  int best = -1;
  for (std::size_t k = a; k < b; ++k) {
    const int i = static_cast<int>(by_first_[k].second);
    if (i != skip && segs_[static_cast<std::size_t>(i)].holds(lba, n) && (best < 0 || i < best)) best = i;
  }
  return best;
}

std::uint32_t SegmentCache::holders(std::uint64_t lba, std::uint64_t n) const {
  const auto [a, b] = candidates(lba, n);
  std::uint32_t k = 0;
  for (std::size_t j = a; j < b; ++j) k += segs_[by_first_[j].second].holds(lba, n) ? 1 : 0;
  return k;
}

void SegmentCache::touch(int i) {
  if (i == mru_) return;
  const auto u = static_cast<std::size_t>(i);
  // Unlink, then append as the most recently used.
  if (prev_[u] >= 0) next_[static_cast<std::size_t>(prev_[u])] = next_[u];
  else lru_ = next_[u];
  if (next_[u] >= 0) prev_[static_cast<std::size_t>(next_[u])] = prev_[u];
  prev_[u] = mru_;
  next_[u] = -1;
  next_[static_cast<std::size_t>(mru_)] = i;
  mru_ = i;
}

int SegmentCache::victim(int skip) const {
  if (lru_ < 0 || lru_ != skip) return lru_;
  return next_[static_cast<std::size_t>(lru_)];
}

void SegmentCache::invalidate(std::uint64_t lba, std::uint64_t n, int skip) {
  for (std::size_t i = 0; i < segs_.size(); ++i)
    if (static_cast<int>(i) != skip && segs_[i].first < lba + n && lba < segs_[i].end)
      set_range(static_cast<int>(i), 0, 0);
}

}  // namespace ds::sim
