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
  // 4 KiB (8 pages): the header counts every zone, the descriptors are the first 63.
  std::vector<std::uint8_t> reply(4096);
  auto res = ata::report_zones_ext(dev, 0, reply);
  if (!res.ok()) {
    z.note = "REPORT ZONES EXT failed: " + res.message;
    return z;
  }
  auto rep = decode_report_zones(reply, ZoneByteOrder::kZacLittleEndian);
  if (rep) z.zones = std::move(*rep);
  else z.note = "REPORT ZONES EXT not decodable: " + rep.error().message;
  return z;
}

}  // namespace ds::probe
