// bench: runs the chosen measurement tests over one I/O engine within a drive-time budget and
// turns their results into the JSON of docs/cli.md and docs/schema ("tests.*") and aligned text tables.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "drivescope/io.hpp"
#include "tests/access.hpp"
#include "tests/actuators.hpp"
#include "tests/blocksize.hpp"
#include "tests/cache.hpp"
#include "tests/common.hpp"
#include "tests/patterns.hpp"
#include "tests/positioning.hpp"
#include "tests/queue.hpp"
#include "tests/rmw.hpp"
#include "tests/transfer.hpp"

namespace ds::measure {

struct BenchOptions {
  std::vector<std::string> tests{"access", "transfer", "cache", "blocksize"};
  std::optional<std::uint64_t> span_bytes;  // limit the LBA range (from LBA 0)
  bool allow_write = false;
  std::uint64_t seed = 1;
  double budget_s = 120;  // total drive time; shared out between the chosen tests
  bool transfer_rates_only = false;  // TransferOptions::rates_only
  std::function<bool()> stop;  // asked before each test (Ctrl-C); true skips the remaining tests
  // The positioning ranges the drive reports (ATA log 47h / SCSI VPD B9h), read by the caller
  // through the probe layer; used by the actuators test (empty: it compares the halves).
  std::vector<LbaRange> positioning_ranges;
  // The physical sector size the drive claims and where (IDENTIFY word 106, READ CAPACITY (16)),
  // read by the caller; the rmw test reports it, and without writes reports only it.
  std::uint32_t claimed_physical_bytes = 0;
  std::string claimed_by;
};

struct BenchResult {
  std::string target;
  std::uint32_t block_bytes = 512;
  std::uint64_t capacity_bytes = 0;
  std::uint64_t span_blocks = 0;
  std::optional<AccessResult> access;
  std::optional<TransferResult> transfer;
  std::optional<CacheResult> cache;
  std::optional<BlocksizeResult> blocksize;
  std::optional<QueueResult> queue;        // only when asked for (not in the default set)
  std::optional<PatternsResult> patterns;  // only when asked for (not in the default set)
  std::optional<ActuatorsResult> actuators;  // only when asked for (not in the default set)
  std::optional<RmwResult> rmw;              // only when asked for (without writes: the claims only)
  // Whether the target positions mechanically, measured once after the tests that assume it
  // (so that it changes nothing they saw); where it says no, their mechanical figures are null.
  std::optional<PositioningResult> positioning;
  std::vector<std::pair<std::string, Error>> errors;  // test name → what stopped it
  double drive_time_s = 0;
};

// The test names --tests takes, in running order: transfer, access, cache, blocksize, queue,
// patterns, actuators, rmw.
std::vector<std::string> bench_test_names();

// An unknown test name is an error before any I/O is done.
Expected<BenchResult> run_bench(IoEngine& io, const BenchOptions& opt, const ProgressFn& progress = {});

}  // namespace ds::measure
