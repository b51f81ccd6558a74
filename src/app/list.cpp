#include "app/list.hpp"

#include "probe/sysfs.hpp"
#include "report/list_report.hpp"

namespace ds::app {

Report list_drives(const ListOptions& o) {
  sysfs::ListOptions lo;
  lo.include_virtual = o.include_virtual;
  auto drives = sysfs::list_drives(o.root, lo);
  Report r;
  r.json = {{"drivescope", {{"version", version()}}}, {"drives", report::drives_to_json(drives)}};
  r.text = report::drives_to_table(drives);
  return r;
}

}  // namespace ds::app
