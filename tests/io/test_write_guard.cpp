#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "io/write_guard.hpp"
#include "io_test_util.hpp"
#include "../support/skip.hpp"

namespace fs = std::filesystem;
using ds::io::BlockDeviceId;
using ds::io::check_block_write_allowed;
using ds::io::check_write_allowed;
using ds::io::WriteGuardOptions;
using ds::io::WriteGuardPass;

namespace {

// A fake root with proc/ and sys/ laid out like the kernel's: disk sdz (8:0) with partitions
// sdz1 (8:1) and sdz2 (8:2), and an unrelated disk sdy (8:16). Nothing mounted, no swap.
struct FakeRoot {
  fs::path root;
  FakeRoot() {
    char tmpl[] = "/tmp/drivescope-guard-XXXXXX";
    root = mkdtemp(tmpl);
    const fs::path cb = root / "sys/class/block";
    disk("sdz", "8:0");
    part("sdz", "sdz1", "8:1");
    part("sdz", "sdz2", "8:2");
    disk("sdy", "8:16");
    fs::create_directories(root / "proc/self");
    mountinfo("");
    swaps("");
  }
  ~FakeRoot() {
    std::error_code ec;
    fs::remove_all(root, ec);
  }
  static void write(const fs::path& p, const std::string& s) {
    fs::create_directories(p.parent_path());
    std::ofstream(p) << s;
  }
  void disk(const std::string& name, const std::string& dev) {
    const fs::path d = root / "sys/class/block" / name;
    write(d / "dev", dev + "\n");
    fs::create_directories(d / "holders");
  }
  void part(const std::string& disk, const std::string& name, const std::string& dev) {
    const fs::path d = root / "sys/class/block" / disk / name;
    write(d / "dev", dev + "\n");
    write(d / "partition", "1\n");
    fs::create_directories(d / "holders");
    // As in sysfs, partitions also appear in class/block (there as links to the disk's subdir).
    fs::create_directory_symlink(fs::path(disk) / name, root / "sys/class/block" / name);
  }
  void mountinfo(const std::string& extra) {
    write(root / "proc/self/mountinfo",
          "21 26 0:20 / /proc rw,relatime - proc proc rw\n"
          "26 1 254:0 / / rw,relatime - ext4 /dev/vda rw\n" +
              extra);
  }
  void swaps(const std::string& extra) {
    write(root / "proc/swaps", "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n" + extra);
  }
  WriteGuardOptions opts(bool write = true, bool destructive = true) const {
    WriteGuardOptions o;
    o.write = write;
    o.destructive = destructive;
    o.root = root.string();
    o.exclusive_open_check = false;  // the fake device has no node to open
    return o;
  }
};

const BlockDeviceId kSdz{"/dev/sdz", 8, 0};

bool has(const ds::Expected<WriteGuardPass>& r, const std::string& words) {
  return !r.ok() && r.error().message.find(words) != std::string::npos;
}

}  // namespace

TEST_CASE("write guard: an idle unpartitioned-use disk passes with --write and --destructive") {
  FakeRoot t;
  auto r = check_block_write_allowed(kSdz, t.opts());
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
  CHECK(r->kind == WriteGuardPass::Kind::BlockDevice);
  CHECK(r->device == "sdz");
}

TEST_CASE("write guard: block devices need both flags, and the message names the missing one") {
  FakeRoot t;
  auto no_destr = check_block_write_allowed(kSdz, t.opts(true, false));
  CHECK(has(no_destr, "--destructive was not given"));
  CHECK_FALSE(has(no_destr, "--write was not given"));
  auto no_write = check_block_write_allowed(kSdz, t.opts(false, true));
  CHECK(has(no_write, "--write was not given"));
  auto neither = check_block_write_allowed(kSdz, t.opts(false, false));
  CHECK(has(neither, "--write"));
  CHECK(has(neither, "--destructive"));
}

TEST_CASE("write guard: a mounted disk or partition is refused, by number or by source") {
  FakeRoot t;
  t.mountinfo("40 26 8:1 / /mnt/my\\040data rw - ext4 /dev/sdz1 rw\n");
  auto r = check_block_write_allowed(kSdz, t.opts());
  CHECK(has(r, "sdz1 is mounted on /mnt/my data"));
  // btrfs shows an anonymous device number; the source still gives it away.
  t.mountinfo("41 26 0:45 / /srv rw - btrfs /dev/sdz2 rw\n");
  CHECK(has(check_block_write_allowed(kSdz, t.opts()), "sdz2 is mounted on /srv"));
  t.mountinfo("42 26 8:0 / /whole rw - xfs /dev/sdz rw\n");
  CHECK(has(check_block_write_allowed(kSdz, t.opts()), "sdz is mounted on /whole"));
  // Another disk being mounted does not matter.
  t.mountinfo("43 26 8:16 / /other rw - ext4 /dev/sdy rw\n");
  CHECK(check_block_write_allowed(kSdz, t.opts()).ok());
}

TEST_CASE("write guard: active swap on the disk or a partition is refused") {
  FakeRoot t;
  t.swaps("/dev/sdz2                               partition\t8388604\t\t0\t\t-2\n");
  CHECK(has(check_block_write_allowed(kSdz, t.opts()), "sdz2 is active swap"));
  t.swaps("/swapfile                               file\t\t1048572\t\t0\t\t-3\n");
  CHECK(check_block_write_allowed(kSdz, t.opts()).ok());
}

