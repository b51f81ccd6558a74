#include "serve/store.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace ds::serve {

Expected<SparseStore> SparseStore::create(std::uint64_t size_bytes) {
  // memfd: anonymous, freed with the process, sparse (ftruncate allocates nothing), and no file
  // left behind in a temporary directory when the server is killed.
  const int fd = ::memfd_create("drivescope-serve", MFD_CLOEXEC);
  if (fd < 0) return make_error(std::string("memfd_create: ") + std::strerror(errno), errno);
  if (::ftruncate(fd, static_cast<off_t>(size_bytes)) != 0) {
    const int e = errno;
    ::close(fd);
    return make_error("sizing the data store to " + std::to_string(size_bytes) + " bytes: " + std::strerror(e), e);
  }
  return SparseStore(fd, size_bytes);
}

SparseStore::~SparseStore() {
  if (fd_ >= 0) ::close(fd_);
}

int SparseStore::read(std::span<std::byte> out, std::uint64_t offset) const {
  if (offset > size_ || out.size() > size_ - offset) return EINVAL;
  std::size_t done = 0;
  while (done < out.size()) {
    const ssize_t n = ::pread(fd_, out.data() + done, out.size() - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    if (n == 0) {  // cannot happen within the size; zeros are what the drive would hold
      std::memset(out.data() + done, 0, out.size() - done);
      break;
    }
    done += static_cast<std::size_t>(n);
  }
  return 0;
}

int SparseStore::write(std::span<const std::byte> in, std::uint64_t offset) {
  if (offset > size_ || in.size() > size_ - offset) return EINVAL;
  std::size_t done = 0;
  while (done < in.size()) {
    const ssize_t n = ::pwrite(fd_, in.data() + done, in.size() - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;  // ENOSPC when the memory for written data runs out
    done += static_cast<std::size_t>(n);
  }
  return 0;
}

}  // namespace ds::serve
