// VPD page decoders (see scsi_decode.hpp): 0x00, 0x80, 0x83 (SPC-4 7.8), 0x89 (SAT-3 12.4.2),
// 0xB0, 0xB1 (SBC-3 6.6).
#include <algorithm>
#include <cstdio>
#include <string>

#include "probe/scsi_bytes.hpp"
#include "probe/scsi_decode.hpp"

namespace ds::scsi {

using namespace detail;

namespace {

std::string page_hex(std::uint8_t page) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "0x%02x", page);
  return buf;
}

std::string short_hex(std::uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%x", v);
  return buf;
}

}  // namespace

Expected<VpdHeader> decode_vpd_header(Bytes data, std::uint8_t expected_page) {
  if (data.size() < 4) {
    return make_error("VPD page " + page_hex(expected_page) + " too short: " +
                      std::to_string(data.size()) + " bytes, need at least 4");
  }
  if (data[1] != expected_page) {
    return make_error("expected VPD page " + page_hex(expected_page) + " but the data holds page " +
                      page_hex(data[1]));
  }
  VpdHeader h;
  h.peripheral_qualifier = data[0] >> 5;
  h.device_type = data[0] & 0x1F;
  h.page_code = data[1];
  h.page_length = be16(data, 2);
  const std::size_t avail = std::min(h.page_length, data.size() - 4);
  h.truncated = avail < h.page_length;
  h.body = data.subspan(4, avail);
  return h;
}

// ---- 0x00 --------------------------------------------------------------------------------------

Expected<std::vector<std::uint8_t>> decode_supported_vpd_pages(Bytes data) {
  auto h = decode_vpd_header(data, 0x00);
  if (!h) return h.error();
  return std::vector<std::uint8_t>(h->body.begin(), h->body.end());
}

std::string_view vpd_page_name(std::uint8_t page) {
  switch (page) {
    case 0x00: return "Supported VPD pages";
    case 0x80: return "Unit serial number";
    case 0x83: return "Device identification";
    case 0x84: return "Software interface identification";
    case 0x85: return "Management network addresses";
    case 0x86: return "Extended inquiry data";
    case 0x87: return "Mode page policy";
    case 0x88: return "SCSI ports";
    case 0x89: return "ATA information (SAT)";
    case 0x8A: return "Power condition";
    case 0x8B: return "Device constituents";
    case 0x8C: return "CFA profile information";
    case 0x8D: return "Power consumption";
    case 0x8F: return "Third party copy";
    case 0x90: return "Protocol specific logical unit information";
    case 0x91: return "Protocol specific port information";
    case 0x92: return "SCSI feature sets";
    case 0xB0: return "Block limits (SBC)";
    case 0xB1: return "Block device characteristics (SBC)";
    case 0xB2: return "Logical block provisioning (SBC)";
    case 0xB3: return "Referrals (SBC)";
    case 0xB5: return "Block device characteristics extension (SBC)";
    case 0xB6: return "Zoned block device characteristics (ZBC)";
    case 0xB7: return "Block limits extension (SBC)";
    case 0xB9: return "Concurrent positioning ranges (SBC)";
    default: return page >= 0xC0 ? "vendor specific" : "unknown";
  }
}

// ---- 0x80 --------------------------------------------------------------------------------------

Expected<std::string> decode_unit_serial(Bytes data) {
  auto h = decode_vpd_header(data, 0x80);
  if (!h) return h.error();
  return trim(ascii(h->body, 0, h->body.size()));
}

// ---- 0x83 --------------------------------------------------------------------------------------

namespace {

std::string designator_value(const Designator& d) {
  const Bytes r = d.raw;
  switch (d.type) {
    case 0x0:  // vendor specific: text when the code set says so
      return d.code_set == 2 || d.code_set == 3 ? trim_right(ascii(r, 0, r.size())) : "0x" + hex(r);
    case 0x1:  // T10 vendor ID: 8-byte vendor then vendor specific text
      return trim_right(ascii(r, 0, r.size()));
    case 0x4:  // relative target port / target port group / LU group: 16-bit number in bytes 2-3
    case 0x5:
    case 0x6:
      return r.size() >= 4 ? short_hex(be16(r, 2)) : "0x" + hex(r);
    case 0x8: {  // SCSI name string: null-terminated, null-padded UTF-8
      std::string s(r.begin(), r.end());
      if (auto nul = s.find('\0'); nul != std::string::npos) s.resize(nul);
      return s;
    }
    case 0xA:  // UUID (SPC-5): bytes 2..17 in the RFC 4122 layout
      if (r.size() == 18 && (r[0] >> 4) == 1) {
        const std::string h = hex(r.subspan(2, 16));
        return h.substr(0, 8) + "-" + h.substr(8, 4) + "-" + h.substr(12, 4) + "-" +
               h.substr(16, 4) + "-" + h.substr(20);
      }
      return "0x" + hex(r);
    default:  // NAA, EUI-64, MD5, protocol specific port id and unknown types: hex
      return "0x" + hex(r);
  }
}

}  // namespace

