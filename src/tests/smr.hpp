// smr: does the drive shingle behind the host's back (drive-managed SMR)? A Skylight-style
// timing probe (Aghayev & Desnoyers, FAST 2015; see docs/methods.md, "SMR"):
//   1. reads (harmless): the median random 4 KiB read (a seek and half a turn) and the sequential
//      rate at points across the span;
//   2. random small writes across the span, one at a time, until the budget is spent or the
//      signature shows: a DM-SMR drive appends them to its persistent media cache, so they run at
//      sequential-like rates, far above the random-read rate, until the cache is full; from then
//      on the drive must clean a band (read-modify-write) to make room, and the rate falls by
//      orders of magnitude (the cliff). The bytes written before the cliff estimate the free cache;
//      the time of a forced clean, less the trips to the band and back, is the band read and
//      written once each at the media rate, which gives the band size;
//   3. after the cliff, the drive is left idle and small writes are timed again: fast writes
//      back mean it cleaned while idle.
// A conventional drive writes random blocks at about its random-access rate and shows no cliff.
// The probe writes (the caller has passed the write guard); it sees the drive only through IoEngine.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "drivescope/expected.hpp"
#include "drivescope/io.hpp"
#include "tests/common.hpp"
#include "tests/withheld.hpp"

namespace ds::measure {

struct SmrProbeOptions {
  double budget_s = 1800;      // drive time for the whole probe (a 25 GB cache fills in ~15 min)
  double idle_s = 30;          // idle pause after the cliff (0: no idle check)
  std::uint64_t seed = 1;
  std::uint64_t span_blocks = 0;  // 0: the whole target
  std::uint32_t write_bytes = 4096;
  std::function<bool()> stop;  // asked between writes (Ctrl-C): true ends the probe, results kept
};

struct SmrRatePoint {
  double t_s = 0;              // drive time at the end of the window
  double written_mb = 0;       // MB written by then
  double mb_s = 0;             // write rate over the window
};

struct SmrProbeResult {
  double read_access_ms = 0;   // median random read (positioning)
  double sequential_mb_s = 0;  // harmonic mean of the sequential rates across the span
  double median_sequential_mb_s = 0;  // their median (the rate of a band at the median place)
  std::uint64_t writes = 0;
  std::uint64_t bytes_written = 0;
  double write_drive_s = 0;
  double fast_write_ms = 0;    // before the cliff: the median of 32-write windows' mean latencies
  double write_vs_read = 0;    // random writes per second over random reads per second (before it)
  bool cliff = false;
  std::uint64_t cache_bytes_estimate = 0;  // bytes written before the first slow write of the cliff
  double slow_write_ms = 0;    // median latency of the slow writes after the cliff
  double after_cliff_mb_s = 0;
  std::optional<std::uint64_t> band_bytes_estimate;
  std::optional<bool> cleans_when_idle;
  double writes_per_slow = 0;  // after the cliff: writes per write that waited for a clean
  double idle_s = 0;           // the idle pause
  std::size_t fast_run_after_idle = 0;  // fast writes in a row after the pause ...
  std::size_t checked_after_idle = 0;   // ... of this many timed
  std::vector<SmrRatePoint> rate;  // the write rate over time (about 100 windows)
  std::string verdict;         // "dm-smr", "cmr" or "unknown" (timing alone)
  std::vector<std::string> evidence;
  bool interrupted = false;
  double drive_time_s = 0;
  std::vector<std::string> notes;
  std::vector<Withheld> withheld;  // why band_bytes_estimate or cleans_when_idle is null
};

// A write is "slow" above this multiple of the fast write time (a forced clean costs
// hundreds of times a log write; a conventional drive's random writes stay within a few times).
inline constexpr double kSlowFactor = 20;
// Random writes more than this many times the random-read rate go to a log, not in place.
inline constexpr double kLogLikeRatio = 4;

Expected<SmrProbeResult> run_smr_probe(IoEngine& io, const SmrProbeOptions& opt,
                                       const ProgressFn* progress = nullptr);

}  // namespace ds::measure
