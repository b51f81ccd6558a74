// Hostile input at the app layer (issue 31): the exit-code ranking of a run with several
// outcomes, --prom refusing a path that stopped being a regular file during the run, and a
// regular file that backs a loop device in use held like that device by the write guard.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "../cli/cli_run.hpp"
#include "../io/io_test_util.hpp"
#include "app/identify.hpp"
#include "app/prom_file.hpp"
#include "app_test_util.hpp"
#include "../support/skip.hpp"

namespace fs = std::filesystem;
using apptest::has;

namespace {

struct Scratch {
  fs::path dir;
  explicit Scratch(const fs::path& parent) : dir(parent / ("ds_hostile_app_" + std::to_string(::getpid()))) {
    fs::create_directories(dir);
  }
  ~Scratch() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
};

using clitest::Run;
Run run(const std::string& args) { return clitest::run(args, true); }

// A file system mounted for one case, unmounted on every way out of it.
struct Mount {
  fs::path dir;
  bool ok = false;
  Mount(const std::string& dev, fs::path at, bool can) : dir(std::move(at)) {
    fs::create_directories(dir);
    int st = 0;
    if (can) ds_test::run_capture("mount " + dev + " " + dir.string(), &st);
    ok = can && st == 0;
  }
  ~Mount() {
    int st = 0;
    if (ok) ds_test::run_capture("umount " + dir.string(), &st);
  }
};

}  // namespace

TEST_CASE("worse_exit: usage, then device, interrupted, failure, partial, ok; in either order") {
  using namespace ds::app;
  const int order[] = {kExitUsage, kExitDevice, kExitInterrupted, kExitFailure, kExitPartial, kExitOk};
  for (std::size_t i = 0; i < std::size(order); ++i)
    for (std::size_t j = i; j < std::size(order); ++j) {
      CAPTURE(order[i]);
      CAPTURE(order[j]);
      CHECK(worse_exit(order[i], order[j]) == order[i]);
      CHECK(worse_exit(order[j], order[i]) == order[i]);
    }
  CHECK(worse_exit(kExitPartial, kExitFailure) == kExitFailure);  // was max(): 3
}

TEST_CASE("--prom: a path that became a FIFO or a symlink during the run is not replaced") {
  Scratch s(fs::temp_directory_path());
  const nlohmann::json doc = {{"target", {{"name", "sim:raptor"}}}};
  for (const char* kind : {"fifo", "symlink"}) {
    CAPTURE(kind);
    const auto path = s.dir / (std::string(kind) + ".prom");
    REQUIRE(ds::app::check_prom_path(path.string()).ok());  // absent: fine before the run
    if (std::string(kind) == "fifo") REQUIRE(::mkfifo(path.c_str(), 0644) == 0);
    else fs::create_symlink("/nonexistent-target", path);
    auto w = ds::app::write_prom_file(path.string(), doc, 0, "identify");
    REQUIRE_FALSE(w.ok());
    CHECK(has(w.error().message, "not a regular file"));
    struct stat st {};
    REQUIRE(::lstat(path.c_str(), &st) == 0);
    CHECK((std::string(kind) == "fifo" ? S_ISFIFO(st.st_mode) : S_ISLNK(st.st_mode)));
    CHECK_FALSE(fs::exists(s.dir / ("." + path.filename().string() + "." + std::to_string(::getpid()) + ".tmp")));
  }
  const auto plain = s.dir / "plain.prom";
  std::ofstream(plain) << "old\n";
  REQUIRE(ds::app::write_prom_file(plain.string(), doc, 0, "identify").ok());
  CHECK(has(apptest::slurp(plain), "drivescope_exit_status"));
}

TEST_CASE("bench --write on a file that backs a loop device in use is refused like the device" *
          doctest::test_suite("env")) {
  if (::geteuid() != 0) DS_SKIP("needs root for losetup and mount");
  // On the build tree's file system: a file: target is opened O_DIRECT, which tmpfs may lack.
  Scratch s(fs::current_path());
  const auto img = s.dir / "fs.img";
  {
    std::ofstream out(img, std::ios::binary);
    out << std::string(8 << 20, '\x5a');
  }
  ds_test::LoopDevice loop(img.string(), 512);
  if (!loop.ok()) DS_SKIP("losetup is not available here: " << loop.why);
  const std::string write = "bench file:" + img.string() + " --write --tests blocksize --budget 1 --quiet";
  // Held: someone has the loop device open O_EXCL (as a mount does).
  const int held = ::open(loop.dev.c_str(), O_RDONLY | O_EXCL | O_CLOEXEC);
  REQUIRE(held >= 0);
  const auto refused = run(write);
  ::close(held);
  CHECK(refused.rc == 1);
  CHECK(has(refused.out, "it backs " + loop.dev + ", which is in use"));
  CHECK(has(refused.out, "O_EXCL"));
  const bool unchanged = apptest::slurp(img) == std::string(8 << 20, '\x5a');  // not 8 MiB in a failure message
  CHECK(unchanged);
  // Idle again: the file is the user's to write, as before.
  const auto idle = run(write);
  CHECK_MESSAGE(idle.rc == 0, idle.out);
  // Mounted: through a real file system on the loop device, when this machine can mount one.
  int st = 0;
  ds_test::run_capture("mkfs.ext2 -q -F " + loop.dev, &st);
  const Mount m(loop.dev, s.dir / "mnt", st == 0);
  if (!m.ok) {
    ds_test::record_skip("the mounted case: cannot make or mount ext2 on " + loop.dev);
    return;
  }
  const auto mounted = run(write);
  CHECK(mounted.rc == 1);
  CHECK(has(mounted.out, "is mounted on " + m.dir.string()));
}
