// `drivescope list`: the drives of this machine as JSON and as an aligned table. Returns values;
// printing is the CLI's job.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "probe/sysfs.hpp"

namespace ds::report {

// A JSON array, one object per drive: device, name, transport, host_driver, vendor, model,
// revision, serial, size_bytes, size_sectors (512-byte units, as sysfs counts),
// logical_sector_bytes, physical_sector_bytes, rotational (null when unknown), removable,
// read_only, scheduler, schedulers[], queue_depth (null when none), queue_depth_writable,
// nr_requests, zoned (queue/zoned, null when absent), nr_zones, independent_access_ranges[]
// {sector, nr_sectors} (512-byte units), sata_link_speed, ncq_prio_enable, sg, mounted, swap, held, in_use, in_use_text,
// mountpoints[], holders[], partitions[] {name, size_bytes, mountpoints[], swap, holders[]}; and
// smartctl's names for the identity (report/envelope.hpp: smartctl_identity_from_list).
nlohmann::json drives_to_json(const std::vector<sysfs::DriveFacts>& drives);

// Aligned columns: DEVICE TRANSPORT MODEL SIZE ROT SCHED QD IN USE, one drive per line, ending in
// a newline; "No drives found.\n" for an empty list.
std::string drives_to_table(const std::vector<sysfs::DriveFacts>& drives);

// What the kernel says of a zoned or multi-actuator disk, as "label: value" lines (zoned model and
// zone count, independent access ranges); "" for a disk that is neither.
std::string drive_layout_text(const sysfs::DriveFacts& f);

// Decimal size as people read disk labels: "80.0 GB", "2.0 TB", "512.0 MB" (10^n bytes).
std::string human_size(std::uint64_t bytes);

}  // namespace ds::report
