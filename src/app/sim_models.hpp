// `drivescope sim list` and `sim show NAME`: the simulator's built-in presets, which are model
// files (models/*.json) like any a user writes; `show` prints one to start a model of one's own.
#pragma once
#include <string>

#include "app/identify.hpp"

namespace ds::app {

Report sim_list();
Expected<Report> sim_show(const std::string& name);

}  // namespace ds::app
