// The `scan` flow: every drive `list` finds (or the targets given), each as one document with its
// identity, SMART health and, when asked, a short read-only bench. A drive in standby is asked
// CHECK POWER MODE first and left asleep: spinning up a fleet's idle disks to look at them costs
// power and wear, and smartctl's `-n standby` taught administrators to expect this.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "app/identify.hpp"
#include "probe/sysfs.hpp"
#include "tests/common.hpp"

namespace ds::app {

struct ScanRequest {
  std::vector<std::string> targets;  // empty: every drive in /sys/block (as `list`)
  std::optional<double> bench_s;     // --bench SECONDS: drive time per drive; none: no bench
  bool force_busy = false;           // bench a drive that is mounted, swap or held, too
  std::uint64_t seed = 1;
  std::string root = "/";            // /proc and /sys (tests use fake trees)
  std::function<bool()> stop;        // SIGINT/SIGTERM: no further drive starts
  DeviceChoice device;               // -d, --trace
  // --progress: the progress function of one drive's bench (given its spec); empty: none.
  std::function<measure::ProgressFn(const std::string& spec)> bench_progress;
};

// CHECK POWER MODE's answer (ACS-3, count register): 00h/01h standby, 80h-83h idle, FFh active or
// idle; "unknown" when the command failed or the drive is not ATA.
std::string_view power_mode_name(std::uint8_t count);
bool power_mode_is_standby(std::uint8_t count);

// The tests a scan's bench runs: short ones that only read (access time, transfer rates).
inline const std::vector<std::string> kScanBenchTests{"access", "transfer"};

// The health verdict a scan line carries, from identify's document: ATA SMART's overall status,
// or an NVMe drive's health log (passed while no Critical Warning bit is set, as smartctl -H
// judges NVMe drives; "source": "nvme health log"). Null where neither was read.
nlohmann::json scan_health(const nlohmann::json& identify);

// One drive, already open (t.device may be null); facts is what sysfs knows of it (null for
// sim: and file: targets). The bench, if any, opens t.spec again for block I/O.
Report scan_target(Target& t, const std::optional<sysfs::DriveFacts>& facts, const ScanRequest& req);

struct ScanResult {
  std::vector<Report> drives;  // one document per drive, in order
  std::string text;            // the table of every drive
  int exit_code = kExitOk;     // the worst of the drives'
};

ScanResult run_scan(const ScanRequest& req);

}  // namespace ds::app
