// blocksize: sequential rate by block size, 512 B … 1 MiB at queue depth 4 (the IOMeter
// sequential sweep of the seed reviews); writes only when allowed.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "drivescope/io.hpp"
#include "tests/common.hpp"

namespace ds::measure {

struct BlocksizeOptions {
  double budget_s = 15;
  unsigned queue_depth = 4;
  bool allow_write = false;
  std::uint64_t span_blocks = 0;
};

struct BlocksizeRow {
  std::uint32_t block_bytes = 0;
  double read_mb_s = 0;
  std::optional<double> write_mb_s;
  double read_iops = 0;
};

struct BlocksizeResult {
  std::vector<BlocksizeRow> rows;
  double drive_time_s = 0;
  std::vector<std::string> notes;
  // A failed I/O (medium error, timeout, vanished device) ends the sweep: the sizes measured
  // before it are kept in `rows` and the error is here, so that bench reports it (exit 5/3) as
  // it does for the other tests. When no size was measured, run_blocksize returns the error.
  std::optional<Error> error;
};

Expected<BlocksizeResult> run_blocksize(IoEngine& io, const BlocksizeOptions& opt,
                                        const ProgressFn* progress = nullptr);

}  // namespace ds::measure
