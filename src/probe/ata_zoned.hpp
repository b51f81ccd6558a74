// Is an ATA drive zoned, and its zones: what `identify` and `smr` ask a drive behind a SATL.
//
// A host-aware ZAC drive says so in IDENTIFY word 69 bits 1:0 (01b). A host-managed one leaves
// those bits 00b (ACS-4): it is told apart by its device signature (ABCDh), which the host's SAT
// layer turns into peripheral device type 14h in INQUIRY (Linux libata does). So the drive is
// asked INQUIRY through the SCSI side of its device, then REPORT ZONES EXT (ZAC MANAGEMENT IN),
// both read-only and on the passthrough allowlist.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "drivescope/device.hpp"
#include "probe/zones.hpp"

namespace ds::probe {

struct AtaZoned {
  std::optional<bool> host_managed;  // INQUIRY device type 14h; nullopt: INQUIRY not answered
  std::uint8_t zoned = 0;            // IDENTIFY word 69 bits 1:0, as given
  std::optional<ZoneReport> zones;   // REPORT ZONES EXT (the first 4 KiB) of a zoned drive
  std::string note;                  // why zones is empty on a zoned drive
  bool is_zoned() const { return zoned == 1 || host_managed.value_or(false); }
};

// identify_zoned: IDENTIFY word 69 bits 1:0 (probe::AtaIdentity::zoned).
AtaZoned probe_ata_zoned(Device& dev, std::uint8_t identify_zoned);

}  // namespace ds::probe
