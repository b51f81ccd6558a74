// Linux sysfs/procfs facts (see sysfs.hpp). The layout relied on is the kernel's documented ABI:
// Documentation/ABI/stable/sysfs-block (size, queue/*, holders), sysfs-bus-scsi / libata
// (device/queue_depth, ncq_prio_enable, ata_link/*/sata_spd), proc(5) for mountinfo and swaps.
#include "probe/sysfs.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <sstream>

#include "probe/scsi_decode.hpp"

namespace ds::sysfs {

namespace fs = std::filesystem;

std::string_view to_string(Transport t) {
  switch (t) {
    case Transport::ata: return "ata";
    case Transport::scsi: return "scsi";
    case Transport::nvme: return "nvme";
    case Transport::virtio: return "virtio";
    case Transport::other: return "other";
  }
  return "other";
}

namespace {

fs::path under(const fs::path& root, std::string_view abs) {
  while (!abs.empty() && abs.front() == '/') abs.remove_prefix(1);
  return root / fs::path(abs);
}

bool path_exists(const fs::path& p) {
  std::error_code ec;
  return fs::exists(p, ec);
}

std::optional<std::string> read_attr(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  if (!f) return std::nullopt;
  std::stringstream ss;
  ss << f.rdbuf();
  std::string s = ss.str();
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  std::size_t i = 0;
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  return s.substr(i);
}

std::optional<std::uint64_t> read_u64(const fs::path& p) {
  auto s = read_attr(p);
  if (!s || s->empty() || !std::isdigit(static_cast<unsigned char>((*s)[0]))) return std::nullopt;
  try {
    return std::stoull(*s);
  } catch (...) {
    return std::nullopt;
  }
}

std::optional<bool> read_bool(const fs::path& p) {
  auto v = read_u64(p);
  if (!v) return std::nullopt;
  return *v != 0;
}

std::vector<std::string> dir_names(const fs::path& p) {
  std::vector<std::string> out;
  std::error_code ec;
  for (fs::directory_iterator it(p, ec), end; !ec && it != end; it.increment(ec))
    out.push_back(it->path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> split_path(const std::string& p) {
  std::vector<std::string> out;
  std::stringstream ss(p);
  for (std::string c; std::getline(ss, c, '/');)
    if (!c.empty()) out.push_back(c);
  return out;
}

bool is_prefix_num(std::string_view s, std::string_view prefix) {
  if (s.size() <= prefix.size() || s.substr(0, prefix.size()) != prefix) return false;
  return std::all_of(s.begin() + prefix.size(), s.end(),
                     [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

bool is_hctl(std::string_view s) {  // "2:0:0:0"
  int colons = 0;
  for (char c : s) {
    if (c == ':') ++colons;
    else if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  }
  return colons == 3;
}

// The path of p relative to root, as "/sys/devices/...": what the kernel would show at root "/".
std::string rel_to_root(const fs::path& p, const fs::path& root) {
  std::error_code ec;
  const fs::path cp = fs::canonical(p, ec);
  if (ec) return {};
  const fs::path cr = fs::canonical(root, ec);
  if (ec) return {};
  const auto rel = cp.lexically_relative(cr);
  if (rel.empty() || *rel.begin() == "..") return cp.string();
  return "/" + rel.string();
}

// libata registers its SCSI hosts under these driver names (drivers/ata/*.c).
bool is_libata_driver(std::string_view d) {
  return d == "ahci" || d == "ata_piix" || d == "ata_generic" || d == "libata" ||
         d.substr(0, 5) == "pata_" || d.substr(0, 5) == "sata_" || d.substr(0, 4) == "ahci";
}

// Natural order: digit runs compare by value, so sdb < sdaa and nvme2n1 < nvme10n1.
bool natural_less(const std::string& a, const std::string& b) {
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const bool da = std::isdigit(static_cast<unsigned char>(a[i]));
    const bool db = std::isdigit(static_cast<unsigned char>(b[j]));
    if (da && db) {
      std::size_t ie = i, je = j;
      while (ie < a.size() && std::isdigit(static_cast<unsigned char>(a[ie]))) ++ie;
      while (je < b.size() && std::isdigit(static_cast<unsigned char>(b[je]))) ++je;
      // Compare digit runs by value without converting (no overflow on absurd names).
      std::size_t ia = i, jb = j;
      while (ia + 1 < ie && a[ia] == '0') ++ia;
      while (jb + 1 < je && b[jb] == '0') ++jb;
      const auto ra = a.substr(ia, ie - ia), rb = b.substr(jb, je - jb);
      if (ra.size() != rb.size()) return ra.size() < rb.size();
      if (ra != rb) return ra < rb;
      i = ie;
      j = je;
      continue;
    }
    if (!da && !db) {  // compare letter runs: shorter run first, then alphabetically
      std::size_t ie = i, je = j;
      while (ie < a.size() && !std::isdigit(static_cast<unsigned char>(a[ie]))) ++ie;
      while (je < b.size() && !std::isdigit(static_cast<unsigned char>(b[je]))) ++je;
      const auto ra = a.substr(i, ie - i), rb = b.substr(j, je - j);
      if (ra != rb) {
        // Within one family (same first two letters) the kernel hands out shorter names first:
        // sdz before sdaa.
        if (ra.size() != rb.size() && ra.substr(0, 2) == rb.substr(0, 2)) return ra.size() < rb.size();
        return ra < rb;
      }
      i = ie;
      j = je;
      continue;
    }
    return da;  // digits before letters
  }
  return a.size() - i < b.size() - j;
}

struct Mount {
  std::string major_minor, mountpoint, source;
};

// proc(5) mountinfo and swaps escape space, tab, newline and backslash as \ooo.
std::string unescape_octal(const std::string& s) {
  auto octal = [](char c) { return c >= '0' && c <= '7'; };
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size() && octal(s[i + 1]) && octal(s[i + 2]) &&
        octal(s[i + 3])) {
      out.push_back(static_cast<char>(((s[i + 1] - '0') << 6) | ((s[i + 2] - '0') << 3) | (s[i + 3] - '0')));
      i += 3;
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

std::vector<Mount> read_mounts(const fs::path& root) {
  std::vector<Mount> out;
  std::ifstream f(under(root, "/proc/self/mountinfo"));
  for (std::string line; std::getline(f, line);) {
    std::stringstream ss(line);
    std::vector<std::string> t;
    for (std::string w; ss >> w;) t.push_back(w);
    if (t.size() < 5) continue;
    Mount m;
    m.major_minor = t[2];
    m.mountpoint = unescape_octal(t[4]);
    const auto dash = std::find(t.begin() + 5, t.end(), "-");
    if (dash != t.end() && dash + 2 < t.end()) m.source = *(dash + 2);
    out.push_back(std::move(m));
  }
  return out;
}

std::vector<std::string> read_swaps(const fs::path& root) {
  std::vector<std::string> out;
  std::ifstream f(under(root, "/proc/swaps"));
  std::string line;
  std::getline(f, line);  // header
  while (std::getline(f, line)) {
    std::stringstream ss(line);
    std::string name;
    if (ss >> name) out.push_back(unescape_octal(name));
  }
  return out;
}

std::vector<std::string> mounts_of(const std::vector<Mount>& mounts, const std::string& name,
                                   const std::string& majmin) {
  std::vector<std::string> out;
  for (const auto& m : mounts)
    if ((!majmin.empty() && m.major_minor == majmin) || m.source == "/dev/" + name)
      out.push_back(m.mountpoint);
  return out;
}

bool swaps_on(const std::vector<std::string>& swaps, const std::string& name) {
  return std::find(swaps.begin(), swaps.end(), "/dev/" + name) != swaps.end();
}

Error sys_error(const std::string& what, int err) {
  return make_error(what + ": " + std::strerror(err), err);
}

Expected<bool> write_attr(const fs::path& p, const std::string& value) {
  const int fd = ::open(p.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);  // as the shell's "echo >"
  if (fd < 0) return sys_error("cannot open " + p.string() + " for writing", errno);
  const auto n = ::write(fd, value.data(), value.size());
  const int err = errno;
  ::close(fd);
  if (n < 0) return sys_error("writing '" + value + "' to " + p.string() + " failed", err);
  return true;
}

void parse_scheduler(const std::string& s, DriveFacts& f) {
  std::stringstream ss(s);
  for (std::string w; ss >> w;) {
    if (w.size() > 2 && w.front() == '[' && w.back() == ']') {
      w = w.substr(1, w.size() - 2);
      f.scheduler = w;
    }
    f.schedulers.push_back(w);
  }
}

void find_transport(DriveFacts& f, const fs::path& root, const fs::path& blk) {
  const auto comps = split_path(f.sys_path);
  std::string host;
  for (const auto& c : comps) {
    if (is_prefix_num(c, "ata")) f.ata_port = c;
    if (is_prefix_num(c, "host")) host = c;
    if (is_hctl(c)) f.scsi_address = c;
  }
  if (!host.empty()) {
    // The host's directory is the path up to hostN; its scsi_host/hostN/proc_name names the
    // low-level driver. /sys/class/scsi_host/hostN is the same object.
    std::string host_dir;
    for (const auto& c : comps) {
      host_dir += "/" + c;
      if (c == host) break;
    }
    auto proc = read_attr(under(root, host_dir + "/scsi_host/" + host + "/proc_name"));
    if (!proc) proc = read_attr(under(root, "/sys/class/scsi_host/" + host + "/proc_name"));
    if (proc) f.host_driver = *proc;
  }
  const bool nvme = f.name.rfind("nvme", 0) == 0 ||
                    std::find(comps.begin(), comps.end(), "nvme") != comps.end();
  const bool scsi = !host.empty() || !f.scsi_address.empty() || path_exists(blk / "device/scsi_device");
  const bool virtio = f.name.rfind("vd", 0) == 0 ||
                      std::any_of(comps.begin(), comps.end(),
                                  [](const std::string& c) { return c.rfind("virtio", 0) == 0; });
  if (nvme) f.transport = Transport::nvme;
  else if (!f.ata_port.empty() || (scsi && is_libata_driver(f.host_driver))) f.transport = Transport::ata;
  else if (scsi) f.transport = Transport::scsi;
  else if (virtio) f.transport = Transport::virtio;
  else f.transport = Transport::other;
}

void find_ata_link(DriveFacts& f, const fs::path& root) {
  if (f.ata_port.empty()) return;
  // ataN's link is linkN (links of a port multiplier are linkN.M and carry their own speed);
  // "<unknown>" means the link is down or the speed was not negotiated.
  const std::string link = "link" + f.ata_port.substr(3);
  auto spd = read_attr(under(root, "/sys/class/ata_link/" + link + "/sata_spd"));
  if (!spd) {
    const auto comps = split_path(f.sys_path);
    std::string port_dir;
    for (const auto& c : comps) {
      port_dir += "/" + c;
      if (c == f.ata_port) break;
    }
    spd = read_attr(under(root, port_dir + "/" + link + "/ata_link/" + link + "/sata_spd"));
  }
  if (spd && !spd->empty() && *spd != "<unknown>") f.sata_link_speed = *spd;
}

void find_identity(DriveFacts& f, const fs::path& blk) {
  // virtio's device/vendor is the numeric virtio vendor id ("0x1af4"), not a name.
  if (auto v = read_attr(blk / "device/vendor"); v && v->rfind("0x", 0) != 0) f.vendor = *v;
  if (auto v = read_attr(blk / "device/model")) f.model = *v;
  if (auto v = read_attr(blk / "device/rev")) f.revision = *v;
  else if (auto v2 = read_attr(blk / "device/firmware_rev")) f.revision = *v2;  // NVMe
  if (auto v = read_attr(blk / "serial")) f.serial = *v;                       // virtio-blk
  else if (auto v2 = read_attr(blk / "device/serial")) f.serial = *v2;         // NVMe
  else if (auto v3 = read_attr(blk / "device/vpd_pg80")) {
    // The SCSI layer caches the Unit Serial Number VPD page verbatim (binary, with header).
    std::ifstream raw(blk / "device/vpd_pg80", std::ios::binary);
    std::vector<std::uint8_t> page((std::istreambuf_iterator<char>(raw)), {});
    if (auto s = scsi::decode_unit_serial(page)) f.serial = *s;
  }
}

}  // namespace

bool DriveFacts::mounted() const {
  if (!mountpoints.empty()) return true;
  return std::any_of(partitions.begin(), partitions.end(),
                     [](const Partition& p) { return !p.mountpoints.empty(); });
}
bool DriveFacts::in_swap() const {
  return swap || std::any_of(partitions.begin(), partitions.end(),
                             [](const Partition& p) { return p.swap; });
}
bool DriveFacts::held() const {
  return !holders.empty() || std::any_of(partitions.begin(), partitions.end(),
                                         [](const Partition& p) { return !p.holders.empty(); });
}

std::string DriveFacts::in_use_summary() const {
  std::vector<std::string> parts;
  std::vector<std::string> mps = mountpoints;
  std::vector<std::string> swaps;
  std::vector<std::string> hold = holders;
  if (swap) swaps.push_back(name);
  for (const auto& p : partitions) {
    mps.insert(mps.end(), p.mountpoints.begin(), p.mountpoints.end());
    if (p.swap) swaps.push_back(p.name);
    hold.insert(hold.end(), p.holders.begin(), p.holders.end());
  }
  auto join = [](const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : ",") + x;
    return s;
  };
  if (!mps.empty()) parts.push_back("mounted " + join(mps));
  if (!swaps.empty()) parts.push_back("swap " + join(swaps));
  if (!hold.empty()) parts.push_back("held by " + join(hold));
  std::string s;
  for (const auto& p : parts) s += (s.empty() ? "" : "; ") + p;
  return s;
}

Expected<std::string> resolve_disk_name(std::string_view input, const fs::path& root) {
  if (input.empty()) return make_error("empty device name");
  std::string name;
  if (input.find('/') == std::string_view::npos) {
    name = std::string(input);
  } else {
    const fs::path p = under(root, input);
    struct stat st {};
    std::error_code ec;
    if (::stat(p.c_str(), &st) == 0 && S_ISBLK(st.st_mode)) {
      // A block node, whatever its name (/dev/mapper/x, /dev/disk/by-id/...): ask sysfs.
      const std::string mm =
          std::to_string(major(st.st_rdev)) + ":" + std::to_string(minor(st.st_rdev));
      const fs::path c = fs::canonical(under(root, "/sys/dev/block/" + mm), ec);
      if (!ec) name = c.filename().string();
    }
    if (name.empty() && fs::is_symlink(p, ec)) {
      const fs::path c = fs::canonical(p, ec);
      if (!ec) name = c.filename().string();
    }
    if (name.empty()) name = fs::path(input).filename().string();
  }
  if (is_prefix_num(name, "sg")) {
    const auto blocks = dir_names(under(root, "/sys/class/scsi_generic/" + name + "/device/block"));
    if (blocks.empty())
      return make_error(name + " is a SCSI generic device with no block device (not a disk?)");
    name = blocks.front();
  }
  if (path_exists(under(root, "/sys/block/" + name))) return name;
  const fs::path cls = under(root, "/sys/class/block/" + name);
  if (path_exists(cls / "partition")) {
    std::error_code ec;
    const fs::path c = fs::canonical(cls, ec);
    if (!ec) return c.parent_path().filename().string();
  }
  return make_error("no such block device: " + std::string(input) + " (not in /sys/block)", ENOENT);
}

namespace {
// One directory per range, named 0, 1, ... (block/blk-ia-ranges.c); sorted by number, not name,
// so that range 10 follows 9. A range missing either attribute is skipped.
void find_access_ranges(DriveFacts& f, const fs::path& dir) {
  std::vector<std::pair<std::uint64_t, DriveFacts::AccessRange>> found;
  for (const auto& n : dir_names(dir)) {
    if (n.empty() || n.find_first_not_of("0123456789") != std::string::npos || n.size() > 6) continue;
    auto sector = read_u64(dir / n / "sector");
    auto count = read_u64(dir / n / "nr_sectors");
    if (sector && count) found.push_back({std::stoull(n), {*sector, *count}});
  }
  std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& r : found) f.access_ranges.push_back(r.second);
}
}  // namespace

Expected<DriveFacts> facts_for_device(std::string_view path_or_name, const fs::path& root) {
  auto resolved = resolve_disk_name(path_or_name, root);
  if (!resolved) return resolved.error();
  DriveFacts f;
  f.name = *resolved;
  f.dev_path = "/dev/" + f.name;
  const fs::path blk = under(root, "/sys/block/" + f.name);
  f.sys_path = rel_to_root(blk, root);
  if (auto v = read_attr(blk / "dev")) f.major_minor = *v;
  find_transport(f, root, blk);
  find_identity(f, blk);
  if (auto v = read_u64(blk / "size")) f.size_sectors = *v;
  if (auto v = read_u64(blk / "queue/logical_block_size")) f.logical_block_bytes = static_cast<std::uint32_t>(*v);
  if (auto v = read_u64(blk / "queue/physical_block_size")) f.physical_block_bytes = static_cast<std::uint32_t>(*v);
  f.rotational = read_bool(blk / "queue/rotational");
  f.removable = read_bool(blk / "removable").value_or(false);
  f.read_only = read_bool(blk / "ro").value_or(false);
  if (auto v = read_attr(blk / "queue/scheduler")) parse_scheduler(*v, f);
  if (auto v = read_u64(blk / "queue/nr_requests")) f.nr_requests = static_cast<unsigned>(*v);
  if (auto v = read_attr(blk / "queue/zoned")) f.zoned = *v;
  f.nr_zones = read_u64(blk / "queue/nr_zones");
  find_access_ranges(f, blk / "queue/independent_access_ranges");
  if (auto v = read_u64(blk / "device/queue_depth")) {
    f.queue_depth = static_cast<unsigned>(*v);
    // sysfs makes queue_depth writable (0644) only when the host driver can change it.
    struct stat st {};
    if (::stat((blk / "device/queue_depth").c_str(), &st) == 0) f.queue_depth_writable = st.st_mode & S_IWUSR;
  }
  f.ncq_prio_enable = read_bool(blk / "device/ncq_prio_enable");
  f.ncq_prio_supported = read_bool(blk / "device/ncq_prio_supported");
  if (auto sg = dir_names(blk / "device/scsi_generic"); !sg.empty()) f.sg_name = sg.front();
  find_ata_link(f, root);

  const auto mounts = read_mounts(root);
  const auto swaps = read_swaps(root);
  f.mountpoints = mounts_of(mounts, f.name, f.major_minor);
  f.swap = swaps_on(swaps, f.name);
  f.holders = dir_names(blk / "holders");
  for (const auto& e : dir_names(blk)) {
    if (!path_exists(blk / e / "partition")) continue;
    Partition p;
    p.name = e;
    if (auto v = read_attr(blk / e / "dev")) p.major_minor = *v;
    if (auto v = read_u64(blk / e / "size")) p.size_sectors = *v;
    p.mountpoints = mounts_of(mounts, p.name, p.major_minor);
    p.swap = swaps_on(swaps, p.name);
    p.holders = dir_names(blk / e / "holders");
    f.partitions.push_back(std::move(p));
  }
  std::sort(f.partitions.begin(), f.partitions.end(),
            [](const Partition& a, const Partition& b) { return natural_less(a.name, b.name); });
  return f;
}

std::vector<DriveFacts> list_drives(const fs::path& root, const ListOptions& options) {
  std::vector<std::string> names = dir_names(under(root, "/sys/block"));
  std::sort(names.begin(), names.end(), natural_less);
  std::vector<DriveFacts> out;
  for (const auto& n : names) {
    if (n.rfind("ram", 0) == 0) continue;  // brd ramdisks are never drives
    const bool is_virtual = n.rfind("loop", 0) == 0 || n.rfind("zram", 0) == 0 ||
                            n.rfind("dm-", 0) == 0 || n.rfind("md", 0) == 0 ||
                            n.rfind("nbd", 0) == 0;
    if (is_virtual && !options.include_virtual) continue;
    auto f = facts_for_device(n, root);
    if (!f) continue;
    // Unbound loop and nbd devices exist in /sys/block at size 0 whether used or not.
    if (is_virtual && f->size_sectors == 0) continue;
    out.push_back(std::move(*f));
  }
  return out;
}

Expected<std::string> set_scheduler(std::string_view disk, std::string_view scheduler,
                                    const fs::path& root) {
  auto f = facts_for_device(disk, root);
  if (!f) return f.error();
  if (f->schedulers.empty())
    return make_error(f->name + ": the kernel offers no I/O scheduler choice here");
  if (std::find(f->schedulers.begin(), f->schedulers.end(), scheduler) == f->schedulers.end()) {
    std::string offered;
    for (const auto& s : f->schedulers) offered += (offered.empty() ? "" : ", ") + s;
    return make_error(f->name + ": scheduler '" + std::string(scheduler) +
                          "' is not offered (offered: " + offered + ")",
                      EINVAL);
  }
  const std::string previous = f->scheduler;
  const fs::path attr = under(root, "/sys/block/" + f->name + "/queue/scheduler");
  if (auto w = write_attr(attr, std::string(scheduler)); !w) return w.error();
  // The kernel shows the active one in brackets; a read-back naming another means the write was
  // silently ignored.
  auto after = facts_for_device(f->name, root);
  if (after && !after->scheduler.empty() && after->scheduler != scheduler)
    return make_error(f->name + ": scheduler is still '" + after->scheduler + "' after writing '" +
                      std::string(scheduler) + "'");
  return previous;
}

Expected<unsigned> set_queue_depth(std::string_view disk, unsigned depth, const fs::path& root) {
  if (depth == 0) return make_error("queue depth must be at least 1", EINVAL);
  auto f = facts_for_device(disk, root);
  if (!f) return f.error();
  if (!f->queue_depth)
    return make_error(f->name + ": no SCSI queue depth attribute (not a SCSI/ATA disk?)", ENOENT);
  if (!f->queue_depth_writable)
    return make_error(f->name + ": the host driver (" +
                          (f->host_driver.empty() ? std::string("unknown") : f->host_driver) +
                          ") does not allow changing the queue depth",
                      EPERM);
  const fs::path attr = under(root, "/sys/block/" + f->name + "/device/queue_depth");
  if (auto w = write_attr(attr, std::to_string(depth)); !w) return w.error();
  return *f->queue_depth;
}

namespace {
// The counters print as "0x1f" (scsi_sysfs.c: show_iostat_counterbits, "0x%llx").
std::optional<std::uint64_t> read_hex_counter(const fs::path& p) {
  const auto s = read_attr(p);
  if (!s || s->size() < 3 || (*s)[0] != '0' || ((*s)[1] != 'x' && (*s)[1] != 'X')) return std::nullopt;
  std::uint64_t v = 0;
  const char* end = s->data() + s->size();
  // from_chars checks the digits and the overflow; it would also take a sign, which "0x" rules out.
  const auto [ptr, ec] = std::from_chars(s->data() + 2, end, v, 16);
  if (ec != std::errc{} || ptr != end) return std::nullopt;
  return v;
}
}  // namespace

std::optional<KernelIoCounts> kernel_io_counts(std::string_view disk, const fs::path& root) {
  auto name = resolve_disk_name(disk, root);
  if (!name) return std::nullopt;
  const fs::path dev = under(root, "/sys/block/" + *name + "/device");
  auto done = read_hex_counter(dev / "iodone_cnt");
  auto err = read_hex_counter(dev / "ioerr_cnt");
  auto tmo = read_hex_counter(dev / "iotmo_cnt");
  if (!done || !err || !tmo) return std::nullopt;
  return KernelIoCounts{*done, *err, *tmo};
}

KernelIoCounts counts_since(const KernelIoCounts& before, const KernelIoCounts& after) {
  auto diff = [](std::uint64_t a, std::uint64_t b) { return b >= a ? b - a : 0; };
  return {diff(before.completed, after.completed), diff(before.failed, after.failed),
          diff(before.timed_out, after.timed_out)};
}

}  // namespace ds::sysfs
