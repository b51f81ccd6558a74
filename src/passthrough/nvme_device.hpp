// The NVMe backend: an NVMe controller or namespace node (/dev/nvme0, /dev/nvme0n1) reached with
// the kernel's admin pass-through (NVME_IOCTL_ADMIN_CMD) through libnvme. It sends three admin
// commands and nothing else — Identify Controller, Identify Namespace, Get Log Page of the SMART /
// Health log — each with a timeout: none of them changes the drive (docs/safety.md, "NVMe").
// Bytes come back raw; probe/nvme_identify.hpp decodes them.
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "drivescope/expected.hpp"

namespace ds {

class NvmeDevice {
 public:
  static constexpr unsigned kTimeoutMs = 10000;

  // Refuses what is not an NVMe node (a SCSI disk, a file) with a message saying what it is.
  static Expected<std::unique_ptr<NvmeDevice>> open(const std::string& path);
  ~NvmeDevice();
  NvmeDevice(const NvmeDevice&) = delete;
  NvmeDevice& operator=(const NvmeDevice&) = delete;

  const std::string& path() const { return path_; }
  // The namespace this node is (NVME_IOCTL_ID); empty for a controller's character node.
  std::optional<std::uint32_t> nsid() const { return nsid_; }

  Expected<std::array<std::uint8_t, 4096>> identify_controller();
  Expected<std::array<std::uint8_t, 4096>> identify_namespace(std::uint32_t nsid);
  // The controller-wide log (NSID FFFFFFFFh), as `nvme smart-log` asks for it.
  Expected<std::array<std::uint8_t, 512>> smart_log();

 private:
  NvmeDevice(int fd, std::string path, std::optional<std::uint32_t> nsid)
      : fd_(fd), path_(std::move(path)), nsid_(nsid) {}
  int fd_;
  std::string path_;
  std::optional<std::uint32_t> nsid_;
};

// Whether a node is an NVMe controller or namespace, from sysfs alone (nothing is opened):
// /sys/dev/{char,block}/MAJ:MIN resolves under an "nvme" class directory.
bool is_nvme_node(const std::string& path, const std::string& root = "/");

}  // namespace ds
