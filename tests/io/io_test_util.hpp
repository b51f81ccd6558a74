// Scratch files and loop devices for the io tests; everything is removed again on destruction.
#pragma once
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace ds_test {

// A file of `size` bytes whose content is a known function of the offset.
struct TempFile {
  std::string path;
  int fd = -1;

  TempFile(const std::string& dir, std::size_t size) {
    std::string tmpl = dir + "/drivescope-io-XXXXXX";
    fd = mkstemp(tmpl.data());
    if (fd < 0) return;
    path = tmpl;
    std::vector<std::byte> chunk(1 << 20);
    for (std::size_t off = 0; off < size; off += chunk.size()) {
      const std::size_t n = std::min(chunk.size(), size - off);
      for (std::size_t i = 0; i < n; ++i) chunk[i] = byte_at(off + i);
      if (::pwrite(fd, chunk.data(), n, static_cast<off_t>(off)) != static_cast<ssize_t>(n)) {
        ::close(fd);
        fd = -1;
        return;
      }
    }
    ::fsync(fd);
  }
  ~TempFile() {
    if (fd >= 0) ::close(fd);
    if (!path.empty()) ::unlink(path.c_str());
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  bool ok() const { return fd >= 0; }

  static std::byte byte_at(std::size_t off) {
    return static_cast<std::byte>((off * 2654435761u) >> 11);
  }
  std::vector<std::byte> expected(std::size_t off, std::size_t len) const {
    std::vector<std::byte> v(len);
    for (std::size_t i = 0; i < len; ++i) v[i] = byte_at(off + i);
    return v;
  }
};

inline std::string run_capture(const std::string& cmd, int* status) {
  std::string out;
  FILE* p = ::popen((cmd + " 2>&1").c_str(), "r");
  if (!p) {
    *status = -1;
    return out;
  }
  char buf[256];
  while (std::fgets(buf, sizeof buf, p)) out += buf;
  *status = ::pclose(p);
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

// A loop device over `file` with the given logical sector size (losetup --sector-size).
struct LoopDevice {
  std::string dev;
  std::string why;

  LoopDevice(const std::string& file, unsigned sector) {
    int st = 0;
    const std::string out = run_capture("losetup -f --show --sector-size " +
                                            std::to_string(sector) + " " + file,
                                        &st);
    if (st == 0 && out.starts_with("/dev/loop")) dev = out;
    else why = out.empty() ? "losetup failed" : out;
  }
  ~LoopDevice() {
    if (!dev.empty()) {
      int st = 0;
      run_capture("losetup -d " + dev, &st);
    }
  }
  LoopDevice(const LoopDevice&) = delete;
  LoopDevice& operator=(const LoopDevice&) = delete;
  bool ok() const { return !dev.empty(); }
};

}  // namespace ds_test
