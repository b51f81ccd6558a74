// sysfs/procfs facts on fake trees laid out as the kernel lays them out (symlinks from
// /sys/block and /sys/class into /sys/devices, attributes as small text files).
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "probe/sysfs.hpp"
#include "report/list_report.hpp"
#include <sstream>

namespace fs = std::filesystem;
using namespace ds::sysfs;

namespace {

class FakeRoot {
 public:
  FakeRoot() {
    std::random_device rd;
    dir_ = fs::temp_directory_path() / ("ds-sysfs-" + std::to_string(::getpid()) + "-" +
                                        std::to_string(rd()));
    fs::create_directories(dir_);
  }
  ~FakeRoot() {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  const fs::path& root() const { return dir_; }
  fs::path at(const std::string& abs) const { return dir_ / abs.substr(1); }
  void write(const std::string& abs, const std::string& text, mode_t mode = 0644) {
    fs::create_directories(at(abs).parent_path());
    std::ofstream(at(abs)) << text;
    ::chmod(at(abs).c_str(), mode);
  }
  void write_bytes(const std::string& abs, const std::vector<std::uint8_t>& b) {
    fs::create_directories(at(abs).parent_path());
    std::ofstream f(at(abs), std::ios::binary);
    f.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
  }
  void mkdir(const std::string& abs) { fs::create_directories(at(abs)); }
  // A relative symlink at `link` pointing to `target` (both absolute in the fake root), as
  // sysfs's own links are relative.
  void link(const std::string& target, const std::string& link) {
    fs::create_directories(at(link).parent_path());
    fs::create_directory_symlink(at(target).lexically_relative(at(link).parent_path()), at(link));
  }
  std::string read(const std::string& abs) const {
    std::ifstream f(at(abs));
    std::string s;
    std::getline(f, s);
    return s;
  }

  // A whole disk under `devpath` (the device directory that holds block/NAME).
  void disk(const std::string& devpath, const std::string& name, const std::string& majmin,
            std::uint64_t sectors, bool rotational, const std::string& sched,
            const std::string& device_link_target = "") {
    const std::string b = devpath + "/block/" + name;
    write(b + "/dev", majmin + "\n");
    write(b + "/size", std::to_string(sectors) + "\n");
    write(b + "/removable", "0\n");
    write(b + "/ro", "0\n");
    write(b + "/queue/rotational", rotational ? "1\n" : "0\n");
    write(b + "/queue/scheduler", sched + "\n");
    write(b + "/queue/logical_block_size", "512\n");
    write(b + "/queue/physical_block_size", "512\n");
    write(b + "/queue/nr_requests", "64\n");
    mkdir(b + "/holders");
    link(device_link_target.empty() ? devpath : device_link_target, b + "/device");
    link(b, "/sys/block/" + name);
    link(b, "/sys/class/block/" + name);
  }
  void partition(const std::string& disk_dir, const std::string& name, const std::string& majmin,
                 std::uint64_t sectors) {
    const std::string p = disk_dir + "/" + name;
    write(p + "/partition", "1\n");
    write(p + "/dev", majmin + "\n");
    write(p + "/size", std::to_string(sectors) + "\n");
    mkdir(p + "/holders");
    link(p, "/sys/class/block/" + name);
  }
  void scsi_host(const std::string& host_dir, const std::string& host, const std::string& driver) {
    write(host_dir + "/scsi_host/" + host + "/proc_name", driver + "\n");
  }
  void scsi_ids(const std::string& devpath, const std::string& vendor, const std::string& model,
                const std::string& rev, const std::string& qd, mode_t qd_mode) {
    write(devpath + "/vendor", vendor + "\n");
    write(devpath + "/model", model + "\n");
    write(devpath + "/rev", rev + "\n");
    write(devpath + "/queue_depth", qd + "\n", qd_mode);
    mkdir(devpath + "/scsi_device");
  }

 private:
  fs::path dir_;
};

// The machine the tests describe: AHCI SATA sda (sda1 mounted on /, sda2 swap), PIIX PATA sdb,
// virtio-scsi sdc (mounted by source name only, as btrfs shows it), NVMe nvme0n1, virtio-blk vda,
// a second virtio-scsi disk sdd whose partition is held by dm-0, and virtual devices.
void build_machine(FakeRoot& r) {
  const std::string ahci = "/sys/devices/pci0000:00/0000:00:1f.2/ata1";
  const std::string sda_dev = ahci + "/host0/target0:0:0/0:0:0:0";
  r.scsi_host(ahci + "/host0", "host0", "ahci");
  r.scsi_ids(sda_dev, "ATA", "ST380013AS", "3.18", "31", 0644);
  r.write(sda_dev + "/ncq_prio_enable", "0\n");
  r.write(sda_dev + "/ncq_prio_supported", "1\n");
  r.disk(sda_dev, "sda", "8:0", 156301488, true, "[mq-deadline] kyber bfq none");
  r.partition(sda_dev + "/block/sda", "sda1", "8:1", 150000000);
  r.partition(sda_dev + "/block/sda", "sda2", "8:2", 6000000);
  r.mkdir(sda_dev + "/scsi_generic/sg0");
  r.link(sda_dev, sda_dev + "/scsi_generic/sg0/device");
  r.link(sda_dev + "/scsi_generic/sg0", "/sys/class/scsi_generic/sg0");
  r.write(ahci + "/link1/ata_link/link1/sata_spd", "3.0 Gbps\n");
  r.link(ahci + "/link1/ata_link/link1", "/sys/class/ata_link/link1");

  const std::string piix = "/sys/devices/pci0000:00/0000:00:01.1/ata2";
  const std::string sdb_dev = piix + "/host1/target1:0:0/1:0:0:0";
  r.scsi_host(piix + "/host1", "host1", "ata_piix");
  r.scsi_ids(sdb_dev, "ATA", "Maxtor 96147H8", "BAC5", "1", 0444);
  r.disk(sdb_dev, "sdb", "8:16", 120103200, true, "mq-deadline kyber [bfq] none");
  r.write(piix + "/link2/ata_link/link2/sata_spd", "<unknown>\n");
  r.link(piix + "/link2/ata_link/link2", "/sys/class/ata_link/link2");

  const std::string vscsi = "/sys/devices/pci0000:00/0000:00:03.0/virtio0";
  const std::string sdc_dev = vscsi + "/host2/target2:0:0/2:0:0:0";
  r.scsi_host(vscsi + "/host2", "host2", "virtio_scsi");
  r.scsi_ids(sdc_dev, "QEMU", "QEMU HARDDISK", "2.5+", "128", 0644);
  // The unit serial number page exactly as the SCSI layer caches it (header + " drive-scsi0 ").
  std::vector<std::uint8_t> pg80 = {0x00, 0x80, 0x00, 0x0D, ' '};
  for (char c : std::string("drive-scsi0 ")) pg80.push_back(static_cast<std::uint8_t>(c));
  r.write_bytes(sdc_dev + "/vpd_pg80", pg80);
  r.disk(sdc_dev, "sdc", "8:32", 2097152, true, "[none] mq-deadline");

  const std::string sdd_dev = vscsi + "/host2/target2:0:1/2:0:1:0";
  r.scsi_ids(sdd_dev, "QEMU", "QEMU HARDDISK", "2.5+", "128", 0644);
  r.disk(sdd_dev, "sdd", "8:48", 4194304, true, "[none] mq-deadline");
  r.partition(sdd_dev + "/block/sdd", "sdd1", "8:49", 4192256);
  r.mkdir(sdd_dev + "/block/sdd/sdd1/holders/dm-0");

  const std::string nvme = "/sys/devices/pci0000:00/0000:00:05.0/nvme/nvme0";
  r.write(nvme + "/model", "Samsung SSD 970 EVO 500GB\n");
  r.write(nvme + "/serial", "S466NX0M123456\n");
  r.write(nvme + "/firmware_rev", "2B2QEXE7\n");
  r.disk(nvme + "/nvme0n1", "nvme0n1", "259:0", 976773168, false, "[none] mq-deadline", nvme);
  // disk() put block/ under the namespace dir; move the links to the kernel's flat layout.
  fs::remove(r.at("/sys/block/nvme0n1"));
  r.link(nvme + "/nvme0n1/block/nvme0n1", "/sys/block/nvme0n1");

  const std::string vblk = "/sys/devices/pci0000:00/0000:00:04.0/virtio1";
  r.mkdir(vblk);
  r.disk(vblk, "vda", "254:0", 41943040, true, "[mq-deadline] none");
  r.write(vblk + "/block/vda/serial", "vdserial01\n");
  r.write(vblk + "/vendor", "0x1af4\n");  // the virtio vendor id, as the kernel shows it

  r.disk("/sys/devices/virtual", "dm-0", "253:0", 4192256, false, "[none]",
         "/sys/devices/virtual");
  r.disk("/sys/devices/virtual", "loop0", "7:0", 0, false, "[none]", "/sys/devices/virtual");
  r.disk("/sys/devices/virtual", "loop1", "7:1", 2048, false, "[none]", "/sys/devices/virtual");
  r.disk("/sys/devices/virtual", "zram0", "252:0", 8388608, false, "", "/sys/devices/virtual");
  r.disk("/sys/devices/virtual", "ram0", "1:0", 131072, false, "", "/sys/devices/virtual");

  r.write("/proc/self/mountinfo",
          "21 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw,errors=remount-ro\n"
          "22 21 0:20 / /proc rw,relatime shared:12 - proc proc rw\n"
          "40 21 0:44 / /srv/my\\040data rw,relatime shared:30 - btrfs /dev/sdc rw\n");
  r.write("/proc/swaps",
          "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n"
          "/dev/sda2                               partition\t3000000\t\t0\t\t-2\n");
  r.write("/dev/sda", "");
  r.link("/dev", "/dev/disk/by-id/ata-ST380013AS_XXXXXXXX");  // replaced just below
  fs::remove(r.at("/dev/disk/by-id/ata-ST380013AS_XXXXXXXX"));
  fs::create_symlink("../../sda", r.at("/dev/disk/by-id/ata-ST380013AS_XXXXXXXX"));
}

}  // namespace

TEST_CASE("sysfs: AHCI SATA disk with a mounted partition and a swap partition") {
  FakeRoot r;
  build_machine(r);
  auto f = facts_for_device("/dev/sda", r.root());
  REQUIRE(f.ok());
  CHECK(f->name == "sda");
  CHECK(f->transport == Transport::ata);
  CHECK(f->host_driver == "ahci");
  CHECK(f->ata_port == "ata1");
  CHECK(f->scsi_address == "0:0:0:0");
  CHECK(f->sg_name == "sg0");
  CHECK(f->vendor == "ATA");
  CHECK(f->model == "ST380013AS");
  CHECK(f->revision == "3.18");
  CHECK(f->size_sectors == 156301488u);
  CHECK(f->size_bytes() == 156301488ull * 512);
  CHECK(f->rotational == true);
  CHECK(f->scheduler == "mq-deadline");
  CHECK(f->schedulers == std::vector<std::string>{"mq-deadline", "kyber", "bfq", "none"});
  CHECK(f->queue_depth == 31u);
  CHECK(f->queue_depth_writable);
  CHECK(f->nr_requests == 64u);
  CHECK(f->sata_link_speed == std::optional<std::string>("3.0 Gbps"));
  CHECK(f->ncq_prio_enable == false);
  CHECK(f->ncq_prio_supported == true);
  CHECK(f->major_minor == "8:0");
  CHECK(f->sys_path == "/sys/devices/pci0000:00/0000:00:1f.2/ata1/host0/target0:0:0/0:0:0:0/block/sda");
  REQUIRE(f->partitions.size() == 2);
  CHECK(f->partitions[0].name == "sda1");
  CHECK(f->partitions[0].mountpoints == std::vector<std::string>{"/"});
  CHECK_FALSE(f->partitions[0].swap);
  CHECK(f->partitions[1].swap);
  CHECK(f->partitions[1].mountpoints.empty());
  CHECK(f->mountpoints.empty());
  CHECK(f->mounted());
  CHECK(f->in_swap());
  CHECK_FALSE(f->held());
  CHECK(f->in_use());
  CHECK(f->in_use_summary() == "mounted /; swap sda2");
}

TEST_CASE("sysfs: naming a disk by sg node, partition, symlink or name") {
  FakeRoot r;
  build_machine(r);
  CHECK(resolve_disk_name("sda", r.root()).value() == "sda");
  CHECK(resolve_disk_name("/dev/sg0", r.root()).value() == "sda");
  CHECK(resolve_disk_name("/dev/sda1", r.root()).value() == "sda");
  CHECK(resolve_disk_name("/dev/disk/by-id/ata-ST380013AS_XXXXXXXX", r.root()).value() == "sda");
  CHECK(resolve_disk_name("/dev/nvme0n1", r.root()).value() == "nvme0n1");
  auto missing = facts_for_device("/dev/sdx", r.root());
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().message.find("sdx") != std::string::npos);
  CHECK_FALSE(resolve_disk_name("/dev/sg7", r.root()).ok());
  CHECK_FALSE(resolve_disk_name("", r.root()).ok());
}

