// IDENTIFY DEVICE data of a simulated ATA drive, built from the model and the drive's current
// feature state. Word numbers follow ACS-3 (T13/2161-D) 7.12.7, table "IDENTIFY DEVICE data";
// older words cite ATA/ATAPI-7.
#include <algorithm>
#include <cmath>

#include "sim/device.hpp"

namespace ds::sim {

namespace {

class Words {
 public:
  std::array<std::uint16_t, 256> w{};
  // ATA strings: two characters per word, the first in the high byte, padded with spaces.
  void string(int first_word, int words, std::string_view s) {
    for (int i = 0; i < words * 2; ++i) {
      const std::uint8_t c = i < static_cast<int>(s.size()) ? static_cast<std::uint8_t>(s[i]) : ' ';
      auto& word = w[first_word + i / 2];
      word = static_cast<std::uint16_t>(i % 2 == 0 ? (word & 0x00FF) | (c << 8) : (word & 0xFF00) | c);
    }
  }
};

}  // namespace

std::array<std::uint8_t, 512> identify_data(const SimDrive& drive) {
  const DiskModel& m = drive.model();
  const Layout& l = drive.layout();
  const std::uint64_t cap = drive.capacity();
  Words d;
  auto& w = d.w;
  w[0] = 0x0040;  // ATA device (bit 15 = 0), fixed (ATA/ATAPI-7 bit 6)
  // Default CHS (ATA/ATAPI-7 w1/3/6): 16 heads, 63 sectors, cylinders clipped at 16383.
  w[1] = static_cast<std::uint16_t>(std::min<std::uint64_t>(16383, cap / (16 * 63)));
  w[3] = 16;
  w[6] = 63;
  d.string(10, 10, m.identity.serial);
  // w21: buffer size in 512-byte units (retired in ATA/ATAPI-6, still filled by drives of the era).
  w[21] = static_cast<std::uint16_t>(std::min<std::uint64_t>(m.cache.bytes / 512, 0xFFFF));
  d.string(23, 4, m.identity.firmware);
  d.string(27, 20, m.identity.model);
  w[47] = 0x8010;           // READ/WRITE MULTIPLE: up to 16 sectors
  w[49] = 0x0300;           // bit 9 LBA, bit 8 DMA supported
  w[50] = 0x4000;           // bit 14 must be one
  w[53] = 0x0006;           // words 64-70 and 88 valid
  w[59] = 0x0110;           // multiple sector setting valid, 16
  const std::uint64_t lba28 = std::min<std::uint64_t>(cap, 0x0FFFFFFF);
  w[60] = static_cast<std::uint16_t>(lba28 & 0xFFFF);
  w[61] = static_cast<std::uint16_t>(lba28 >> 16);
  w[63] = 0x0007;           // multiword DMA 0-2 supported
  w[64] = 0x0003;           // PIO 3-4
  w[65] = w[66] = 120;
  w[67] = w[68] = 120;
  // w69 bits 1:0 zoned capabilities (ACS-4): 01b host aware. A host-managed (ZAC) drive leaves
  // them 00b: it is told apart by its signature, which Linux's SAT layer turns into device type 14h.
  if (m.zoned.model == ZonedModel::host_aware) w[69] |= 0x0001;
  const bool ncq = m.queue.protocol == QueueProtocol::ncq;
  const bool tcq = m.queue.protocol == QueueProtocol::tcq;
  // w75 bits 4:0: maximum queue depth − 1 (NCQ, and legacy TCQ in ATA/ATAPI-7).
  if (ncq || tcq) w[75] = static_cast<std::uint16_t>((std::min<std::uint32_t>(m.queue.depth, 32) - 1) & 0x1F);
  // w76 Serial ATA capabilities: bit 8 NCQ; bits 1-3 Gen1/2/3 signalling from the bus rate.
  w[76] = 0x0002;
  if (m.interface_mb_s > 150) w[76] |= 0x0004;
  if (m.interface_mb_s > 300) w[76] |= 0x0008;
  if (ncq) w[76] |= 0x0100;
  w[80] = 0x01F0;           // major versions ATA/ATAPI-4 .. ATA8-ACS
  // w82/85: bit 0 SMART, bit 5 volatile write cache, bit 6 read look-ahead, bit 14 NOP.
  const bool has_cache = m.cache.bytes > 0;
  w[82] = static_cast<std::uint16_t>(0x4001 | (has_cache ? 0x0060 : 0));
  w[85] = static_cast<std::uint16_t>(0x4001 | (drive.write_cache() ? 0x0020 : 0) | (drive.look_ahead() ? 0x0040 : 0));
  // w83/86: bit 1 TCQ (ATA/ATAPI-7), bit 9 AAM, bit 10 48-bit, bits 12-13 FLUSH CACHE (EXT);
  // w83 bits 15:14 = 01b (word valid).
  std::uint16_t w83 = 0x4000 | 0x0400 | 0x3000;
  if (tcq) w83 |= 0x0002;
  if (m.aam.supported) w83 |= 0x0200;
  w[83] = w83;
  std::uint16_t w86 = 0x0400 | 0x3000;
  if (tcq) w86 |= 0x0002;
  if (m.aam.supported && drive.aam_enabled()) w86 |= 0x0200;
  w[86] = w86;
  w[84] = 0x4003;           // bits 15:14 = 01b; SMART error logging, SMART self-test
  w[87] = 0x4003;
  // Bit 5: General Purpose Logging. Only a multi-actuator model keeps logs (00h, 47h) to read.
  if (!m.actuators.empty()) w[84] |= 0x0020, w[87] |= 0x0020;
  w[88] = 0x407F;           // UDMA 0-6 supported, mode 6 selected
  w[93] = 0;                // no PATA hardware reset result on a SATA device
  // w94: AAM recommended level (bits 15:8, the vendor default) and current level (7:0).
  if (m.aam.supported)
    w[94] = static_cast<std::uint16_t>((m.aam.default_level << 8) | (drive.aam_enabled() ? drive.aam_level() : 0));
  w[100] = static_cast<std::uint16_t>(cap & 0xFFFF);
  w[101] = static_cast<std::uint16_t>((cap >> 16) & 0xFFFF);
  w[102] = static_cast<std::uint16_t>((cap >> 32) & 0xFFFF);
  w[103] = static_cast<std::uint16_t>((cap >> 48) & 0xFFFF);
  // w106: bits 15:14 = 01b valid; bit 13 several logical per physical, bits 3:0 its log2;
  // bit 12 logical sector longer than 256 words (then w117-118 give it in words).
  std::uint16_t w106 = 0x4000;
  const std::uint32_t ratio = m.physical_sector_bytes / m.logical_sector_bytes;
  if (ratio > 1) w106 |= static_cast<std::uint16_t>(0x2000 | static_cast<std::uint16_t>(std::log2(ratio)));
  if (m.logical_sector_bytes > 512) {
    w106 |= 0x1000;
    w[117] = static_cast<std::uint16_t>((m.logical_sector_bytes / 2) & 0xFFFF);
    w[118] = static_cast<std::uint16_t>((m.logical_sector_bytes / 2) >> 16);
  }
  w[106] = w106;
  w[217] = static_cast<std::uint16_t>(std::lround(m.rpm));  // nominal media rotation rate
  w[168] = 0x0002;          // nominal form factor: 3.5 inch
  w[222] = 0x1020;          // transport: serial, SATA 2.6-era minor
  (void)l;
  std::array<std::uint8_t, 512> out{};
  for (int i = 0; i < 255; ++i) {
    out[2 * i] = static_cast<std::uint8_t>(w[i] & 0xFF);
    out[2 * i + 1] = static_cast<std::uint8_t>(w[i] >> 8);
  }
  // w255: integrity word, signature A5h in bits 7:0 and a checksum in 15:8 making the 512 bytes
  // sum to zero mod 256 (ACS-3 7.12.7.91).
  out[510] = 0xA5;
  std::uint8_t sum = 0;
  for (int i = 0; i < 511; ++i) sum = static_cast<std::uint8_t>(sum + out[i]);
  out[511] = static_cast<std::uint8_t>(-sum);
  return out;
}

namespace {
constexpr std::size_t kCprHeader = 64, kCprDescriptor = 32;  // both pages: ACS-5 / SBC-5
void put_int(std::uint8_t* p, std::uint64_t v, std::size_t n, bool big_endian) {
  for (std::size_t i = 0; i < n; ++i)
    p[big_endian ? n - 1 - i : i] = static_cast<std::uint8_t>(v >> (8 * i));
}
// Descriptors from byte 64: range number, storage elements (one actuator each), lowest LBA at
// 8..15 and the number of LBAs at 16..23.
void put_ranges(const SimDrive& drive, std::vector<std::uint8_t>& p, bool big_endian) {
  const auto ranges = drive.positioning_ranges();
  for (std::size_t i = 0; i < ranges.size(); ++i) {
    std::uint8_t* d = &p[kCprHeader + i * kCprDescriptor];
    d[0] = static_cast<std::uint8_t>(i);
    d[1] = 1;
    put_int(d + 8, ranges[i].first_lba, 8, big_endian);
    put_int(d + 16, ranges[i].lba_count, 8, big_endian);
  }
}
}  // namespace

std::vector<std::uint8_t> cpr_log(const SimDrive& drive) {
  std::vector<std::uint8_t> p(512, 0);  // the model allows at most 8 ranges: one page
  p[0] = static_cast<std::uint8_t>(drive.positioning_ranges().size());
  put_ranges(drive, p, false);
  return p;
}

std::vector<std::uint8_t> cpr_vpd(const SimDrive& drive) {
  const std::size_t n = drive.positioning_ranges().size();
  std::vector<std::uint8_t> p(kCprHeader + n * kCprDescriptor, 0);
  p[1] = 0xB9;
  put_int(&p[2], p.size() - 4, 2, true);
  put_ranges(drive, p, true);
  return p;
}

}  // namespace ds::sim
