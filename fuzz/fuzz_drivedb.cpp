// libFuzzer target: smartmontools' drive database parser (src/probe/drivedb.hpp). The table is a
// file on the system (or one a user names with --drivedb): any text must give a table or an error
// naming its line, never a crash. The regular expressions are not compiled here: glibc's regcomp
// on an adversarial expression may take exponential time, which is the C library's business and
// not the parser's; the lookup against real tables is tested against smartctl (tests/probe).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "probe/drivedb.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (auto db = ds::probe::parse_drivedb(text); db.ok()) {
    for (const auto& e : db->entries) {
      (void)ds::probe::parse_presets(e.presets);
      (void)ds::probe::family_says_smr(e.family);
    }
  }
  (void)ds::probe::parse_presets(text);
  return 0;
}