TEST_CASE("sysfs: PIIX PATA disk, virtio-scsi, NVMe and virtio-blk") {
  FakeRoot r;
  build_machine(r);
  auto sdb = facts_for_device("sdb", r.root());
  REQUIRE(sdb.ok());
  CHECK(sdb->transport == Transport::ata);
  CHECK(sdb->host_driver == "ata_piix");
  CHECK(sdb->model == "Maxtor 96147H8");
  CHECK_FALSE(sdb->sata_link_speed.has_value());  // "<unknown>" on a parallel ATA link
  CHECK(sdb->queue_depth == 1u);
  CHECK_FALSE(sdb->queue_depth_writable);
  CHECK(sdb->scheduler == "bfq");
  CHECK_FALSE(sdb->in_use());
  CHECK(sdb->in_use_summary().empty());

  auto sdc = facts_for_device("sdc", r.root());
  REQUIRE(sdc.ok());
  CHECK(sdc->transport == Transport::scsi);
  CHECK(sdc->host_driver == "virtio_scsi");
  CHECK(sdc->vendor == "QEMU");
  CHECK(sdc->serial == "drive-scsi0");
  CHECK(sdc->queue_depth == 128u);
  CHECK(sdc->scheduler == "none");
  CHECK(sdc->mountpoints == std::vector<std::string>{"/srv/my data"});
  CHECK(sdc->in_use());

  auto nv = facts_for_device("nvme0n1", r.root());
  REQUIRE(nv.ok());
  CHECK(nv->transport == Transport::nvme);
  CHECK(nv->model == "Samsung SSD 970 EVO 500GB");
  CHECK(nv->serial == "S466NX0M123456");
  CHECK(nv->revision == "2B2QEXE7");
  CHECK(nv->rotational == false);
  CHECK_FALSE(nv->queue_depth.has_value());
  CHECK(nv->host_driver.empty());

  auto vda = facts_for_device("/dev/vda", r.root());
  REQUIRE(vda.ok());
  CHECK(vda->transport == Transport::virtio);
  CHECK(vda->serial == "vdserial01");
  CHECK(vda->size_sectors == 41943040u);
  CHECK(vda->model.empty());
  CHECK(vda->vendor.empty());
}

