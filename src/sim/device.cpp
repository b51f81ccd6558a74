#include "sim/device.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstring>

#include "drivescope/opcodes.hpp"
#include "drivescope/sat.hpp"
#include "drivescope/wire.hpp"

namespace ds::sim {

namespace {

constexpr std::uint8_t kStatusGood = 0x50;   // DRDY | DSC
constexpr std::uint8_t kStatusError = 0x51;  // DRDY | DSC | ERR
constexpr std::uint8_t kSenseRecoveredError = wire::sense_key::kRecoveredError;
constexpr std::uint8_t kSenseAbortedCommand = wire::sense_key::kAbortedCommand;
constexpr std::uint8_t kErrAbort = 0x04;     // ABRT
constexpr std::uint8_t kErrIdnf = 0x10;      // ID NOT FOUND (address out of range)

CommandResult ata_ok(std::int64_t dur_ns, std::uint16_t count = 0, std::uint64_t lba = 0) {
  CommandResult r;
  AtaOutput o;
  o.status = kStatusGood;
  o.count = count;
  o.lba = lba;
  r.ata = o;
  r.duration = Nanos(dur_ns);
  return r;
}

// What a SATL reports when the ATA command ends with ERR (SAT-3 12.2.2.6): CHECK CONDITION,
// ABORTED COMMAND, with the ATA Status Return descriptor carrying the output registers.
CommandResult ata_error(std::int64_t dur_ns, std::uint8_t error, std::string message) {
  CommandResult r;
  r.outcome = Outcome::check_condition;
  r.scsi_status = 0x02;
  AtaOutput o;
  o.status = kStatusError;
  o.error = error;
  r.ata = o;
  o.device = 0x40;
  const auto sense = sat::encode_ata_status_return(o, kSenseAbortedCommand, 0x00, 0x00);
  r.sense.assign(sense.begin(), sense.end());
  r.duration = Nanos(dur_ns);
  r.message = std::move(message);
  return r;
}

// SPC-4 4.5.3 fixed-format sense data (70h) with the given key / ASC / ASCQ.
CommandResult check_condition(std::uint8_t key, std::uint8_t asc, std::uint8_t ascq, std::string msg) {
  CommandResult r;
  r.outcome = Outcome::check_condition;
  r.scsi_status = 0x02;
  const auto sense = wire::fixed_sense(key, asc, ascq);
  r.sense.assign(sense.begin(), sense.end());
  r.message = std::move(msg);
  return r;
}
CommandResult invalid_opcode(std::uint8_t op) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "simulated drive: unsupported SCSI opcode %02Xh", op);
  return check_condition(wire::sense_key::kIllegalRequest, 0x20, 0x00, buf);  // INVALID COMMAND OPERATION CODE
}
// Commands only a zoned model answers (not in drivescope/opcodes.hpp: drivescope never sends them
// to a real drive). SBC-4 WRITE(10)/(16); ZBC OUT service action RESET WRITE POINTER.
constexpr std::uint8_t kWrite10 = 0x2A, kWrite16 = 0x8A, kSaResetWritePointer = 0x04;
// ZBC additional sense codes (ASC 21h): LBA out of range, unaligned write, write boundary error.
constexpr std::uint8_t kAscLba = 0x21, kAscqOutOfRange = 0x00, kAscqUnaligned = 0x04, kAscqBoundary = 0x05;
constexpr std::uint8_t kSenseDataProtect = 0x07;

CommandResult invalid_field() {
  return check_condition(wire::sense_key::kIllegalRequest, 0x24, 0x00, "simulated drive: invalid field in CDB");
}

// Copy a response into the data buffer, truncated to the allocation length; residual counts
// what the device did not send.
CommandResult respond(const ScsiRequest& req, std::span<const std::uint8_t> resp, std::size_t alloc,
                      std::int64_t dur_ns) {
  CommandResult r;
  const std::size_t n = std::min({resp.size(), alloc, req.data.size()});
  std::copy_n(resp.begin(), n, req.data.begin());
  r.residual = static_cast<std::int32_t>(req.data.size() - n);
  r.duration = Nanos(dur_ns);
  return r;
}

