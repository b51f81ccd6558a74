#include "passthrough/sg_device.hpp"

#include <scsi/sg.h>
#include <scsi/sg_lib.h>
#include <scsi/sg_pt.h>
#include <sys/ioctl.h>
#include <sys/stat.h>

#include <array>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "passthrough/sense.hpp"

namespace ds {
namespace {

// SPC-4 allows up to 252 bytes of sense data; SG_IO's mx_sb_len is one byte.
constexpr int kSenseMax = 252;

struct PtObj {
  sg_pt_base* p = construct_scsi_pt_obj();
  ~PtObj() {
    if (p) destruct_scsi_pt_obj(p);
  }
};

std::string errno_text(int e) { return std::strerror(e); }

CommandResult os_failure(int err, std::string msg) {
  CommandResult r;
  r.outcome = Outcome::os_error;
  r.os_errno = err;
  r.message = std::move(msg);
  return r;
}

}  // namespace

Expected<std::unique_ptr<SgDevice>> SgDevice::open(const std::string& path, bool read_write) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    return make_error(fmt::format("{}: {}", path, errno_text(errno)), errno);
  if (S_ISREG(st.st_mode))
    return make_error(fmt::format("{}: a regular file, not a SCSI device (file:{} does block I/O only)", path, path),
                      ENOTTY);
  if (!S_ISCHR(st.st_mode) && !S_ISBLK(st.st_mode))
    return make_error(fmt::format("{}: not a device node", path), ENOTTY);

  const int fd = scsi_pt_open_device(path.c_str(), !read_write, 0);
  if (fd < 0) return make_error(fmt::format("{}: cannot open: {}", path, errno_text(-fd)), -fd);

  // sg_pt can also drive NVMe; this backend speaks SCSI/SAT only (NvmeDevice is NVMe's).
  const int kind = check_pt_file_handle(fd, path.c_str(), 0);
  if (kind == 3 || kind == 4) {
    scsi_pt_close_device(fd);
    return make_error(fmt::format("{}: an NVMe device (no SCSI/ATA commands; identify reads it with NVMe admin commands)", path), ENOTTY);
  }
  // SG_GET_VERSION_NUM is answered by the sg driver and by every block device of the SCSI
  // mid-layer, and refused (ENOTTY/EINVAL) by anything else: the cheapest "does SG_IO work here".
  int version = 0;
  if (::ioctl(fd, SG_GET_VERSION_NUM, &version) < 0 || version < 30000) {
    const int e = errno;
    scsi_pt_close_device(fd);
    return make_error(fmt::format("{}: not a SCSI device (SG_IO unavailable: {})", path, errno_text(e)), ENOTTY);
  }
  DeviceInfo info;
  info.name = path;
  info.kind = TargetKind::scsi;
  info.scsi_capable = true;
  info.ata_capable = false;  // until someone wraps it in a SatDevice that answers
  return std::unique_ptr<SgDevice>(new SgDevice(fd, std::move(info)));
}

SgDevice::~SgDevice() {
  if (fd_ >= 0) scsi_pt_close_device(fd_);
}