TEST_CASE("sysfs: a disk whose partition is held by device-mapper") {
  FakeRoot r;
  build_machine(r);
  auto f = facts_for_device("sdd", r.root());
  REQUIRE(f.ok());
  CHECK(f->transport == Transport::scsi);
  CHECK(f->scsi_address == "2:0:1:0");
  CHECK(f->holders.empty());
  REQUIRE(f->partitions.size() == 1);
  CHECK(f->partitions[0].holders == std::vector<std::string>{"dm-0"});
  CHECK(f->held());
  CHECK_FALSE(f->mounted());
  CHECK(f->in_use());
  CHECK(f->in_use_summary() == "held by dm-0");
}

TEST_CASE("sysfs: list_drives order and virtual devices") {
  FakeRoot r;
  build_machine(r);
  auto names = [](const std::vector<DriveFacts>& v) {
    std::vector<std::string> n;
    for (const auto& f : v) n.push_back(f.name);
    return n;
  };
  CHECK(names(list_drives(r.root())) ==
        std::vector<std::string>{"nvme0n1", "sda", "sdb", "sdc", "sdd", "vda"});
  CHECK(names(list_drives(r.root(), ListOptions{.include_virtual = true})) ==
        std::vector<std::string>{"dm-0", "loop1", "nvme0n1", "sda", "sdb", "sdc", "sdd", "vda",
                                 "zram0"});
  FakeRoot empty;
  CHECK(list_drives(empty.root()).empty());
}

