// The simulated drive's command interface. ATA models answer ata() (IDENTIFY DEVICE, SET
// FEATURES, CHECK POWER MODE, SMART RETURN STATUS, READ VERIFY) and, like libata's SAT layer,
// a few scsi() commands (INQUIRY with vendor "ATA", READ CAPACITY, TEST UNIT READY). SCSI models
// answer scsi() (INQUIRY and VPD 00/80/B1, READ CAPACITY 10/16, MODE SENSE 6/10 caching page,
// TEST UNIT READY, REQUEST SENSE, READ 10/16). Zoned models (key "zoned") of either transport also
// answer REPORT ZONES (ZBC IN; ATA: ZAC MANAGEMENT IN), RESET WRITE POINTER and WRITE 10/16, and
// VPD B6h, as a ZBC drive or Linux's SAT layer over a ZAC one does. ATA models also answer ATA PASS-THROUGH (12)/(16)
// as a SATL does, so that SatDevice can run over the simulator. Everything else is rejected the way a drive would:
// ATA abort, or CHECK CONDITION ILLEGAL REQUEST / INVALID COMMAND OPERATION CODE.
#pragma once
#include <array>
#include <vector>
#include <cstdint>
#include <memory>
#include <span>

#include "drivescope/device.hpp"
#include "sim/drive.hpp"

namespace ds::sim {

// IDENTIFY DEVICE data for the drive's current state (ACS-3 7.12.7; words listed in the .cpp).
std::array<std::uint8_t, 512> identify_data(const SimDrive& drive);
// A multi-actuator model's positioning ranges (model key "actuators") as the drive reports them:
// the ATA Concurrent Positioning Ranges log 47h (ACS-5: one 512-byte page for up to 14 ranges,
// little-endian) and the SCSI VPD page B9h (SBC-5: big-endian). Built from the model, so that
// the probe's decoders (src/probe/zones.*) can be checked against the truth.
std::vector<std::uint8_t> cpr_log(const SimDrive& drive);
std::vector<std::uint8_t> cpr_vpd(const SimDrive& drive);

class SimDevice final : public Device {
 public:
  // writable: the target was opened for writes (SimOptions::writable); a zoned model's SCSI WRITE
  // and RESET WRITE POINTER are refused (DATA PROTECT) without it.
  SimDevice(std::shared_ptr<SimDrive> drive, std::string name, bool writable = false);
  const DeviceInfo& info() const override { return info_; }
  CommandResult ata(const AtaRequest& req) override;
  CommandResult scsi(const ScsiRequest& req) override;

 private:
  CommandResult ata_set_features(const AtaRequest& req);
  CommandResult ata_read_log(const AtaRequest& req);  // READ LOG EXT: logs 00h and 47h
  CommandResult ata_pass_through(const ScsiRequest& req);  // ATA PASS-THROUGH (12) and (16)
  CommandResult scsi_inquiry(const ScsiRequest& req);
  CommandResult scsi_mode_sense(const ScsiRequest& req, bool ten);
  CommandResult scsi_read_capacity(const ScsiRequest& req, bool sixteen);
  CommandResult scsi_read(const ScsiRequest& req, std::uint64_t lba, std::uint32_t blocks);
  // Zoned models (model key "zoned", sim/zoned.hpp): ZAC REPORT ZONES EXT, ZBC REPORT ZONES,
  // RESET WRITE POINTER, and WRITE(10)/(16) checked against the write pointers.
  CommandResult ata_report_zones(const AtaRequest& req);
  CommandResult scsi_report_zones(const ScsiRequest& req);
  CommandResult scsi_reset_write_pointer(const ScsiRequest& req);
  CommandResult scsi_write(const ScsiRequest& req, std::uint64_t lba, std::uint32_t blocks);
  std::vector<std::uint8_t> zoned_vpd() const;  // VPD B6h

  std::shared_ptr<SimDrive> drive_;
  DeviceInfo info_;
  bool writable_ = false;
};

}  // namespace ds::sim
