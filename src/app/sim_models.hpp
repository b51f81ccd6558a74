// `drivescope sim list`, `sim show NAME` and `sim import SOURCE`: the simulator's built-in presets, which are model
// files (models/*.json) like any a user writes; `show` prints one to start a model of one's own.
#pragma once
#include <string>

#include "app/identify.hpp"

namespace ds::app {

Report sim_list();
Expected<Report> sim_show(const std::string& name);

// `drivescope sim import SOURCE [-o MODEL.json]`: DiskSim's parameters (its own .parv and the files it
// sources, or the source form, tests/data/disksim/NAME.json) turned into
// a model (sim/disksim_import.hpp). With an output path the model is written there and the text
// says so; without, the text is the model. What DiskSim gave that the model cannot hold is in the
// warnings (and in the JSON).
struct SimImportOptions {
  std::string output;         // empty: the model is the report's text
  double interface_mb_s = 0;  // 0: not given (the importer assumes 10 MB/s and says so)
};
Expected<Report> sim_import(const std::string& source, const SimImportOptions& o);

}  // namespace ds::app
