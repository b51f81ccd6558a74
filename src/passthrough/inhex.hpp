// Reader for sg3_utils' --inhex text format: ASCII hex bytes separated by whitespace or commas,
// several per line, '#' starting a comment to the end of the line. A run of hex digits with no
// separators (even length) is also accepted and read two digits per byte, as sg3_utils does.
// Used by tests and by the SCSI decoders to read captured responses and sense data.
#pragma once
#include <cstdint>
#include <string_view>
#include <vector>

#include "drivescope/expected.hpp"

namespace ds {

// Errors name the line and the offending token; an input with no bytes at all is an error too.
Expected<std::vector<std::uint8_t>> parse_inhex(std::string_view text);

}  // namespace ds
