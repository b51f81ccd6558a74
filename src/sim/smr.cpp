#include "sim/smr.hpp"

#include <algorithm>
#include <cmath>

namespace ds::sim {

ShingledTranslation::ShingledTranslation(const SmrSpec& s, std::uint32_t sector_bytes, std::uint64_t capacity)
    : cache_sectors_(s.media_cache_bytes / sector_bytes), cache_lba_(s.cache_first_lba),
      band_sectors_(s.band_bytes / sector_bytes), capacity_(capacity) {
  idle_delay_ns_ = std::llround(s.idle_delay_ms * 1e6);
  if (s.idle_clean_mb_s > 0)
    idle_period_ns_ = std::llround(static_cast<double>(s.band_bytes) * 1e3 / s.idle_clean_mb_s);
}

std::int64_t ShingledTranslation::clean_ns(const Mechanics& m, std::uint64_t band) const {
  // Read the band, a revolution to turn from reading to writing, write it back (the merge of the
  // cached data happens in the buffer). The move there is the mechanism's (Mechanics::occupy).
  const std::uint64_t first = band * band_sectors_;
  const std::uint64_t end = std::min(capacity_, first + band_sectors_);
  return 2 * m.stream_ns(first, end) + m.rotation_ns();
}

void ShingledTranslation::drop_band(std::uint64_t band) {
  auto it = bands_.find(band);
  if (it == bands_.end()) return;
  used_ -= it->second.sectors;
  bands_.erase(it);  // its log items are stale from now on (their id is gone)
}

std::int64_t ShingledTranslation::clean_oldest(Mechanics& m, std::int64_t t) {
  while (!log_.empty()) {
    const LogItem item = log_.front();
    log_.pop_front();
    auto it = bands_.find(item.band);
    if (it == bands_.end() || it->second.id != item.id) continue;  // cleaned already
    const std::int64_t done = m.occupy(t, item.band * band_sectors_, clean_ns(m, item.band));
    drop_band(item.band);
    return done;
  }
  return t;
}

Access ShingledTranslation::write(Mechanics& m, const Access& a, std::int64_t t, bool* to_cache) {
  *to_cache = false;
  const std::uint64_t end = a.lba + a.sectors;
  const bool whole_bands = a.lba % band_sectors_ == 0 && (end % band_sectors_ == 0 || end == capacity_);
  // Whole bands are written in place (shingling a band from its start is what it is made for),
  // and so is a write larger than the whole cache; their cached data is then out of date.
  if (whole_bands || a.sectors > cache_sectors_) {
    for (std::uint64_t b = a.lba / band_sectors_; b <= (end - 1) / band_sectors_; ++b) drop_band(b);
    return a;
  }
  *to_cache = true;
  while (used_ + a.sectors > cache_sectors_ && used_ > 0) {
    clean_oldest(m, t);
    ++forced_;
  }
  if (head_ + a.sectors > cache_sectors_) head_ = 0;  // the log wraps round its region
  const std::uint64_t pos = head_;
  head_ += a.sectors;
  used_ += a.sectors;
  for (std::uint64_t lba = a.lba; lba < end;) {  // one piece per band it touches
    const std::uint64_t b = lba / band_sectors_;
    const std::uint64_t piece_end = std::min(end, (b + 1) * band_sectors_);
    Band& band = bands_[b];
    if (band.id == 0) band.id = next_id_++;
    band.entries.push_back({lba, pos + (lba - a.lba), static_cast<std::uint32_t>(piece_end - lba)});
    band.sectors += piece_end - lba;
    log_.push_back({b, band.id});
    lba = piece_end;
  }
  Access r = m.make_access(cache_lba_ + pos, a.sectors, true);
  r.arrival_ns = a.arrival_ns;
  return r;
}

Access ShingledTranslation::read(const Mechanics& m, const Access& a) const {
  const std::uint64_t end = a.lba + a.sectors;
  // The newest cached copy of the first cached piece the read touches (a read that also needs
  // band data is timed as the cache read alone: the cache is what sends the head away).
  for (std::uint64_t b = a.lba / band_sectors_; b <= (end - 1) / band_sectors_; ++b) {
    auto it = bands_.find(b);
    if (it == bands_.end()) continue;
    const auto& es = it->second.entries;
    for (auto e = es.rbegin(); e != es.rend(); ++e) {
      if (e->lba >= end || a.lba >= e->lba + e->sectors) continue;
      const std::uint64_t at = cache_lba_ + e->cache_pos + (std::max(a.lba, e->lba) - e->lba);
      Access r = m.make_access(at, static_cast<std::uint32_t>(std::min<std::uint64_t>(a.sectors, capacity_ - at)), false);
      r.arrival_ns = a.arrival_ns;
      return r;
    }
  }
  return a;
}

std::int64_t ShingledTranslation::serve(Mechanics& m, const Access& a, std::int64_t t) {
  if (!a.write) return m.serve(read(m, a), t);
  bool to_cache = false;
  const Access r = write(m, a, t, &to_cache);
  return to_cache ? m.serve_log_write(r, t) : m.serve(r, t);
}

void ShingledTranslation::idle(Mechanics& m, std::int64_t since, std::int64_t now) {
  std::int64_t t = since + idle_delay_ns_;
  while (used_ > 0 && t < now) {
    const std::int64_t start = std::max(t, m.flush());
    if (start >= now) break;
    const std::int64_t done = clean_oldest(m, start);
    ++idle_cleans_;
    t = std::max(done, start + idle_period_ns_);
  }
}

}  // namespace ds::sim
