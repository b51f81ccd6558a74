// libFuzzer target: the SCSI response decoders (src/probe/scsi_decode.hpp): standard INQUIRY, the
// VPD pages drivescope reads (00h, 80h, 83h, 89h, B0h, B1h, B9h), READ CAPACITY(10/16), the
// caching mode page in MODE SENSE(6/10) data, and REPORT ZONES replies in both byte orders
// (src/probe/zones.hpp). Every decoder sees every input: each must either
// decode or return an error, never read past the span or crash.
#include <cstddef>
#include <cstdint>
#include <span>

#include "probe/scsi_decode.hpp"
#include "probe/zones.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const ds::scsi::Bytes in(data, size);
  (void)ds::scsi::decode_standard_inquiry(in);
  if (size > 1) (void)ds::scsi::decode_vpd_header(in, data[1]);
  (void)ds::scsi::decode_supported_vpd_pages(in);
  (void)ds::scsi::decode_unit_serial(in);
  if (auto d = ds::scsi::decode_device_identification(in); d.ok()) (void)d;
  (void)ds::scsi::decode_ata_information(in);
  (void)ds::scsi::decode_block_limits(in);
  (void)ds::scsi::decode_block_characteristics(in);
  (void)ds::scsi::decode_read_capacity10(in);
  (void)ds::scsi::decode_read_capacity16(in);
  (void)ds::scsi::decode_caching_page(in);
  (void)ds::scsi::decode_mode_sense_caching(in, false);
  (void)ds::scsi::decode_mode_sense_caching(in, true);
  (void)ds::probe::decode_cpr_vpd(in);
  for (auto order : {ds::probe::ZoneByteOrder::kZbcBigEndian, ds::probe::ZoneByteOrder::kZacLittleEndian}) {
    auto z = ds::probe::decode_report_zones(in, order);
    if (!z.ok()) continue;
    // Every descriptor decoded lies inside the input, and the summaries count exactly them.
    if (64 + 64 * z->zones.size() > size) __builtin_trap();
    std::uint64_t counted = 0;
    for (const auto& t : z->types) counted += t.zones, (void)ds::probe::zone_type_name(t.type);
    for (const auto& c : z->conditions) (void)ds::probe::zone_condition_name(c.condition);
    if (counted != z->zones.size()) __builtin_trap();
  }
  if (size > 0) {
    (void)ds::scsi::vpd_page_name(data[0]);
    (void)ds::scsi::designator_type_name(data[0] & 0xF);
    (void)ds::scsi::association_name((data[0] >> 4) & 3);
    (void)ds::scsi::code_set_name(data[0] & 0xF);
    (void)ds::scsi::protocol_name(data[0] >> 4);
    (void)ds::scsi::form_factor_name(data[0] & 0xF);
    (void)ds::scsi::zoned_name(data[0] & 3);
    (void)ds::probe::zoned_capabilities_name(data[0] & 3);
  }
  return 0;
}
