// rmw: the physical sector size and the read-modify-write penalty of a drive, from write timing
// (needs writes). A 512e drive keeps 4096-byte physical sectors behind 512-byte logical ones; a
// write that does not cover whole physical sectors makes it read them, turn once more and write
// them whole: about one revolution more. Random writes of growing aligned sizes (one logical
// block up to 16 KiB), and 4 KiB one logical block off a 4 KiB boundary, each kind in a block of
// its own at queue depth 1: the first writes of a block fill the drive's write buffer (until writes
// start taking milliseconds), the rest run at the rate the media takes them. A kind pays the penalty when it is slower than aligned 16 KiB
// writes by a good share of the largest difference; the physical sector is the smallest aligned
// size that does not pay. Without writes nothing is timed: the result says what the drive claims
// (IDENTIFY word 106, READ CAPACITY (16); passed in by the caller) and the block device reports,
// and that the timing check needs writes. See docs/methods.md, "Read-modify-write (512e)".
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "drivescope/expected.hpp"
#include "drivescope/io.hpp"
#include "tests/common.hpp"
#include "tests/withheld.hpp"

namespace ds::measure {

struct RmwOptions {
  double budget_s = 30;  // about 1000 writes at 15-25 ms each on a 7200 rpm 512e drive
  std::uint64_t seed = 1;
  std::uint64_t span_blocks = 0;  // 0: the whole target
  bool allow_write = false;       // the timing check writes (the data there is lost); without: the claims only
  // The physical sector size the drive claims and where it says so ("IDENTIFY word 106", "READ
  // CAPACITY (16)"), read by the caller through the probe layer; 0: not known.
  std::uint32_t claimed_physical_bytes = 0;
  std::string claimed_by;
  // Per kind, at most this many writes before the measured ones (the drive's write buffer fills and
  // turns over: see run_kind).
  std::size_t max_warmup_writes = 1024;
  std::size_t measured_writes = 64;  // per kind, after the warm-up
};

struct RmwKind {
  std::uint32_t bytes = 0;
  std::uint32_t offset_bytes = 0;  // from a boundary of 16 KiB (0: aligned)
  std::size_t warmup_writes = 0;   // written before the measured ones (the buffer filling)
  std::size_t writes = 0;          // measured
  double mean_ms = 0;              // mean time per write once the buffer is full
  double sd_ms = 0;                // standard deviation of the per-write times
  double se_ms = 0;                // standard error of mean_ms (from means of batches of 8 writes)
  double penalty_ms = 0;           // mean_ms minus the aligned 16 KiB kind's
  bool pays = false;               // judged to cost a read-modify-write
};

struct RmwResult {
  bool measured = false;                      // false: no writes allowed, only the claims below
  std::uint32_t logical_bytes = 512;
  std::uint32_t reported_physical_bytes = 0;  // what the target reports (0: unknown)
  std::uint32_t claimed_physical_bytes = 0;   // what the drive claims (RmwOptions; 0: unknown)
  std::string claimed_by;
  std::vector<RmwKind> kinds;                 // aligned sizes ascending, then the misaligned one
  std::optional<std::uint32_t> physical_bytes_estimate;  // null: the kinds do not tell
  double penalty_ms = 0;           // mean of the kinds that pay less that of those that do not (0: none pay)
  // Writes the drive acknowledged at once before the first media-paced one (its write buffer, in
  // writes of the first kind; 0 when the write cache is off); null: no write took a millisecond.
  std::optional<std::size_t> buffer_writes;
  std::string verdict;             // one sentence
  double drive_time_s = 0;
  std::vector<std::string> notes;
  std::vector<Withheld> withheld;  // why physical_bytes_estimate is null (tests/withheld.hpp)
};

Expected<RmwResult> run_rmw(IoEngine& io, const RmwOptions& opt, const ProgressFn* progress = nullptr);

}  // namespace ds::measure
