// Shared plumbing of the measurement modules: a drive-time budget, the I/O runner (tests/runner.hpp,
// included at the end) and the small statistics every analysis needs. Measurement code sees a
// drive only through IoEngine (include/drivescope/io.hpp): the same code runs on a real disk, a file and the simulated drive.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "drivescope/expected.hpp"
#include "drivescope/io.hpp"
#include "tests/stats.hpp"

namespace ds::measure {

// A revolution any disk drive could have: 1500 to 30000 rpm bracket every one made. Both the
// access test's rotation fit (plausible_rotation_ms) and a stream's track period (structure)
// refuse a period outside it.
inline bool spindle_revolution_ms(double ms) { return ms >= 2.0 && ms <= 40.0; }

// Drive time: the union of the intervals during which at least one I/O was outstanding, i.e. the
// time the drive was busy for us (idle gaps between our batches do not count).
class Budget {
 public:
  // A limit beyond what a nanosecond count holds (about 292 years) is no limit; NaN or ≤ 0 is none.
  explicit Budget(double seconds) : limit_ns_(limit_of(seconds)) {}
  void charge(std::int64_t ns) { used_ns_ += ns; }
  std::int64_t used_ns() const { return used_ns_; }
  double used_s() const { return static_cast<double>(used_ns_) * 1e-9; }
  double left_s() const { return static_cast<double>(limit_ns_ - used_ns_) * 1e-9; }
  bool exhausted() const { return used_ns_ >= limit_ns_; }
  double limit_s() const { return static_cast<double>(limit_ns_) * 1e-9; }
  // A budget of its own for one phase: `fraction` of the whole, never more than is left. The
  // caller charges what the phase used back (charge(part.used_ns())).
  Budget part(double fraction) const {
    return Budget(std::max(0.0, std::min(left_s(), fraction * limit_s())));
  }

 private:
  static std::int64_t limit_of(double seconds) {
    const double ns = seconds * 1e9;
    if (!(ns > 0)) return 0;
    return ns >= 9.2e18 ? INT64_MAX : static_cast<std::int64_t>(ns);
  }
  std::int64_t limit_ns_;
  std::int64_t used_ns_ = 0;
};

// One finished I/O of a plan: its plan index (the tag), the request and its stamps.
struct Sample {
  std::uint64_t lba = 0;
  std::uint32_t blocks = 0;
  std::int64_t submit_ns = 0;
  std::int64_t complete_ns = 0;
  double latency_ms() const { return static_cast<double>(complete_ns - submit_ns) * 1e-6; }
};

// One read (or write) of a plan (tests/runner.hpp runs plans).
struct PlanEntry {
  std::uint64_t lba = 0;
  std::uint32_t blocks = 1;
  bool write = false;
};

// How a failed I/O's errno reads in an error message ("the device is gone (errno 19)").
std::string io_errno_text(int err);
// An errno by which the device itself failed (a medium error, a device gone, no answer), as
// against one that refuses the request or a run that was stopped.
bool device_errno(int err);
// Where a request at `offset_bytes` of the view lies, as a failure message names it: "LBA N" of
// the device (the view's origin added), with the byte offset too when it is not on a block.
std::string where_text(const IoTargetInfo& info, std::uint64_t offset_bytes);

// The part of the target a test may use, from LBA 0: the whole capacity, cut to --span's
// `span_blocks` when that is shorter (0: no --span). A target that reports no logical block size
// is taken as 512-byte, the size of every drive before 4Kn (and the Linux block layer's unit).
struct Span {
  std::uint32_t block_bytes = 512;
  std::uint64_t blocks = 0;
  std::uint64_t bytes() const { return blocks * block_bytes; }
};
Span span_of(const IoTargetInfo& info, std::uint64_t span_blocks);

// A plan of `count` consecutive reads of `blocks` blocks starting at `lba` (clipped to `end_lba`).
std::vector<PlanEntry> sequential_plan(std::uint64_t lba, std::uint32_t blocks, std::size_t count,
                                       std::uint64_t end_lba);

// A deterministic 64-bit generator (splitmix64): plans are reproducible from the seed.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : s_(seed ? seed : 0x9E3779B97F4A7C15ull) {}
  std::uint64_t next();
  std::uint64_t below(std::uint64_t n) { return n ? next() % n : 0; }
  double uniform() { return static_cast<double>(next() >> 11) * (1.0 / 9007199254740992.0); }

 private:
  std::uint64_t s_;
};

// Progress callback: (test name, fraction done, drive time used so far in seconds).
using ProgressFn = std::function<void(std::string_view test, double fraction, double drive_time_s)>;

// Spare sectors per track from a fitted (fractional) count: its whole number when the fit lands
// within 0.3 of one and is not negative, else -1 (not told). The transfer test's fit across zones
// and the track-to-track probe's rotation-vs-stream estimate both judge it this way.
inline int whole_spares(double x) {
  const double r = std::round(x);
  return r >= 0 && std::fabs(x - r) <= 0.3 ? static_cast<int>(r) : -1;
}

// A figure with its uncertainty: the half-width of a 95 % interval — 1.96 standard errors, plus
// any systematic error or resolution the method states (e.g. the rotation fit's 1 % floor), so
// that the interval holds the truth in about 95 % of runs. value 0: not measured (the result's
// notes say why); the JSON then carries null for both.
struct Figure {
  double value = 0;
  double uncertainty = 0;
};

// LBAs [first_lba, first_lba + lba_count): e.g. a positioning range the drive reports (ATA log
// 47h, SCSI VPD B9h), which the access and actuators tests use.
struct LbaRange {
  std::uint64_t first_lba = 0;
  std::uint64_t lba_count = 0;
};

}  // namespace ds::measure

// The I/O runner builds on Budget and Sample above; every module that includes this header gets it.
#include "tests/runner.hpp"  // IWYU pragma: export
