// JSON and human text for what probe_scsi learned about a SCSI target (INQUIRY, VPD pages,
// READ CAPACITY, Caching mode page), optionally with the Linux host's view of the disk.
// Returns values; printing is the CLI's job.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "probe/scsi_probe.hpp"
#include "probe/sysfs.hpp"

namespace ds::report {

// The object the caller puts under "identify" (product.md's JSON contract). Stable keys where
// they apply to SCSI: model (INQUIRY product), serial (VPD 0x80), firmware (INQUIRY revision),
// capacity_sectors, logical_sector_bytes, rotation_rate_rpm (null when not reported, 1 for solid
// state), tcq{supported (CmdQue), depth (host queue depth from `facts`, else null)},
// write_cache{supported, enabled} and read_ahead{supported, enabled} from the Caching mode page
// (null when the page could not be read). Also: vendor, physical_sector_bytes, capacity_bytes,
// form_factor, zoned (VPD 0xB1, null without it), concurrent_positioning_ranges (VPD 0xB9, null
// without it; see zones_report.hpp), zones (REPORT ZONES of a zoned device, else null), host{...} when facts are given, scsi{inquiry, vpd_pages, device_id[],
// block_limits, block_characteristics, read_capacity, caching, ata_information}, and
// probe_errors[] {command, outcome, message, decode_error} for every step that failed.
nlohmann::json scsi_identity_to_json(const probe::ScsiProbe& probe,
                                     const sysfs::DriveFacts* facts = nullptr);

// Human text: Identity, Capacity, Queuing and caches, Device identification, Block limits,
// ATA information (SAT), Problems; aligned "label: value" lines.
// With `only_present` (decoding captured pages: `drivescope decode`), sections and lines of what
// was not given are left out instead of saying "not available".
std::string scsi_identity_to_text(const probe::ScsiProbe& probe,
                                  const sysfs::DriveFacts* facts = nullptr,
                                  bool only_present = false);

}  // namespace ds::report
