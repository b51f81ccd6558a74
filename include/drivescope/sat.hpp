// SCSI / ATA Translation (SAT-3, T10 BSR INCITS 517) codecs: build ATA PASS-THROUGH CDBs from an
// AtaRequest and read the ATA output registers back out of the sense data; and the other side,
// as a SATL does it (the simulator answering ATA PASS-THROUGH): decode the CDB, encode the ATA
// Status Return. Public (the api area) so that the passthrough layer and the simulator share one
// wire format. Pure functions over
// bytes: no device, no I/O, so every byte can be checked against the standard in unit tests and
// against the CDBs sg3_utils prints (sg_sat_identify -vvv).
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <span>

#include "drivescope/device.hpp"
#include "drivescope/expected.hpp"

namespace ds::sat {

// PROTOCOL field values (SAT-3 12.2.2, the ATA PASS-THROUGH PROTOCOL field).
inline constexpr std::uint8_t kProtocolNonData = 3;
inline constexpr std::uint8_t kProtocolPioDataIn = 4;
inline constexpr std::uint8_t kProtocolPioDataOut = 5;
inline constexpr std::uint8_t kProtocolDma = 6;

// T_LENGTH field values (SAT-3 12.2.2).
inline constexpr std::uint8_t kTLengthNoData = 0;
inline constexpr std::uint8_t kTLengthInCount = 2;  // transfer length is in the COUNT field

// Sense descriptor type of the ATA Status Return descriptor (SAT-3 12.2.2.6).
inline constexpr std::uint8_t kAtaStatusReturnDescriptor = 0x09;
// ASC/ASCQ 00h/1Dh: ATA PASS THROUGH INFORMATION AVAILABLE (SPC-4 table of ASC/ASCQ codes),
// what a SATL reports with sense key RECOVERED ERROR when CK_COND asked for the registers.
inline constexpr std::uint8_t kAscAtaPtInfo = 0x00;
inline constexpr std::uint8_t kAscqAtaPtInfo = 0x1D;

std::uint8_t protocol_code(AtaProtocol p);

// Consistency checks an encoder cannot express in its return type: data length equals
// COUNT x 512, register values fit the 28-bit register set unless lba48, a data protocol has
// data and a non-data one has none. nullopt when the request is well-formed.
std::optional<Error> validate(const AtaRequest& req);

// ATA PASS-THROUGH(16), opcode 85h (SAT-3 12.2.2). Always encodable: the 16-byte CDB carries
// both the 28-bit and the 48-bit register sets. ck_cond asks the SATL to return the ATA output
// registers in sense data even when the command succeeds (SAT-3 12.2.2, CK_COND bit).
std::array<std::uint8_t, 16> encode_pt16(const AtaRequest& req, bool ck_cond = false);

// ATA PASS-THROUGH(12), opcode A1h (SAT-3 12.2.2). Has no room for the upper register bytes and
// no EXTEND bit, so a 48-bit command is refused with an error.
Expected<std::array<std::uint8_t, 12>> encode_pt12(const AtaRequest& req, bool ck_cond = false);

// The ATA command a PT12/PT16 CDB carries, decoded back (used by the allowlist to look inside a
// raw pass-through CDB).
struct DecodedPassThrough {
  AtaRegisters regs;
  std::uint8_t protocol = 0;
  bool extend = false;
  bool ck_cond = false;
  bool t_dir_in = false;     // T_DIR: 1 = from the device
  bool byte_block = false;
  std::uint8_t t_length = 0;
};
Expected<DecodedPassThrough> decode_pass_through_cdb(std::span<const std::uint8_t> cdb);

// What the SATL told us in sense data about the ATA registers after the command.
struct AtaStatusReturn {
  AtaOutput regs;
  bool descriptor_format = false;  // 72h/73h with descriptor 09h; else fixed 70h/71h
  // Fixed format cannot carry the upper register bytes; these flags say whether they were
  // non-zero (SAT-3 12.2.2.7, COUNT UPPER NONZERO / LBA UPPER NONZERO).
  bool count_upper_nonzero = false;
  bool lba_upper_nonzero = false;
  // Fixed format as Linux libata wrote it before 6.10: the registers 5 bytes late (sat.cpp).
  bool linux_shifted_fixed = false;
  std::uint8_t sense_key = 0;
  std::uint8_t asc = 0;
  std::uint8_t ascq = 0;
};

// Reads the ATA output registers from sense data: the ATA Status Return descriptor (code 09h,
// SAT-3 12.2.2.6) inside descriptor-format sense (72h/73h), or the fixed-format form (70h/71h,
// SAT-3 12.2.2.7: registers in the INFORMATION and COMMAND-SPECIFIC INFORMATION fields).
// An error when the buffer is short, is not sense data, or has no ATA status descriptor.
Expected<AtaStatusReturn> decode_ata_status_return(std::span<const std::uint8_t> sense);
Expected<AtaOutput> decode_ata_output(std::span<const std::uint8_t> sense);

// Descriptor-format sense data (72h) holding one ATA Status Return descriptor (SAT-3 12.2.2.6)
// with the registers of o, under the given sense key and ASC/ASCQ: what a SATL returns for a
// command that ended with ERR (ABORTED COMMAND) or whose registers CK_COND asked for (RECOVERED
// ERROR, 00h/1Dh ATA PASS THROUGH INFORMATION AVAILABLE).
std::array<std::uint8_t, 22> encode_ata_status_return(const AtaOutput& o, std::uint8_t sense_key,
                                                      std::uint8_t asc = kAscAtaPtInfo,
                                                      std::uint8_t ascq = kAscqAtaPtInfo);

}  // namespace ds::sat
