// smartmontools' drive database (drivedb.h): what it knows of an ATA drive's family.
//
// smartmontools keeps a table of drive families, each a POSIX extended regular expression over
// the IDENTIFY model string (and optionally the firmware), with a warning to show (firmware bugs,
// known failures), presets (-v attribute names, -F firmware-bug workarounds) and, in the family
// name, the recording technology where it is known ("Seagate BarraCuda 3.5 (SMR)"). Debian's
// smartmontools package installs the table as /usr/share/smartmontools/drivedb.h, and
// update-smart-drivedb puts newer ones in /var/lib/smartmontools/drivedb/. We read the file at
// run time, never a copy of our own (the table is GPL-2.0-or-later and changes every release).
//
// The file is C source: a comma-separated list of brace-enclosed entries of five string
// expressions, each one or more adjacent string literals, with // and /* */ comments between.
// The lookup follows smartmontools' own (knowndrives.cpp, lookup_drive): the table in order, the
// first entry whose model expression matches the whole model string (and whose firmware
// expression, when not empty, the whole firmware string) wins. Entries whose family starts with
// "$" are disabled, "USB:" ones map USB bridge ids, and "VERSION:"/"DEFAULT" ones are not drives.
#pragma once
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "drivescope/expected.hpp"

namespace ds::probe {

struct DriveDbEntry {
  std::string family;          // "Seagate BarraCuda 3.5 (SMR)"; "" when the db names no family
  std::string model_regex;     // POSIX ERE over the whole model string
  std::string firmware_regex;  // POSIX ERE over the whole firmware string; "" = any firmware
  std::string warning;         // "" when none
  std::string presets;         // smartctl options: "-v 9,minutes -F xerrorlba"
  std::size_t line = 0;        // where the entry starts in the file (1-based)
};

struct DriveDb {
  std::string version;                // from the "VERSION: ..." entry, "" when absent
  std::vector<DriveDbEntry> entries;  // every entry, in the file's order (searched in order)
};

// Parses the text of a drivedb.h. An error names the line where the text stops being a table
// (a truncated file, a stray token, an unterminated literal or comment).
Expected<DriveDb> parse_drivedb(std::string_view text);

// What the presets say, split out of smartctl's option syntax.
struct DriveDbPresets {
  std::vector<std::string> firmware_bugs;        // -F values: "xerrorlba", "samsung3", ...
  std::map<int, std::string> attribute_names;    // -v ID,FORMAT[,NAME]: the NAME where given
};
DriveDbPresets parse_presets(std::string_view presets);

struct DriveDbMatch {
  DriveDbEntry entry;
  DriveDbPresets presets;
  // From the family name: true for "(SMR)", false for "(CMR)" or "(PMR)", null when it says neither
  // (most families: the table names the recording only where the maker's line mixes both).
  std::optional<bool> smr;
};

// The table compiled once for many lookups. lookup() gives the first entry that matches (model
// and firmware are IDENTIFY's strings, trimmed), nullopt when none does. An entry whose
// expression does not compile is skipped, as smartctl skips it; bad_expressions() counts them.
// The matcher refers to the DriveDb it was made from, which must outlive it.
class DriveDbMatcher {
 public:
  explicit DriveDbMatcher(const DriveDb& db);
  ~DriveDbMatcher();
  DriveDbMatcher(DriveDbMatcher&&) noexcept;
  DriveDbMatcher(const DriveDbMatcher&) = delete;
  DriveDbMatcher& operator=(const DriveDbMatcher&) = delete;
  std::optional<DriveDbMatch> lookup(std::string_view model, std::string_view firmware) const;
  std::size_t bad_expressions() const { return bad_; }

 private:
  struct Compiled;
  std::vector<Compiled> compiled_;
  std::size_t bad_ = 0;
};

// true: the family name says shingled; false: it says conventional; nullopt: neither.
std::optional<bool> family_says_smr(std::string_view family);

// The files smartctl reads by default on Debian, in its order: /etc/smart_drivedb.h (the
// administrator's additions, searched first), then the first of update-smart-drivedb's
// /var/lib/smartmontools/drivedb/drivedb.h and the package's /usr/share/smartmontools/drivedb.h.
std::vector<std::string> default_drivedb_paths();

// The table a lookup searches: the files above that exist under `root` ("/" on a live system),
// or the one file given (--drivedb). sources says which files were read; note says why there is
// no table (none installed, or one that does not parse: then the error names it).
struct LoadedDriveDb {
  DriveDb db;
  std::vector<std::string> sources;
  std::string note;     // "" when the table was read
  bool failed = false;  // a file was there (or named) and could not be read or parsed: worth a warning
};
LoadedDriveDb load_drivedb(const std::string& explicit_path, const std::string& root = "/");

}  // namespace ds::probe
