// The data of a served drive: a sparse in-memory file (memfd) as large as the drive, so that what
// is written reads back and what never was reads as zeros, while memory is taken only by the
// data written. pread/pwrite on one descriptor are safe from many threads at once.
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>

#include "drivescope/expected.hpp"

namespace ds::serve {

class SparseStore {
 public:
  static Expected<SparseStore> create(std::uint64_t size_bytes);
  SparseStore(SparseStore&& o) noexcept : fd_(o.fd_), size_(o.size_) { o.fd_ = -1; }
  SparseStore& operator=(SparseStore&&) = delete;
  SparseStore(const SparseStore&) = delete;
  ~SparseStore();

  std::uint64_t size() const { return size_; }
  // Both return 0 or an errno value; a range beyond the size is EINVAL.
  int read(std::span<std::byte> out, std::uint64_t offset) const;
  int write(std::span<const std::byte> in, std::uint64_t offset);

 private:
  SparseStore(int fd, std::uint64_t size) : fd_(fd), size_(size) {}
  int fd_ = -1;
  std::uint64_t size_ = 0;
};

}  // namespace ds::serve
