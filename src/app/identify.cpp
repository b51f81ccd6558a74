#include "app/identify.hpp"

#include <fmt/core.h>

#include <sys/stat.h>

#include <array>
#include <filesystem>
#include <memory>
#include <mutex>
#include <vector>

#include "drivescope/commands.hpp"
#include "probe/drivedb.hpp"
#include "probe/dump_reader.hpp"
#include "probe/plausible.hpp"
#include "probe/identify.hpp"
#include "probe/scsi_probe.hpp"
#include "probe/ata_logs.hpp"
#include "probe/ata_zoned.hpp"
#include "passthrough/nvme_device.hpp"
#include "probe/nvme_identify.hpp"
#include "probe/smart.hpp"
#include "report/ata_logs_report.hpp"
#include "probe/sysfs.hpp"
#include "report/ata_identity_report.hpp"
#include "report/list_report.hpp"
#include "report/nvme_report.hpp"
#include "report/scsi_report.hpp"
#include "report/zones_report.hpp"

namespace ds::app {

using nlohmann::json;

std::string version() { return DRIVESCOPE_VERSION; }

namespace {

// smartmontools' table read and its expressions compiled once per process and source (about
// 80 ms), not once for every drive a scan identifies. The key holds each candidate file's size
// and time, so a table that changed since is read again.
struct CachedDriveDb {
  std::string key;
  probe::LoadedDriveDb loaded;
  std::unique_ptr<probe::DriveDbMatcher> matcher;  // null when no table was read
};

std::string drivedb_key(const std::string& drivedb, const std::string& root) {
  std::string key = drivedb + '\n' + root;
  const std::filesystem::path base(root.empty() ? "/" : root);
  std::vector<std::filesystem::path> files;
  if (!drivedb.empty()) files.emplace_back(drivedb);
  else
    for (const auto& p : probe::default_drivedb_paths()) files.push_back(base / p.substr(1));
  for (const auto& f : files) {
    struct stat st {};
    if (::stat(f.c_str(), &st) == 0)
      key += fmt::format("\n{} {} {}.{}", f.string(), st.st_size, st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
  }
  return key;
}

const CachedDriveDb& cached_drivedb(const std::string& drivedb, const std::string& root) {
  static std::mutex mu;
  static std::vector<std::unique_ptr<CachedDriveDb>> cache;
  const std::string key = drivedb_key(drivedb, root);
  const std::lock_guard<std::mutex> lock(mu);
  for (const auto& c : cache)
    if (c->key == key) return *c;
  auto c = std::make_unique<CachedDriveDb>();
  c->key = key;
  c->loaded = probe::load_drivedb(drivedb, root);
  if (!c->loaded.sources.empty()) c->matcher = std::make_unique<probe::DriveDbMatcher>(c->loaded.db);
  cache.push_back(std::move(c));
  return *cache.back();
}

}  // namespace

report::DriveDbView drivedb_view(std::string_view model, std::string_view firmware, const std::string& drivedb,
                                 const std::string& root) {
  const CachedDriveDb& c = cached_drivedb(drivedb, root);
  report::DriveDbView v;
  v.sources = c.loaded.sources;
  v.version = c.loaded.db.version;
  v.note = c.loaded.note;
  v.failed = c.loaded.failed;
  if (c.matcher) {
    v.match = c.matcher->lookup(model, firmware);
    v.bad_expressions = c.matcher->bad_expressions();
  }
  return v;
}

namespace {

json header(std::string_view kind, std::string_view name) {
  return json{{"drivescope", {{"version", version()}}},
              {"target", {{"kind", kind}, {"name", name}}}};
}

// The ATA part of identify, shared by dumps and live devices: decode, then SMART when present.
Expected<Report> ata_report(json doc, std::span<const std::uint8_t, 512> block,
                            const probe::SmartReport* smart, const IdentifyOptions& o) {
  probe::DecodeOptions d;
  d.allow_bad_checksum = o.allow_bad_checksum;
  auto id = probe::decode_identify(block, d);
  if (!id) return id.error();
  Report r;
  doc["identify"] = report::identity_to_json(*id, smart);
  // Filled from log 0x47 when a live drive keeps it (identify_ata); a dump has no logs.
  doc["identify"]["concurrent_positioning_ranges"] = nullptr;
  // Filled from REPORT ZONES EXT when a live drive is zoned (identify_ata).
  doc["identify"]["zones"] = nullptr;
  if (o.raw) {
    json words = json::array();
    for (auto w : id->words) words.push_back(fmt::format("{:04x}", w));
    doc["identify"]["raw_words"] = std::move(words);
  }
  r.text = report::identity_to_text(*id, smart);
  const auto db = drivedb_view(id->model, id->firmware, o.drivedb, o.root);
  doc["identify"]["drivedb"] = report::drivedb_to_json(db);
  r.text += report::drivedb_to_text(db);
  if (db.failed) r.warnings.push_back("drive database not read: " + db.note);
  if (db.match && !db.match->entry.warning.empty()) {
    std::string w = db.match->entry.warning;
    for (auto& c : w)
      if (c == '\n') c = ' ';
    r.warnings.push_back("smartmontools' drive database warns of this drive's family: " + w);
  }
  if (o.raw) r.text += "\n" + report::identify_words_text(block);
  // Decoded but not believable (random bytes, an ATAPI device, another structure): say so and
  // exit 3, so that a script does not take the fields for a drive's.
  const auto problems = probe::identify_implausibilities(*id);
  if (!problems.empty()) {
    doc["identify"]["implausible"] = problems;
    for (const auto& p : problems) r.warnings.push_back("IDENTIFY data implausible: " + p);
    r.exit_code = kExitPartial;
  }
  r.json = std::move(doc);
  return r;
}

}  // namespace

Expected<Report> identify_block_report(std::string_view name, std::string_view format,
                                       std::span<const std::uint8_t, 512> block,
                                       const IdentifyOptions& o) {
  if (probe::identify_block_empty(block))
    return make_error(fmt::format("{}: the IDENTIFY data is all {}: there is no identity to decode", name,
                                  block[0] ? "FFh" : "zero"));
  json doc = header("dump", name);
  doc["target"]["format"] = format;
  return ata_report(std::move(doc), block, nullptr, o);
}

Expected<Report> identify_dump(const std::string& path, const IdentifyOptions& o) {
  auto dump = probe::read_identify_dump(path, o.allow_bad_checksum);
  if (!dump) return dump.error();
  const std::string name = path == "-" ? "stdin" : path;
  if (probe::identify_block_empty(dump->identify))
    return make_error(fmt::format("{}: the IDENTIFY data is all {}: there is no identity to decode", name,
                                  dump->identify[0] ? "FFh" : "zero"));
  json doc = header("dump", name);
  doc["target"]["format"] = probe::dump_format_name(dump->format);
  std::optional<probe::SmartReport> smart;
  std::string smart_note;
  if (dump->format == probe::DumpFormat::kAtasmartBlob) {
    auto s = probe::smart_from_blob(dump->blob);
    if (s) smart = std::move(*s);
    else smart_note = s.error().message;
  }
  auto r = ata_report(std::move(doc), dump->identify, smart ? &*smart : nullptr, o);
  if (r && !smart_note.empty()) {
    r->json["smart_error"] = smart_note;
    r->text += fmt::format("\nSMART: {}\n", smart_note);
  }
  return r;
}

namespace {

// A zoned drive's REPORT ZONES summary (probe/ata_zoned.hpp says how a host-managed one is known).
void add_ata_zones(Device& dev, std::uint8_t identify_zoned, Report& r) {
  const auto z = probe::probe_ata_zoned(dev, identify_zoned);
  if (z.host_managed) r.json["identify"]["host_managed"] = *z.host_managed;
  if (z.host_managed.value_or(false))
    r.text += "\nHost-managed zoned device (INQUIRY through the SAT layer: device type 14h)\n";
  if (z.zones) {
    r.json["identify"]["zones"] = report::zones_to_json(*z.zones, "ZAC REPORT ZONES EXT");
    r.text += "\n" + report::zones_to_text(*z.zones, "ZAC REPORT ZONES EXT");
  } else if (z.is_zoned()) {
    r.warnings.push_back(z.note);
  }
}

Expected<Report> identify_ata(Target& t, const IdentifyOptions& o) {
  std::array<std::uint8_t, 512> block{};
  auto res = ata::identify_device(*t.device, block);
  if (!res.ok())
    return make_error(fmt::format("{}: IDENTIFY DEVICE failed: {}", t.spec, res.message));
  // SMART pages through our own passthrough, decoded by libatasmart (smart_from_pages).
  std::optional<probe::SmartReport> smart;
  std::string smart_note;
  auto quick = probe::decode_identify(block, probe::DecodeOptions{.allow_bad_checksum = true});
  if (quick && quick->smart.supported && quick->smart.enabled.value_or(false)) {
    std::array<std::uint8_t, 512> data{}, thresholds{};
    bool healthy = false;
    auto rd = ata::smart_read_data(*t.device, data);
    auto rt = ata::smart_read_thresholds(*t.device, thresholds);
    auto rs = ata::smart_return_status(*t.device, &healthy);
    if (rd.ok() && rt.ok()) {
      auto s = probe::smart_from_pages(block, data, thresholds,
                                       rs.ok() ? std::optional<bool>(healthy) : std::nullopt);
      if (s) smart = std::move(*s);
      else smart_note = s.error().message;
    } else {
      smart_note = fmt::format("SMART pages not readable: {}", rd.ok() ? rt.message : rd.message);
    }
  }
  auto r = ata_report(header(to_string(t.kind), t.spec), block, smart ? &*smart : nullptr, o);
  if (r && !smart_note.empty()) {
    r->json["smart_error"] = smart_note;
    r->text += fmt::format("\nSMART: {}\n", smart_note);
  }
  // General Purpose Logs: read when claimed, or when asked (a drive may keep logs it does not
  // claim; one that does not aborts READ LOG EXT, which is harmless and shown decoded).
  if (r && quick) {
    const bool claimed = quick->gpl.supported;
    std::optional<probe::GplProbe> g;
    if (claimed || o.logs) g = probe::probe_gpl(*t.device);
    r->json["identify"]["general_purpose_logs"] = report::gpl_to_json(g ? &*g : nullptr, claimed);
    r->text += report::gpl_to_text(g ? &*g : nullptr, claimed);
    if (g && g->positioning_ranges) {
      r->json["identify"]["concurrent_positioning_ranges"] =
          report::ranges_to_json(*g->positioning_ranges, "ATA log 0x47");
      r->text += "\n" + report::ranges_to_text(*g->positioning_ranges, "ATA log 0x47");
    }
  }
  if (r && quick) add_ata_zones(*t.device, quick->zoned, *r);
  return r;
}

// What Linux knows of a real device, for every identify of one (null for sim and files).
std::optional<sysfs::DriveFacts> host_facts(const Target& t, const IdentifyOptions& o) {
  if (t.block_name.empty()) return std::nullopt;
  auto f = sysfs::facts_for_device(t.block_name, o.root);
  if (!f) return std::nullopt;
  return std::move(*f);
}

void add_host(Report& r, const std::optional<sysfs::DriveFacts>& facts) {
  if (!facts) return;
  r.json["host"] = report::drives_to_json({*facts})[0];
  r.text += "\nHost (Linux)\n" + report::drives_to_table({*facts}) + report::drive_layout_text(*facts);
}

Expected<Report> identify_scsi(Target& t, const std::optional<sysfs::DriveFacts>& facts) {
  auto p = probe::probe_scsi(*t.device);
  if (!p) return make_error(fmt::format("{}: {}", t.spec, p.error().message));
  Report r;
  r.json = header(to_string(t.kind), t.spec);
  r.json["identify"] = report::scsi_identity_to_json(*p, facts ? &*facts : nullptr);
  r.text = report::scsi_identity_to_text(*p, facts ? &*facts : nullptr);
  if (p->any_failed()) r.warnings.push_back("some SCSI commands failed; see probe_errors");
  return r;
}

// No passthrough (virtio-blk, NVMe, a file): say so, and show what sysfs knows.
Expected<Report> identify_without_device(Target& t, const std::optional<sysfs::DriveFacts>& facts) {
  if (!facts)
    return make_error(fmt::format("{}: {}, and sysfs knows nothing of it", t.spec,
                                  t.no_device_reason));
  Report r;
  r.json = header("file", t.spec);
  r.json["passthrough"] = {{"available", false}, {"reason", t.no_device_reason}};
  r.json["identify"] = {{"model", facts->model},
                        {"serial", facts->serial.empty() ? nlohmann::json() : nlohmann::json(facts->serial)},
                        {"firmware", facts->revision.empty() ? nlohmann::json() : nlohmann::json(facts->revision)},
                        {"capacity_sectors", facts->size_bytes() / facts->logical_block_bytes},
                        {"logical_sector_bytes", facts->logical_block_bytes},
                        {"source", "sysfs"}};
  r.text = fmt::format("Passthrough unavailable: {}\nShowing what Linux (sysfs) knows.\n",
                       t.no_device_reason);
  r.exit_code = kExitPartial;
  return r;
}

// An NVMe controller or namespace: Identify Controller, Identify Namespace (when the node is a
// namespace) and the SMART / Health log, through NvmeDevice. A failed controller identify is the
// run's error; a missing namespace or health log is a partial answer that says why.
Expected<Report> identify_nvme(Target& t) {
  auto dev = NvmeDevice::open(t.device_path);
  if (!dev) return make_error(fmt::format("{}: {}", t.spec, dev.error().message), dev.error().code);
  auto ctrl_bytes = (*dev)->identify_controller();
  if (!ctrl_bytes) return make_error(ctrl_bytes.error().message, ctrl_bytes.error().code);
  auto ctrl = probe::decode_nvme_controller(*ctrl_bytes);
  if (!ctrl) return make_error(fmt::format("{}: {}", t.spec, ctrl.error().message));
  report::NvmeIdentity id;
  id.controller = std::move(*ctrl);
  Report r;
  if (auto nsid = (*dev)->nsid()) {
    auto ns_bytes = (*dev)->identify_namespace(*nsid);
    auto ns = ns_bytes ? probe::decode_nvme_namespace(*ns_bytes, *nsid) : Expected<probe::NvmeNamespace>(ns_bytes.error());
    if (ns) id.ns = std::move(*ns);
    else id.ns_note = ns.error().message;
  } else {
    id.ns_note = "a controller node: name a namespace (/dev/nvmeXnY) for its size and formats";
  }
  auto log = (*dev)->smart_log();
  auto health = log ? probe::decode_nvme_health(*log) : Expected<probe::NvmeHealth>(log.error());
  if (health) id.health = std::move(*health);
  else id.health_error = health.error().message;
  r.json = header("nvme", t.spec);
  r.json["identify"] = report::nvme_identity_to_json(id);
  r.text = report::nvme_identity_to_text(id);
  if (!id.ns && (*dev)->nsid()) r.warnings.push_back(id.ns_note);
  if (!id.health) r.warnings.push_back(id.health_error);
  if (!r.warnings.empty()) r.exit_code = kExitPartial;
  return r;
}

}  // namespace

Expected<Report> identify_target(Target& t, const IdentifyOptions& o) {
  auto facts = host_facts(t, o);
  Expected<Report> r = make_error("");
  if (!t.device && !t.device_path.empty() && is_nvme_node(t.device_path, o.root)) r = identify_nvme(t);
  else if (!t.device) r = identify_without_device(t, facts);
  else if (t.device->info().ata_capable || t.kind == TargetKind::ata) r = identify_ata(t, o);
  else r = identify_scsi(t, facts);
  if (r) add_host(*r, facts);
  return r;
}

}  // namespace ds::app