TEST_CASE("sysfs: scheduler and queue depth writes") {
  FakeRoot r;
  build_machine(r);
  auto prev = set_scheduler("sda", "bfq", r.root());
  REQUIRE(prev.ok());
  CHECK(*prev == "mq-deadline");
  CHECK(r.read("/sys/block/sda/queue/scheduler") == "bfq");
  auto bad = set_scheduler("sdb", "cfq", r.root());
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message.find("not offered") != std::string::npos);
  CHECK(r.read("/sys/block/sdb/queue/scheduler") == "mq-deadline kyber [bfq] none");

  auto qd = set_queue_depth("/dev/sda", 16, r.root());
  REQUIRE(qd.ok());
  CHECK(*qd == 31u);
  CHECK(r.read("/sys/block/sda/device/queue_depth") == "16");
  CHECK(facts_for_device("sda", r.root())->queue_depth == 16u);
  CHECK_FALSE(set_queue_depth("sdb", 2, r.root()).ok());      // read-only attribute
  CHECK_FALSE(set_queue_depth("nvme0n1", 2, r.root()).ok());  // no SCSI queue depth
  CHECK_FALSE(set_queue_depth("sda", 0, r.root()).ok());
}

TEST_CASE("sysfs: this machine's /sys does not crash the reader") {
  // Whatever the machine has; every listed disk must carry a name, a transport and a size field.
  for (const auto& f : list_drives("/", ListOptions{.include_virtual = true})) {
    CHECK_FALSE(f.name.empty());
    CHECK(f.dev_path == "/dev/" + f.name);
  }
}

