// Linux facts about block devices from sysfs and procfs: transport, identity, size, queue settings,
// SATA link speed, partitions and whether anything uses the disk. Every function takes the
// filesystem root ("/" normally) so tests can build a fake /sys and /proc in a temp directory.
#pragma once
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "drivescope/expected.hpp"

namespace ds::sysfs {

enum class Transport : std::uint8_t { ata, scsi, nvme, virtio, other };
std::string_view to_string(Transport t);

struct Partition {
  std::string name;          // sda1
  std::string major_minor;   // "8:1"
  std::uint64_t size_sectors = 0;  // 512-byte units, as /sys shows them
  std::vector<std::string> mountpoints;
  bool swap = false;
  std::vector<std::string> holders;  // dm-0, md127, ...
};

struct DriveFacts {
  std::string name;        // kernel name: sda, nvme0n1, vda
  std::string dev_path;    // /dev/sda
  std::string sys_path;    // resolved /sys/devices/... path (relative to root, starting with /sys)
  std::string major_minor; // "8:0"
  Transport transport = Transport::other;
  std::string host_driver; // SCSI host proc_name (ahci, ata_piix, virtio_scsi, ...), if any
  std::string scsi_address;  // H:C:T:L, if a SCSI device
  std::string sg_name;       // sgN bound to the same device, if any
  std::string vendor, model, revision, serial;
  std::uint64_t size_sectors = 0;  // 512-byte units (/sys/block/X/size)
  std::uint64_t size_bytes() const { return size_sectors * 512; }
  std::uint32_t logical_block_bytes = 512;
  std::uint32_t physical_block_bytes = 512;
  std::optional<bool> rotational;
  bool removable = false;
  bool read_only = false;
  std::vector<std::string> schedulers;  // every one offered
  std::string scheduler;                // the [active] one ("none" is a valid answer)
  std::optional<unsigned> nr_requests;  // block-layer queue size
  // Zoned block devices and multi-actuator drives (Documentation/ABI/stable/sysfs-block):
  std::string zoned;                    // queue/zoned: "none", "host-aware", "host-managed"; "" absent
  std::optional<std::uint64_t> nr_zones;  // queue/nr_zones (0 on a disk that is not zoned)
  struct AccessRange {
    std::uint64_t sector = 0;      // first sector, 512-byte units
    std::uint64_t nr_sectors = 0;  // length, 512-byte units
  };
  // queue/independent_access_ranges/N/{sector,nr_sectors} (Linux 5.16+): what the kernel took
  // from ATA log 47h / VPD B9h. Empty when the kernel lists none (or predates the attribute).
  std::vector<AccessRange> access_ranges;
  std::optional<unsigned> queue_depth;  // SCSI host queue depth (device/queue_depth)
  bool queue_depth_writable = false;    // the attribute accepts writes (change_queue_depth)
  // libata only:
  std::string ata_port;                      // "ata3"
  std::optional<std::string> sata_link_speed;  // "3.0 Gbps" as the kernel prints it
  std::optional<bool> ncq_prio_enable;
  std::optional<bool> ncq_prio_supported;
  std::vector<Partition> partitions;
  std::vector<std::string> mountpoints;  // of the whole disk
  bool swap = false;                     // the whole disk is an active swap area
  std::vector<std::string> holders;      // of the whole disk

  bool mounted() const;  // disk or any partition
  bool in_swap() const;
  bool held() const;     // disk or any partition has a holder (dm, md, bcache, ...)
  bool in_use() const { return mounted() || in_swap() || held(); }
  // One short phrase for tables: "mounted /boot", "swap sda2", "held by dm-0", or "".
  std::string in_use_summary() const;
};

// Turns what a user typed into the kernel's disk name: "sda", "/dev/sda", "/dev/sg2" (through
// /sys/class/scsi_generic/sg2/device/block), "/dev/disk/by-id/..." symlinks, a partition
// ("/dev/sda1" -> "sda"), or a block device node (through /sys/dev/block/MAJ:MIN).
Expected<std::string> resolve_disk_name(std::string_view path_or_name,
                                        const std::filesystem::path& root = "/");

// All facts for one disk. Missing attributes leave fields empty; only a disk that does not exist
// in /sys/block is an error.
Expected<DriveFacts> facts_for_device(std::string_view path_or_name,
                                      const std::filesystem::path& root = "/");

struct ListOptions {
  bool include_virtual = false;  // loop (bound ones), zram, dm, md; ram* disks never
};
// The disks in /sys/block, in natural order (sda, sdb, ..., sdz, sdaa; nvme0n1 before nvme10n1).
// Empty when /sys/block cannot be read.
std::vector<DriveFacts> list_drives(const std::filesystem::path& root = "/",
                                    const ListOptions& options = {});

// Write the I/O scheduler (must be one the kernel offers). Returns the previously active one so
// the caller can restore it.
Expected<std::string> set_scheduler(std::string_view disk, std::string_view scheduler,
                                    const std::filesystem::path& root = "/");
// Write the SCSI host queue depth. Returns the previous depth. The kernel may clamp the value;
// read the facts again to see what it took.
Expected<unsigned> set_queue_depth(std::string_view disk, unsigned depth,
                                   const std::filesystem::path& root = "/");

// The SCSI mid-layer's per-device command counters (device/iodone_cnt, ioerr_cnt, iotmo_cnt:
// hexadecimal, counting since the device was attached). A command that fails and that the
// kernel then retries successfully counts in ioerr_cnt although the reader got its data: the
// one trace an intermittently failing drive leaves that a program reading through the block
// layer can see (drivers/scsi/scsi_lib.c, scsi_complete; scsi_sysfs.c).
struct KernelIoCounts {
  std::uint64_t completed = 0;  // iodone_cnt
  std::uint64_t failed = 0;     // ioerr_cnt: completed with an error, retried or not
  std::uint64_t timed_out = 0;  // iotmo_cnt: handed to the error handler on a timeout
};
// nullopt for a disk without the SCSI layer (virtio-blk, NVMe, loop) or unreadable counters.
std::optional<KernelIoCounts> kernel_io_counts(std::string_view disk,
                                               const std::filesystem::path& root = "/");
// What changed between two readings (a counter that went back, as after a re-attach, gives 0).
KernelIoCounts counts_since(const KernelIoCounts& before, const KernelIoCounts& after);

}  // namespace ds::sysfs
