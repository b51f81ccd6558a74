// The `identify` flows: from a captured dump, and from a live target (ATA through SAT or the
// simulator, SCSI, or a device with no passthrough at all). Results are values the CLI prints.
#pragma once
#include <nlohmann/json.hpp>
#include <cstdint>
#include <span>
#include <string_view>
#include <string>
#include <vector>

#include "app/target.hpp"
#include "report/drivedb_report.hpp"
#include "drivescope/expected.hpp"
#include "tests/common.hpp"

namespace ds::app {

// Exit codes of drivescope (documented in docs/cli.md).
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;   // nothing useful could be done (bad input, no device)
inline constexpr int kExitUsage = 2;     // the command line is wrong
inline constexpr int kExitPartial = 3;   // part of the answer is missing (e.g. no passthrough)
inline constexpr int kExitInterrupted = 4;  // stopped by a signal; partial results kept
inline constexpr int kExitDevice = 5;    // the device failed or vanished mid-run; partial kept

// Of two exit codes, the one a run that had both exits with (scan's drives, a bench cut short by
// a signal after its device failed): usage 2, then device 5, interrupted 4, failure 1, partial 3,
// ok 0 (docs/cli.md, "Exit codes"). A drive that failed is news a Ctrl-C must not hide; a drive
// that gave nothing is worse than one that gave part.
inline int worse_exit(int a, int b) {
  auto rank = [](int c) {
    switch (c) {
      case kExitOk: return 0;
      case kExitPartial: return 1;
      case kExitFailure: return 2;
      case kExitInterrupted: return 3;
      case kExitDevice: return 4;
      default: return 5;  // kExitUsage, and any code not listed: never hidden
    }
  };
  return rank(b) > rank(a) ? b : a;
}

// Error::code of a mistake on the command line found only once the target is open (a --span
// under one sector): the CLI exits kExitUsage for it. Negative, so no errno collides with it.
inline constexpr int kUsageErrorCode = -2;
inline Error usage_error(std::string message) { return make_error(std::move(message), kUsageErrorCode); }

// A run that stopped because the device failed (a medium error, a timeout, a device that went
// away: kExitDevice) is told apart from one that merely ran short (kExitPartial).
inline bool device_failure(const Error& e) { return measure::device_errno(e.code); }

struct Report {
  nlohmann::json json;   // one document, the keys of docs/cli.md and docs/schema
  std::string text;      // human output
  std::vector<std::string> warnings;  // said on stderr in text mode (they are in the JSON too)
  int exit_code = kExitOk;
};

std::string version();

struct IdentifyOptions {
  bool raw = false;                 // add the raw words / pages
  bool allow_bad_checksum = false;  // decode a dump whose word 255 checksum is wrong
  bool logs = false;  // read the GPL directory even when IDENTIFY does not claim GPL
  std::string root = "/";           // /proc and /sys (tests use fake trees), and the drive database's files
  std::string drivedb;              // --drivedb FILE: this table instead of smartctl's default files
};

Expected<Report> identify_dump(const std::string& path, const IdentifyOptions& o);
// The report of one IDENTIFY block already read (by `decode`): the same JSON and text as
// identify_dump; `name` and `format` go to target.name and target.format.
Expected<Report> identify_block_report(std::string_view name, std::string_view format,
                                       std::span<const std::uint8_t, 512> block,
                                       const IdentifyOptions& o);
Expected<Report> identify_target(Target& t, const IdentifyOptions& o);

// What smartmontools' drive database (probe/drivedb.hpp) says of an ATA model and firmware:
// `drivedb` is the file given with --drivedb ("" for smartctl's default files under `root`).
report::DriveDbView drivedb_view(std::string_view model, std::string_view firmware, const std::string& drivedb,
                                 const std::string& root);

}  // namespace ds::app