using wire::get_be;
using wire::put_be;
void put_ascii(std::uint8_t* p, std::size_t n, std::string_view s) {
  for (std::size_t i = 0; i < n; ++i) p[i] = i < s.size() ? static_cast<std::uint8_t>(s[i]) : ' ';
}

// SMART READ DATA / READ THRESHOLDS pages (ATA/ATAPI-8 / ACS-3 SMART data structure): a healthy
// drive with the attributes a desktop drive commonly shows. Byte 0-1 revision, 30 entries of 12
// bytes from byte 2 (id, flags, value, worst, 6 raw bytes, reserved; for thresholds: id,
// threshold), offline/self-test capability at 362-373, checksum in byte 511 (sum of all = 0).
// Power-on hours follow the virtual clock; the reallocated count is 0 (slow regions are not
// remapped sectors); the temperature is a fixed 35 °C.
std::array<std::uint8_t, 512> smart_page(const SimDrive& d, bool thresholds) {
  struct Attr { std::uint8_t id; std::uint16_t flags; std::uint8_t value, threshold; std::uint64_t raw; };
  const std::uint64_t hours = static_cast<std::uint64_t>(d.now_ns() / 3'600'000'000'000LL);
  const Attr attrs[] = {
      {0x01, 0x000F, 100, 51, 0},      // raw read error rate: pre-fail, online
      {0x03, 0x0003, 100, 21, 0},      // spin-up time
      {0x05, 0x0033, 100, 36, 0},      // reallocated sectors count
      {0x09, 0x0032, 100, 0, hours},   // power-on hours
      {0x0C, 0x0032, 100, 0, 1},       // power cycle count
      {0xC2, 0x0022, 115, 0, 35},      // temperature, °C in raw byte 0
      {0xC5, 0x0012, 100, 0, 0},       // current pending sectors
      {0xC7, 0x003E, 200, 0, 0},       // UDMA CRC error count
  };
  std::array<std::uint8_t, 512> p{};
  p[0] = 0x10;  // revision 0010h
  std::size_t at = 2;
  for (const Attr& a : attrs) {
    p[at] = a.id;
    if (thresholds) {
      p[at + 1] = a.threshold;
    } else {
      p[at + 1] = static_cast<std::uint8_t>(a.flags);
      p[at + 2] = static_cast<std::uint8_t>(a.flags >> 8);
      p[at + 3] = a.value;
      p[at + 4] = a.value;  // worst
      for (int i = 0; i < 6; ++i) p[at + 5 + i] = static_cast<std::uint8_t>(a.raw >> (8 * i));
    }
    at += 12;
  }
  if (!thresholds) {
    p[362] = 0x82;  // off-line data collection: completed without error (auto off-line enabled)
    p[363] = 0x00;  // last self-test: completed without error
    p[364] = 0x3C;  // 60 s for an off-line data collection
    p[367] = 0x5B;  // off-line capabilities: execute immediate, auto, abort, read scanning, self-test
    p[368] = 0x03;  // SMART capability: saves data before power saving, supports autosave
    p[370] = 0x01;  // error logging supported
    p[372] = 2;     // short self-test polling time, minutes
    p[373] = 30;    // extended self-test polling time, minutes
  }
  std::uint8_t sum = 0;
  for (std::size_t i = 0; i < 511; ++i) sum = static_cast<std::uint8_t>(sum + p[i]);
  p[511] = static_cast<std::uint8_t>(0x100 - sum);
  return p;
}

// A drive that vanished or stopped answering (injected, sim/faults.hpp) fails every command; a
// stopped one only after the command's timeout has passed on the virtual clock.
std::optional<CommandResult> injected_fault(SimDrive& d, Millis timeout) {
  std::int64_t wait_ns = 0;
  auto f = d.faults().command_fault(d.now_ns(), timeout, wait_ns);
  if (f && wait_ns > 0) d.advance_to(d.now_ns() + wait_ns);
  return f;
}

}  // namespace

SimDevice::SimDevice(std::shared_ptr<SimDrive> drive, std::string name, bool writable)
    : drive_(std::move(drive)), writable_(writable) {
  info_.name = std::move(name);
  info_.kind = TargetKind::sim;
  info_.ata_capable = drive_->model().transport == Transport::ata;
  info_.scsi_capable = true;  // ATA models answer a SAT-like subset
}

