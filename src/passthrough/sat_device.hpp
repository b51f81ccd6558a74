// SAT as a device that wraps another device (smartmontools' shape, scsiata.cpp): ata() becomes an
// ATA PASS-THROUGH CDB sent through the inner device's scsi(), and the ATA output registers are
// read back from the sense data (SAT-3 12.2.2.6 / 12.2.2.7). scsi() passes straight through.
#pragma once
#include <memory>

#include "drivescope/device.hpp"

namespace ds {

// The SCSI data direction an ATA protocol moves data in (the PASS-THROUGH CDB's T_DIR follows the
// PROTOCOL field, SAT-3); the CDB builder and the command tracer (trace_device) both need it.
DataDirection direction_of(AtaProtocol p);

enum class SatCdbSize : std::uint8_t { pt16, pt12 };

class SatDevice final : public Device {
 public:
  // pt16 is the default; a 28-bit command falls back to pt12 (and stays there) when the inner
  // device answers ILLEGAL REQUEST / INVALID COMMAND OPERATION CODE to the 16-byte CDB.
  explicit SatDevice(std::unique_ptr<Device> inner, SatCdbSize size = SatCdbSize::pt16);
  explicit SatDevice(Device& inner, SatCdbSize size = SatCdbSize::pt16);  // non-owning

  const DeviceInfo& info() const override { return info_; }
  CommandResult scsi(const ScsiRequest& req) override { return inner_->scsi(req); }
  CommandResult ata(const AtaRequest& req) override;

  SatCdbSize cdb_size() const { return size_; }
  Device& inner() { return *inner_; }

 private:
  CommandResult send(const AtaRequest& req, SatCdbSize size);

  std::unique_ptr<Device> owned_;
  Device* inner_;
  DeviceInfo info_;
  SatCdbSize size_;
};

}  // namespace ds
