// actuators: does the drive position independently in different LBA ranges (a multi-actuator
// drive such as Seagate's MACH.2)? Two host streams of random 4 KiB reads, each keeping exactly one
// read outstanding, run either both in one positioning range or one in each of two ranges. A drive
// with one positioner serves the two streams one read at a time wherever they are (with both in
// one range its command queue may even pick the nearer of the two, so "apart" is no faster and
// usually slower); a drive with a positioner per range serves the two "apart" streams at the same
// time, nearly twice the reads per second. The gain is the "apart" rate over the "together" rate
// (the mean of both streams in range A and both in range B, so that a zone's speed does not
// count), measured in alternating rounds so that a drift hits both alike. See docs/methods.md.
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

struct ActuatorsOptions {
  double budget_s = 15;
  std::uint64_t seed = 1;
  std::uint64_t span_blocks = 0;  // 0: the whole target
  // The ranges the drive reports (ATA log 47h, SCSI VPD B9h), given by the caller (the probe
  // layer reads them); empty, or fewer than two inside the span: the two halves of the span.
  std::vector<LbaRange> reported;
  std::size_t reads_per_phase = 60;  // per phase of a round, both streams together
};

struct ActuatorsResult {
  std::vector<LbaRange> ranges;  // the two ranges compared
  std::string ranges_source;     // "reported" or "halves"
  std::size_t reported_count = 0;  // ranges the drive reported (0: none)
  double together_iops = 0;      // both streams in one range (mean over the two ranges)
  double apart_iops = 0;         // one stream in each range
  double gain = 0;               // apart / together
  // 95 % half-width, from the spread of the rounds' gains; none from a single round (one gain has
  // no spread to read an interval from).
  std::optional<double> gain_uncertainty;
  std::size_t rounds = 0;
  std::optional<bool> independent;  // null: too few rounds to say
  std::string verdict;           // one sentence
  double drive_time_s = 0;
  std::vector<std::string> notes;
  std::vector<Withheld> withheld;  // why `independent` is null (tests/withheld.hpp)
};

// The gain above which the ranges are taken to position independently: one positioner gives at
// most about 1 (its queue may favour "together"), two give close to 2.
inline constexpr double kIndependentGain = 1.4;

Expected<ActuatorsResult> run_actuators(IoEngine& io, const ActuatorsOptions& opt,
                                        const ProgressFn* progress = nullptr);

}  // namespace ds::measure
