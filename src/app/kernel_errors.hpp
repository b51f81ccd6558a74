// What the kernel's own counters say happened on a real disk during a run (issue 31): a drive
// that fails a read now and then is retried by the SCSI mid-layer and libata, so drivescope gets
// its data and sees only a slow read. The device's ioerr_cnt/iotmo_cnt still count the failures;
// a run that moved them says so, in the text and the JSON, instead of presenting error-recovery
// time as the drive's mechanics.
#pragma once
#include <filesystem>
#include <optional>
#include <string>

#include "app/identify.hpp"
#include "probe/sysfs.hpp"

namespace ds::app {

class KernelErrorWatch {
 public:
  // block_name: the kernel's disk name (sda); empty (a file, sim:) or a disk without the SCSI
  // layer's counters (virtio-blk, NVMe, loop) watches nothing.
  explicit KernelErrorWatch(std::string block_name, std::filesystem::path root = "/");
  // After the run: `target.kernel_io` in r.json (when the counters could be read both times)
  // and a warning when the kernel saw failed or timed-out commands. `run_failed`: the run
  // already ended on an I/O error of its own (the warning then does not say the reads succeeded).
  void finish(Report& r, bool run_failed) const;

 private:
  std::string name_;
  std::filesystem::path root_;
  std::optional<sysfs::KernelIoCounts> before_;
};

}  // namespace ds::app
