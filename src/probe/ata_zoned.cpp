#include "probe/ata_zoned.hpp"

#include <algorithm>
#include <array>
#include <vector>

#include "drivescope/commands.hpp"
#include "probe/scsi_decode.hpp"

namespace ds::probe {

AtaZoned probe_ata_zoned(Device& dev, std::uint8_t identify_zoned) {
  AtaZoned z;
  z.zoned = identify_zoned;
  if (dev.info().scsi_capable) {
    std::array<std::uint8_t, 96> inq{};
    auto res = scsi::inquiry(dev, inq);
    if (res.ok()) {
      const std::size_t got = inq.size() - static_cast<std::size_t>(std::max(0, res.residual));
      if (auto q = scsi::decode_standard_inquiry(std::span<const std::uint8_t>(inq.data(), got)))
        z.host_managed = q->device_type == 0x14;
    }
  }
  if (!z.is_zoned()) return z;
  // The whole list, in replies of 64 KiB (128 pages) from where the last one ended.
  bool first_failed = false;
  auto fetch = [&](std::uint64_t lba) -> Expected<std::vector<std::uint8_t>> {
    std::vector<std::uint8_t> reply(kZoneReplyBytes);
    auto res = ata::report_zones_ext(dev, lba, reply);
    if (!res.ok()) {
      first_failed = lba == 0;
      return make_error(res.message);
    }
    return reply;
  };
  auto rep = read_zone_list(fetch, ZoneByteOrder::kZacLittleEndian, kMaxZoneReplies);
  if (rep) z.zones = std::move(*rep);
  else z.note = (first_failed ? "REPORT ZONES EXT failed: " : "REPORT ZONES EXT not decodable: ") + rep.error().message;
  return z;
}

}  // namespace ds::probe