TEST_CASE("list report: table and JSON of the fake machine") {
  FakeRoot r;
  build_machine(r);
  const auto drives = list_drives(r.root());
  const std::string table = ds::report::drives_to_table(drives);
  std::vector<std::string> lines;
  std::stringstream ss(table);
  for (std::string l; std::getline(ss, l);) lines.push_back(l);
  REQUIRE(lines.size() == drives.size() + 1);
  CHECK(lines[0].rfind("DEVICE", 0) == 0);
  // Columns line up: every row has its transport where the header has TRANSPORT.
  const auto col = lines[0].find("TRANSPORT");
  const auto model_col = lines[0].find("MODEL");
  for (std::size_t i = 1; i < lines.size(); ++i) {
    CAPTURE(lines[i]);
    CHECK(lines[i][col - 1] == ' ');
    CHECK(lines[i][col] != ' ');
    CHECK(lines[i][model_col] != ' ');
  }
  const auto row = [&](const std::string& dev) {
    for (const auto& l : lines)
      if (l.rfind(dev + " ", 0) == 0) return l;
    return std::string();
  };
  const auto sda = row("/dev/sda");
  CHECK(sda.find(" ata ") != std::string::npos);
  CHECK(sda.find("ST380013AS") != std::string::npos);
  CHECK(sda.find("ATA ST380013AS") == std::string::npos);
  CHECK(sda.find("80.0 GB") != std::string::npos);
  CHECK(sda.find("mq-deadline") != std::string::npos);
  CHECK(sda.find(" 31 ") != std::string::npos);
  CHECK(sda.substr(sda.size() - std::string("mounted /; swap sda2").size()) == "mounted /; swap sda2");
  CHECK(row("/dev/sdc").find("QEMU QEMU HARDDISK") != std::string::npos);
  CHECK(row("/dev/sdd").find("held by dm-0") != std::string::npos);
  CHECK(row("/dev/sdb").substr(row("/dev/sdb").size() - 2) == "no");
  CHECK(row("/dev/nvme0n1").find("500.1 GB") != std::string::npos);

  const auto j = ds::report::drives_to_json(drives);
  REQUIRE(j.size() == drives.size());
  CHECK(j[1]["device"] == "/dev/sda");
  CHECK(j[1]["transport"] == "ata");
  CHECK(j[1]["size_bytes"] == 156301488ull * 512);
  CHECK(j[1]["mounted"] == true);
  CHECK(j[1]["swap"] == true);
  CHECK(j[1]["queue_depth"] == 31);
  CHECK(j[1]["sata_link_speed"] == "3.0 Gbps");
  CHECK(j[1]["sg"] == "/dev/sg0");
  CHECK(j[1]["partitions"][0]["mountpoints"][0] == "/");
  CHECK(j[0]["queue_depth"].is_null());  // nvme0n1
  CHECK(j[0]["rotational"] == false);
  CHECK(j[4]["held"] == true);            // sdd
  CHECK(j[4]["in_use"] == true);

  CHECK(ds::report::drives_to_table({}) == "No drives found.\n");
  CHECK(ds::report::human_size(999) == "999 B");
  CHECK(ds::report::human_size(2000398934016ull) == "2.0 TB");
}

