// DiskSim's own parameter files (a .parv, the .diskspecs it sources, the disk's .model layout and
// its .seek curve) turned into a complete disk model (`drivescope sim import`, issue #28 item 3;
// the source form of tests/data/disksim goes through the same rules, sim/disksim_source.hpp).
// The rules are those the first conversion followed (tests/data/disk-models/README.md) and the
// controller, bus and layout rules added since; docs/disk-model.md, "Importing DiskSim's
// parameters", maps each DiskSim name to its model key. What the model cannot hold is dropped and named in the result, never
// silently lost.
#pragma once
#include <string>
#include <vector>

#include "drivescope/expected.hpp"
#include "sim/disksim_params.hpp"
#include "sim/model.hpp"

namespace ds::sim::disksim {

struct ImportOptions {
  // DiskSim has no interface rate (its buses have block times, which the controller keys keep);
  // the model's interface_mb_s is the era's SCSI rate, which only the user knows.
  double interface_mb_s = 10;
  bool interface_given = false;  // false: the result warns that 10 MB/s was assumed
};

struct ImportResult {
  DiskModel model;
  std::vector<std::string> not_represented;  // DiskSim parameters read but with no model key
  std::vector<std::string> unknown;          // parameters the importer does not know
  std::vector<std::string> notes;            // conversion choices worth saying (a value changed)
  std::string source_provenance;             // the source form's own "provenance" as JSON text; empty
                                             // for DiskSim's own files
};

// `parv_name` is the .parv's name as `load` knows it (messages use it); sourced files and the
// seek curve are read through `load` by the names the files give.
Expected<ImportResult> import_disksim(const std::string& parv_name, const FileLoader& load, const ImportOptions& o);
// The same over the file system: names resolve relative to the .parv's folder. `parv_text`, where
// the caller has read the .parv already, stands for its contents.
Expected<ImportResult> import_disksim_file(const std::string& parv_path, const ImportOptions& o,
                                           const std::string* parv_text = nullptr);

// A seek curve file (DiskSim's `Full seek curve`): "Seek distances measured: N" then N lines of
// "distance, ms". Errors name the file and line.
Expected<std::vector<std::pair<double, double>>> parse_seek_curve(std::string_view text, const std::string& file);

}  // namespace ds::sim::disksim
