// SCSI sense data decoding through libsgutils2 (sg_lib.h), so that our reading of sense keys,
// ASC/ASCQ and the INFORMATION field is the one sg3_utils' own tools print (SPC-4 sense data).
// We check the framing ourselves first: sense bytes come from devices and files and may be
// garbage, and a decoder must answer with an error, never read past the buffer.
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "drivescope/expected.hpp"

namespace ds {

struct SenseInfo {
  std::uint8_t response_code = 0;  // 70h..73h (the VALID bit stripped)
  bool descriptor_format = false;  // 72h/73h
  bool deferred = false;           // 71h/73h: about an earlier command
  std::uint8_t sense_key = 0;
  std::uint8_t asc = 0;
  std::uint8_t ascq = 0;
  std::optional<std::uint64_t> information;  // only when VALID (fixed) / the descriptor is valid
  std::string sense_key_text;  // libsgutils2: e.g. "Medium Error"
  std::string asc_text;        // libsgutils2: e.g. "Unrecovered read error"
  std::string text;            // libsgutils2's full multi-line decode (sg_get_sense_str)
};

// Decodes fixed (70h/71h) or descriptor (72h/73h) sense data. Empty, short or non-sense input is
// an error that says what is wrong.
Expected<SenseInfo> decode_sense(std::span<const std::uint8_t> sense);

// One line for CommandResult::message, e.g.
// "Medium Error: Unrecovered read error (information 0x1234)".
std::string sense_summary(const SenseInfo& s);

// decode_sense + sense_summary, or a description of why the bytes could not be decoded.
std::string describe_sense(std::span<const std::uint8_t> sense);

}  // namespace ds
