// patterns: IOMeter-style access specifications (methods.md "IOMeter patterns", seed 002) run as
// closed loops at fixed queue depths: database (8 KB random, swept over write shares 0 … 100 %),
// fileserver and webserver (mixed sizes, random) averaged over loads 1 … 256, and workstation
// (8 KB, 80 % read, 80 % random) with the rating Σ IOPS(q)/q for q = 1, 2, 4 … 32. Every cell's
// figure is total I/O per second in the steady state. Writes happen only when allowed: without
// it the cells that would write are listed as skipped, and asking for writes on a target not
// opened for writing is an error before any I/O.
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

struct AccessSpec {
  std::string name;
  struct Size {
    std::uint32_t bytes = 0;
    double weight = 0;  // percent
  };
  std::vector<Size> sizes;
  double read_share = 1.0;    // 0..1
  double random_share = 1.0;  // 0..1; the rest continue where the previous request ended
};

// database, fileserver, webserver, workstation (the table in methods.md).
const std::vector<AccessSpec>& iometer_specs();
const AccessSpec* find_spec(const std::string& name);

struct PatternsOptions {
  std::vector<std::string> patterns{"database", "fileserver", "webserver", "workstation"};
  std::vector<unsigned> load_depths{1, 2, 4, 8, 16, 32, 64, 128, 256};  // fileserver, webserver
  std::vector<unsigned> database_depths{1, 4, 16, 64, 256};
  std::vector<unsigned> workstation_depths{1, 2, 4, 8, 16, 32};  // the rating needs exactly these
  bool allow_write = false;
  double cell_s = 0.5;     // drive time aimed at per cell (deep queues need more to fill and drain)
  double budget_s = 120;   // total; cells get less than cell_s when there are many
  std::uint64_t span_blocks = 0;  // 0: the whole capacity
  std::uint64_t seed = 1;
  std::function<bool()> stop;
};

struct PatternCell {
  std::string pattern;
  unsigned depth = 0;
  unsigned reached_depth = 0;
  double write_share = 0;   // 0..1
  bool skipped = false;
  WithheldReason skip_reason{};  // why, when skipped (report: the words and the code)
  std::uint64_t ios = 0, reads = 0, writes = 0;
  double iops = 0;          // total I/O per second, steady state
  double iops_rel_se = 0;
  double mb_s = 0;          // MB = 10^6 bytes
  double mean_ms = 0;
  double drive_time_s = 0;
};

struct PatternsResult {
  std::vector<PatternCell> cells;  // in run order
  std::optional<double> fileserver_average_iops;  // mean over its loads; null if any is missing
  std::optional<double> webserver_average_iops;
  std::optional<double> workstation_rating;       // Σ IOPS(q)/q, q = 1 … 32
  bool allow_write = false;
  double drive_time_s = 0;
  std::vector<std::string> notes;
  std::vector<Withheld> withheld;  // why a summary is null
  bool interrupted = false;
  const PatternCell* cell(const std::string& pattern, unsigned depth, double write_share = -1) const;
};

Expected<PatternsResult> run_patterns(IoEngine& io, const PatternsOptions& opt,
                                      const ProgressFn* progress = nullptr);

// Σ IOPS(q)/q over the given (depth, IOPS) pairs.
double workstation_rating(const std::vector<std::pair<unsigned, double>>& iops_by_depth);

}  // namespace ds::measure
