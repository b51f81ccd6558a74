// Does a 512-byte block look like the IDENTIFY DEVICE data of an ATA disk at all? A captured dump
// can be anything (random bytes, a zeroed block, an ATAPI device, another structure); the decoder
// decodes whatever it is given, so these checks say when its output should not be trusted.
#pragma once
#include <span>
#include <string>
#include <vector>

#include "probe/identify.hpp"

namespace ds::probe {

// An all-zero (or all-FFh) block carries no identity at all: nothing to decode.
bool identify_block_empty(std::span<const std::uint8_t> block);

// Each problem as one sentence; empty when the data is plausible. Checked: word 0 (ATAPI or
// reserved bits 15:14 = 11b), words 60-61 (an LBA28 capacity above 2^28 sectors cannot be), the
// model, serial and firmware strings (printable ASCII, model not empty).
std::vector<std::string> identify_implausibilities(const AtaIdentity& id);

}  // namespace ds::probe
