// Slow regions and slow single LBAs of the access test. A read is slow when it takes longer than
// any normal access over the same seek distance can (the median access at that distance, half a
// revolution more for the worst rotational wait, and a margin). A slow read is only a seed: it is
// re-read after the cache has been flushed, and only a second slow read makes it a finding — a
// host stall or a recalibration pause hits one read and is counted as an outlier instead. A
// confirmed seed whose neighbours are normal is a spike (a remapped LBA); otherwise the region's
// edges are found by doubling probes and descending scans. See docs/methods.md.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

#include "drivescope/io.hpp"
#include "tests/common.hpp"

namespace ds::measure {

// Expected latency by seek distance, from the random reads: medians over quarter octaves of LBA
// distance. Pure.
class LatencyModel {
 public:
  LatencyModel() = default;
  // (distance, ms) pairs of the random reads; `half_rev_ms` and `margin_ms` set the threshold.
  LatencyModel(const std::vector<std::pair<std::uint64_t, double>>& dist_ms, double half_rev_ms,
               double margin_ms);
  double median_ms(std::uint64_t distance) const;   // the nearest populated bin's median
  double threshold_ms(std::uint64_t distance) const {
    return median_ms(distance) + half_rev_ms_ + margin_ms_;
  }
  bool slow(std::uint64_t distance, double ms) const { return !bins_.empty() && ms > threshold_ms(distance); }
  double max_threshold_ms() const;
  bool empty() const { return bins_.empty(); }

 private:
  std::vector<std::pair<int, double>> bins_;  // (quarter-octave index, median ms), ascending
  double half_rev_ms_ = 0, margin_ms_ = 0;
};

struct SlowFinding {
  std::uint64_t first_lba = 0, last_lba = 0;
  double mean_ms = 0;
  double location_uncertainty_blocks = 0;
  bool spike = false;  // a single slow LBA (or a run too short to bound): first_lba == last_lba
};

struct SlowSearch {
  std::vector<SlowFinding> found;
  std::size_t outliers = 0;        // slow once, normal when read again (host stall, recalibration)
  std::vector<double> outlier_excess_ms;  // their time over the threshold
};

// The I/O side: `read(lbas)` times single-block reads at queue depth 1 in order (negative: not
// completed) and knows the previous LBA read, so the distance of each read is known.
struct SlowIo {
  std::function<std::vector<double>(const std::vector<std::uint64_t>&)> read_ms;
  std::function<std::uint64_t()> last_lba;
  std::function<bool()> stop;  // budget spent or an error
  std::function<void()> flush; // far reads: what was just read is no longer in the cache
};

SlowSearch find_slow(SlowIo& io, const LatencyModel& model, std::uint64_t span,
                     const std::vector<std::uint64_t>& seed_lbas, const std::vector<std::uint64_t>& seed_dist,
                     const std::vector<double>& seed_ms);

}  // namespace ds::measure
