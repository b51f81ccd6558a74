#include "probe/plausible.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace ds::probe {

namespace {

constexpr std::uint64_t kLba28Limit = 1ull << 28;  // 28-bit LBA: at most 2^28 sectors

// ATA strings: two characters per word, blanks and NUL padding allowed, nothing else outside
// printable ASCII (ACS-3 3.4.9, ATA string convention).
bool printable(std::span<const std::uint16_t> words) {
  for (std::uint16_t w : words)
    for (unsigned c : {unsigned(w >> 8), unsigned(w & 0xFF)})
      if (c != 0 && (c < 0x20 || c > 0x7E)) return false;
  return true;
}

}  // namespace

bool identify_block_empty(std::span<const std::uint8_t> block) {
  return std::all_of(block.begin(), block.end(), [](std::uint8_t b) { return b == 0; }) ||
         std::all_of(block.begin(), block.end(), [](std::uint8_t b) { return b == 0xFF; });
}

std::vector<std::string> identify_implausibilities(const AtaIdentity& id) {
  std::vector<std::string> p;
  const auto& w = id.words;
  if ((w[0] & 0xC000u) == 0x8000u)
    p.push_back(fmt::format("word 0 ({:04x}h) says an ATAPI (PACKET) device: this is not the IDENTIFY "
                            "DEVICE data of a disk", w[0]));
  else if ((w[0] & 0xC000u) == 0xC000u)
    p.push_back(fmt::format("word 0 ({:04x}h) has bits 15:14 = 11b, which no device reports", w[0]));
  if (id.lba28_sectors > kLba28Limit)
    p.push_back(fmt::format("words 60-61 give {} sectors, more than 28-bit addressing can reach (2^28)",
                            id.lba28_sectors));
  if (!printable(std::span(w).subspan(27, 20))) p.push_back("the model (words 27-46) is not printable ASCII");
  else if (id.model.empty()) p.push_back("the model (words 27-46) is blank");
  if (!printable(std::span(w).subspan(10, 10))) p.push_back("the serial number (words 10-19) is not printable ASCII");
  if (!printable(std::span(w).subspan(23, 4))) p.push_back("the firmware revision (words 23-26) is not printable ASCII");
  return p;
}

}  // namespace ds::probe
