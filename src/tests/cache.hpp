// cache: the h2benchw "core test" (re-read blocks the drive already holds, so the interface is
// the limit), a cache-size estimate (grow the re-read set until hits stop) and read-ahead
// evidence. See docs/methods.md.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "drivescope/io.hpp"
#include "tests/common.hpp"
#include "tests/withheld.hpp"

namespace ds::measure {

struct CacheOptions {
  double budget_s = 5;
  std::uint64_t seed = 1;
  std::uint64_t span_blocks = 0;
};

struct CacheResult {
  Figure burst_mb_s;              // slope of hit latency over size: interface rate
  Figure hit_overhead_ms;         // intercept: per-command time of a hit
  std::uint64_t largest_hit_bytes = 0;   // largest single re-read still served from cache
  std::uint64_t size_bytes_estimate = 0; // most data re-read from cache (over several regions)
  // The estimate is a floor, not a size: the probe reached its own limit (a single re-read of
  // the largest size probed, or every region of the last round, still hit).
  bool size_at_least = false;
  // Largest single region served whole from the cache: one segment (0: not told apart from the
  // total, i.e. a single region already reached the probe's limit).
  std::uint64_t segment_bytes_estimate = 0;
  // The next block after a read is served at hit speed: unset when no probe told (no hit line to
  // judge by, a failed read, or the budget spent before the first probe).
  std::optional<bool> read_ahead;
  std::uint64_t read_ahead_bytes_estimate = 0;  // 0 unless read_ahead
  // The estimate is a floor: no probe missed before the probe's limit, or the budget ended
  // before the edge between the last hit and the first miss was found (a note says which).
  bool read_ahead_at_least = false;
  // What starts the read-ahead: how many one-block reads in a row, each continuing the one before,
  // must follow a first read before the drive reads ahead (0: any read; 1: only once a read
  // continues another, as the Quantum Atlas III's trace shows). Set only where read_ahead is true.
  std::optional<unsigned> read_ahead_after_sequential_reads;
  // The pace at which the read-ahead reads the media (MB/s, the LBA-weighted mean over the span,
  // switches included): a block asked for right after a read waits for the streaming head. 0
  // where not told (withheld says why). Where the interface is slower than the media, this is
  // the only figure that sees the media's rate.
  Figure read_ahead_mb_s;
  double drive_time_s = 0;
  std::vector<std::string> notes;
  std::vector<Withheld> withheld;  // why a figure is null or not told (tests/withheld.hpp)
};

// Pure: is this latency a cache hit for `bytes`, given the hit line (overhead + bytes/rate) and
// what a miss adds to a hit (the head's repositioning; 0 where not known)?
bool is_hit(double latency_ms, std::uint64_t bytes, double overhead_ms, double rate_mb_s, double miss_extra_ms = 0);

Expected<CacheResult> run_cache(IoEngine& io, const CacheOptions& opt, const ProgressFn* progress = nullptr);

}  // namespace ds::measure
