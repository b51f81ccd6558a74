// Drive-managed SMR (model key "smr", sim/model.hpp SmrSpec): the translation a DM-SMR drive's
// firmware puts between the host's LBAs and its shingled bands, after what Skylight (Aghayev &
// Desnoyers, FAST 2015) found by timing such drives:
//   - a persistent media cache: a write that does not cover whole bands is appended to a log in
//     a region of its own (here: at the cylinders of cache_first_lba), so random writes become
//     sequential ones there and run fast;
//   - bands with a static mapping: band i holds LBAs [i·band, (i+1)·band); a write covering whole
//     bands goes to them directly;
//   - cleaning: a band is read, merged with its cached data and written back whole (a
//     read-modify-write: the band's media time twice and a revolution between). When the cache
//     is full a write first forces the clean of the band holding the oldest cached data (which
//     frees all of that band's cached data); an idle drive cleans on its own after idle_delay_ms,
//     at most idle_clean_mb_s of bands per second;
//   - a read of data that sits in the cache is served there (the head goes to the cache region).
// Everything is decided from the command sequence alone: no noise is drawn, so a model with the
// key is as deterministic per seed as the rest, and a model without it is untouched (the drive
// never calls in here).
#pragma once
#include <cstdint>
#include <deque>
#include <unordered_map>
#include <vector>

#include "sim/mechanics.hpp"
#include "sim/model.hpp"

namespace ds::sim {

class ShingledTranslation {
 public:
  ShingledTranslation() = default;
  ShingledTranslation(const SmrSpec& s, std::uint32_t sector_bytes, std::uint64_t capacity);
  bool enabled() const { return cache_sectors_ > 0; }

  // Serve command a, dispatched at t, on m: returns its completion. A write to the media cache is a
  // log write (Mechanics::serve_log_write) after any forced cleans; everything else is
  // Mechanics::serve of the access routed (a read of cached data: to the cache region).
  std::int64_t serve(Mechanics& m, const Access& a, std::int64_t t);
  // The drive had nothing to do from `since` until `now`: run the idle cleans that began before now
  // (the last one may run past now: a command then waits for it).
  void idle(Mechanics& m, std::int64_t since, std::int64_t now);

  // For tests and notes: what the cache holds and how many bands were cleaned (forced, idle).
  std::uint64_t cached_sectors() const { return used_; }
  std::uint64_t forced_cleans() const { return forced_; }
  std::uint64_t idle_cleans() const { return idle_cleans_; }

 private:
  struct Entry {
    std::uint64_t lba = 0;
    std::uint64_t cache_pos = 0;  // sectors from the start of the cache region
    std::uint32_t sectors = 0;
  };
  struct Band {
    std::uint64_t id = 0;  // unique per filling of the band, so the log can tell stale items
    std::uint64_t sectors = 0;
    std::vector<Entry> entries;
  };
  struct LogItem {
    std::uint64_t band = 0;
    std::uint64_t id = 0;
  };
  // Clean the band holding the oldest cached data, starting at t at the earliest; returns when done.
  std::int64_t clean_oldest(Mechanics& m, std::int64_t t);
  std::int64_t clean_ns(const Mechanics& m, std::uint64_t band) const;
  void drop_band(std::uint64_t band);
  // The cache-region access of a write that goes to the cache, or a itself (whole bands, in place).
  Access write(Mechanics& m, const Access& a, std::int64_t t, bool* to_cache);
  Access read(const Mechanics& m, const Access& a) const;

  std::uint64_t cache_sectors_ = 0, cache_lba_ = 0, band_sectors_ = 0, capacity_ = 0;
  std::int64_t idle_delay_ns_ = 0;
  std::int64_t idle_period_ns_ = 0;  // one band per this at most while idle (0: back to back)
  std::unordered_map<std::uint64_t, Band> bands_;  // bands with cached data
  std::deque<LogItem> log_;  // one item per cached piece, oldest first; stale once its band is clean
  std::uint64_t used_ = 0;   // cached sectors (the cache is full at cache_sectors_)
  std::uint64_t head_ = 0;   // the log's append point in the cache region
  std::uint64_t next_id_ = 1;
  std::uint64_t forced_ = 0, idle_cleans_ = 0;
};

}  // namespace ds::sim
