// libFuzzer target: the IDENTIFY DEVICE decoder (src/probe/identify.hpp) and the General Purpose
// Log page decoders (src/probe/ata_logs.hpp) and the Concurrent Positioning Ranges log 47h
// (src/probe/zones.hpp), all over 512-byte ATA pages. Any bytes: a block of
// the wrong size must be refused with an error, a 512-byte block decoded (or refused for its
// checksum) without a crash, in both checksum modes.
#include <cstddef>
#include <cstdint>
#include <span>

#include "probe/ata_logs.hpp"
#include "probe/identify.hpp"
#include "probe/zones.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::uint8_t> in(data, size);
  for (bool lax : {false, true}) {
    ds::probe::DecodeOptions o;
    o.allow_bad_checksum = lax;
    auto id = ds::probe::decode_identify(in, o);
    if (size != 512 && id.ok()) __builtin_trap();  // only whole blocks may decode
    if (id.ok()) {
      // The helpers the reports call on decoded words.
      (void)ds::probe::ata_string(std::span<const std::uint16_t>(id->words).subspan(27, 20));
      (void)ds::probe::ata_major_version_names(id->words[80]);
      (void)ds::probe::form_factor_name(static_cast<std::uint8_t>(id->words[168] & 0xF));
    }
  }
  auto dir = ds::probe::decode_log_directory(in);
  if (size != 512 && dir.ok()) __builtin_trap();
  if (dir.ok())
    for (const auto& e : dir->logs) (void)ds::probe::log_name(e.address);
  if (auto pages = ds::probe::decode_identify_log_pages(in); pages.ok()) {
    if (size != 512) __builtin_trap();
    for (auto p : *pages) (void)ds::probe::identify_log_page_name(p);
  }
  if (auto r = ds::probe::decode_cpr_log(in); r.ok()) {
    if (size % 512 != 0 || 64 + 32 * r->ranges.size() > size) __builtin_trap();
  }
  return 0;
}