CommandResult SgDevice::scsi(const ScsiRequest& req) {
  if (req.cdb.empty() || req.cdb.size() > 16)
    return os_failure(EINVAL, fmt::format("{}: invalid CDB length {}", info_.name, req.cdb.size()));
  if (req.direction != DataDirection::none && req.data.empty())
    return os_failure(EINVAL, fmt::format("{}: data transfer requested with no buffer", info_.name));

  PtObj obj;
  if (!obj.p) return os_failure(ENOMEM, "cannot allocate an sg_pt object");
  std::array<std::uint8_t, kSenseMax> sense{};
  set_scsi_pt_cdb(obj.p, req.cdb.data(), static_cast<int>(req.cdb.size()));
  set_scsi_pt_sense(obj.p, sense.data(), kSenseMax);
  if (req.direction == DataDirection::from_device)
    set_scsi_pt_data_in(obj.p, req.data.data(), static_cast<int>(req.data.size()));
  else if (req.direction == DataDirection::to_device)
    set_scsi_pt_data_out(obj.p, req.data.data(), static_cast<int>(req.data.size()));

  // sg_pt takes whole seconds; round up so a 500 ms timeout is not zero (= driver default).
  const auto ms = req.timeout.count() > 0 ? req.timeout.count() : kDefaultCommandTimeout.count();
  const int secs = static_cast<int>((ms + 999) / 1000);

  const auto t0 = std::chrono::steady_clock::now();
  const int rc = do_scsi_pt(obj.p, fd_, secs, 0);
  const auto t1 = std::chrono::steady_clock::now();

  CommandResult r;
  r.duration = std::chrono::duration_cast<Nanos>(t1 - t0);
  if (rc < 0) {
    r.outcome = Outcome::os_error;
    r.os_errno = -rc;
    r.message = fmt::format("{}: {}", info_.name, errno_text(-rc));
    return r;
  }
  if (rc == SCSI_PT_DO_TIMEOUT) {
    r.outcome = Outcome::os_error;
    r.os_errno = ETIMEDOUT;
    r.message = fmt::format("{}: command timed out after {} s", info_.name, secs);
    return r;
  }
  if (rc == SCSI_PT_DO_BAD_PARAMS || rc == SCSI_PT_DO_NOT_SUPPORTED) {
    r.outcome = rc == SCSI_PT_DO_NOT_SUPPORTED ? Outcome::unsupported : Outcome::os_error;
    r.os_errno = EINVAL;
    r.message = fmt::format("{}: sg_pt rejected the request (code {})", info_.name, rc);
    return r;
  }

  const int slen = get_scsi_pt_sense_len(obj.p);
  if (slen > 0) r.sense.assign(sense.begin(), sense.begin() + std::min(slen, kSenseMax));
  r.residual = get_scsi_pt_resid(obj.p);
  const int status = get_scsi_pt_status_response(obj.p);
  r.scsi_status = status < 0 ? 0 : static_cast<std::uint8_t>(status);

  std::array<char, 256> buf{};
  switch (get_scsi_pt_result_category(obj.p)) {
    case SCSI_PT_RESULT_GOOD:
      r.outcome = Outcome::good;
      break;
    case SCSI_PT_RESULT_STATUS:
      r.outcome = Outcome::scsi_status;
      sg_get_scsi_status_str(r.scsi_status, static_cast<int>(buf.size()), buf.data());
      r.message = fmt::format("{}: SCSI status {}", info_.name, buf.data());
      break;
    case SCSI_PT_RESULT_SENSE:
      r.outcome = Outcome::check_condition;
      r.message = describe_sense(r.sense);
      break;
    case SCSI_PT_RESULT_TRANSPORT_ERR: {
      r.outcome = Outcome::transport_error;
      // What sg_pt returns here depends on its version (older Linux builds pack host and
      // driver status together, newer ones give the v4 transport_status), so it is kept as is;
      // the text from get_scsi_pt_transport_err_str decodes it for the user.
      r.host_status = get_scsi_pt_transport_err(obj.p);
      r.driver_status = 0;
      get_scsi_pt_transport_err_str(obj.p, static_cast<int>(buf.size()), buf.data());
      r.message = fmt::format("{}: transport error: {}", info_.name, buf.data());
      while (!r.message.empty() && (r.message.back() == '\n' || r.message.back() == ' ')) r.message.pop_back();
      break;
    }
    case SCSI_PT_RESULT_OS_ERR:
    default:
      r.outcome = Outcome::os_error;
      r.os_errno = get_scsi_pt_os_err(obj.p);
      r.message = fmt::format("{}: {}", info_.name, errno_text(r.os_errno));
      break;
  }
  return r;
}

}  // namespace ds
