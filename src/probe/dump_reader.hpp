// Readers for captured IDENTIFY data (`drivescope identify --from-file PATH`). Three formats are
// recognised from the content, not the file name:
//   - hdparm hex words: what `hdparm --Istdin` reads (and `hdparm --Istdout` writes): 256 words
//     of 4 hex digits separated by white space, each the word's value (most significant first);
//   - a raw 512-byte IDENTIFY block, little-endian words as the drive sent it;
//   - a libatasmart blob (`skdump --save`): records IDFY, SMST, SMDT, SMTH;
//   - what `drivescope identify --raw` printed: its word table in the saved text output, or
//     "raw_words" in its --json document (so a capture made with drivescope reads back).
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "drivescope/expected.hpp"

namespace ds::probe {

enum class DumpFormat { kHdparmHex, kRaw512, kAtasmartBlob, kDrivescopeRaw, kDrivescopeJson };
// "hdparm-hex", "raw-512", "libatasmart-blob", "drivescope-raw", "drivescope-json"
const char* dump_format_name(DumpFormat f);

struct IdentifyDump {
  DumpFormat format = DumpFormat::kRaw512;
  std::array<std::uint8_t, 512> identify{};  // little-endian words, as the drive sent them
  // Only a libatasmart blob carries these.
  std::optional<std::array<std::uint8_t, 512>> smart_data;
  std::optional<std::array<std::uint8_t, 512>> smart_thresholds;
  std::optional<bool> smart_status_good;  // SMST record (SMART RETURN STATUS)
  std::vector<std::uint8_t> blob;         // the whole blob, for smart_from_blob()
};

// The bytes of a captured file, or of stdin when `path` is "-" (`hdparm --Istdout /dev/sda |
// drivescope identify --from-file -`). More than `max_bytes` is refused ("NAME: more than N bytes:
// not WHAT"), not slurped; errors name the file, or "stdin".
Expected<std::vector<std::uint8_t>> read_capture(const std::string& path, std::size_t max_bytes, std::string_view what);

// Reads and recognises a dump file ("-": stdin). Errors name the file and say what is wrong (empty, truncated,
// wrong size, not hex, blob without IDFY, ...). The IDENTIFY checksum is checked here as well:
// a block whose w255 signature is present with a wrong sum is refused unless
// `allow_bad_checksum` is set.
Expected<IdentifyDump> read_identify_dump(const std::string& path, bool allow_bad_checksum = false);

// The same on bytes already in memory; `name` is used in error messages.
Expected<IdentifyDump> parse_identify_dump(std::span<const std::uint8_t> bytes,
                                           std::string_view name,
                                           bool allow_bad_checksum = false);

// Whether the bytes hold what `identify --raw` printed (its word table, or its JSON's raw_words):
// `decode --identify` then reads them as a dump, not as inhex text.
bool is_drivescope_capture(std::span<const std::uint8_t> bytes);

// One record of a libatasmart blob, as found by walking the container.
struct BlobRecord {
  std::string tag;  // 4 characters
  std::size_t offset = 0;  // of the record header
  std::uint32_t size = 0;  // payload bytes
};
// Walks the records of a blob and checks their sizes (IDFY/SMDT/SMTH 512, SMST 4), repeats and
// truncation; does not require IDFY.
Expected<std::vector<BlobRecord>> list_blob_records(std::span<const std::uint8_t> blob);

}  // namespace ds::probe
