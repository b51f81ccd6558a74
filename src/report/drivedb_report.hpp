// What smartmontools' drive database says of a drive (probe/drivedb.hpp), as JSON and text.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "probe/drivedb.hpp"

namespace ds::report {

// A lookup's outcome: the table read (or why none), and the matching entry (nullopt: none).
struct DriveDbView {
  std::vector<std::string> sources;  // files read; empty when there is no table
  std::string version;               // the table's VERSION entry
  std::string note;                  // why there is no table, "" when there is
  bool failed = false;               // a table file was there but unreadable (note says why)
  std::optional<probe::DriveDbMatch> match;
  std::size_t bad_expressions = 0;   // entries skipped because their expression does not compile
};

// identify.drivedb: sources, version, found (null without a table), family, model_regex,
// firmware_regex, warning, smr, firmware_bugs, attribute_names, note (docs/schema).
nlohmann::json drivedb_to_json(const DriveDbView& v);

// A "Drive database" section for identify's text: the family and what the entry says, or why
// nothing is known.
std::string drivedb_to_text(const DriveDbView& v);

// The drive family as smartctl names it (model_family), "" when the table has none for it.
std::string drivedb_family(const DriveDbView& v);

}  // namespace ds::report