Expected<DeviceIdentification> decode_device_identification(Bytes data) {
  auto h = decode_vpd_header(data, 0x83);
  if (!h) return h.error();
  DeviceIdentification out;
  out.truncated = h->truncated;
  const Bytes b = h->body;
  std::size_t at = 0;
  while (at + 4 <= b.size()) {
    const std::size_t len = b[at + 3];
    if (at + 4 + len > b.size()) {
      out.truncated = true;
      break;
    }
    Designator d;
    d.protocol_identifier = b[at] >> 4;
    d.code_set = b[at] & 0x0F;
    const bool piv = b[at + 1] & 0x80;
    d.association = (b[at + 1] >> 4) & 0x3;
    d.type = b[at + 1] & 0x0F;
    // SPC-4 7.8.6.1: the protocol identifier is defined only with PIV=1 and an association of
    // target port or target device.
    d.protocol_valid = piv && (d.association == 1 || d.association == 2);
    d.raw.assign(b.begin() + at + 4, b.begin() + at + 4 + len);
    if (d.type == 0x3 && !d.raw.empty()) d.naa = d.raw[0] >> 4;
    d.value = designator_value(d);
    out.designators.push_back(std::move(d));
    at += 4 + len;
  }
  if (at < b.size() && at + 4 > b.size()) out.truncated = true;
  if (out.designators.empty() && !b.empty())
    return make_error("Device Identification VPD page: first designation descriptor is truncated");
  return out;
}

std::string_view designator_type_name(std::uint8_t type) {
  switch (type) {
    case 0x0: return "vendor specific";
    case 0x1: return "T10 vendor identification";
    case 0x2: return "EUI-64 based";
    case 0x3: return "NAA";
    case 0x4: return "Relative target port";
    case 0x5: return "Target port group";
    case 0x6: return "Logical unit group";
    case 0x7: return "MD5 logical unit identifier";
    case 0x8: return "SCSI name string";
    case 0x9: return "Protocol specific port identifier";
    case 0xA: return "UUID identifier";
    default: return "reserved";
  }
}

std::string_view association_name(std::uint8_t association) {
  switch (association) {
    case 0: return "Addressed logical unit";
    case 1: return "Target port";
    case 2: return "Target device that contains addressed lu";
    default: return "reserved";
  }
}

std::string_view code_set_name(std::uint8_t code_set) {
  switch (code_set) {
    case 1: return "Binary";
    case 2: return "ASCII";
    case 3: return "UTF-8";
    default: return "reserved";
  }
}

std::string_view protocol_name(std::uint8_t p) {
  // SPC-4 7.6.1 protocol identifiers.
  switch (p) {
    case 0x0: return "Fibre Channel";
    case 0x1: return "Parallel SCSI";
    case 0x2: return "SSA";
    case 0x3: return "IEEE 1394";
    case 0x4: return "SCSI RDMA";
    case 0x5: return "iSCSI";
    case 0x6: return "SAS";
    case 0x7: return "ADT";
    case 0x8: return "ATA/ATAPI";
    case 0x9: return "UAS";
    case 0xA: return "SOP (SCSI over PCIe)";
    case 0xB: return "PCIe";
    case 0xF: return "no specific protocol";
    default: return "reserved";
  }
}

// ---- 0x89 --------------------------------------------------------------------------------------

namespace {

// ATA strings put the first character of each pair in the high byte of the little-endian word
// (ACS-3 3.4.9).
std::string ata_string(Bytes id, std::size_t first_word, std::size_t words) {
  std::string s;
  for (std::size_t w = first_word; w < first_word + words; ++w) {
    for (std::size_t i : {2 * w + 1, 2 * w}) {
      const auto c = id[i];
      s.push_back(c >= 0x20 && c < 0x7F ? static_cast<char>(c) : ' ');
    }
  }
  return trim(std::move(s));
}

}  // namespace

