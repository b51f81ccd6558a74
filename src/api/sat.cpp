#include "drivescope/sat.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace ds::sat {
namespace {

constexpr std::size_t kBlock = 512;

// Byte 2 of both CDBs (SAT-3 12.2.2): OFF_LINE(7:6) CK_COND(5) T_TYPE(4) T_DIR(3) BYT_BLOK(2)
// T_LENGTH(1:0). Data commands say "the length is COUNT blocks of 512 bytes" (T_TYPE 0 = 512-byte
// units, BYT_BLOK 1, T_LENGTH 2) which is what every command drivescope sends needs. For a
// non-data command T_LENGTH is 0 and SAT-3 says T_DIR and BYT_BLOK are then ignored; we still set
// them to 1 as sg3_utils (sg_sat_set_features) and smartmontools (scsiata.cpp) do, so that CDBs
// captured from those tools compare byte for byte with ours.
std::uint8_t flags_byte(const AtaRequest& req, bool ck_cond) {
  std::uint8_t b = 0;
  // OFF_LINE (bits 7:6) = 0: the SATL need not wait before reading the registers.
  if (ck_cond) b |= 0x20;  // CK_COND: return the ATA registers in sense data even on success
  // T_TYPE (bit 4) = 0: transfer length counted in 512-byte blocks (not logical sectors).
  const bool to_device = req.protocol == AtaProtocol::pio_out || req.protocol == AtaProtocol::dma_out;
  if (!to_device) b |= 0x08;  // T_DIR: 1 = data from the ATA device to the application client
  b |= 0x04;                  // BYT_BLOK: 1 = T_LENGTH counts blocks, not bytes
  b |= (req.protocol == AtaProtocol::non_data) ? kTLengthNoData : kTLengthInCount;  // T_LENGTH
  return b;
}

// For a 28-bit command, LBA bits 27:24 live in the low nibble of the DEVICE register
// (ATA8-ACS 28-bit register layout); bits 7:4 come from the caller (bit 6 = LBA mode).
std::uint8_t device_byte(const AtaRequest& req) {
  if (req.lba48) return req.in.device;
  return static_cast<std::uint8_t>((req.in.device & 0xF0) | ((req.in.lba >> 24) & 0x0F));
}

std::uint8_t b(std::uint64_t v, unsigned shift) { return static_cast<std::uint8_t>((v >> shift) & 0xFF); }

}  // namespace

std::uint8_t protocol_code(AtaProtocol p) {
  switch (p) {
    case AtaProtocol::non_data: return kProtocolNonData;
    case AtaProtocol::pio_in: return kProtocolPioDataIn;
    case AtaProtocol::pio_out: return kProtocolPioDataOut;
    case AtaProtocol::dma_in:
    case AtaProtocol::dma_out: return kProtocolDma;  // direction is carried by T_DIR
  }
  return kProtocolNonData;
}

std::optional<Error> validate(const AtaRequest& req) {
  const auto& r = req.in;
  if (!req.lba48) {
    if (r.lba >= (1ULL << 28))
      return make_error(fmt::format("ATA command {:#04x}: LBA {:#x} does not fit the 28-bit register set",
                                    r.command, r.lba));
    if (r.count > 0xFF || r.features > 0xFF)
      return make_error(fmt::format("ATA command {:#04x}: count/features wider than 8 bits need the "
                                    "48-bit register set", r.command));
  } else if (r.lba >= (1ULL << 48)) {
    return make_error(fmt::format("ATA command {:#04x}: LBA {:#x} exceeds 48 bits", r.command, r.lba));
  }
  if (req.protocol == AtaProtocol::non_data) {
    if (!req.data.empty())
      return make_error(fmt::format("ATA command {:#04x}: non-data protocol with a {}-byte buffer",
                                    r.command, req.data.size()));
    return std::nullopt;
  }
  // T_LENGTH = COUNT: the SATL transfers COUNT x 512 bytes, so the buffer must say the same.
  if (req.data.empty() || req.data.size() % kBlock != 0)
    return make_error(fmt::format("ATA command {:#04x}: data buffer of {} bytes is not a non-zero "
                                  "multiple of 512", r.command, req.data.size()));
  if (req.data.size() / kBlock != r.count)
    return make_error(fmt::format("ATA command {:#04x}: count {} does not match a {}-byte buffer",
                                  r.command, r.count, req.data.size()));
  return std::nullopt;
}