// ---- ATA -------------------------------------------------------------------------------------

CommandResult SimDevice::ata(const AtaRequest& req) {
  if (drive_->model().transport != Transport::ata) return Device::ata(req);
  if (auto f = injected_fault(*drive_, req.timeout)) return *f;
  const std::uint8_t cmd = req.in.command;
  switch (cmd) {
    case ata::kIdentifyDevice: {
      if (req.data.size() < 512) {
        CommandResult r;
        r.outcome = Outcome::os_error;
        r.os_errno = EINVAL;
        r.message = "IDENTIFY DEVICE needs a 512-byte buffer";
        return r;
      }
      const auto block = identify_data(*drive_);
      std::copy(block.begin(), block.end(), req.data.begin());
      return ata_ok(drive_->run_control(), 0);
    }
    case ata::kSetFeatures:
      return ata_set_features(req);
    case ata::kReadLogExt:
      // Only a multi-actuator model keeps logs; the others abort it as they always did.
      if (drive_->model().actuators.empty()) break;
      return ata_read_log(req);
    case ata::kZacManagementIn:
      if (!drive_->zones().enabled()) break;  // not a zoned model: aborted as before
      return ata_report_zones(req);
    case ata::kCheckPowerMode:
      return ata_ok(drive_->run_control(), 0xFF);  // FFh: active or idle (ACS-3 7.3)
    case ata::kSmart: {
      // SMART needs the key values 4Fh/C2h in LBA mid/high (ACS-3 7.48).
      const bool key = ((req.in.lba >> 8) & 0xFF) == 0x4F && ((req.in.lba >> 16) & 0xFF) == 0xC2;
      const auto sub = static_cast<std::uint8_t>(req.in.features & 0xFF);
      if (key && sub == ata::kSmartReturnStatus)
        return ata_ok(drive_->run_control(), 0, 0xC24F00);  // unchanged key: no threshold exceeded
      if (key && (sub == ata::kSmartReadData || sub == ata::kSmartReadThresholds) && req.data.size() >= 512) {
        const auto page = smart_page(*drive_, sub == ata::kSmartReadThresholds);
        std::copy(page.begin(), page.end(), req.data.begin());
        return ata_ok(drive_->run_control(), 0, 0xC24F00);
      }
      return ata_error(drive_->run_control(), kErrAbort, "SMART subcommand not simulated");
    }
    case ata::kReadVerifySectors:
    case ata::kReadVerifySectorsExt: {
      const bool ext = cmd == ata::kReadVerifySectorsExt;
      std::uint32_t n = ext ? (req.in.count & 0xFFFF) : (req.in.count & 0xFF);
      if (n == 0) n = ext ? 65536 : 256;
      const std::uint64_t lba = req.in.lba & (ext ? 0xFFFFFFFFFFFFull : 0x0FFFFFFFull);
      if (lba + n > drive_->capacity())
        return ata_error(drive_->run_control(), kErrIdnf | kErrAbort, "READ VERIFY beyond the capacity");
      const std::int64_t dur = drive_->run_command(lba, n, false);
      if (auto f = drive_->faults().media_fault(lba, n, true, dur)) return *f;  // injected
      return ata_ok(dur);
    }
    default:
      break;
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "simulated drive: ATA command %02Xh aborted", cmd);
  return ata_error(drive_->run_control(), kErrAbort, buf);
}

CommandResult SimDevice::ata_read_log(const AtaRequest& req) {
  // ACS-3 READ LOG EXT: LBA(7:0) log address, LBA(15:8) and LBA(39:32) the page, COUNT pages.
  const auto log = static_cast<std::uint8_t>(req.in.lba & 0xFF);
  const std::uint64_t page = ((req.in.lba >> 8) & 0xFF) | (((req.in.lba >> 32) & 0xFF) << 8);
  std::vector<std::uint8_t> data;
  if (log == ata::kLogDirectory) {
    data.assign(512, 0);
    data[0] = 0x01;  // version 0001h
    data[2 * ata::kLogConcurrentPositioningRanges] = 1;  // one page of log 47h
  } else if (log == ata::kLogConcurrentPositioningRanges) {
    data = cpr_log(*drive_);
  }
  const std::uint32_t count = req.in.count & 0xFFFF;
  if (data.empty() || page != 0 || count != 1 || req.data.size() < 512)
    return ata_error(drive_->run_control(), kErrAbort, "READ LOG EXT: log or page not kept");
  std::copy(data.begin(), data.end(), req.data.begin());
  return ata_ok(drive_->run_control(), 0);
}

