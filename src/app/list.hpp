#pragma once
#include "app/identify.hpp"

namespace ds::app {

struct ListOptions {
  bool include_virtual = false;  // loop, zram, dm, md too
  std::string root = "/";
};

// The drives on this machine as sysfs describes them (no command is sent to any of them).
Report list_drives(const ListOptions& o);

}  // namespace ds::app