std::array<std::uint8_t, 16> encode_pt16(const AtaRequest& req, bool ck_cond) {
  const auto& r = req.in;
  const bool ext = req.lba48;
  std::array<std::uint8_t, 16> c{};
  c[0] = 0x85;  // OPERATION CODE: ATA PASS-THROUGH(16)
  // MULTIPLE_COUNT (7:5) = 0: no READ/WRITE MULTIPLE; PROTOCOL (4:1); EXTEND (0): 48-bit registers
  c[1] = static_cast<std::uint8_t>((protocol_code(req.protocol) << 1) | (ext ? 0x01 : 0x00));
  c[2] = flags_byte(req, ck_cond);         // OFF_LINE, CK_COND, T_TYPE, T_DIR, BYT_BLOK, T_LENGTH
  c[3] = ext ? b(r.features, 8) : 0;       // FEATURES (15:8), only with EXTEND
  c[4] = b(r.features, 0);                 // FEATURES (7:0)
  c[5] = ext ? b(r.count, 8) : 0;          // COUNT (15:8), only with EXTEND
  c[6] = b(r.count, 0);                    // COUNT (7:0)
  c[7] = ext ? b(r.lba, 24) : 0;           // LBA (31:24), only with EXTEND
  c[8] = b(r.lba, 0);                      // LBA (7:0)
  c[9] = ext ? b(r.lba, 32) : 0;           // LBA (39:32), only with EXTEND
  c[10] = b(r.lba, 8);                     // LBA (15:8)
  c[11] = ext ? b(r.lba, 40) : 0;          // LBA (47:40), only with EXTEND
  c[12] = b(r.lba, 16);                    // LBA (23:16)
  c[13] = device_byte(req);                // DEVICE (28-bit: LBA 27:24 in bits 3:0)
  c[14] = r.command;                       // COMMAND
  c[15] = 0;                               // CONTROL
  return c;
}

Expected<std::array<std::uint8_t, 12>> encode_pt12(const AtaRequest& req, bool ck_cond) {
  const auto& r = req.in;
  if (req.lba48)
    return make_error(fmt::format("ATA command {:#04x} uses 48-bit registers, which ATA PASS-THROUGH(12) "
                                  "cannot carry; use the 16-byte CDB", r.command));
  std::array<std::uint8_t, 12> c{};
  c[0] = 0xA1;  // OPERATION CODE: ATA PASS-THROUGH(12)
  // MULTIPLE_COUNT (7:5) = 0; PROTOCOL (4:1); bit 0 reserved (no EXTEND in the 12-byte CDB)
  c[1] = static_cast<std::uint8_t>(protocol_code(req.protocol) << 1);
  c[2] = flags_byte(req, ck_cond);  // OFF_LINE, CK_COND, T_TYPE, T_DIR, BYT_BLOK, T_LENGTH
  c[3] = b(r.features, 0);          // FEATURES (7:0)
  c[4] = b(r.count, 0);             // COUNT (7:0)
  c[5] = b(r.lba, 0);               // LBA (7:0)
  c[6] = b(r.lba, 8);               // LBA (15:8)
  c[7] = b(r.lba, 16);              // LBA (23:16)
  c[8] = device_byte(req);          // DEVICE (LBA 27:24 in bits 3:0)
  c[9] = r.command;                 // COMMAND
  c[10] = 0;                        // reserved
  c[11] = 0;                        // CONTROL
  return c;
}

