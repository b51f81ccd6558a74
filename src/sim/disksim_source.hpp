// DiskSim's parameters in the source form (`"schema": "disk-model/v1"`: a drive's .diskspecs,
// .model and .seek values as JSON, as in tests/data/disksim/) imported through the same rules as
// DiskSim's own files (sim/disksim_import.hpp), so that one importer reads both.
//
// How: the source form is written back as the DiskSim files it was extracted from (a .parv that
// instantiates the disk, its .diskspecs, .model and .seek), held in memory, and those go through
// import_disksim. Every value then meets the same rule, the same checks and the same reports of
// what the model cannot hold, whichever form it came in. What the source form does not hold (its
// drives' buses, reconnection and write-disconnect figures, where the slips and defects are) is
// said in the result's notes; the model has no controller.bus, read_reconnect or write_reconnect.
#pragma once
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "drivescope/expected.hpp"
#include "sim/disksim_import.hpp"

namespace ds::sim::disksim {

// The DiskSim files the source form stands for, by name, and the .parv among them.
struct SourceFormFiles {
  std::string parv;                          // the name of the .parv in `files`
  std::map<std::string, std::string> files;  // name -> DiskSim parameter text
  std::vector<std::string> notes;            // what the form leaves out (said in the import's notes)
  std::string provenance;                    // the form's "provenance" as JSON text, if it has one
};

// `name` is the source file's name as messages should give it. Errors name the missing or bad
// field by its JSON path.
Expected<SourceFormFiles> source_form_files(std::string_view json_text, const std::string& name);

// The source form imported: source_form_files, then import_disksim over them.
Expected<ImportResult> import_source_form(std::string_view json_text, const std::string& name, const ImportOptions& o);

}  // namespace ds::sim::disksim
