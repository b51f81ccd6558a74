// The stages of `drivescope model` after the draft (app/twin.hpp has the draft and the one-step
// calibration, both pure): calibration by measuring the twin (twin_calibrate.cpp), and the
// workloads run on the drive with the fits to their service times (twin_miss_transfer.cpp,
// twin_read_ahead.cpp, twin_workloads.cpp). Numbered as docs/twin.md numbers them.
// run_model (twin.cpp) calls them in order; nothing else does.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/bench.hpp"
#include "app/twin.hpp"
#include "sim/model.hpp"
#include "tests/replay.hpp"

namespace ds::app {

// The twin measured as the drive was, by the same modules (another seed), in simulated time: the
// model is opened in-process (open_sim_model), no file.
class TwinBench {
 public:
  explicit TwinBench(BenchRequest drive_request) : req_(std::move(drive_request)) {}
  Expected<nlohmann::json> measure(const nlohmann::json& model, std::vector<std::string> tests,
                                   std::uint64_t seed) const;
  const std::vector<std::string>& tests() const { return req_.tests; }

 private:
  BenchRequest req_;
};

// Stage 2, repeated: twin_calibrate's moves for up to `rounds` rounds, or until nothing moves.
std::optional<Error> calibrate_figures(nlohmann::json& model, const nlohmann::json& drive, const TwinBench& tb,
                                       unsigned rounds, std::uint64_t seed, std::vector<std::string>& moves);
// Stage 7: in-order service or an SPTF window, whichever gives IOPS by depth closest to the drive's.
std::optional<Error> fit_queue(nlohmann::json& model, const nlohmann::json& drive, const TwinBench& tb,
                               std::uint64_t seed, std::vector<std::string>& moves);

// Stage 3, the miss transfer (twin_miss_transfer.cpp): random reads alternating between one block
// and 64 KiB (pure, from its seed), and the way a miss's blocks pass media and bus fitted to the
// difference of the two sizes' mean service times on the drive. `one_zone_pace`: the draft's zone
// is one zone at a pace (no track sizes measured): the only drafts the stage fits.
inline constexpr std::uint32_t kSizeWorkloadLargeBytes = 65536;
inline constexpr std::size_t kSizeWorkloadPairs = 300;
measure::Trace size_workload(std::uint64_t capacity_blocks, std::uint32_t block_bytes, std::uint64_t seed);
std::optional<Error> fit_miss_transfer(nlohmann::json& model, const std::vector<double>& drive_ms,
                                       const measure::Trace& w, bool one_zone_pace, std::uint64_t seed,
                                       std::vector<std::string>& moves);

// Stage 4's workload (pure, from its seed) and the cache's segments fitted to its service times.
measure::Trace cache_workload(std::uint64_t capacity_blocks, std::uint32_t block_bytes, std::uint64_t seed);
// Segments below segment_floor_bytes are not tried.
std::optional<Error> fit_cache(nlohmann::json& model, const std::vector<double>& drive_ms, const measure::Trace& w,
                               std::uint64_t seed, std::vector<std::string>& moves);

// Stage 4, first: how far the read-ahead reaches (where the cache test did not tell it: its
// source a default) and where it stops (its extent, or the end of the read's track, or of the
// next one). Runs of three reads of an eighth of a track, each followed by a one-block read some
// distance on after a pause long enough for a read-ahead to reach it; the rule whose twin agrees
// best with the drive on which of those were hits (twin_read_ahead.cpp). `reach_bytes`: the
// longest distance.
struct ReadAheadWorkload {
  measure::Trace trace;
  double reach_bytes = 0;
  bool extent_asked = false;  // the extent untold: distances log-uniform to 150 ms of media (at most 8 MiB)
};
bool read_ahead_untold(const nlohmann::json& model);
// The model has a cache and a read-ahead to ask about (told, or untold and to be found).
bool read_ahead_askable(const nlohmann::json& model);
ReadAheadWorkload read_ahead_workload(const nlohmann::json& model, std::uint64_t capacity_blocks, std::uint64_t seed);
std::optional<Error> fit_read_ahead(nlohmann::json& model, const std::vector<double>& drive_ms,
                                    const ReadAheadWorkload& w, std::uint64_t seed, std::vector<std::string>& moves);

// The seek workload: reads that alternate between two places `dist` blocks apart, for distances
// doubling from one cylinder (of the twin's mean cylinder) to most of the stroke. Each visit moves
// on by more than the read-ahead, so no read is a hit, and lands at a random place in its track,
// so the rotational wait averages out alike on drive and twin. `group[i]` is the distance index of
// request i (the first of each group, whose move comes from elsewhere, is -1).
struct SeekWorkload {
  measure::Trace trace;
  std::vector<int> group;
  std::vector<double> cylinders;  // the twin's distance of each group, in its mean cylinders
};
SeekWorkload seek_workload(std::uint64_t capacity_blocks, double cyl_blocks, std::uint64_t step_blocks,
                           std::uint64_t seed);
// Stage 5: the seek curve as a table fitted to the seek workload. `parsed` is `model` as the
// simulator reads it (its seek figures and cylinders).
std::optional<Error> fit_seek_curve(nlohmann::json& model, const sim::DiskModel& parsed,
                                    const std::vector<double>& drive_ms, const SeekWorkload& w, std::uint64_t seed,
                                    std::vector<std::string>& moves);

// Stage 6: random one-block reads replayed two outstanding (pure, from its seed), and the read
// miss's overhead apart from its seek fitted to their service times on the drive; the seek curve
// refitted to `seek_ms` after each move.
inline constexpr std::size_t kQueuedReads = 400;
measure::Trace queued_workload(std::uint64_t capacity_blocks, std::uint32_t block_bytes, std::uint64_t seed);
std::optional<Error> fit_miss_overhead(nlohmann::json& model, const std::vector<double>& drive_ms,
                                       const measure::Trace& q, const std::vector<double>& seek_ms,
                                       const SeekWorkload& sw, std::uint64_t seed, std::vector<std::string>& moves);

// The service times of a workload on the twin `model` (simulated time, noise seed `seed`).
Expected<std::vector<double>> twin_times(const nlohmann::json& model, const measure::Trace& w, std::uint64_t seed,
                                         unsigned depth = 1);

// A workload on the drive itself (its drive time counts in the budget), and the drive time it took.
// At `depth` 1 each read's service time; deeper, when each completed (ms from the first submit).
Expected<std::vector<double>> drive_workload(const ModelRequest& req, const measure::Trace& w, unsigned depth = 1);
double busy_ms(const std::vector<double>& ms, const measure::Trace& w);

}  // namespace ds::app