CommandResult SimDevice::ata_set_features(const AtaRequest& req) {
  const std::uint8_t sub = req.in.features & 0xFF;
  const std::int64_t dur = drive_->run_control();
  const DiskModel& m = drive_->model();
  switch (sub) {
    case ata::kSfEnableWriteCache:
      if (m.cache.bytes == 0) break;
      drive_->set_write_cache(true);
      return ata_ok(dur);
    case ata::kSfDisableWriteCache:
      if (m.cache.bytes == 0) break;
      drive_->set_write_cache(false);
      return ata_ok(dur);
    case ata::kSfEnableLookAhead:
      if (m.cache.bytes == 0) break;
      drive_->set_look_ahead(true);
      return ata_ok(dur);
    case ata::kSfDisableLookAhead:
      if (m.cache.bytes == 0) break;
      drive_->set_look_ahead(false);
      return ata_ok(dur);
    case ata::kSfEnableAam:
      if (drive_->set_aam_level(static_cast<std::uint8_t>(req.in.count & 0xFF))) return ata_ok(dur);
      break;
    case ata::kSfDisableAam:
      if (!m.aam.supported) break;
      drive_->disable_aam();
      return ata_ok(dur);
    default:
      break;
  }
  char buf[80];
  std::snprintf(buf, sizeof buf, "simulated drive: SET FEATURES %02Xh (count %u) aborted", sub,
                static_cast<unsigned>(req.in.count & 0xFF));
  return ata_error(dur, kErrAbort, buf);
}

// ---- SCSI ------------------------------------------------------------------------------------

CommandResult SimDevice::scsi(const ScsiRequest& req) {
  if (auto f = injected_fault(*drive_, req.timeout)) return *f;
  if (req.cdb.empty()) return invalid_field();
  const std::uint8_t op = req.cdb[0];
  const bool is_scsi = drive_->model().transport == Transport::scsi;
  const auto need = [&](std::size_t n) { return req.cdb.size() >= n; };
  switch (op) {
    case scsi::kTestUnitReady: {
      CommandResult r;
      r.duration = Nanos(drive_->run_control());
      return r;
    }
    case scsi::kRequestSense: {
      if (!need(6)) return invalid_field();
      std::array<std::uint8_t, 18> s{};
      s[0] = 0x70;  // fixed format, NO SENSE
      s[7] = 10;
      return respond(req, s, req.cdb[4], drive_->run_control());
    }
    case scsi::kInquiry:
      if (!need(6)) return invalid_field();
      return scsi_inquiry(req);
    case scsi::kReadCapacity10:
      if (!need(10)) return invalid_field();
      return scsi_read_capacity(req, false);
    case scsi::kServiceActionIn16:
      if (!need(16) || (req.cdb[1] & 0x1F) != scsi::kSaReadCapacity16) return invalid_opcode(op);
      return scsi_read_capacity(req, true);
    case scsi::kModeSense6:
      if (!is_scsi) break;
      if (!need(6)) return invalid_field();
      return scsi_mode_sense(req, false);
    case scsi::kModeSense10:
      if (!is_scsi) break;
      if (!need(10)) return invalid_field();
      return scsi_mode_sense(req, true);
    case scsi::kRead10:
      if (!is_scsi) break;
      if (!need(10)) return invalid_field();
      return scsi_read(req, get_be(req.cdb, 2, 4), static_cast<std::uint32_t>(get_be(req.cdb, 7, 2)));
    case scsi::kAtaPassThrough16:
    case scsi::kAtaPassThrough12:
      if (is_scsi) break;  // a SCSI drive has no ATA inside
      return ata_pass_through(req);
    case scsi::kRead16:
      if (!is_scsi) break;
      if (!need(16)) return invalid_field();
      return scsi_read(req, get_be(req.cdb, 2, 8), static_cast<std::uint32_t>(get_be(req.cdb, 10, 4)));
    // A zoned model of either transport (an ATA one as Linux's SAT layer translates for ZAC).
    case scsi::kZbcIn:
      if (!drive_->zones().enabled()) break;
      if (!need(16) || (req.cdb[1] & 0x1F) != scsi::kSaReportZones) return invalid_field();
      return scsi_report_zones(req);
    case scsi::kZbcOut:
      if (!drive_->zones().enabled()) break;
      if (!need(16) || (req.cdb[1] & 0x1F) != kSaResetWritePointer) return invalid_field();
      return scsi_reset_write_pointer(req);
    case kWrite10:
      if (!drive_->zones().enabled()) break;
      if (!need(10)) return invalid_field();
      return scsi_write(req, get_be(req.cdb, 2, 4), static_cast<std::uint32_t>(get_be(req.cdb, 7, 2)));
    case kWrite16:
      if (!drive_->zones().enabled()) break;
      if (!need(16)) return invalid_field();
      return scsi_write(req, get_be(req.cdb, 2, 8), static_cast<std::uint32_t>(get_be(req.cdb, 10, 4)));
    default:
      break;
  }
  return invalid_opcode(op);
}

