// JSON and text for the layout pages of modern drives: concurrent positioning ranges (ATA log 47h,
// SCSI VPD B9h) and a REPORT ZONES summary. Returns values; printing is the CLI's job. The same
// functions serve `identify` and `decode`, so both spell the keys alike.
#pragma once
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "probe/zones.hpp"

namespace ds::report {

// identify.concurrent_positioning_ranges: {source, count, ranges[] {number, storage_elements,
// lowest_lba, lba_count}, problems[]}. `source` names the page ("ATA log 0x47", "VPD page 0xb9").
nlohmann::json ranges_to_json(const probe::PositioningRanges& r, std::string_view source);
// A titled section, one line per range.
std::string ranges_to_text(const probe::PositioningRanges& r, std::string_view source);

// identify.zones: {source, zones_listed, zones_decoded, truncated, max_lba, same, types[] {type,
// zones, blocks, first_lba}, sizes[] {length_blocks, zones}, conditions[] {condition, zones},
// problems[]}.
nlohmann::json zones_to_json(const probe::ZoneReport& z, std::string_view source);
std::string zones_to_text(const probe::ZoneReport& z, std::string_view source);

}  // namespace ds::report
