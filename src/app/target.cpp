#include "app/target.hpp"

#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <array>
#include <filesystem>
#include <functional>
#include <fmt/core.h>

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

Expected<Target> open_sim(std::string_view spec, const OpenOptions& o) {
  sim::SimOptions so;
  so.seed = o.seed;
  so.writable = o.write;  // a simulated drive holds no user data: --write is enough
  auto t = sim::open(spec, so);
  if (!t) return t.error();
  Target out;
  out.spec = std::string(spec);
  out.kind = TargetKind::sim;
  out.device = std::make_unique<GuardedDevice>(std::move(t->device));
  if (o.want_io) out.io = std::move(t->io);
  out.keepalive = std::move(t->drive);
  return out;
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

Expected<Target> open_file(std::string_view spec, const OpenOptions& o) {
  std::string path(starts_with(spec, "file:") ? spec.substr(5) : spec);
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

Expected<Target> open_block(std::string_view spec, const OpenOptions& o) {
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
    std::unique_ptr<Device> dev = std::move(*sg);
    // A SAT layer (libata, a USB bridge) answers VPD page 0x89 (SAT-3 12.4.2) or calls itself
    // "ATA" in INQUIRY; then ATA commands go through ATA PASS-THROUGH.
    std::array<std::uint8_t, 96> inq{};
    bool is_ata = false;
    if (scsi::inquiry(*dev, inq).outcome == Outcome::good)
      is_ata = std::string_view(reinterpret_cast<const char*>(&inq[8]), 8).substr(0, 3) == "ATA";
    if (!is_ata) {
      std::array<std::uint8_t, 572> vpd89{};
      auto r = scsi::inquiry_vpd(*dev, 0x89, vpd89);
      is_ata = r.outcome == Outcome::good && vpd89[1] == 0x89;
    }
    if (is_ata) {
      out.kind = TargetKind::ata;
      dev = std::make_unique<SatDevice>(std::move(dev));
    }
    out.device = std::make_unique<GuardedDevice>(std::move(dev));
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
  std::function<bool(std::string_view)> matches;
  Expected<Target> (*open)(std::string_view, const OpenOptions&);
};

bool is_block_or_char_device(std::string_view spec) {
  struct stat st {};
  if (::stat(std::string(spec).c_str(), &st) != 0) return false;
  return S_ISBLK(st.st_mode) || S_ISCHR(st.st_mode);
}

// The target-opening table: one line per backend, first match wins.
const Backend kBackends[] = {
    {[](std::string_view s) { return starts_with(s, "sim:"); }, open_sim},
    {[](std::string_view s) { return starts_with(s, "file:"); }, open_file},
    {is_block_or_char_device, open_block},
    {[](std::string_view s) { return fs::is_regular_file(fs::path(std::string(s))); }, open_file},
};

}  // namespace

Expected<Target> open_target(std::string_view spec, const OpenOptions& options) {
  if (spec.empty()) return make_error("no target given");
  for (const auto& b : kBackends)
    if (b.matches(spec)) return b.open(spec, options);
  return make_error(fmt::format(
      "{}: not a target (expected /dev/sdX, /dev/sgN, sim:NAME, sim:MODEL.json or file:PATH)", spec));
}

}  // namespace ds::app