Expected<DecodedPassThrough> decode_pass_through_cdb(std::span<const std::uint8_t> cdb) {
  DecodedPassThrough d;
  if (cdb.size() == 16 && cdb[0] == 0x85) {
    d.extend = cdb[1] & 0x01;
    auto& r = d.regs;
    r.features = cdb[4];
    r.count = cdb[6];
    r.lba = std::uint64_t{cdb[8]} | std::uint64_t{cdb[10]} << 8 | std::uint64_t{cdb[12]} << 16;
    if (d.extend) {
      // The SATL uses the upper bytes only when EXTEND is set (SAT-3 12.2.2).
      r.features |= static_cast<std::uint16_t>(cdb[3] << 8);
      r.count |= static_cast<std::uint16_t>(cdb[5] << 8);
      r.lba |= std::uint64_t{cdb[7]} << 24 | std::uint64_t{cdb[9]} << 32 | std::uint64_t{cdb[11]} << 40;
    } else {
      r.lba |= std::uint64_t{cdb[13] & 0x0Fu} << 24;
    }
    r.device = cdb[13];
    r.command = cdb[14];
  } else if (cdb.size() == 12 && cdb[0] == 0xA1) {
    auto& r = d.regs;
    r.features = cdb[3];
    r.count = cdb[4];
    r.lba = std::uint64_t{cdb[5]} | std::uint64_t{cdb[6]} << 8 | std::uint64_t{cdb[7]} << 16 |
            std::uint64_t{cdb[8] & 0x0Fu} << 24;
    r.device = cdb[8];
    r.command = cdb[9];
  } else {
    return make_error(fmt::format("not an ATA PASS-THROUGH CDB (opcode {:#04x}, {} bytes)",
                                  cdb.empty() ? 0 : cdb[0], cdb.size()));
  }
  d.protocol = (cdb[1] >> 1) & 0x0F;
  d.ck_cond = cdb[2] & 0x20;
  d.t_dir_in = cdb[2] & 0x08;
  d.byte_block = cdb[2] & 0x04;
  d.t_length = cdb[2] & 0x03;
  return d;
}

