#include "io/write_guard.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/core.h>

namespace ds::io {
namespace {

namespace fs = std::filesystem;

struct Member {  // the device itself or one of its partitions
  std::string name;
  std::string devnum;  // "major:minor"
};

std::string read_first_line(const fs::path& p) {
  std::ifstream in(p);
  std::string line;
  if (in) std::getline(in, line);
  while (!line.empty() && (line.back() == '\n' || line.back() == ' ')) line.pop_back();
  return line;
}

// Mount points in mountinfo escape space, tab, newline and backslash as \ooo (proc(5)).
std::string unescape_octal(const std::string& s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size()) {
      const std::string oct = s.substr(i + 1, 3);
      if (oct.size() == 3 && oct.find_first_not_of("01234567") == std::string::npos) {
        out.push_back(static_cast<char>(std::stoi(oct, nullptr, 8)));
        i += 3;
        continue;
      }
    }
    out.push_back(s[i]);
  }
  return out;
}

std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string out;
  for (const auto& s : v) {
    if (!out.empty()) out += sep;
    out += s;
  }
  return out;
}

std::string basename_of(const std::string& p) {
  const auto slash = p.rfind('/');
  return slash == std::string::npos ? p : p.substr(slash + 1);
}

// Finds the kernel name of major:minor under sys/class/block, and its partitions (subdirectories
// with a "partition" attribute, as the block layer lays them out).
bool find_members(const fs::path& class_block, const std::string& devnum,
                  std::vector<Member>& members) {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(class_block, ec)) {
    if (read_first_line(entry.path() / "dev") != devnum) continue;
    const std::string name = entry.path().filename().string();
    members.push_back({name, devnum});
    for (const auto& sub : fs::directory_iterator(entry.path(), ec)) {
      std::error_code ec2;
      if (!fs::is_directory(sub.path(), ec2) || !fs::exists(sub.path() / "partition", ec2))
        continue;
      members.push_back({sub.path().filename().string(), read_first_line(sub.path() / "dev")});
    }
    return true;
  }
  return false;
}

void check_mounts(const fs::path& mountinfo, const std::vector<Member>& members,
                  std::vector<std::string>& reasons) {
  std::ifstream in(mountinfo);
  if (!in) {
    reasons.push_back(fmt::format("cannot read {} to check for mounts", mountinfo.string()));
    return;
  }
  std::string line;
  while (std::getline(in, line)) {
    // id parent major:minor root mount-point options [optional...] - fstype source super-options
    std::istringstream ls(line);
    std::string id, parent, devnum, root, mountpoint;
    if (!(ls >> id >> parent >> devnum >> root >> mountpoint)) continue;
    std::string source;
    const auto dash = line.find(" - ");
    if (dash != std::string::npos) {
      std::istringstream rest(line.substr(dash + 3));
      std::string fstype;
      rest >> fstype >> source;
    }
    for (const auto& m : members) {
      // The number match misses filesystems that report an anonymous device (btrfs), the
      // source match covers those.
      if (devnum == m.devnum || source == "/dev/" + m.name) {
        reasons.push_back(fmt::format("{} is mounted on {}", m.name, unescape_octal(mountpoint)));
        break;
      }
    }
  }
}

void check_swaps(const fs::path& swaps, bool live_root, const std::vector<Member>& members,
                 std::vector<std::string>& reasons) {
  std::ifstream in(swaps);
  if (!in) {
    reasons.push_back(fmt::format("cannot read {} to check for active swap", swaps.string()));
    return;
  }
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::string file;
    if (!(ls >> file)) continue;
    std::string devnum;
    struct stat st {};
    if (live_root && ::stat(file.c_str(), &st) == 0 && S_ISBLK(st.st_mode))
      devnum = fmt::format("{}:{}", major(st.st_rdev), minor(st.st_rdev));
    for (const auto& m : members) {
      if (basename_of(file) == m.name || (!devnum.empty() && devnum == m.devnum)) {
        reasons.push_back(fmt::format("{} is active swap ({})", m.name, file));
        break;
      }
    }
  }
}

void check_holders(const fs::path& class_block, const std::vector<Member>& members,
                   std::vector<std::string>& reasons) {
  for (const auto& m : members) {
    std::vector<std::string> holders;
    std::error_code ec;
    for (const auto& h : fs::directory_iterator(class_block / m.name / "holders", ec))
      holders.push_back(h.path().filename().string());
    if (!holders.empty()) {
      std::sort(holders.begin(), holders.end());
      reasons.push_back(fmt::format("{} is held by {} (device-mapper, md or LVM)", m.name,
                                    join(holders, ", ")));
    }
  }
}

}  // namespace