CommandResult SimDevice::ata_pass_through(const ScsiRequest& req) {
  // The drive as a SATL would present it (SAT-3 12.2.2): the CDB's ATA command goes to ata(), and
  // what comes back over SCSI is what a SATL can say: status, sense data, the data buffer. The
  // output registers travel in an ATA Status Return descriptor, on ERR (ABORTED COMMAND) or when
  // CK_COND asked for them (RECOVERED ERROR, ATA PASS THROUGH INFORMATION AVAILABLE).
  auto pt = sat::decode_pass_through_cdb(req.cdb);
  if (!pt) return invalid_field();
  AtaRequest a;
  a.in = pt->regs;
  a.lba48 = pt->extend;
  a.data = req.data;
  a.timeout = req.timeout;
  switch (pt->protocol) {
    case sat::kProtocolNonData: a.protocol = AtaProtocol::non_data; break;
    case sat::kProtocolPioDataIn: a.protocol = AtaProtocol::pio_in; break;
    case sat::kProtocolPioDataOut: a.protocol = AtaProtocol::pio_out; break;
    case sat::kProtocolDma: a.protocol = pt->t_dir_in ? AtaProtocol::dma_in : AtaProtocol::dma_out; break;
    default: return invalid_field();
  }
  CommandResult r = ata(a);
  if (!r.ata) return r;  // not answered by the ATA side (a short buffer, an injected fault)
  const AtaOutput o = *r.ata;
  r.ata.reset();
  if (o.error_bit() || pt->ck_cond) {
    const auto sense = sat::encode_ata_status_return(o, o.error_bit() ? kSenseAbortedCommand : kSenseRecoveredError,
                                                     o.error_bit() ? 0x00 : sat::kAscAtaPtInfo,
                                                     o.error_bit() ? 0x00 : sat::kAscqAtaPtInfo);
    r.outcome = Outcome::check_condition;
    r.scsi_status = 0x02;
    r.sense.assign(sense.begin(), sense.end());
  }
  return r;
}

