#include "sg_pt_mock.hpp"

#include <fcntl.h>
#include <scsi/sg.h>
#include <scsi/sg_pt.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdarg>
#include <cstring>

namespace sgmock {

Script& script() {
  static Script s;
  return s;
}

void reset() { script() = Script{}; }

}  // namespace sgmock

using sgmock::script;

// The object SgDevice builds a command in (opaque to it, as the real one is).
struct sg_pt_base {
  std::uint8_t* sense = nullptr;
  int sense_max = 0;
  std::uint8_t* data_in = nullptr;
  int data_in_len = 0;
  int sense_len = 0;
};

extern "C" {

int scsi_pt_open_device(const char*, bool, int) {
  if (script().open_errno) return -script().open_errno;
  script().open_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  return script().open_fd;
}

int scsi_pt_close_device(int fd) {
  if (fd == script().open_fd) script().closed = true;
  return ::close(fd) == 0 ? 0 : -errno;
}

int check_pt_file_handle(int, const char*, int) { return script().pt_kind; }

struct sg_pt_base* construct_scsi_pt_obj(void) {
  if (script().construct_fails) return nullptr;
  ++script().live_objects;
  return new sg_pt_base;
}

void destruct_scsi_pt_obj(struct sg_pt_base* p) {
  --script().live_objects;
  delete p;
}

void set_scsi_pt_cdb(struct sg_pt_base*, const uint8_t* cdb, int len) { script().cdb.assign(cdb, cdb + len); }

void set_scsi_pt_sense(struct sg_pt_base* p, uint8_t* sense, int max_len) {
  p->sense = sense;
  p->sense_max = max_len;
  script().sense_len = max_len;
}

void set_scsi_pt_data_in(struct sg_pt_base* p, uint8_t* buf, int len) {
  p->data_in = buf;
  p->data_in_len = len;
  script().data_in_len = len;
}

void set_scsi_pt_data_out(struct sg_pt_base*, const uint8_t* buf, int len) {
  script().data_out.assign(buf, buf + len);
  script().data_out_len = len;
}

int do_scsi_pt(struct sg_pt_base* p, int, int timeout_secs, int) {
  sgmock::Script& s = script();
  ++s.commands;
  s.timeout_secs = timeout_secs;
  if (s.do_rc != 0) return s.do_rc;
  if (p->data_in && !s.data_in.empty())
    std::memcpy(p->data_in, s.data_in.data(), std::min<std::size_t>(s.data_in.size(), static_cast<std::size_t>(p->data_in_len)));
  p->sense_len = std::min(static_cast<int>(s.sense.size()), p->sense_max);
  if (p->sense && p->sense_len > 0) std::memcpy(p->sense, s.sense.data(), static_cast<std::size_t>(p->sense_len));
  return 0;
}

int get_scsi_pt_result_category(const struct sg_pt_base*) { return script().category; }
int get_scsi_pt_resid(const struct sg_pt_base*) { return script().resid; }
int get_scsi_pt_status_response(const struct sg_pt_base*) { return script().status; }
int get_scsi_pt_sense_len(const struct sg_pt_base* p) { return p->sense_len; }
int get_scsi_pt_os_err(const struct sg_pt_base*) { return script().os_err; }
int get_scsi_pt_transport_err(const struct sg_pt_base*) { return script().transport_err; }

char* get_scsi_pt_transport_err_str(const struct sg_pt_base*, int max_b_len, char* b) {
  if (max_b_len > 0) {
    std::strncpy(b, script().transport_text.c_str(), static_cast<std::size_t>(max_b_len) - 1);
    b[max_b_len - 1] = '\0';
  }
  return b;
}

// SgDevice::open asks SG_GET_VERSION_NUM of the descriptor: answered here for ours, passed to the
// kernel for every other (ioctl(2) is variadic; its third argument is one pointer-sized value).
int ioctl(int fd, unsigned long request, ...) {
  va_list ap;
  va_start(ap, request);
  void* arg = va_arg(ap, void*);
  va_end(ap);
  if (fd == script().open_fd && fd >= 0 && request == SG_GET_VERSION_NUM) {
    if (script().sg_version == 0) {
      errno = ENOTTY;
      return -1;
    }
    *static_cast<int*>(arg) = script().sg_version;
    return 0;
  }
  return static_cast<int>(::syscall(SYS_ioctl, fd, request, arg));
}

}  // extern "C"
