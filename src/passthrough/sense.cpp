#include "passthrough/sense.hpp"

#include <scsi/sg_lib.h>

#include <algorithm>
#include <array>
#include <string_view>

#include <fmt/format.h>

namespace ds {
namespace {

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

}  // namespace

Expected<SenseInfo> decode_sense(std::span<const std::uint8_t> sense) {
  if (sense.empty()) return make_error("no sense data");
  const std::uint8_t rc = sense[0] & 0x7F;
  if (rc < 0x70 || rc > 0x73)
    return make_error(fmt::format("not sense data: response code {:#04x} (expected 70h..73h)", sense[0]));
  const bool desc = rc >= 0x72;
  // Both formats carry ADDITIONAL SENSE LENGTH in byte 7 (SPC-4 sense data formats). Fixed format
  // needs bytes 12/13 for ASC/ASCQ; descriptor format has them in its 8-byte header.
  if (sense.size() < 8)
    return make_error(fmt::format("sense data truncated: {} bytes, the header alone is 8", sense.size()));
  const std::size_t len = std::min<std::size_t>(sense.size(), 8 + std::size_t{sense[7]});
  if (!desc && len < 14)
    return make_error(fmt::format("fixed-format sense data truncated: {} bytes, ASC/ASCQ need 14", len));

  // libsgutils2 walks descriptors by byte 7 rather than the length it is given (the fuzzer found
  // a 12-byte buffer claiming 72 more bytes read past its end: fuzz/regressions). So it gets a
  // copy whose byte 7 matches what is really there, inside a zeroed buffer. Its descriptor
  // printers also trust the lengths nested inside a descriptor (the fuzzer found a designation
  // descriptor near the end whose own length ran 2 bytes past a 263-byte buffer), so beyond the
  // largest sense data (8 + 255) there is room for the longest nested one (4 + 255) and more.
  std::array<std::uint8_t, 1024> copy{};
  std::copy_n(sense.begin(), len, copy.begin());
  copy[7] = static_cast<std::uint8_t>(len - 8);
  const std::uint8_t* p = copy.data();
  const int n = static_cast<int>(len);
  sg_scsi_sense_hdr hdr{};
  if (!sg_scsi_normalize_sense(p, n, &hdr))
    return make_error("libsgutils2 could not normalize the sense data");

  SenseInfo s;
  s.response_code = hdr.response_code;
  s.descriptor_format = desc;
  s.deferred = rc == 0x71 || rc == 0x73;
  s.sense_key = hdr.sense_key;
  s.asc = hdr.asc;
  s.ascq = hdr.ascq;
  std::uint64_t info = 0;
  if (sg_get_sense_info_fld(p, n, &info)) s.information = info;

  std::array<char, 128> small{};
  s.sense_key_text = sg_get_sense_key_str(s.sense_key, static_cast<int>(small.size()), small.data());
  small.fill(0);
  s.asc_text = sg_get_asc_ascq_str(s.asc, s.ascq, static_cast<int>(small.size()), small.data());
  // libsgutils2 words this "Additional sense: <text>"; keep only the text, as sg_decode_sense's
  // line shows it after the same label.
  constexpr std::string_view kLabel = "Additional sense: ";
  if (s.asc_text.starts_with(kLabel)) s.asc_text.erase(0, kLabel.size());
  std::array<char, 4096> big{};
  sg_get_sense_str(nullptr, p, n, false, static_cast<int>(big.size()), big.data());
  s.text = trim(big.data());
  return s;
}

std::string sense_summary(const SenseInfo& s) {
  std::string out = fmt::format("{}: {}", s.sense_key_text, s.asc_text);
  if (s.information) out += fmt::format(" (information {:#x})", *s.information);
  if (s.deferred) out += " [deferred error]";
  return out;
}

std::string describe_sense(std::span<const std::uint8_t> sense) {
  auto d = decode_sense(sense);
  if (!d) return "undecodable sense data: " + d.error().message;
  return sense_summary(*d);
}

}  // namespace ds