CommandResult SimDevice::scsi_inquiry(const ScsiRequest& req) {
  const DiskModel& m = drive_->model();
  const bool ata = m.transport == Transport::ata;
  const std::size_t alloc = get_be(req.cdb, 3, 2);
  const std::int64_t dur = drive_->run_control();
  std::vector<std::uint8_t> p;
  if (req.cdb[1] & 0x01) {  // EVPD (SPC-4 7.8)
    const std::uint8_t page = req.cdb[2];
    switch (page) {
      case 0x00:  // supported VPD pages (B6h: a zoned model's; B9h: a multi-actuator model's ranges)
        p = {0x00, 0x00, 0x00, 3, 0x00, 0x80, 0xB1};
        if (m.zoned.enabled()) p.push_back(0xB6), ++p[3];
        if (!m.actuators.empty()) p.push_back(0xB9), ++p[3];
        break;
      case 0x80: {  // unit serial number
        const std::string& s = m.identity.serial;
        p = {0x00, 0x80, 0x00, static_cast<std::uint8_t>(std::min<std::size_t>(s.size(), 250))};
        p.insert(p.end(), s.begin(), s.begin() + p[3]);
        break;
      }
      case 0xB1: {  // block device characteristics (SBC-3 6.5.2)
        p.assign(64, 0);
        p[1] = 0xB1;
        p[3] = 0x3C;
        put_be(&p[4], static_cast<std::uint64_t>(std::lround(m.rpm)), 2);  // MEDIUM ROTATION RATE
        p[7] = 0x02;  // NOMINAL FORM FACTOR: 3.5 inch
        // Byte 8 bits 5:4 ZONED (SBC-4): 01b host aware. A host-managed drive leaves it 00b and
        // says what it is by its device type (14h).
        if (m.zoned.model == ZonedModel::host_aware) p[8] |= 0x10;
        break;
      }
      case 0xB6:  // zoned block device characteristics (ZBC)
        if (!m.zoned.enabled()) return invalid_field();
        p = zoned_vpd();
        break;
      case 0xB9:
        if (m.actuators.empty()) return invalid_field();
        p = cpr_vpd(*drive_);
        break;
      default:
        return invalid_field();
    }
  } else {
    if (req.cdb[2] != 0) return invalid_field();
    p.assign(96, 0);
    // Direct-access block device; 14h host-managed zoned block device (ZBC; Linux's SAT layer
    // reports a ZAC host-managed drive so too).
    p[0] = m.zoned.model == ZonedModel::host_managed ? 0x14 : 0x00;
    p[2] = ata ? 0x05 : 0x03;          // SPC-3 (a SATL) / SPC-1 (drives of the SCSI presets' era)
    p[3] = 0x02;                       // response data format 2
    p[4] = static_cast<std::uint8_t>(p.size() - 5);
    // Byte 7 bit 1 CmdQue: the device implements command queuing (SPC-4 6.4.2).
    if (m.queue.protocol != QueueProtocol::none) p[7] |= 0x02;
    if (!ata) p[7] |= 0x20 | 0x10;    // Sync, WBus16 (parallel SCSI)
    put_ascii(&p[8], 8, ata ? "ATA" : m.identity.vendor);
    put_ascii(&p[16], 16, m.identity.model);
    const std::string& fw = m.identity.firmware;
    put_ascii(&p[32], 4, ata && fw.size() > 4 ? std::string_view(fw).substr(fw.size() - 4) : fw);
  }
  return respond(req, p, alloc, dur);
}

CommandResult SimDevice::scsi_read_capacity(const ScsiRequest& req, bool sixteen) {
  const DiskModel& m = drive_->model();
  const std::uint64_t last = drive_->capacity() - 1;
  const std::int64_t dur = drive_->run_control();
  if (!sixteen) {
    std::array<std::uint8_t, 8> p{};
    put_be(&p[0], std::min<std::uint64_t>(last, 0xFFFFFFFF), 4);  // FFFFFFFFh: use READ CAPACITY(16)
    put_be(&p[4], m.logical_sector_bytes, 4);
    return respond(req, p, p.size(), dur);
  }
  std::array<std::uint8_t, 32> p{};
  put_be(&p[0], last, 8);
  put_be(&p[8], m.logical_sector_bytes, 4);
  // Byte 13 bits 3:0: LOGICAL BLOCKS PER PHYSICAL BLOCK EXPONENT (SBC-3 5.16.2).
  p[13] = static_cast<std::uint8_t>(std::log2(m.physical_sector_bytes / m.logical_sector_bytes));
  return respond(req, p, get_be(req.cdb, 10, 4), dur);
}

