// The Linux SCSI backend: /dev/sdX or /dev/sgN through libsgutils2's sg_pt interface (sg_pt.h),
// whose result categories (good / status / sense / transport / OS error) map one to one onto
// ds::Outcome. One object per open file descriptor; commands are synchronous.
#pragma once
#include <memory>
#include <string>

#include "drivescope/device.hpp"
#include "drivescope/expected.hpp"

namespace ds {

class SgDevice final : public Device {
 public:
  // Opens path read-only (or read-write) and checks it answers SG_IO: a regular file, a missing
  // path, an NVMe or any other non-SCSI device gives an error saying so.
  static Expected<std::unique_ptr<SgDevice>> open(const std::string& path, bool read_write);
  ~SgDevice() override;
  SgDevice(const SgDevice&) = delete;
  SgDevice& operator=(const SgDevice&) = delete;

  const DeviceInfo& info() const override { return info_; }
  CommandResult scsi(const ScsiRequest& req) override;

 private:
  SgDevice(int fd, DeviceInfo info) : fd_(fd), info_(std::move(info)) {}
  int fd_;
  DeviceInfo info_;
};

}  // namespace ds
