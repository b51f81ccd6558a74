#include "app/kernel_errors.hpp"

#include <fmt/format.h>

#include <utility>

namespace ds::app {

KernelErrorWatch::KernelErrorWatch(std::string block_name, std::filesystem::path root)
    : name_(std::move(block_name)), root_(std::move(root)) {
  if (!name_.empty()) before_ = sysfs::kernel_io_counts(name_, root_);
}

void KernelErrorWatch::finish(Report& r, bool run_failed) const {
  if (!before_) return;
  const auto after = sysfs::kernel_io_counts(name_, root_);
  if (!after) return;  // the disk went away: the run's own error says so
  const auto d = sysfs::counts_since(*before_, *after);
  r.json["target"]["kernel_io"] = {
      {"completed_commands", d.completed},
      {"failed_commands", d.failed},
      {"timed_out_commands", d.timed_out},
      {"source", fmt::format("/sys/block/{}/device/{{iodone_cnt,ioerr_cnt,iotmo_cnt}}", name_)}};
  if (d.failed == 0 && d.timed_out == 0) return;
  // The counters are the device's, not this process's: another reader of the disk counts too.
  const auto counted = fmt::format("the kernel counted {} failed and {} timed-out command(s) on {} during the run (of {} completed)",
                                   d.failed, d.timed_out, name_, d.completed);
  r.warnings.push_back(
      run_failed ? counted + ": the timings include the kernel's retries and error recovery (the kernel log names the sectors)"
                 : counted + " although every read drivescope issued returned its data: a drive failing now and then, "
                             "whose retries the kernel hid; timings include its error recovery (the kernel log names the sectors)");
}

}  // namespace ds::app