TEST_CASE("sysfs: a zoned dual-actuator disk (queue/zoned, nr_zones, independent_access_ranges)") {
  FakeRoot r;
  build_machine(r);
  const std::string dev = "/sys/devices/pci0000:00/0000:00:1f.2/ata5/host4/target4:0:0/4:0:0:0";
  r.scsi_host("/sys/devices/pci0000:00/0000:00:1f.2/ata5/host4", "host4", "ahci");
  r.scsi_ids(dev, "ATA", "ST14000NM0001", "SN01", "32", 0644);
  r.disk(dev, "sde", "8:64", 27344764928ull, true, "[mq-deadline] none");
  const std::string q = dev + "/block/sde/queue";
  r.write(q + "/physical_block_size", "4096\n");
  r.write(q + "/zoned", "host-aware\n");
  r.write(q + "/nr_zones", "52156\n");
  // Ranges in 512-byte sectors; 10 directories so that "10" must sort after "9", not after "1".
  const std::uint64_t step = 2734476492ull;
  for (int i = 0; i < 10; ++i) {
    r.write(q + "/independent_access_ranges/" + std::to_string(i) + "/sector", std::to_string(step * i) + "\n");
    r.write(q + "/independent_access_ranges/" + std::to_string(i) + "/nr_sectors", std::to_string(step) + "\n");
  }
  r.mkdir(q + "/independent_access_ranges/junk");  // not a range: skipped
  auto f = facts_for_device("sde", r.root());
  REQUIRE(f.ok());
  CHECK(f->physical_block_bytes == 4096u);
  CHECK(f->zoned == "host-aware");
  CHECK(f->nr_zones == 52156u);
  REQUIRE(f->access_ranges.size() == 10);
  for (std::size_t i = 0; i < 10; ++i) {
    CAPTURE(i);
    CHECK(f->access_ranges[i].sector == step * i);
    CHECK(f->access_ranges[i].nr_sectors == step);
  }
  const auto j = ds::report::drives_to_json({*f})[0];
  CHECK(j["zoned"] == "host-aware");
  CHECK(j["nr_zones"] == 52156);
  CHECK(j["independent_access_ranges"].size() == 10);
  CHECK(j["independent_access_ranges"][9]["sector"] == step * 9);
  CHECK(ds::report::drive_layout_text(*f).find("host-aware, 52156 zones") != std::string::npos);

  // A disk without the attributes (an older kernel, or not zoned): empty, null in JSON.
  auto a = facts_for_device("sda", r.root());
  REQUIRE(a.ok());
  CHECK(a->zoned.empty());
  CHECK_FALSE(a->nr_zones.has_value());
  CHECK(a->access_ranges.empty());
  const auto ja = ds::report::drives_to_json({*a})[0];
  CHECK(ja["zoned"].is_null());
  CHECK(ja["independent_access_ranges"].empty());
  CHECK(ds::report::drive_layout_text(*a).empty());
}
