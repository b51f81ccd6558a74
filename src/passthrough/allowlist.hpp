// The passthrough allowlist (docs/safety.md): drivescope sends a drive only commands that read
// or query, plus the handful of SET FEATURES subcommands behind `aam`, `apm`, `write-cache` and
// `read-ahead`. Everything else is refused before it reaches a backend. The checks are pure
// functions; GuardedDevice applies them to every command of a device it wraps.
#pragma once
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "drivescope/device.hpp"

namespace ds {

struct Verdict {
  bool allowed = false;
  std::string reason;  // why it was refused (empty when allowed)
  explicit operator bool() const { return allowed; }
};

// ATA: IDENTIFY DEVICE, IDENTIFY PACKET DEVICE; SET FEATURES with AAM, APM, write cache or
// look-ahead enable/disable; SMART READ DATA / READ THRESHOLDS / RETURN STATUS; READ LOG EXT of
// log 00h, 30h or 47h; ZAC MANAGEMENT IN with REPORT ZONES EXT; CHECK POWER MODE; READ VERIFY
// SECTORS (EXT).
Verdict check_ata(const AtaRegisters& regs);
// check_ata plus: no data-out protocol (none of the allowed commands sends data to the drive).
Verdict check_ata_request(const AtaRequest& req);

// SCSI: TEST UNIT READY, REQUEST SENSE, INQUIRY, MODE SENSE(6/10), READ CAPACITY(10/16),
// LOG SENSE (without SP), READ(10/16), ZBC IN with REPORT ZONES, and ATA PASS-THROUGH(12/16) when the ATA command inside
// passes check_ata and no data goes to the device. The CDB length must match the opcode's group.
Verdict check_scsi(std::span<const std::uint8_t> cdb);
// check_scsi plus: no data-out transfer.
Verdict check_scsi_request(const ScsiRequest& req);

// Human names of the opcodes drivescope knows about, for messages ("WRITE(10)"); "" if unknown.
std::string_view scsi_opcode_name(std::uint8_t opcode);
std::string_view ata_command_name(std::uint8_t command);

// The decorator every backend is wrapped in when a target is opened: a refused command gets
// Outcome::refused with the reason and never reaches the inner device. (A raw mode, if one is ever
// added, is simply not wrapping.)
class GuardedDevice final : public Device {
 public:
  explicit GuardedDevice(std::unique_ptr<Device> inner);
  explicit GuardedDevice(Device& inner);  // non-owning: the caller keeps inner alive
  const DeviceInfo& info() const override { return inner_->info(); }
  CommandResult scsi(const ScsiRequest& req) override;
  CommandResult ata(const AtaRequest& req) override;
  Device& inner() { return *inner_; }

 private:
  std::unique_ptr<Device> owned_;
  Device* inner_;
};

}  // namespace ds
