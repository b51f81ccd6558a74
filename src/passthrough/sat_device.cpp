#include "passthrough/sat_device.hpp"

#include <cerrno>

#include <fmt/format.h>

#include "drivescope/sat.hpp"
#include "passthrough/sense.hpp"

namespace ds {
namespace {

constexpr std::uint8_t kNoSense = 0x0;
constexpr std::uint8_t kRecoveredError = 0x1;
constexpr std::uint8_t kIllegalRequest = 0x5;
constexpr std::uint8_t kAscInvalidOpcode = 0x20;  // INVALID COMMAND OPERATION CODE (SPC-4)

DeviceInfo sat_info(const DeviceInfo& inner) {
  DeviceInfo i = inner;
  i.kind = TargetKind::ata;
  i.ata_capable = true;
  return i;
}

bool is_invalid_opcode(const CommandResult& r) {
  if (r.outcome != Outcome::check_condition) return false;
  auto s = decode_sense(r.sense);
  return s && s->sense_key == kIllegalRequest && s->asc == kAscInvalidOpcode && s->ascq == 0;
}

// Reads the ATA registers out of the sense data and decides what the command's outcome is.
void interpret(CommandResult& r, std::uint8_t command) {
  if (r.sense.empty()) return;
  auto st = sat::decode_ata_status_return(r.sense);
  if (!st) return;  // some other CHECK CONDITION: the inner device's message stands
  const bool pt_info = (st->sense_key == kRecoveredError || st->sense_key == kNoSense);
  // A fixed-format sense carries the registers only by convention (SAT-3 12.2.2.7): believe it
  // when the SATL says ATA PASS THROUGH INFORMATION AVAILABLE or when the status register is
  // non-zero (a live ATA device always reports some status bit, DRDY at least).
  if (!st->descriptor_format &&
      !(pt_info && st->asc == sat::kAscAtaPtInfo && st->ascq == sat::kAscqAtaPtInfo) &&
      st->regs.status == 0)
    return;
  r.ata = st->regs;
  const AtaOutput& o = st->regs;
  if (o.error_bit()) {
    r.outcome = Outcome::check_condition;
    if (o.aborted())
      r.message = fmt::format("ATA command aborted by the device (error {:#04x})", o.error);
    else
      r.message = fmt::format("ATA command {:#04x} failed: status {:#04x}, error {:#04x}", command,
                              o.status, o.error);
    return;
  }
  // CK_COND (or a SATL that always reports) gives CHECK CONDITION with only the ATA Status Return
  // and a NO SENSE / RECOVERED ERROR key: that is a successful command, not an error.
  if (r.outcome == Outcome::check_condition && pt_info) {
    r.outcome = Outcome::good;
    r.message.clear();
  }
}

}  // namespace

DataDirection direction_of(AtaProtocol p) {
  switch (p) {
    case AtaProtocol::non_data: return DataDirection::none;
    case AtaProtocol::pio_in:
    case AtaProtocol::dma_in: return DataDirection::from_device;
    case AtaProtocol::pio_out:
    case AtaProtocol::dma_out: return DataDirection::to_device;
  }
  return DataDirection::none;
}

SatDevice::SatDevice(std::unique_ptr<Device> inner, SatCdbSize size)
    : owned_(std::move(inner)), inner_(owned_.get()), info_(sat_info(inner_->info())), size_(size) {}

SatDevice::SatDevice(Device& inner, SatCdbSize size) : inner_(&inner), info_(sat_info(inner.info())), size_(size) {}

CommandResult SatDevice::send(const AtaRequest& req, SatCdbSize size) {
  // Non-data commands return their answer in the registers only (SMART RETURN STATUS, CHECK POWER
  // MODE), so ask for them with CK_COND.
  const bool ck_cond = req.protocol == AtaProtocol::non_data;
  ScsiRequest s;
  s.direction = direction_of(req.protocol);
  s.data = req.data;
  s.timeout = req.timeout;
  std::array<std::uint8_t, 16> cdb16{};
  std::array<std::uint8_t, 12> cdb12{};
  if (size == SatCdbSize::pt12) {
    auto c = sat::encode_pt12(req, ck_cond);
    if (!c) {
      CommandResult r;
      r.outcome = Outcome::unsupported;
      r.message = c.error().message;
      return r;
    }
    cdb12 = *c;
    s.cdb = cdb12;
  } else {
    cdb16 = sat::encode_pt16(req, ck_cond);
    s.cdb = cdb16;
  }
  CommandResult r = inner_->scsi(s);
  if (r.outcome == Outcome::check_condition && r.message.empty()) r.message = describe_sense(r.sense);
  interpret(r, req.in.command);
  return r;
}

CommandResult SatDevice::ata(const AtaRequest& req) {
  if (auto err = sat::validate(req)) {
    CommandResult r;
    r.outcome = Outcome::os_error;
    r.os_errno = EINVAL;
    r.message = "invalid ATA request: " + err->message;
    return r;
  }
  const bool use12 = size_ == SatCdbSize::pt12 && !req.lba48;
  CommandResult r = send(req, use12 ? SatCdbSize::pt12 : SatCdbSize::pt16);
  if (!use12 && !req.lba48 && is_invalid_opcode(r)) {
    // Some USB bridges implement only the 12-byte CDB (smartmontools' "sat,12").
    size_ = SatCdbSize::pt12;
    r = send(req, SatCdbSize::pt12);
  }
  return r;
}

}  // namespace ds
