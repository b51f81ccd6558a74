// Fault injection for the simulated drive: the failures a safety test needs to provoke on demand
// (docs/safety.md). Configured from a disk model's optional "faults" object or from
// SimOptions::faults; the drive (drive.cpp), its I/O engine (io_engine.cpp) and its command
// interface (device.cpp) each ask the FaultState at one point.
//
//   medium errors   reads/writes touching a region complete with -EIO on the I/O engine; an
//                   ATA READ VERIFY there ends with ERR + UNC and the first bad LBA in the LBA
//                   registers (ACS-3 6.3.9 / 7.36.4), a SCSI READ with MEDIUM ERROR /
//                   UNRECOVERED READ ERROR (SPC-4 4.5.6, ASC 11h/00h) and the LBA in INFORMATION.
//   stop answering  after N completed I/Os, or from a virtual time on, nothing completes any more:
//                   the engine's reap times out with ETIMEDOUT (promptly in wall time, the wait
//                   is virtual) and commands end with Outcome::os_error ETIMEDOUT after their
//                   timeout.
//   vanish          after N completed I/Os, or from a virtual time on, the device is gone: I/O
//                   still in flight completes with -ENODEV, every later submit fails with ENODEV
//                   and every command with Outcome::os_error ENODEV (what Linux reports once a
//                   disk is hot-removed).
#pragma once
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "drivescope/device.hpp"
#include "drivescope/expected.hpp"

namespace ds::sim {

struct MediumErrorRegion {
  std::uint64_t first_lba = 0;
  std::uint64_t sectors = 1;
};

struct FaultSpec {
  std::vector<MediumErrorRegion> medium_errors;
  std::optional<std::uint64_t> stop_after_ios;    // completed block I/Os before it stops answering
  std::optional<std::int64_t> stop_at_ns;         // virtual time from which nothing completes
  std::optional<std::uint64_t> vanish_after_ios;  // completed block I/Os before it disappears
  std::optional<std::int64_t> vanish_at_ns;       // virtual time at which it disappears
  bool empty() const {
    return medium_errors.empty() && !stop_after_ios && !stop_at_ns && !vanish_after_ios && !vanish_at_ns;
  }
};

// The "faults" object of a disk model:
//   {"medium_errors": [{"first_lba": N, "sectors": N}...], "stop_answering_after_ios": N,
//    "stop_answering_at_ms": X, "vanish_after_ios": N, "vanish_at_ms": X}
// Every key is optional; unknown keys are errors (a misspelt fault must not silently do nothing).
// capacity_sectors bounds the regions. Errors name the field ("faults.medium_errors[0].sectors: ...").
Expected<FaultSpec> parse_faults(const nlohmann::json& j, std::uint64_t capacity_sectors);
nlohmann::json faults_to_json(const FaultSpec& f);

class FaultState {
 public:
  FaultState() = default;
  explicit FaultState(FaultSpec spec) : spec_(std::move(spec)) {}
  const FaultSpec& spec() const { return spec_; }
  bool active() const { return !spec_.empty(); }

  // The first LBA of [lba, lba+sectors) inside a medium-error region, if any.
  std::optional<std::uint64_t> medium_error(std::uint64_t lba, std::uint64_t sectors) const;
  // Nothing completes any more at time t (or after the I/O count ran out).
  bool stopped(std::int64_t t) const;
  bool vanished(std::int64_t t) const;
  // Completions at or after this virtual time never come (stop_at_ns, or "never").
  std::int64_t answer_limit_ns() const {
    return spec_.stop_at_ns ? *spec_.stop_at_ns : std::numeric_limits<std::int64_t>::max();
  }
  // The result a block I/O completing at done_ns gets instead of `bytes` (-EIO, -ENODEV), and
  // counts the completion.
  std::int32_t complete(std::uint64_t lba, std::uint64_t sectors, std::int64_t done_ns, std::int32_t bytes);
  std::uint64_t completed_ios() const { return completed_; }

  // For the command interface: the result of any command at time now when the drive has
  // vanished (ENODEV) or stopped answering (ETIMEDOUT after `timeout`, the caller advances its
  // clock by `wait_ns`); nullopt when the drive answers.
  std::optional<CommandResult> command_fault(std::int64_t now, Millis timeout, std::int64_t& wait_ns) const;
  // A media command over [lba, lba+sectors) that hits a medium-error region: the ATA or SCSI
  // error result; nullopt otherwise.
  std::optional<CommandResult> media_fault(std::uint64_t lba, std::uint64_t sectors, bool ata,
                                           std::int64_t dur_ns) const;

 private:
  FaultSpec spec_;
  std::uint64_t completed_ = 0;
};

}  // namespace ds::sim