CommandResult SimDevice::scsi_mode_sense(const ScsiRequest& req, bool ten) {
  const std::uint8_t pc = req.cdb[2] >> 6, page = req.cdb[2] & 0x3F, subpage = req.cdb[3];
  const bool dbd = req.cdb[1] & 0x08;
  const std::size_t alloc = ten ? get_be(req.cdb, 7, 2) : req.cdb[4];
  if (pc == 3) return check_condition(0x05, 0x39, 0x00, "saving parameters not supported");
  if ((page != 0x08 && page != 0x3F) || (subpage != 0 && subpage != 0xFF)) return invalid_field();
  const std::int64_t dur = drive_->run_control();
  const DiskModel& m = drive_->model();
  // Caching mode page (SBC-3 6.4.5): byte 2 bit 2 WCE, byte 12 bit 5 DRA.
  std::array<std::uint8_t, 20> cp{};
  cp[0] = 0x88;  // PS: savable; page 08h
  cp[1] = 0x12;
  const bool changeable = pc == 1;
  const bool wce = changeable ? true : (pc == 2 ? m.cache.write_back : drive_->write_cache());
  const bool dra = changeable ? true : (pc == 2 ? false : !drive_->look_ahead());
  if (wce) cp[2] |= 0x04;
  if (dra) cp[12] |= 0x20;
  if (!changeable) put_be(&cp[4], 0xFFFF, 2);  // disable pre-fetch transfer length
  if (!changeable) put_be(&cp[8], std::min<std::uint64_t>(m.cache.read_ahead_sectors, 0xFFFF), 2);
  if (!changeable) put_be(&cp[10], std::min<std::uint64_t>(m.cache.read_ahead_sectors, 0xFFFF), 2);
  if (!changeable) cp[13] = static_cast<std::uint8_t>(std::min<std::uint32_t>(m.cache.segments, 255));
  std::vector<std::uint8_t> p(ten ? 8 : 4, 0);
  if (!dbd) {  // one short block descriptor (SPC-4 7.5.5)
    const std::size_t bd = p.size();
    p.resize(bd + 8, 0);
    put_be(&p[bd + 1], std::min<std::uint64_t>(drive_->capacity(), 0xFFFFFF), 3);
    put_be(&p[bd + 5], m.logical_sector_bytes, 3);
    if (ten) p[7] = 8;
    else p[3] = 8;
  }
  p.insert(p.end(), cp.begin(), cp.end());
  if (ten) put_be(&p[0], p.size() - 2, 2);
  else p[0] = static_cast<std::uint8_t>(p.size() - 1);
  return respond(req, p, alloc, dur);
}

CommandResult SimDevice::scsi_read(const ScsiRequest& req, std::uint64_t lba, std::uint32_t blocks) {
  const DiskModel& m = drive_->model();
  if (blocks == 0) {
    CommandResult r;
    r.duration = Nanos(drive_->run_control());
    return r;
  }
  if (lba + blocks > drive_->capacity())
    return check_condition(0x05, 0x21, 0x00, "LOGICAL BLOCK ADDRESS OUT OF RANGE");
  const std::uint64_t bytes = std::uint64_t{blocks} * m.logical_sector_bytes;
  if (req.data.size() < bytes) return invalid_field();
  std::fill_n(req.data.begin(), bytes, std::uint8_t{0});  // the simulator keeps no data
  CommandResult r;
  r.duration = Nanos(drive_->run_command(lba, blocks, false));
  if (auto f = drive_->faults().media_fault(lba, blocks, false, r.duration.count())) return *f;  // injected
  r.residual = static_cast<std::int32_t>(req.data.size() - bytes);
  return r;
}

// ---- zoned models ------------------------------------------------------------------------------

std::vector<std::uint8_t> SimDevice::zoned_vpd() const {
  // ZBC "Zoned Block Device Characteristics VPD page" (B6h): byte 4 bit 0 URSWRZ (reads of
  // sequential-write-required zones are unrestricted: the simulator refuses no read); bytes 8..11
  // optimal number of open sequential-write-preferred zones, 12..15 optimal number of
  // non-sequentially written sequential-write-preferred zones, 16..19 maximum number of open
  // sequential-write-required zones. The simulator keeps no open-zone limit: FFFFFFFFh (not
  // reported / no limit) in each.
  std::vector<std::uint8_t> p(64, 0);
  p[1] = 0xB6;
  p[3] = 0x3C;
  p[4] = 0x01;
  for (std::size_t at : {8u, 12u, 16u}) put_be(&p[at], 0xFFFFFFFFu, 4);
  return p;
}

