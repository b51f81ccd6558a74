// JSON and text for the General Purpose Log probe (probe/ata_logs.hpp) of `identify`.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "probe/ata_logs.hpp"

namespace ds::report {

// identify.general_purpose_logs: {claimed, read, version, logs[{address,name,pages}],
// identify_data_pages[{page,name}], error{command,outcome,message,ata_status,ata_error,aborted}}.
// `g` null: not read (not claimed and not asked for with --logs).
nlohmann::json gpl_to_json(const probe::GplProbe* g, bool claimed);
std::string gpl_to_text(const probe::GplProbe* g, bool claimed);

// The parts of it that a captured page gives on its own (`drivescope decode --ata-log`), with the
// same keys: {version, logs[{address,name,pages}]} and identify_data_pages[{page,name}].
nlohmann::json log_directory_to_json(const probe::LogDirectory& d);
nlohmann::json identify_log_pages_to_json(const std::vector<std::uint8_t>& pages);
std::string log_directory_to_text(const probe::LogDirectory& d);

}  // namespace ds::report
