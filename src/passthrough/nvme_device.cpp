#include "passthrough/nvme_device.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <libnvme.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace ds {
namespace {

namespace fs = std::filesystem;

// libnvme's admin calls return -1 with errno when the ioctl itself failed (no such command on this
// node, no permission), and a positive NVMe status when the controller completed the command
// with an error (Base 2.0, 4.6.1: status code type and status code).
Error command_error(const std::string& path, const char* what, int rc) {
  if (rc < 0) {
    const int e = errno;
    return make_error(fmt::format("{}: {} failed: {}", path, what, std::strerror(e)), e);
  }
  return make_error(fmt::format("{}: {}: the controller answered status {:#x} ({})", path, what, rc,
                                nvme_status_to_string(rc, false)),
                    EIO);
}

// One Identify command (CNS `cns`, for namespace `nsid`) into a 4096-byte page: the two the
// allowlist names differ only in those two fields.
Expected<std::array<std::uint8_t, 4096>> identify_page(int fd, const std::string& path, nvme_identify_cns cns,
                                                      std::uint32_t nsid, const char* name) {
  std::array<std::uint8_t, 4096> out{};
  nvme_identify_args args{};
  args.args_size = sizeof(args);
  args.fd = fd;
  args.timeout = NvmeDevice::kTimeoutMs;
  args.data = out.data();
  args.cns = cns;
  args.csi = NVME_CSI_NVM;
  args.nsid = nsid;
  args.cntid = NVME_CNTLID_NONE;
  args.cns_specific_id = NVME_CNSSPECID_NONE;
  args.uuidx = NVME_UUID_NONE;
  const int rc = nvme_identify(&args);
  if (rc != 0) return command_error(path, name, rc);
  return out;
}

}  // namespace

bool is_nvme_node(const std::string& path, const std::string& root) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !(S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode))) return false;
  const fs::path link = fs::path(root) / "sys/dev" / (S_ISCHR(st.st_mode) ? "char" : "block") /
                        fmt::format("{}:{}", major(st.st_rdev), minor(st.st_rdev));
  std::error_code ec;
  const fs::path real = fs::canonical(link, ec);
  if (ec) return false;
  for (const auto& part : real)
    if (part == "nvme" || part == "nvme-subsystem") return true;
  return false;
}

Expected<std::unique_ptr<NvmeDevice>> NvmeDevice::open(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    return make_error(fmt::format("{}: {}", path, std::strerror(errno)), errno);
  if (!S_ISCHR(st.st_mode) && !S_ISBLK(st.st_mode))
    return make_error(fmt::format("{}: not a device node", path), ENOTTY);
  // Read-only, like nvme-cli's id-ctrl: the admin commands sent here only read.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return make_error(fmt::format("{}: cannot open: {}", path, std::strerror(errno)), errno);
  std::optional<std::uint32_t> nsid;
  __u32 id = 0;
  if (S_ISBLK(st.st_mode)) {
    if (nvme_get_nsid(fd, &id) < 0) {
      const int e = errno;
      ::close(fd);
      return make_error(fmt::format("{}: not an NVMe namespace (NVME_IOCTL_ID: {})", path, std::strerror(e)),
                        ENOTTY);
    }
    nsid = id;
  }
  return std::unique_ptr<NvmeDevice>(new NvmeDevice(fd, path, nsid));
}

NvmeDevice::~NvmeDevice() { ::close(fd_); }

Expected<std::array<std::uint8_t, 4096>> NvmeDevice::identify_controller() {
  return identify_page(fd_, path_, NVME_IDENTIFY_CNS_CTRL, NVME_NSID_NONE, "Identify Controller");
}

Expected<std::array<std::uint8_t, 4096>> NvmeDevice::identify_namespace(std::uint32_t nsid) {
  return identify_page(fd_, path_, NVME_IDENTIFY_CNS_NS, nsid, "Identify Namespace");
}

Expected<std::array<std::uint8_t, 512>> NvmeDevice::smart_log() {
  std::array<std::uint8_t, 512> out{};
  nvme_get_log_args args{};
  args.args_size = sizeof(args);
  args.fd = fd_;
  args.timeout = kTimeoutMs;
  args.log = out.data();
  args.lid = NVME_LOG_LID_SMART;
  args.len = out.size();
  args.nsid = NVME_NSID_ALL;
  args.csi = NVME_CSI_NVM;
  args.lsi = NVME_LOG_LSI_NONE;
  args.lsp = NVME_LOG_LSP_NONE;
  args.uuidx = NVME_UUID_NONE;
  args.rae = false;
  const int rc = nvme_get_log(&args);
  if (rc != 0) return command_error(path_, "Get Log Page (SMART / Health)", rc);
  return out;
}

}  // namespace ds
