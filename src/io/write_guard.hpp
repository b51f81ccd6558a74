// The write guard (docs/safety.md, issue 7): decides whether a write test may touch a
// target, before any engine is opened read-write.
//
//   regular file  → needs --write, and is refused while a loop device it backs
//                   (/sys/block/loopN/loop/backing_file, matched by inode) is in use as a block
//                   device would be (mounted, swap, held, not O_EXCL): it is that device's data.
//   block device  → needs --write and --destructive, and is refused when the device or any of
//                   its partitions is mounted (/proc/self/mountinfo, matched by major:minor and by
//                   source name), is active swap (/proc/swaps), has holders (device-mapper, md,
//                   LVM: /sys/class/block/X/holders), or cannot be opened O_EXCL.
//
// Every reason that applies is reported, not just the first, so a user fixes them in one go.
// The /proc and /sys locations are taken relative to a root so tests can run on fake trees.
#pragma once
#include <string>
#include <vector>

#include "drivescope/expected.hpp"

namespace ds::io {

struct WriteGuardOptions {
  bool write = false;        // --write
  bool destructive = false;  // --destructive
  std::string root = "/";    // where proc/ and sys/ are found
  bool exclusive_open_check = true;  // try open(O_RDONLY|O_EXCL) on the device node
};

struct WriteGuardPass {
  enum class Kind { RegularFile, BlockDevice } kind = Kind::RegularFile;
  std::string path;
  std::string device;  // kernel name (sda, loop3) for block devices
};

// One block device as the guard sees it.
struct BlockDeviceId {
  std::string path;  // device node (used for the O_EXCL open)
  unsigned major = 0;
  unsigned minor = 0;
};

Expected<WriteGuardPass> check_write_allowed(const std::string& path,
                                             const WriteGuardOptions& options);

// The block-device half, for a device already identified by its numbers (tests use it with fake
// /proc and /sys trees).
Expected<WriteGuardPass> check_block_write_allowed(const BlockDeviceId& dev,
                                                   const WriteGuardOptions& options);

}  // namespace ds::io