TEST_CASE("write guard: holders (dm, md, LVM) on the disk or a partition are refused") {
  FakeRoot t;
  fs::create_directories(t.root / "sys/class/block/sdz/sdz1/holders/md127");
  CHECK(has(check_block_write_allowed(kSdz, t.opts()), "sdz1 is held by md127"));
  fs::create_directories(t.root / "sys/class/block/sdz/holders/dm-0");
  fs::create_directories(t.root / "sys/class/block/sdz/holders/dm-3");
  CHECK(has(check_block_write_allowed(kSdz, t.opts()), "sdz is held by dm-0, dm-3"));
}

TEST_CASE("write guard: every reason is reported at once") {
  FakeRoot t;
  t.mountinfo("40 26 8:1 / /mnt rw - ext4 /dev/sdz1 rw\n");
  t.swaps("/dev/sdz2 partition 1 0 -2\n");
  fs::create_directories(t.root / "sys/class/block/sdz/holders/dm-0");
  auto r = check_block_write_allowed(kSdz, t.opts(true, false));
  CHECK(has(r, "refusing to write to /dev/sdz"));
  CHECK(has(r, "--destructive"));
  CHECK(has(r, "sdz1 is mounted"));
  CHECK(has(r, "sdz2 is active swap"));
  CHECK(has(r, "sdz is held by dm-0"));
}

TEST_CASE("write guard: a partition is judged on its own mounts and holders") {
  FakeRoot t;
  t.mountinfo("40 26 8:1 / /mnt rw - ext4 /dev/sdz1 rw\n");
  auto p1 = check_block_write_allowed({"/dev/sdz1", 8, 1}, t.opts());
  CHECK(has(p1, "sdz1 is mounted on /mnt"));
  auto p2 = check_block_write_allowed({"/dev/sdz2", 8, 2}, t.opts());
  REQUIRE(p2.ok());
  CHECK(p2->device == "sdz2");
}

TEST_CASE("write guard: what cannot be checked is refused") {
  FakeRoot t;
  CHECK(has(check_block_write_allowed({"/dev/sdq", 65, 0}, t.opts()), "is not in"));
  fs::remove(t.root / "proc/self/mountinfo");
  CHECK(has(check_block_write_allowed(kSdz, t.opts()), "to check for mounts"));
  t.mountinfo("");
  fs::remove(t.root / "proc/swaps");
  CHECK(has(check_block_write_allowed(kSdz, t.opts()), "to check for active swap"));
}

TEST_CASE("write guard: regular files need --write only; other file types are refused") {
  ds_test::TempFile f("/tmp", 4096);
  WriteGuardOptions o;
  auto no = check_write_allowed(f.path, o);
  REQUIRE_FALSE(no.ok());
  CHECK(no.error().message.find("--write was not given") != std::string::npos);
  o.write = true;
  auto yes = check_write_allowed("file:" + f.path, o);
  REQUIRE(yes.ok());
  CHECK(yes->kind == WriteGuardPass::Kind::RegularFile);
  o.destructive = true;
  auto chr = check_write_allowed("/dev/null", o);
  CHECK(has(chr, "not a block device or regular file"));
  CHECK(has(check_write_allowed("/tmp/drivescope-nope-nope", o), "No such file"));
}

TEST_CASE("write guard: the live system's mounted root disk is refused" * doctest::test_suite("env")) {
  // Read-only check: the guard only reads /proc and /sys and tries (and releases) an O_EXCL open.
  std::string root_dev;
  std::ifstream mi("/proc/self/mountinfo");
  for (std::string line; std::getline(mi, line);) {
    if (line.find(" / / ") == std::string::npos) continue;
    const auto dash = line.find(" - ");
    std::string fstype, source;
    std::istringstream(line.substr(dash + 3)) >> fstype >> source;
    if (source.starts_with("/dev/")) root_dev = source;
  }
  struct stat st {};
  if (root_dev.empty() || ::stat(root_dev.c_str(), &st) != 0 || !S_ISBLK(st.st_mode)) {
    DS_SKIP("the root filesystem is not on a visible block device here");
  }
  WriteGuardOptions o;
  o.write = o.destructive = true;
  auto r = check_write_allowed(root_dev, o);
  REQUIRE_FALSE(r.ok());
  INFO(r.error().message);
  CHECK(r.error().message.find("is mounted on /") != std::string::npos);
  CHECK(r.error().message.find("O_EXCL") != std::string::npos);
}

TEST_CASE("write guard: a real idle loop device passes, and fails while someone holds it O_EXCL" * doctest::test_suite("env")) {
  ds_test::TempFile f("/tmp", 1 << 20);
  ds_test::LoopDevice loop(f.path, 512);
  if (!loop.ok()) {
    DS_SKIP("losetup is not available here: " << loop.why);
  }
  WriteGuardOptions o;
  o.write = o.destructive = true;
  auto r = check_write_allowed(loop.dev, o);
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
  CHECK(r->device == loop.dev.substr(5));
  const int held = ::open(loop.dev.c_str(), O_RDONLY | O_EXCL);
  REQUIRE(held >= 0);
  auto busy = check_write_allowed(loop.dev, o);
  ::close(held);
  REQUIRE_FALSE(busy.ok());
  CHECK(busy.error().message.find("cannot be opened O_EXCL (in use") != std::string::npos);
  o.destructive = false;
  CHECK_FALSE(check_write_allowed(loop.dev, o).ok());
}