namespace {

// Why a block device is in use (mounted, swap, held, claimed), as check_block_write_allowed says
// it; empty when idle. Sets *name to its kernel name when sysfs knows it.
std::vector<std::string> in_use_reasons(const BlockDeviceId& dev, const WriteGuardOptions& opt, std::string* name) {
  std::vector<std::string> reasons;
  const fs::path root = opt.root.empty() ? fs::path("/") : fs::path(opt.root);
  const fs::path class_block = root / "sys/class/block";
  const std::string devnum = fmt::format("{}:{}", dev.major, dev.minor);
  std::vector<Member> members;
  if (!find_members(class_block, devnum, members)) {
    reasons.push_back(fmt::format("device {} is not in {}, so its partitions and holders cannot "
                                  "be checked",
                                  devnum, class_block.string()));
  } else {
    if (name) *name = members.front().name;
    check_mounts(root / "proc/self/mountinfo", members, reasons);
    check_swaps(root / "proc/swaps", root == fs::path("/"), members, reasons);
    check_holders(class_block, members, reasons);
  }
  if (opt.exclusive_open_check) {
    const int fd = ::open(dev.path.c_str(), O_RDONLY | O_EXCL | O_CLOEXEC);
    if (fd < 0) {
      const int err = errno;
      reasons.push_back(err == EBUSY
                            ? std::string("it cannot be opened O_EXCL (in use by the kernel or "
                                          "another program)")
                            : fmt::format("it cannot be opened O_EXCL: {}", std::strerror(err)));
    } else {
      ::close(fd);
    }
  }
  return reasons;
}

// The loop devices a file backs (sys/block/loopN/loop/backing_file names it; matched by device
// and inode, so another path to the same file is caught too). Writing the file writes the loop
// device under whatever has it mounted.
Expected<std::vector<BlockDeviceId>> loops_backed_by(const struct stat& file, const fs::path& root) {
  const fs::path sys_block = root / "sys/block";
  std::error_code ec;
  fs::directory_iterator it(sys_block, ec);
  if (ec) return make_error(fmt::format("cannot read {} to check for loop devices backed by the file", sys_block.string()));
  std::vector<BlockDeviceId> out;
  for (const auto& e : it) {
    const std::string name = e.path().filename().string();
    if (!name.starts_with("loop")) continue;
    std::string backing = read_first_line(e.path() / "loop/backing_file");
    // The kernel prints d_path(), which ends in " (deleted)" once the file is unlinked.
    if (backing.ends_with(" (deleted)")) backing.resize(backing.size() - 10);
    struct stat st {};
    if (backing.empty() || ::stat(backing.c_str(), &st) != 0) continue;
    if (st.st_dev != file.st_dev || st.st_ino != file.st_ino) continue;
    const std::string devnum = read_first_line(e.path() / "dev");
    unsigned major_n = 0, minor_n = 0;
    if (std::sscanf(devnum.c_str(), "%u:%u", &major_n, &minor_n) != 2) continue;
    out.push_back({"/dev/" + name, major_n, minor_n});
  }
  return out;
}

// A regular file is written only with --write, and not while a loop device it backs is in use:
// the file is then held as the device is.
Expected<WriteGuardPass> check_file_write_allowed(const std::string& path, const struct stat& st,
                                                  const WriteGuardOptions& opt) {
  std::vector<std::string> reasons;
  if (!opt.write) reasons.push_back("--write was not given");
  const fs::path root = opt.root.empty() ? fs::path("/") : fs::path(opt.root);
  auto loops = loops_backed_by(st, root);
  if (!loops) reasons.push_back(loops.error().message);
  for (const auto& loop : loops ? *loops : std::vector<BlockDeviceId>{}) {
    const auto busy = in_use_reasons(loop, opt, nullptr);
    if (!busy.empty()) reasons.push_back(fmt::format("it backs {}, which is in use: {}", loop.path, join(busy, ", ")));
  }
  if (!reasons.empty())
    return make_error(fmt::format("refusing to write to {}: {}", path, join(reasons, "; ")), EPERM);
  return WriteGuardPass{WriteGuardPass::Kind::RegularFile, path, {}};
}

}  // namespace

Expected<WriteGuardPass> check_block_write_allowed(const BlockDeviceId& dev,
                                                   const WriteGuardOptions& opt) {
  std::vector<std::string> reasons;
  if (!opt.write) reasons.push_back("--write was not given");
  if (!opt.destructive)
    reasons.push_back("--destructive was not given (required for a block device)");
  std::string name = basename_of(dev.path);
  for (auto& r : in_use_reasons(dev, opt, &name)) reasons.push_back(std::move(r));
  if (!reasons.empty())
    return make_error(fmt::format("refusing to write to {}: {}", dev.path, join(reasons, "; ")),
                      EPERM);
  return WriteGuardPass{WriteGuardPass::Kind::BlockDevice, dev.path, name};
}

Expected<WriteGuardPass> check_write_allowed(const std::string& target,
                                             const WriteGuardOptions& opt) {
  std::string path = target;
  if (path.starts_with("file:")) path = path.substr(5);
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    return make_error(fmt::format("refusing to write to {}: {}", path, std::strerror(errno)),
                      errno);
  if (S_ISREG(st.st_mode)) return check_file_write_allowed(path, st, opt);
  if (S_ISBLK(st.st_mode))
    return check_block_write_allowed({path, major(st.st_rdev), minor(st.st_rdev)}, opt);
  return make_error(fmt::format("refusing to write to {}: not a block device or regular file",
                                path),
                    EPERM);
}

}  // namespace ds::io
