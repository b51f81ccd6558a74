#include "app/target.hpp"

#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fmt/core.h>

#include "app/identify.hpp"
#include "drivescope/commands.hpp"
#include "io/aio_engine.hpp"
#include "io/write_guard.hpp"
#include "passthrough/allowlist.hpp"
#include "passthrough/sat_device.hpp"
#include "passthrough/sg_device.hpp"
#include "sim/sim.hpp"

namespace ds::app {
namespace {

namespace fs = std::filesystem;

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// -d scsi over a device that also answers ATA (a simulated ATA drive): the SCSI side only, as
// a SCSI disk would be seen.
class ScsiView final : public Device {
 public:
  explicit ScsiView(std::unique_ptr<Device> inner) : inner_(std::move(inner)), info_(inner_->info()) {
    info_.ata_capable = false;
    info_.scsi_capable = true;
  }
  const DeviceInfo& info() const override { return info_; }
  CommandResult scsi(const ScsiRequest& req) override { return inner_->scsi(req); }

 private:
  std::unique_ptr<Device> inner_;
  DeviceInfo info_;
};

// --trace goes next to the backend, below SAT, so that it sees the CDBs actually sent.
std::unique_ptr<Device> traced(std::unique_ptr<Device> dev, const DeviceChoice& c) {
  if (!c.trace) return dev;
  return std::make_unique<TracingDevice>(std::move(dev), c.trace);
}

// The simulated drive under -d: an ATA model speaks ATA natively (ata, autodetect), through its
// SATL (sat) or as the SCSI disk libata would show (scsi); a SCSI model only speaks SCSI.
Expected<std::unique_ptr<Device>> sim_device(std::unique_ptr<Device> dev, std::string_view spec,
                                             const DeviceChoice& c) {
  const bool ata = dev->info().ata_capable;
  if (!ata && (c.type == DeviceType::ata || c.type == DeviceType::sat))
    return usage_error(fmt::format("-d {}: {} is a simulated SCSI drive: it has no ATA command set (use -d scsi)",
                                   to_string(c.type), spec));
  dev = traced(std::move(dev), c);
  if (c.type == DeviceType::sat) return std::unique_ptr<Device>(std::make_unique<SatDevice>(std::move(dev)));
  if (c.type == DeviceType::scsi && ata) return std::unique_ptr<Device>(std::make_unique<ScsiView>(std::move(dev)));
  return dev;
}

sim::SimOptions sim_options(const OpenOptions& o) {
  sim::SimOptions so;
  so.seed = o.seed;
  so.writable = o.write;  // a simulated drive holds no user data: --write is enough
  return so;
}

// A simulated drive opened (by name or from a model) as a target called `spec`.
Expected<Target> sim_target(Expected<sim::SimTarget> t, std::string_view spec, const OpenOptions& o) {
  if (!t) return t.error();
  auto dev = sim_device(std::move(t->device), spec, o.device);
  if (!dev) return dev.error();
  Target out;
  out.spec = std::string(spec);
  out.kind = TargetKind::sim;
  out.device = std::make_unique<GuardedDevice>(std::move(*dev));
  if (o.want_io) out.io = std::move(t->io);
  out.keepalive = std::move(t->drive);
  return out;
}

Expected<Target> open_sim(std::string_view spec, const OpenOptions& o) {
  return sim_target(sim::open(spec, sim_options(o)), spec, o);
}

Expected<std::unique_ptr<IoEngine>> open_io(const std::string& path, const OpenOptions& o) {
  if (o.write) {
    io::WriteGuardOptions g;
    g.write = o.write;
    g.destructive = o.destructive;
    g.root = o.root;
    auto pass = io::check_write_allowed(path, g);
    if (!pass) return pass.error();
  }
  io::AioOptions ao;
  ao.writable = o.write;
  struct stat st {};
  // Writes to a block device take it exclusively, so nothing can mount it meanwhile.
  ao.exclusive = o.write && ::stat(path.c_str(), &st) == 0 && S_ISBLK(st.st_mode);
  auto e = io::AioEngine::open(path, ao);
  if (!e) return e.error();
  return std::unique_ptr<IoEngine>(std::move(*e));
}

// What a path names, from one stat(2) (symlinks followed). A name too long for the kernel or a
// symlink that loops is an errno here, never the exception std::filesystem would throw.
struct PathProbe {
  int err = 0;  // stat's errno; 0: found
  mode_t mode = 0;
};

PathProbe probe_path(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return {errno, 0};
  return {0, st.st_mode};
}

Error path_error(std::string_view spec, const PathProbe& p) {
  if (p.err == ENOENT)
    return make_error(fmt::format("{}: no such file or device (a target is /dev/sdX, /dev/sgN, sim:NAME, "
                                  "sim:MODEL.json or file:PATH)", spec), p.err);
  if (p.err != 0) return make_error(fmt::format("{}: {}", spec, std::strerror(p.err)), p.err);
  if (S_ISDIR(p.mode)) return make_error(fmt::format("{}: is a directory, not a drive or a file", spec), EISDIR);
  return make_error(fmt::format("{}: not a regular file, block device or SCSI generic device", spec), ENODEV);
}

Expected<Target> open_file(std::string_view spec, const OpenOptions& o) {
  if (o.device.type != DeviceType::autodetect)
    return usage_error(fmt::format("-d {}: {} is a file: it has no command interface to choose", to_string(o.device.type), spec));
  std::string path(starts_with(spec, "file:") ? spec.substr(5) : spec);
  // Checked even when no I/O is wanted (smr, ncq --no-measure): a file that is not there must
  // not be reported on as if it were.
  const auto p = probe_path(path);
  if (p.err != 0 || !(S_ISREG(p.mode) || S_ISBLK(p.mode))) return path_error(spec, p);
  Target out;
  out.spec = std::string(spec);
  out.kind = TargetKind::file;
  out.no_device_reason = "a file target has no command interface (block I/O only)";
  if (o.want_io) {
    auto e = open_io(path, o);
    if (!e) return e.error();
    out.io = std::move(*e);
  }
  return out;
}

// /dev/sgN → the block device it belongs to (for block I/O and sysfs facts), when there is one.
std::string block_name_of(const std::string& path, const std::string& root) {
  std::error_code ec;
  fs::path real = fs::canonical(path, ec);
  std::string name = (ec ? fs::path(path) : real).filename().string();
  if (starts_with(name, "sg")) {
    fs::path dir = fs::path(root) / "sys/class/scsi_generic" / name / "device/block";
    for (auto& e : fs::directory_iterator(dir, ec)) return e.path().filename().string();
    return {};
  }
  return name;
}

// A SAT layer (libata, a USB bridge) answers VPD page 0x89 (SAT-3 12.4.2) or calls itself "ATA"
// in INQUIRY; then ATA commands go through ATA PASS-THROUGH.
bool answers_as_ata(Device& dev) {
  std::array<std::uint8_t, 96> inq{};
  if (scsi::inquiry(dev, inq).outcome == Outcome::good &&
      std::string_view(reinterpret_cast<const char*>(&inq[8]), 8).substr(0, 3) == "ATA")
    return true;
  std::array<std::uint8_t, 572> vpd89{};
  auto r = scsi::inquiry_vpd(dev, 0x89, vpd89);
  return r.outcome == Outcome::good && vpd89[1] == 0x89;
}

// SAT over the SG device when -d sat says so, or autodetect finds a SAT layer; -d scsi sends no
// probe at all.
std::unique_ptr<Device> choose_block_device(std::unique_ptr<Device> dev, DeviceType type, TargetKind& kind) {
  const bool sat = type == DeviceType::sat || (type == DeviceType::autodetect && answers_as_ata(*dev));
  if (!sat) return dev;
  kind = TargetKind::ata;
  return std::make_unique<SatDevice>(std::move(dev));
}

Expected<Target> open_block(std::string_view spec, const OpenOptions& o) {
  if (o.device.type == DeviceType::ata)
    return usage_error(fmt::format("-d ata: {}: drivescope reaches real drives through SG_IO only (no HDIO "
                                   "ioctls); a SATA drive is reached through SAT: use -d sat", spec));
  std::string path(spec);
  Target out;
  out.spec = path;
  out.device_path = path;
  out.block_name = block_name_of(path, o.root);
  out.kind = TargetKind::scsi;
  // Read-only like hdparm and smartctl: as root SG_IO needs no write access, and a write open of
  // a disk node makes udev re-probe it on close.
  auto sg = SgDevice::open(path, /*read_write=*/false);
  if (!sg) {
    out.kind = TargetKind::file;
    out.no_device_reason = fmt::format("no SCSI/ATA passthrough: {}", sg.error().message);
  } else {
    out.device = std::make_unique<GuardedDevice>(choose_block_device(traced(std::move(*sg), o.device), o.device.type, out.kind));
  }
  if (o.want_io) {
    std::string io_path = path;
    if (!out.block_name.empty() && !starts_with(fs::path(path).filename().string(), out.block_name))
      io_path = "/dev/" + out.block_name;
    auto e = open_io(io_path, o);
    if (!e) return e.error();
    out.io = std::move(*e);
  }
  return out;
}

struct Backend {
  bool (*matches)(std::string_view spec, const PathProbe& p);
  Expected<Target> (*open)(std::string_view, const OpenOptions&);
};

// The target-opening table: one line per backend, first match wins. The path is stat'ed once,
// before the table, so that no matcher touches the file system (or throws).
const Backend kBackends[] = {
    {[](std::string_view s, const PathProbe&) { return starts_with(s, "sim:"); }, open_sim},
    {[](std::string_view s, const PathProbe&) { return starts_with(s, "file:"); }, open_file},
    {[](std::string_view, const PathProbe& p) { return p.err == 0 && (S_ISBLK(p.mode) || S_ISCHR(p.mode)); }, open_block},
    {[](std::string_view, const PathProbe& p) { return p.err == 0 && S_ISREG(p.mode); }, open_file},
};

}  // namespace

std::string_view to_string(DeviceType t) {
  switch (t) {
    case DeviceType::autodetect: return "auto";
    case DeviceType::ata: return "ata";
    case DeviceType::sat: return "sat";
    case DeviceType::scsi: return "scsi";
  }
  return "?";
}

Expected<DeviceType> parse_device_type(std::string_view text) {
  for (auto t : {DeviceType::autodetect, DeviceType::ata, DeviceType::sat, DeviceType::scsi})
    if (text == to_string(t)) return t;
  return usage_error(fmt::format("-d {}: not a device type (auto, ata, sat or scsi)", text));
}

Expected<Target> open_sim_model(std::string_view model_json, std::string_view name, const OpenOptions& options) {
  auto model = sim::parse_model(model_json);
  if (!model) return model.error();
  return sim_target(sim::open(std::move(*model), sim_options(options)), name, options);
}

Expected<Target> open_target(std::string_view spec, const OpenOptions& options) {
  if (spec.empty()) return make_error("no target given");
  const auto probe = probe_path(std::string(spec));
  for (const auto& b : kBackends)
    if (b.matches(spec, probe)) return b.open(spec, options);
  return path_error(spec, probe);
}

}  // namespace ds::app
