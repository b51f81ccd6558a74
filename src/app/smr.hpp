// `drivescope smr TARGET`: is the drive shingled (SMR), and how? One sentence with its evidence.
//   read-only: what the drive reports — IDENTIFY word 69 bits 1:0 zoned capabilities (ACS-4:
//   host aware / device managed), a host-managed SCSI device type (14h, ZBC) or the VPD B1h ZONED
//   field, TRIM on a rotating drive (a hint: many DM-SMR drives support it, few conventional
//   rotating ones do) — and what reads can show (nothing, for a drive-managed one);
//   --write: the Skylight-style timing probe (tests/smr.hpp): media cache size, band size,
//   cleaning when idle.
// Many DM-SMR drives report no zoned bits at all (openzfs issue 10182), so without --write the
// verdict for a drive that reports nothing is "unknown", never "cmr".
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "app/identify.hpp"
#include "app/target.hpp"
#include "tests/smr.hpp"

namespace ds::app {

struct SmrHints {
  bool known = false;            // the drive could be asked
  std::string source;            // "IDENTIFY DEVICE", "INQUIRY + VPD B1h"
  std::string note;              // why not known
  std::uint8_t zoned = 0;        // 0 not reported, 1 host aware, 2 device managed
  bool host_managed = false;     // peripheral device type 14h in INQUIRY (ZBC; ATA: through the SATL)
  std::string zones;             // a zoned drive's REPORT ZONES in a few words ("" when not read)
  std::optional<bool> trim;      // TRIM (ATA) / logical block provisioning (SCSI LBPME)
  std::optional<std::uint32_t> rpm;  // nominal rotation rate (1: solid state)
  // smartmontools' drive database on this ATA model and firmware (probe/drivedb.hpp): the family,
  // and whether its name says shingled (true), conventional (false) or neither (null).
  std::optional<std::string> drivedb_family;  // nullopt: not looked up or not listed
  std::optional<bool> drivedb_smr;
  std::string drivedb_note;                  // why nothing is known from it ("" when listed)
};

struct SmrOptions {
  bool write = false;            // run the timing probe (the target was opened for writing)
  std::string drivedb;           // --drivedb FILE ("" = smartctl's default files)
  std::string root = "/";        // where the default files are looked for (tests use fake trees)
  measure::SmrProbeOptions probe;
};

struct SmrResult {
  SmrHints hints;
  std::optional<measure::SmrProbeResult> probe;
  std::string verdict;           // dm-smr, host-aware, host-managed, cmr, unknown
  std::string sentence;
  std::vector<std::string> evidence;
  std::vector<std::string> warnings;
};

// Pure: the evidence of the hints, and the verdict from hints and probe (tested on their own).
std::vector<std::string> hint_evidence(const SmrHints& h);
void decide_smr(SmrResult& r);

Expected<SmrResult> run_smr(Target& t, const SmrOptions& o, const measure::ProgressFn* progress = nullptr);
Report smr_report(const Target& t, const SmrResult& r);

}  // namespace ds::app