Expected<AtaStatusReturn> decode_ata_status_return(std::span<const std::uint8_t> s) {
  if (s.empty()) return make_error("no sense data, so no ATA registers");
  const std::uint8_t rc = s[0] & 0x7F;
  AtaStatusReturn out;
  if (rc == 0x72 || rc == 0x73) {
    if (s.size() < 8) return make_error(fmt::format("descriptor sense data truncated ({} bytes)", s.size()));
    out.descriptor_format = true;
    out.sense_key = s[1] & 0x0F;
    out.asc = s[2];
    out.ascq = s[3];
    // Descriptors follow the 8-byte header, for ADDITIONAL SENSE LENGTH bytes (SPC-4 descriptor format),
    // clipped to what we actually received.
    const std::size_t end = std::min<std::size_t>(s.size(), 8 + std::size_t{s[7]});
    std::size_t pos = 8;
    while (pos + 2 <= end) {
      const std::uint8_t code = s[pos];
      const std::size_t len = 2 + std::size_t{s[pos + 1]};
      if (code == kAtaStatusReturnDescriptor) {
        // SAT-3 12.2.2.6: ADDITIONAL LENGTH 0Ch, 14 bytes in all.
        if (len < 14 || pos + 14 > end)
          return make_error("ATA Status Return descriptor truncated");
        const auto* d = &s[pos];
        AtaOutput& o = out.regs;
        o.extended = d[2] & 0x01;  // EXTEND: the upper register bytes are valid
        o.error = d[3];            // ERROR
        o.count = static_cast<std::uint16_t>(d[5] | (o.extended ? d[4] << 8 : 0));  // COUNT
        o.lba = std::uint64_t{d[7]} | std::uint64_t{d[9]} << 8 | std::uint64_t{d[11]} << 16;
        if (o.extended)
          o.lba |= std::uint64_t{d[6]} << 24 | std::uint64_t{d[8]} << 32 | std::uint64_t{d[10]} << 40;
        o.device = d[12];  // DEVICE
        o.status = d[13];  // STATUS
        return out;
      }
      pos += len;
    }
    return make_error("descriptor sense data has no ATA Status Return descriptor (09h)");
  }
  if (rc == 0x70 || rc == 0x71) {
    // SAT-3 12.2.2.7: INFORMATION (bytes 3..6) = ERROR, STATUS, DEVICE, COUNT(7:0);
    // COMMAND-SPECIFIC INFORMATION (bytes 8..11) = flags, LBA(7:0), LBA(15:8), LBA(23:16).
    if (s.size() < 12 || s[7] < 4)
      return make_error(fmt::format("fixed-format sense data too short to hold ATA registers ({} bytes)",
                                    s.size()));
    out.sense_key = s[2] & 0x0F;
    if (s.size() >= 14) {
      out.asc = s[12];
      out.ascq = s[13];
    }
    // Linux libata before 6.10 (fixed by "ata: libata-scsi: Fix offsets for the fixed format
    // sense data", 2024) wrote this form 5 bytes too far: ERROR, STATUS, DEVICE, COUNT in bytes
    // 8..11 and the flags/LBA in bytes 16..19, leaving bytes 3..6 zero. Seen from Debian 12's
    // 6.1 kernel in the QEMU tests (an aborted READ LOG EXT: 70 00 0b 00 00 00 00 0a 04 41 00 01
    // 00 00 00 00 80 00). A correct SATL never reports STATUS 00h (a drive that answered has
    // DRDY set), so zero bytes 3..6 with DRDY or ERR in byte 9 identify the shifted form.
    // ASC/ASCQ (bytes 12, 13) are where they belong in both forms.
    // (libata's additional length stays 0Ah, so the flags/LBA bytes may lie past the 18 kept.)
    const bool shifted = s[3] == 0 && s[4] == 0 && s[5] == 0 && s[6] == 0 && (s[9] & 0x41) != 0;
    const std::size_t r0 = shifted ? 8 : 3, f0 = shifted ? 16 : 8;
    out.linux_shifted_fixed = shifted;
    AtaOutput& o = out.regs;
    o.error = s[r0];
    o.status = s[r0 + 1];
    o.device = s[r0 + 2];
    o.count = s[r0 + 3];
    if (s.size() >= f0 + 4) {
      out.count_upper_nonzero = s[f0] & 0x40;  // COUNT UPPER NONZERO
      out.lba_upper_nonzero = s[f0] & 0x20;    // LBA UPPER NONZERO
      o.lba = std::uint64_t{s[f0 + 1]} | std::uint64_t{s[f0 + 2]} << 8 | std::uint64_t{s[f0 + 3]} << 16;
    }
    o.extended = false;  // bit 7 of the flags says the command was 48-bit, but the upper bytes are lost
    return out;
  }
  return make_error(fmt::format("not sense data (response code {:#04x})", s[0]));
}

Expected<AtaOutput> decode_ata_output(std::span<const std::uint8_t> sense) {
  auto r = decode_ata_status_return(sense);
  if (!r) return r.error();
  return r->regs;
}

std::array<std::uint8_t, 22> encode_ata_status_return(const AtaOutput& o, std::uint8_t sense_key,
                                                      std::uint8_t asc, std::uint8_t ascq) {
  std::array<std::uint8_t, 22> s{};
  s[0] = 0x72;  // current error, descriptor format (SPC-4 4.5.2)
  s[1] = sense_key & 0x0F;
  s[2] = asc;
  s[3] = ascq;
  s[7] = 14;  // ADDITIONAL SENSE LENGTH: the one descriptor
  std::uint8_t* d = &s[8];
  d[0] = kAtaStatusReturnDescriptor;
  d[1] = 0x0C;
  d[2] = o.extended ? 0x01 : 0x00;
  d[3] = o.error;
  d[4] = static_cast<std::uint8_t>(o.count >> 8);
  d[5] = static_cast<std::uint8_t>(o.count);
  d[6] = static_cast<std::uint8_t>(o.lba >> 24);
  d[7] = static_cast<std::uint8_t>(o.lba);
  d[8] = static_cast<std::uint8_t>(o.lba >> 32);
  d[9] = static_cast<std::uint8_t>(o.lba >> 8);
  d[10] = static_cast<std::uint8_t>(o.lba >> 40);
  d[11] = static_cast<std::uint8_t>(o.lba >> 16);
  d[12] = o.device;
  d[13] = o.status;
  return s;
}

}  // namespace ds::sat