CommandResult SimDevice::ata_report_zones(const AtaRequest& req) {
  // ZAC MANAGEMENT IN, REPORT ZONES EXT: FEATURE(7:0) action 00h, FEATURE(15:8) bit 7 PARTIAL and
  // bits 5:0 the reporting options, COUNT 512-byte pages, LBA the zone start LBA. The reply is
  // ZBC's layout, little-endian.
  const auto action = static_cast<std::uint8_t>(req.in.features & 0xFF);
  const auto options = static_cast<std::uint8_t>((req.in.features >> 8) & 0x3F);
  const bool partial = (req.in.features >> 8) & 0x80;
  const std::size_t bytes = std::size_t{req.in.count & 0xFFFFu} * 512;
  const std::int64_t dur = drive_->run_control();
  if (action != ata::kZacReportZonesExt || bytes == 0 || req.data.size() < bytes ||
      !ZoneTable::valid_reporting_options(options))
    return ata_error(dur, kErrAbort, "ZAC MANAGEMENT IN: action, count or reporting options not supported");
  auto reply = drive_->zones().report(req.in.lba & 0xFFFFFFFFFFFFull, bytes, false, options, partial);
  if (!reply) return ata_error(dur, kErrIdnf | kErrAbort, "REPORT ZONES EXT beyond the capacity");
  std::fill_n(req.data.begin(), bytes, std::uint8_t{0});
  std::copy(reply->begin(), reply->end(), req.data.begin());
  return ata_ok(dur);
}

CommandResult SimDevice::scsi_report_zones(const ScsiRequest& req) {
  // ZBC IN / REPORT ZONES: ZONE START LBA bytes 2..9, ALLOCATION LENGTH 10..13, byte 14 bit 7
  // PARTIAL and bits 5:0 REPORTING OPTIONS.
  const std::uint64_t start = get_be(req.cdb, 2, 8);
  const std::size_t alloc = get_be(req.cdb, 10, 4);
  const std::uint8_t options = req.cdb[14] & 0x3F;
  if (!ZoneTable::valid_reporting_options(options)) return invalid_field();
  const std::int64_t dur = drive_->run_control();
  auto reply = drive_->zones().report(start, alloc, true, options, req.cdb[14] & 0x80);
  if (!reply) return check_condition(wire::sense_key::kIllegalRequest, kAscLba, kAscqOutOfRange,
                                     "REPORT ZONES: zone start LBA beyond the capacity");
  return respond(req, *reply, alloc, dur);
}

CommandResult SimDevice::scsi_reset_write_pointer(const ScsiRequest& req) {
  // ZBC OUT / RESET WRITE POINTER: ZONE ID bytes 2..9, byte 14 bit 0 ALL.
  if (!writable_)
    return check_condition(kSenseDataProtect, 0x27, 0x00, "RESET WRITE POINTER: the target is not writable");
  const std::int64_t dur = drive_->run_control();
  if (!drive_->zones().reset(get_be(req.cdb, 2, 8), req.cdb[14] & 0x01)) return invalid_field();
  CommandResult r;
  r.duration = Nanos(dur);
  return r;
}

CommandResult SimDevice::scsi_write(const ScsiRequest& req, std::uint64_t lba, std::uint32_t blocks) {
  if (!writable_) return check_condition(kSenseDataProtect, 0x27, 0x00, "WRITE: the target is not writable");
  const std::uint32_t bs = drive_->model().logical_sector_bytes;
  if (blocks == 0) {
    CommandResult r;
    r.duration = Nanos(drive_->run_control());
    return r;
  }
  if (lba >= drive_->capacity() || blocks > drive_->capacity() - lba)
    return check_condition(wire::sense_key::kIllegalRequest, kAscLba, kAscqOutOfRange, "LOGICAL BLOCK ADDRESS OUT OF RANGE");
  if (req.data.size() < std::uint64_t{blocks} * bs) return invalid_field();
  switch (drive_->zones().write(lba, blocks)) {
    case ZoneTable::WriteCheck::unaligned:
      return check_condition(wire::sense_key::kIllegalRequest, kAscLba, kAscqUnaligned,
                             "UNALIGNED WRITE COMMAND: not at the zone's write pointer");
    case ZoneTable::WriteCheck::boundary:
      return check_condition(wire::sense_key::kIllegalRequest, kAscLba, kAscqBoundary,
                             "WRITE BOUNDARY ERROR: the write crosses a zone boundary");
    case ZoneTable::WriteCheck::ok:
      break;
  }
  CommandResult r;
  r.duration = Nanos(drive_->run_command(lba, blocks, true));
  return r;
}

}  // namespace ds::sim
