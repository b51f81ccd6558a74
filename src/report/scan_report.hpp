// `drivescope scan` as a table: one line per drive from its scan document (app/scan.hpp).
#pragma once
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace ds::report {

// Aligned columns DEVICE MODEL SERIAL FIRMWARE SIZE SMART POWER STATUS, and ACCESS / OUTER /
// INNER when a drive was benched; a skipped or failed drive's reason on a line under it.
// "No drives found.\n" for none.
std::string scan_table(const std::vector<nlohmann::json>& docs);

}  // namespace ds::report
