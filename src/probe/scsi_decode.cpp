// Standard INQUIRY, READ CAPACITY and Caching mode page decoders (see scsi_decode.hpp).
#include "probe/scsi_decode.hpp"

#include <algorithm>
#include <string>

#include "probe/scsi_bytes.hpp"

namespace ds::scsi {

using namespace detail;

namespace {
Error too_short(std::string_view what, std::size_t have, std::size_t need) {
  return make_error(std::string(what) + " too short: " + std::to_string(have) +
                    " bytes, need at least " + std::to_string(need));
}
}  // namespace

// ---- standard INQUIRY --------------------------------------------------------------------------

Expected<StandardInquiry> decode_standard_inquiry(Bytes data) {
  // Vendor, product and revision end at byte 35: SPC-4 requires at least 36 bytes of standard
  // INQUIRY data, so anything shorter is a truncated or failed transfer.
  constexpr std::size_t kMin = 36;
  if (data.size() < 5) return too_short("standard INQUIRY data", data.size(), kMin);
  StandardInquiry q;
  q.additional_length = data[4];
  q.length = std::min<std::size_t>(std::size_t{q.additional_length} + 5, data.size());
  if (q.length < kMin) {
    return make_error("standard INQUIRY data too short: " + std::to_string(q.length) +
                      " bytes (additional length " + std::to_string(q.additional_length) +
                      ", buffer " + std::to_string(data.size()) + "), need at least 36");
  }
  const Bytes d = data.first(q.length);
  q.peripheral_qualifier = d[0] >> 5;
  q.device_type = d[0] & 0x1F;
  q.rmb = d[1] & 0x80;
  q.lu_cong = d[1] & 0x40;
  q.hot_pluggable = (d[1] >> 4) & 0x3;
  q.version = d[2];
  q.aerc = d[3] & 0x80;
  q.trmtsk = d[3] & 0x40;
  q.norm_aca = d[3] & 0x20;
  q.hisup = d[3] & 0x10;
  q.response_data_format = d[3] & 0x0F;
  q.sccs = d[5] & 0x80;
  q.acc = d[5] & 0x40;
  q.tpgs = (d[5] >> 4) & 0x3;
  q.third_party_copy = d[5] & 0x08;
  q.protect = d[5] & 0x01;
  q.bque = d[6] & 0x80;
  q.enc_serv = d[6] & 0x40;
  q.vs6 = d[6] & 0x20;
  q.multi_p = d[6] & 0x10;
  q.mchngr = d[6] & 0x08;
  q.addr16 = d[6] & 0x01;
  q.rel_adr = d[7] & 0x80;
  q.wbus16 = d[7] & 0x20;
  q.sync = d[7] & 0x10;
  q.linked = d[7] & 0x08;
  q.tran_dis = d[7] & 0x04;
  q.cmd_que = d[7] & 0x02;
  q.vs7 = d[7] & 0x01;
  q.vendor = trim_right(ascii(d, 8, 8));
  q.product = trim_right(ascii(d, 16, 16));
  q.revision = trim_right(ascii(d, 32, 4));
  if (d.size() > 36) {
    const auto end = std::min<std::size_t>(d.size(), 56);
    q.vendor_specific.assign(d.begin() + 36, d.begin() + end);
  }
  if (d.size() > 56) {
    q.spi_clocking = (d[56] >> 2) & 0x3;
    q.qas = d[56] & 0x02;
    q.ius = d[56] & 0x01;
  }
  for (std::size_t at = 58; at + 1 < d.size() && at < 74; at += 2) {
    if (auto v = be16(d, at)) q.version_descriptors.push_back(v);
  }
  return q;
}

std::string_view device_type_name(std::uint8_t pdt) {
  switch (pdt & 0x1F) {
    case 0x00: return "disk";
    case 0x01: return "tape";
    case 0x02: return "printer";
    case 0x03: return "processor";
    case 0x04: return "write once optical disk";
    case 0x05: return "cd/dvd";
    case 0x07: return "optical memory device";
    case 0x08: return "medium changer";
    case 0x0C: return "storage array controller";
    case 0x0D: return "enclosure services device";
    case 0x0E: return "simplified direct access device";
    case 0x0F: return "optical card reader/writer";
    case 0x11: return "object based storage";
    case 0x12: return "automation/driver interface";
    case 0x14: return "host managed zoned block";
    case 0x1E: return "well known logical unit";
    case 0x1F: return "no physical device on this lu";
    default: return "reserved";
  }
}

std::string_view version_name(std::uint8_t version) {
  switch (version) {
    case 0x00: return "no conformance claimed";
    case 0x03: return "SPC";
    case 0x04: return "SPC-2";
    case 0x05: return "SPC-3";
    case 0x06: return "SPC-4";
    case 0x07: return "SPC-5";
    default: return "";
  }
}

// ---- READ CAPACITY -----------------------------------------------------------------------------

Expected<Capacity> decode_read_capacity10(Bytes data) {
  if (data.size() < 8) return too_short("READ CAPACITY(10) data", data.size(), 8);
  Capacity c;
  c.last_lba = be32(data, 0);
  c.block_length = be32(data, 4);
  if (c.block_length == 0) return make_error("READ CAPACITY(10): logical block length is 0");
  return c;
}

Expected<Capacity> decode_read_capacity16(Bytes data) {
  // Bytes 0..15 hold every field decoded here (SBC-3 5.16.2); the rest is reserved.
  if (data.size() < 16) return too_short("READ CAPACITY(16) data", data.size(), 16);
  Capacity c;
  c.from_16 = true;
  c.last_lba = be64(data, 0);
  c.block_length = be32(data, 8);
  if (c.block_length == 0) return make_error("READ CAPACITY(16): logical block length is 0");
  if (c.last_lba == ~std::uint64_t{0})
    return make_error("READ CAPACITY(16): returned LBA FFFFFFFFFFFFFFFFh is not a capacity");
  c.p_type = (data[12] >> 1) & 0x7;
  c.prot_en = data[12] & 0x01;
  c.p_i_exponent = data[13] >> 4;
  c.lbppbe = data[13] & 0x0F;
  c.lbpme = data[14] & 0x80;
  c.lbprz = data[14] & 0x40;
  c.lowest_aligned_lba = static_cast<std::uint16_t>(((data[14] & 0x3F) << 8) | data[15]);
  return c;
}

// ---- Caching mode page -------------------------------------------------------------------------

Expected<CachingPage> decode_caching_page(Bytes page) {
  if (page.size() < 2) return too_short("Caching mode page", page.size(), 2);
  if ((page[0] & 0x3F) != 0x08) {
    return make_error("not the Caching mode page: page code 0x" + hex(page.first(1)));
  }
  if (page[0] & 0x40) return make_error("Caching mode page: unexpected subpage format (SPF=1)");
  const std::size_t len = std::min<std::size_t>(std::size_t{page[1]} + 2, page.size());
  // WCE/RCD live in byte 2, DRA in byte 12; SBC-3 gives the page 20 bytes (page length 12h),
  // but SCSI-2 era drives sent only 12 bytes (page length 0Ah). Take what is there, need byte 2.
  if (len < 3) return too_short("Caching mode page", len, 3);
  const Bytes p = page.first(len);
  CachingPage c;
  c.ps = p[0] & 0x80;
  c.ic = p[2] & 0x80;
  c.abpf = p[2] & 0x40;
  c.cap = p[2] & 0x20;
  c.disc = p[2] & 0x10;
  c.size = p[2] & 0x08;
  c.wce = p[2] & 0x04;
  c.mf = p[2] & 0x02;
  c.rcd = p[2] & 0x01;
  if (len > 3) {
    c.demand_read_retention_priority = p[3] >> 4;
    c.write_retention_priority = p[3] & 0x0F;
  }
  if (len >= 12) {
    c.disable_prefetch_transfer_length = be16(p, 4);
    c.min_prefetch = be16(p, 6);
    c.max_prefetch = be16(p, 8);
    c.max_prefetch_ceiling = be16(p, 10);
  }
  if (len >= 13) {
    c.fsw = p[12] & 0x80;
    c.lbcss = p[12] & 0x40;
    c.dra = p[12] & 0x20;
    c.nv_dis = p[12] & 0x01;
  }
  if (len >= 14) c.cache_segments = p[13];
  if (len >= 16) c.cache_segment_size = be16(p, 14);
  return c;
}

Expected<CachingPage> decode_mode_sense_caching(Bytes data, bool ten_byte_cdb) {
  // Mode parameter header: 4 bytes for MODE SENSE(6), 8 for (10) (SPC-4 7.5.5); the mode data
  // length excludes itself, and block descriptors sit between the header and the pages.
  const std::size_t header = ten_byte_cdb ? 8 : 4;
  if (data.size() < header) return too_short("MODE SENSE parameter data", data.size(), header);
  const std::size_t mode_len =
      ten_byte_cdb ? std::size_t{be16(data, 0)} + 2 : std::size_t{data[0]} + 1;
  const std::size_t end = std::min(mode_len, data.size());
  const std::size_t bd_len = ten_byte_cdb ? be16(data, 6) : data[3];
  std::size_t at = header + bd_len;
  while (at + 2 <= end) {
    const bool spf = data[at] & 0x40;
    const std::size_t page_len = spf ? (at + 4 <= end ? be16(data, at + 2) + 4u : end - at)
                                     : std::size_t{data[at + 1]} + 2;
    if ((data[at] & 0x3F) == 0x08 && !spf) {
      return decode_caching_page(data.subspan(at, std::min(page_len, end - at)));
    }
    at += page_len;
  }
  return make_error("MODE SENSE data holds no Caching mode page (0x08)");
}

}  // namespace ds::scsi
