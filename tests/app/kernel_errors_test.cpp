// The kernel's command counters of a disk across a run (src/app/kernel_errors.*, issue 31): a
// fake /sys with the SCSI layer's iodone_cnt / ioerr_cnt / iotmo_cnt as the kernel prints them.
// The real thing, a disk whose every seventh read fails and whose failures the guest's kernel
// retries away, is in tests/vm/guest-faults.sh.
#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "app/kernel_errors.hpp"

namespace fs = std::filesystem;

namespace {

struct FakeDisk {
  fs::path root;
  explicit FakeDisk(const std::string& name) {
    std::random_device rd;
    root = fs::temp_directory_path() / ("ds-kerr-" + std::to_string(::getpid()) + "-" + std::to_string(rd()));
    fs::create_directories(root / "sys/block" / name / "device");
    dev = root / "sys/block" / name / "device";
  }
  ~FakeDisk() {
    std::error_code ec;
    fs::remove_all(root, ec);
  }
  void counters(const std::string& done, const std::string& err, const std::string& tmo) const {
    std::ofstream(dev / "iodone_cnt") << done << "\n";
    std::ofstream(dev / "ioerr_cnt") << err << "\n";
    std::ofstream(dev / "iotmo_cnt") << tmo << "\n";
  }
  fs::path dev;
};

}  // namespace

TEST_CASE("kernel counters: parsed as the kernel prints them, refused otherwise") {
  FakeDisk d("sda");
  d.counters("0x2d", "0x1", "0x0");
  auto c = ds::sysfs::kernel_io_counts("sda", d.root);
  REQUIRE(c);
  CHECK(c->completed == 45);
  CHECK(c->failed == 1);
  CHECK(c->timed_out == 0);
  CHECK(ds::sysfs::kernel_io_counts("/dev/sda", d.root));
  for (const char* bad : {"12", "0x", "0xZZ", "", "0x12345678901234567", "0x-1", "0x1 2"}) {
    d.counters(bad, "0x1", "0x0");
    CHECK_MESSAGE(!ds::sysfs::kernel_io_counts("sda", d.root), bad);
  }
  CHECK(!ds::sysfs::kernel_io_counts("sdb", d.root));  // no such disk
  fs::remove(d.dev / "iotmo_cnt");
  d.counters("0x1", "0x1", "0x1");
  fs::remove(d.dev / "ioerr_cnt");
  CHECK(!ds::sysfs::kernel_io_counts("sda", d.root));  // a counter missing: no SCSI layer
}

TEST_CASE("kernel counters: a run that moved ioerr_cnt warns and says how much") {
  FakeDisk d("sda");
  d.counters("0x2d", "0x1", "0x0");
  const ds::app::KernelErrorWatch watch("sda", d.root);
  d.counters("0xc1", "0x5", "0x4");  // as seen in a guest: 148 commands, 4 failed and retried
  ds::app::Report r;
  watch.finish(r, false);
  REQUIRE(r.json["target"].contains("kernel_io"));
  CHECK(r.json["target"]["kernel_io"]["completed_commands"] == 148);
  CHECK(r.json["target"]["kernel_io"]["failed_commands"] == 4);
  CHECK(r.json["target"]["kernel_io"]["timed_out_commands"] == 4);
  REQUIRE(r.warnings.size() == 1);
  CHECK(r.warnings[0].find("4 failed and 4 timed-out") != std::string::npos);
  CHECK(r.warnings[0].find("although every read") != std::string::npos);
  CHECK(r.exit_code == ds::app::kExitOk);  // the data came back: a warning, not a failure

  ds::app::Report failed;
  watch.finish(failed, true);  // the run ended on its own I/O error: no claim that reads succeeded
  REQUIRE(failed.warnings.size() == 1);
  CHECK(failed.warnings[0].find("although every read") == std::string::npos);
  CHECK(failed.warnings[0].find("hid") == std::string::npos);
}

TEST_CASE("kernel counters: a quiet run records zeros and says nothing; no counters, no key") {
  FakeDisk d("sdc");
  d.counters("0x10", "0x2", "0x0");
  const ds::app::KernelErrorWatch watch("sdc", d.root);
  d.counters("0x20", "0x2", "0x0");
  ds::app::Report r;
  watch.finish(r, false);
  CHECK(r.json["target"]["kernel_io"]["completed_commands"] == 16);
  CHECK(r.json["target"]["kernel_io"]["failed_commands"] == 0);
  CHECK(r.warnings.empty());

  d.counters("0x1", "0x0", "0x0");  // counters that went back (the device re-attached): no negative count
  ds::app::Report back;
  watch.finish(back, false);
  CHECK(back.json["target"]["kernel_io"]["completed_commands"] == 0);
  CHECK(back.warnings.empty());

  const ds::app::KernelErrorWatch none("", d.root);  // a file or sim: target
  ds::app::Report n;
  none.finish(n, false);
  CHECK(n.json.is_null());
  FakeDisk v("vda");  // virtio-blk: no SCSI layer, no counters
  const ds::app::KernelErrorWatch vw("vda", v.root);
  ds::app::Report vr;
  vw.finish(vr, false);
  CHECK(vr.json.is_null());
}
