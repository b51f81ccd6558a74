// IDENTIFY DEVICE decoder. Word/bit references are ACS-3 (T13/2161-D rev 5) IDENTIFY data table unless noted;
// fields that ACS-3 made obsolete (AAM, legacy TCQ, default CHS, buffer size) cite the older
// standard that defined them (ATA8-ACS, ATA/ATAPI-7, ATA-5).
#include "probe/identify.hpp"

#include <fmt/format.h>

namespace ds::probe {
namespace {

inline bool bit(std::uint16_t w, int n) { return (w >> n) & 1u; }

// ACS-3 marks several words as valid with bits 15:14 = 01b (bit 14 one, bit 15 zero). A word of
// 0000h or FFFFh, or with that signature absent, comes from a device that predates the word.
inline bool signature_valid(std::uint16_t w) { return (w & 0xC000u) == 0x4000u; }

// A feature whose "supported" bit lives in `sup` and whose "enabled" bit lives in `ena`. The
// enabled bit means nothing when the feature is not supported, or when its word is not valid.
Feature feature(bool sup_valid, std::uint16_t sup, bool ena_valid, std::uint16_t ena, int n) {
  Feature f;
  f.supported = sup_valid && bit(sup, n);
  if (f.supported && ena_valid) f.enabled = bit(ena, n);
  return f;
}

std::optional<int> highest_bit(unsigned v) {
  if (v == 0) return std::nullopt;
  int n = 0;
  while (v >>= 1) ++n;
  return n;
}

// ACS-3 IDENTIFY data table, w89/w90: SECURITY ERASE UNIT time. Bit 15 = 1 selects the extended format (bits 14:0);
// otherwise bits 7:0 hold the time. Both count units of 2 minutes; the all-ones value means "more
// than" the maximum. ATA/ATAPI-7 drives fill the whole word with the 2-minute count.
std::uint16_t erase_minutes(std::uint16_t w) {
  const unsigned v = (w & 0x8000u) ? (w & 0x7FFFu) : (w & 0x00FFu);
  return static_cast<std::uint16_t>(v * 2u > 0xFFFFu ? 0xFFFFu : v * 2u);
}

}  // namespace

std::string ata_string(std::span<const std::uint16_t> words) {
  // ACS-3 (ATA string convention): in ATA strings the first character of each pair is in bits 15:8 of the word.
  std::string s;
  s.reserve(words.size() * 2);
  for (std::uint16_t w : words) {
    for (char c : {static_cast<char>(w >> 8), static_cast<char>(w & 0xFF)}) {
      const auto u = static_cast<unsigned char>(c);
      if (u == 0) c = ' ';                     // padding NULs read as blanks
      else if (u < 0x20 || u > 0x7E) c = '?';  // not ASCII: keep the output valid UTF-8
      s.push_back(c);
    }
  }
  // Strings are padded with blanks at the end; some serials are also right-justified, so both
  // ends are trimmed.
  const auto first = s.find_first_not_of(' ');
  if (first == std::string::npos) return {};
  const auto last = s.find_last_not_of(' ');
  return s.substr(first, last - first + 1);
}

const char* form_factor_name(std::uint8_t code) {
  // ACS-3 IDENTIFY data table (w168 bits 3:0); codes 6.. come from ACS-4.
  switch (code) {
    case 0: return "not reported";
    case 1: return "5.25 inch";
    case 2: return "3.5 inch";
    case 3: return "2.5 inch";
    case 4: return "1.8 inch";
    case 5: return "less than 1.8 inch";
    case 6: return "mSATA";
    case 7: return "M.2";
    case 8: return "MicroSSD";
    case 9: return "CFast";
    default: return "reserved";
  }
}

const char* checksum_name(ChecksumState state) {
  switch (state) {
    case ChecksumState::kValid: return "valid";
    case ChecksumState::kInvalid: return "invalid";
    case ChecksumState::kNotPresent: return "not present";
  }
  return "?";
}

std::vector<std::string> ata_major_version_names(std::uint16_t w80) {
  // ACS-3 IDENTIFY data table: bit n set = the device supports that major version. Bits 1..7 are ATA-1 ..
  // ATA/ATAPI-7 (1-7 obsolete today), 8 ATA8-ACS, 9 ACS-2, 10 ACS-3, 11 ACS-4 (ACS-4 table).
  std::vector<std::string> out;
  if (w80 == 0x0000 || w80 == 0xFFFF) return out;
  for (int n = 14; n >= 1; --n) {
    if (!bit(w80, n)) continue;
    if (n <= 3) out.push_back(fmt::format("ATA-{}", n));
    else if (n <= 7) out.push_back(fmt::format("ATA/ATAPI-{}", n));
    else if (n == 8) out.push_back("ATA8-ACS");
    else out.push_back(fmt::format("ACS-{}", n - 7));
  }
  return out;
}

double sata_gen_gbps(int gen) {
  switch (gen) {
    case 1: return 1.5;
    case 2: return 3.0;
    case 3: return 6.0;
    default: return 0.0;
  }
}

namespace {

// Which optional words hold data, decided once from their signatures and read by every section.
struct WordValidity {
  bool w82 = false, w85 = false;  // no signature: 0000h or FFFFh when not implemented
  bool w86 = false;               // no signature of its own: trusted when w83 is
  bool w76 = false;               // Serial ATA capabilities: 0000h/FFFFh on a parallel device
};

// Capacity (LBA28, LBA48 or CHS), sector sizes and alignment.
void decode_capacity(AtaIdentity& id, const WordValidity& v) {
  const auto& w = id.words;
  id.chs = Chs{w[1], w[3], w[6]};  // ATA/ATAPI-7 w1/w3/w6: default cylinders, heads, sectors
  id.lba28_sectors = static_cast<std::uint32_t>(w[60]) | (static_cast<std::uint32_t>(w[61]) << 16);
  id.lba48 = feature(id.w83_valid, w[83], v.w86, w[86], 10);
  id.lba48_supported = id.lba48.supported;
  if (id.lba48_supported) {
    for (int i = 3; i >= 0; --i) id.lba48_sectors = (id.lba48_sectors << 16) | w[100 + i];
  }
  if (id.lba48_supported && id.lba48_sectors != 0) id.capacity_sectors = id.lba48_sectors;
  else if (id.lba28_sectors != 0) id.capacity_sectors = id.lba28_sectors;
  else id.capacity_sectors = std::uint64_t{id.chs.cylinders} * id.chs.heads * id.chs.sectors_per_track;

  // w106: valid when bits 15:14 = 01b. Bit 12: logical sector longer than 256
  // words, its size in words in w117-118. Bit 13: 2^(bits 3:0) logical sectors per physical.
  if (signature_valid(w[106])) {
    if (bit(w[106], 12)) {
      const std::uint32_t words =
          static_cast<std::uint32_t>(w[117]) | (static_cast<std::uint32_t>(w[118]) << 16);
      if (words >= 256) id.logical_sector_bytes = words * 2;  // nonsense smaller sizes ignored
    }
    if (bit(w[106], 13)) id.logical_per_physical = 1u << (w[106] & 0x0F);
  }
  id.physical_sector_bytes = id.logical_sector_bytes * id.logical_per_physical;
  // w209: bits 15:14 = 01b valid; bits 13:0 = offset of LBA 0 within the
  // first physical sector, in logical sectors.
  if (signature_valid(w[209])) id.alignment_offset = w[209] & 0x3FFF;
  id.capacity_bytes = id.capacity_sectors * id.logical_sector_bytes;
}

// Media (rotation, form factor) and the interface: versions, SATA speeds, transfer modes.
void decode_media_interface(AtaIdentity& id, const WordValidity& v) {
  const auto& w = id.words;
  id.rotation_raw = w[217];  // ACS-3 IDENTIFY data table
  if (w[217] == 0x0001) id.solid_state = true, id.rotation_rate_rpm = 1;
  else if (w[217] >= 0x0401 && w[217] <= 0xFFFE) id.rotation_rate_rpm = w[217];
  id.form_factor = static_cast<std::uint8_t>(w[168] & 0x0F);  // ACS-3 IDENTIFY data table

  // --- Interface ------------------------------------------------------------------------------
  if (w[80] != 0x0000 && w[80] != 0xFFFF) id.ata_major_versions = w[80];  // ACS-3 IDENTIFY data table
  id.ata_minor_version = w[81];
  id.sata = v.w76;
  if (v.w76) {
    for (int gen = 1; gen <= 3; ++gen)
      if (bit(w[76], gen)) id.sata_gens_supported.push_back(gen);  // bits 1..3
    // w77 bits 3:1: current negotiated signalling speed, coded 1..3. Drives
    // older than ATA8-ACS leave w77 zero.
    if (w[77] != 0x0000 && w[77] != 0xFFFF) {
      const int cur = (w[77] >> 1) & 0x7;
      if (cur >= 1 && cur <= 3) id.sata_gen_current = cur;
    }
  }
  id.mwdma_supported = static_cast<std::uint8_t>(w[63] & 0x07);  // w63 bits 2:0
  id.mwdma_selected = highest_bit((w[63] >> 8) & 0x07);           // w63 bits 10:8
  if (bit(w[53], 2)) {  // w53 bit 2: w88 valid
    id.udma_supported = w[88] & 0x7F;
    id.udma_selected = highest_bit((w[88] >> 8) & 0x7F);
  }
  if (bit(w[53], 1)) id.pio_advanced = static_cast<std::uint8_t>(w[64] & 0x03);  // w53 bit 1: w64-70
  id.multiple_sectors_max = w[47] & 0xFF;
  id.buffer_size_raw = w[21];  // ATA-5 w21 "buffer size" (retired), 512-byte units
}

// Queuing: NCQ and legacy TCQ, and the depth they share.
void decode_queuing(AtaIdentity& id, const WordValidity& v) {
  const auto& w = id.words;
  // NCQ: w76 bit 8. Queue depth: w75 bits 4:0 = maximum depth − 1
  //. NCQ has no enable bit in IDENTIFY: the host enables it by using it.
  id.ncq.supported = v.w76 && bit(w[76], 8);
  if (id.ncq.supported) id.ncq_depth = static_cast<std::uint8_t>((w[75] & 0x1F) + 1);
  // Legacy (overlapped) TCQ: ATA/ATAPI-7 w83 bit 1 = READ/WRITE DMA QUEUED supported, w86 bit 1
  // the enabled copy; the same w75 carries its depth. Obsolete since ATA8-ACS.
  id.tcq = feature(id.w83_valid, w[83], v.w86, w[86], 1);
  if (id.tcq.supported) id.tcq_depth = static_cast<std::uint8_t>((w[75] & 0x1F) + 1);
}

// The supported/enabled feature bits of w82-87 (and the WWN their w84 announces).
void decode_features(AtaIdentity& id, const WordValidity& v) {
  const auto& w = id.words;
  id.smart = feature(v.w82, w[82], v.w85, w[85], 0);             // w82/85 bit 0
  id.security = feature(v.w82, w[82], v.w85, w[85], 1);          // w82/85 bit 1
  id.power_management = feature(v.w82, w[82], v.w85, w[85], 3);  // w82/85 bit 3
  id.write_cache = feature(v.w82, w[82], v.w85, w[85], 5);       // w82/85 bit 5
  id.read_look_ahead = feature(v.w82, w[82], v.w85, w[85], 6);   // w82/85 bit 6
  id.hpa = feature(v.w82, w[82], v.w85, w[85], 10);              // w82/85 bit 10
  id.apm = feature(id.w83_valid, w[83], v.w86, w[86], 3);            // w83/86 bit 3
  if (id.apm.supported) id.apm_level = static_cast<std::uint8_t>(w[91] & 0xFF);  // w91 bits 7:0
  id.puis = feature(id.w83_valid, w[83], v.w86, w[86], 5);            // w83/86 bit 5
  id.flush_cache_ext = feature(id.w83_valid, w[83], v.w86, w[86], 13);  // w83/86 bit 13
  id.smart_error_log = feature(id.w84_valid, w[84], id.w87_valid, w[87], 0);  // w84/87 bit 0
  id.smart_self_test = feature(id.w84_valid, w[84], id.w87_valid, w[87], 1);  // w84/87 bit 1
  id.gpl = feature(id.w84_valid, w[84], id.w87_valid, w[87], 5);              // w84/87 bit 5
  if (id.w84_valid && bit(w[84], 8)) {  // w84 bit 8: 64-bit World Wide Name in w108-111
    id.wwn = (std::uint64_t{w[108]} << 48) | (std::uint64_t{w[109]} << 32) |
             (std::uint64_t{w[110]} << 16) | w[111];
  }
}

// AAM, TRIM and the w69 capabilities, and the security status.
void decode_aam_trim_security(AtaIdentity& id, const WordValidity& v) {
  const auto& w = id.words;
  // AAM (ATA8-ACS IDENTIFY data: w83 bit 9 supported, w86 bit 9 enabled; w94 bits 7:0 current
  // level, bits 15:8 vendor recommended level). The levels are only defined when the feature set
  // is supported. Some drives fill w94 anyway: ST9100821AS (firmware 3.CME) has w83 bit 9 = 0 and
  // w94 = FE00h, and hdparm 9.65 prints "Recommended acoustic management value: 254, current
  // value: 0" for it. We follow the standard: AAM is not supported there, and its levels are not
  // reported, because a SET FEATURES 42h to that drive would be aborted and the numbers in w94
  // describe nothing the host can use.
  id.aam = feature(id.w83_valid, w[83], v.w86, w[86], 9);
  if (id.aam.supported) {
    id.aam_current_level = static_cast<std::uint8_t>(w[94] & 0xFF);
    id.aam_recommended_level = static_cast<std::uint8_t>(w[94] >> 8);
  }

  // TRIM: w169 bit 0 (ACS-3 IDENTIFY data table, DATA SET MANAGEMENT with the TRIM bit). No enable bit.
  id.trim.supported = bit(w[169], 0) && w[169] != 0xFFFF;
  id.trim_deterministic = id.trim.supported && bit(w[69], 14);  // w69 bit 14
  id.trim_zeroes = id.trim.supported && bit(w[69], 5);          // w69 bit 5
  // w69 has no validity signature; drives older than ACS-2 leave it 0 (reserved), which reads as
  // "not reported" / false here. FFFFh (a bridge that fills unknown words) is not believed.
  if (w[69] != 0xFFFF) {
    id.zoned = static_cast<std::uint8_t>(w[69] & 0x3);  // w69 bits 1:0
    id.nv_write_cache = bit(w[69], 2);
    id.encrypts_all = bit(w[69], 4);
  }

  // Security status (ACS-3 IDENTIFY data table, w128) and erase times (w89/w90).
  if (id.security.supported && w[128] != 0xFFFF) {
    id.security_locked = bit(w[128], 2);
    id.security_frozen = bit(w[128], 3);
    id.security_count_expired = bit(w[128], 4);
    id.security_enhanced_erase = bit(w[128], 5);
    id.security_erase_minutes = erase_minutes(w[89]);
    id.security_enhanced_erase_minutes = erase_minutes(w[90]);
  }
}

}  // namespace

Expected<AtaIdentity> decode_identify(std::span<const std::uint8_t> block,
                                      const DecodeOptions& options) {
  if (block.size() != 512) {
    return make_error(fmt::format(
        "IDENTIFY data must be 512 bytes (256 words), got {} bytes", block.size()));
  }
  AtaIdentity id;
  auto& w = id.words;
  for (std::size_t i = 0; i < 256; ++i) {
    // The block is little-endian words on the wire and in every dump format we read (ACS-3 byte and word ordering).
    w[i] = static_cast<std::uint16_t>(block[2 * i] | (block[2 * i + 1] << 8));
  }

  // w255: bits 7:0 = A5h signature, bits 15:8 = checksum chosen so that the
  // sum of all 512 bytes is 0 mod 256. Without the signature the checksum is simply not provided.
  if ((w[255] & 0xFF) == 0xA5) {
    unsigned sum = 0;
    for (auto b : block) sum += b;
    id.checksum = (sum & 0xFF) == 0 ? ChecksumState::kValid : ChecksumState::kInvalid;
  }
  if (id.checksum == ChecksumState::kInvalid && !options.allow_bad_checksum) {
    unsigned sum = 0;
    for (auto b : block) sum += b;
    return make_error(fmt::format(
        "IDENTIFY checksum is wrong (word 255 = {:04x}h, byte sum mod 256 = {:02x}h, expected 00h): "
        "the data is corrupt",
        w[255], sum & 0xFF));
  }

  // --- Word 0: general configuration --------------------------------------
  id.general_config = w[0];
  id.atapi = (w[0] & 0xC000u) == 0x8000u;  // bits 15:14 = 10b
  id.removable_media = bit(w[0], 7);
  id.response_incomplete = bit(w[0], 2);

  // --- Strings --------------------------------------------------------------------------------
  id.serial = ata_string(std::span(w).subspan(10, 10));    // w10-19
  id.firmware = ata_string(std::span(w).subspan(23, 4));   // w23-26
  id.model = ata_string(std::span(w).subspan(27, 20));     // w27-46

  // --- Feature-word validity ------------------------------------------------------------------
  // w82/w85 have no signature; a device that does not implement them returns 0000h or FFFFh.
  WordValidity v;
  v.w82 = w[82] != 0x0000 && w[82] != 0xFFFF;
  v.w85 = w[85] != 0x0000 && w[85] != 0xFFFF;
  id.w83_valid = signature_valid(w[83]);  // w83 bits 15:14 = 01b
  id.w84_valid = signature_valid(w[84]);  // w84 bits 15:14 = 01b
  id.w87_valid = signature_valid(w[87]);  // w87 bits 15:14 = 01b
  // w86 carries no signature of its own (its bit 15 means "words 119-120 valid"): its bits are
  // the "enabled" companions of w83, so they are trusted when w83 is.
  v.w86 = id.w83_valid;
  // w76 Serial ATA capabilities: 0000h/FFFFh = not a SATA device.
  v.w76 = w[76] != 0x0000 && w[76] != 0xFFFF;

  decode_capacity(id, v);
  decode_media_interface(id, v);
  decode_queuing(id, v);
  decode_features(id, v);
  decode_aam_trim_security(id, v);
  return id;
}

}  // namespace ds::probe