Expected<AtaInformation> decode_ata_information(Bytes data) {
  auto h = decode_vpd_header(data, 0x89);
  if (!h) return h.error();
  // SAT-3 table 175: everything up to the command code at byte 56 is needed to say anything.
  const Bytes page = data.first(4 + h->body.size());
  if (page.size() < 57) {
    return make_error("ATA Information VPD page too short: " + std::to_string(page.size()) +
                      " bytes, need at least 57");
  }
  AtaInformation a;
  a.sat_vendor = trim_right(ascii(page, 8, 8));
  a.sat_product = trim_right(ascii(page, 16, 16));
  a.sat_revision = trim_right(ascii(page, 32, 4));
  std::copy(page.begin() + 36, page.begin() + 56, a.signature.begin());
  a.signature_sata = a.signature[0] == 0x34;
  // The signature's LBA mid/high say which kind of device answered (ACS-3 9.1, SATA 3.x).
  const auto mid = a.signature[5], high = a.signature[6];
  if (mid == 0x00 && high == 0x00) a.signature_device = "ata";
  else if (mid == 0x14 && high == 0xEB) a.signature_device = "atapi";
  else if (mid == 0x69 && high == 0x96) a.signature_device = "port multiplier";
  else if (mid == 0x3C && high == 0xC3) a.signature_device = "semb";
  else a.signature_device = "unknown";
  a.command_code = page[56];
  if (page.size() >= 60 + 512 && a.command_code != 0) {
    std::copy(page.begin() + 60, page.begin() + 60 + 512, a.identify.begin());
    a.has_identify = true;
    a.ata_serial = ata_string(a.identify, 10, 10);
    a.ata_firmware = ata_string(a.identify, 23, 4);
    a.ata_model = ata_string(a.identify, 27, 20);
  }
  return a;
}

// ---- 0xB0 --------------------------------------------------------------------------------------

Expected<BlockLimits> decode_block_limits(Bytes data) {
  auto h = decode_vpd_header(data, 0xB0);
  if (!h) return h.error();
  const Bytes p = data.first(4 + h->body.size());
  // SBC-2 pages stop after the optimal transfer length (byte 15); later fields are optional.
  if (p.size() < 16) {
    return make_error("Block Limits VPD page too short: " + std::to_string(p.size()) +
                      " bytes, need at least 16");
  }
  BlockLimits b;
  b.wsnz = p[4] & 0x01;
  b.max_compare_write_length = p[5];
  b.optimal_transfer_length_granularity = be16(p, 6);
  b.max_transfer_length = be32(p, 8);
  b.optimal_transfer_length = be32(p, 12);
  auto u32 = [&](std::size_t at) -> std::optional<std::uint32_t> {
    if (at + 4 <= p.size()) return be32(p, at);
    return std::nullopt;
  };
  b.max_prefetch_length = u32(16);
  b.max_unmap_lba_count = u32(20);
  b.max_unmap_descriptor_count = u32(24);
  b.optimal_unmap_granularity = u32(28);
  if (auto v = u32(32)) {
    b.unmap_granularity_alignment_valid = (*v & 0x80000000u) != 0;
    b.unmap_granularity_alignment = *v & 0x7FFFFFFFu;
  }
  if (p.size() >= 44) b.max_write_same_length = be64(p, 36);
  b.max_atomic_transfer_length = u32(44);
  b.atomic_alignment = u32(48);
  b.atomic_transfer_length_granularity = u32(52);
  b.max_atomic_transfer_length_with_boundary = u32(56);
  b.max_atomic_boundary_size = u32(60);
  return b;
}

// ---- 0xB1 --------------------------------------------------------------------------------------

Expected<BlockCharacteristics> decode_block_characteristics(Bytes data) {
  auto h = decode_vpd_header(data, 0xB1);
  if (!h) return h.error();
  const Bytes p = data.first(4 + h->body.size());
  if (p.size() < 6) {
    return make_error("Block Device Characteristics VPD page too short: " +
                      std::to_string(p.size()) + " bytes, need at least 6");
  }
  BlockCharacteristics c;
  c.medium_rotation_rate = be16(p, 4);
  if (p.size() > 6) c.product_type = p[6];
  if (p.size() > 7) {
    c.wabereq = p[7] >> 6;
    c.wacereq = (p[7] >> 4) & 0x3;
    c.nominal_form_factor = p[7] & 0x0F;
  }
  if (p.size() > 8) {
    c.zoned = (p[8] >> 4) & 0x3;
    c.fuab = p[8] & 0x02;
    c.vbuls = p[8] & 0x01;
  }
  return c;
}

std::string_view form_factor_name(std::uint8_t f) {
  switch (f) {
    case 0: return "not reported";
    case 1: return "5.25 inch";
    case 2: return "3.5 inch";
    case 3: return "2.5 inch";
    case 4: return "1.8 inch";
    case 5: return "less than 1.8 inch";
    default: return "reserved";
  }
}

std::string_view zoned_name(std::uint8_t z) {
  switch (z) {
    case 0: return "not reported";
    case 1: return "host aware";
    case 2: return "device managed";
    default: return "reserved";
  }
}

}  // namespace ds::scsi
