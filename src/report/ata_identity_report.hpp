// JSON and human text for a decoded ATA IDENTIFY (and optional SMART report). Returns values;
// printing is the CLI's job.
#pragma once
#include <cstdint>
#include <span>
#include <string>

#include <nlohmann/json.hpp>

#include "probe/identify.hpp"
#include "probe/smart.hpp"

namespace ds::report {

// The object the caller puts under "identify" (product.md, "JSON output contract"). Stable keys:
// model, serial, firmware, capacity_sectors, logical_sector_bytes, rotation_rate_rpm (null when
// not reported, 1 for solid state), ncq{supported,depth}, tcq{supported,depth},
// aam{supported,enabled,current_level,recommended_level}, write_cache{supported,enabled},
// read_ahead{supported,enabled}; more keys are added (snake_case, units in names).
// A feature's "enabled" is false when the feature is not supported and null when it is supported
// but its enabled word is not valid. AAM/APM levels are null when the feature is not supported.
// `smart` may be null; when given its decode goes under "smart".
nlohmann::json identity_to_json(const probe::AtaIdentity& id, const probe::SmartReport* smart);

// Just the SMART part (also used inside identity_to_json under "smart").
nlohmann::json smart_to_json(const probe::SmartReport& smart);

// Human text, grouped (Identity, Capacity, Interface, Queuing, Features, SMART) and aligned.
// Feature states read "not supported", "supported, disabled" or "enabled".
std::string identity_to_text(const probe::AtaIdentity& id, const probe::SmartReport* smart);

// The 256 words as a table (8 per line, word number on the left), for `identify --raw`.
std::string identify_words_text(std::span<const std::uint8_t, 512> block);

// "not supported" / "supported, disabled" / "enabled" / "supported, state unknown".
std::string feature_state_text(const probe::Feature& f);

}  // namespace ds::report
