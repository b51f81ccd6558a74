#include "app/smr.hpp"

#include <fmt/format.h>

#include <array>

#include "drivescope/commands.hpp"
#include "probe/ata_zoned.hpp"
#include "probe/identify.hpp"
#include "probe/scsi_decode.hpp"
#include "probe/scsi_probe.hpp"
#include "report/measure_report.hpp"

namespace ds::app {

using nlohmann::json;

namespace {

// "52156 zones (REPORT ZONES); the first 63: 63 sequential write required, of 524288 blocks".
std::string zones_summary(const probe::ZoneReport& z, std::string_view source) {
  std::string types;
  for (const auto& t : z.types)
    types += fmt::format("{}{} {}", types.empty() ? "" : ", ", t.zones, probe::zone_type_name(t.type));
  std::uint64_t length = 0, most = 0;
  for (const auto& s : z.sizes)
    if (s.zones > most) most = s.zones, length = s.length;
  return fmt::format("{} lists {} zones; the first {}: {}{}", source, z.zones_listed, z.zones.size(),
                     types.empty() ? "none" : types, length ? fmt::format(", of {} blocks", length) : "");
}

SmrHints ata_hints(Device& dev, const SmrOptions& o) {
  SmrHints h;
  std::array<std::uint8_t, 512> block{};
  auto res = ata::identify_device(dev, block);
  if (!res.ok()) {
    h.note = "IDENTIFY DEVICE failed: " + res.message;
    return h;
  }
  auto id = probe::decode_identify(block, probe::DecodeOptions{.allow_bad_checksum = true});
  if (!id) {
    h.note = "IDENTIFY DEVICE not decodable: " + id.error().message;
    return h;
  }
  h.known = true;
  h.source = "IDENTIFY DEVICE";
  h.zoned = id->zoned;
  const auto z = probe::probe_ata_zoned(dev, id->zoned);
  h.host_managed = z.host_managed.value_or(false);
  if (z.zones) h.zones = zones_summary(*z.zones, "ZAC REPORT ZONES EXT");
  h.trim = id->trim.supported;
  if (id->rotation_rate_rpm) h.rpm = *id->rotation_rate_rpm;
  const auto db = drivedb_view(id->model, id->firmware, o.drivedb, o.root);
  if (db.match) {
    h.drivedb_family = db.match->entry.family;
    h.drivedb_smr = db.match->smr;
  } else {
    h.drivedb_note = db.sources.empty() ? db.note : "the drive matches no entry of smartmontools' drive database";
  }
  return h;
}

SmrHints scsi_hints(Device& dev) {
  SmrHints h;
  auto p = probe::probe_scsi(dev);
  if (!p) {
    h.note = "SCSI probe failed: " + p.error().message;
    return h;
  }
  h.known = p->inquiry.has_value();
  h.source = "INQUIRY + VPD B1h";
  if (p->inquiry) h.host_managed = p->inquiry->device_type == 0x14;
  if (p->block_characteristics) {
    h.zoned = p->block_characteristics->zoned;
    if (auto rpm = p->block_characteristics->rotation_rate_rpm()) h.rpm = *rpm;
  }
  if (p->capacity) h.trim = p->capacity->lbpme;
  if (p->zones) h.zones = zones_summary(*p->zones, "ZBC REPORT ZONES");
  return h;
}

SmrHints ask_drive(Target& t, const SmrOptions& o) {
  if (!t.device) {
    SmrHints h;
    h.note = "no command passthrough: " + t.no_device_reason;
    return h;
  }
  if (t.device->info().ata_capable || t.kind == TargetKind::ata) return ata_hints(*t.device, o);
  return scsi_hints(*t.device);
}

std::string size_text(double bytes) {
  return bytes >= 1e9 ? fmt::format("{:.1f} GB", bytes / 1e9) : fmt::format("{:.0f} MB", bytes / 1e6);
}

std::string reported_verdict(const SmrHints& h) {
  if (h.host_managed) return "host-managed";
  if (h.zoned == 1) return "host-aware";
  if (h.zoned == 2) return "dm-smr";
  // The drive says nothing, but its family is listed as shingled: most drive-managed SMR drives
  // report no zoned bits at all, and the database's "(SMR)" is what their makers published.
  if (h.drivedb_smr.value_or(false)) return "dm-smr";
  return "";
}

}  // namespace

std::vector<std::string> hint_evidence(const SmrHints& h) {
  std::vector<std::string> e;
  if (!h.known) {
    e.push_back("the drive could not be asked (" + h.note + ")");
    return e;
  }
  if (h.host_managed) e.push_back("the device type is host-managed zoned (ZBC, peripheral device type 14h in INQUIRY)");
  const char* zoned[] = {"no zoned capabilities", "host aware", "device managed", "a reserved value"};
  e.push_back(fmt::format("{} reports {}{}", h.source, zoned[h.zoned & 3],
                          h.source == "IDENTIFY DEVICE" ? " (word 69 bits 1:0)" : " (VPD B1h ZONED)"));
  if (!h.zones.empty()) e.push_back(h.zones);
  const bool rotating = h.rpm && *h.rpm > 1;
  if (h.trim && *h.trim && rotating)
    e.push_back(fmt::format("TRIM/unmap on a rotating drive ({} rpm): a hint of drive-managed SMR "
                            "(conventional rotating drives seldom have it)", *h.rpm));
  else if (h.trim && rotating)
    e.push_back(fmt::format("no TRIM/unmap on this rotating drive ({} rpm): no hint either way "
                            "(many drive-managed SMR drives have none)", *h.rpm));
  if (h.rpm && *h.rpm == 1) e.push_back("the drive reports solid-state media: not a shingled disk");
  if (h.drivedb_family) {
    const std::string fam = h.drivedb_family->empty() ? "an entry that names no family" : "the family \"" + *h.drivedb_family + "\"";
    e.push_back(h.drivedb_smr ? fmt::format("smartmontools' drive database lists it under {}: {} recording", fam,
                                            *h.drivedb_smr ? "shingled (SMR)" : "conventional (CMR)")
                              : fmt::format("smartmontools' drive database lists it under {}, which does not say SMR or CMR", fam));
  } else if (!h.drivedb_note.empty()) {
    e.push_back("smartmontools' drive database: " + h.drivedb_note);
  }
  return e;
}

void decide_smr(SmrResult& r) {
  r.evidence = hint_evidence(r.hints);
  const std::string reported = reported_verdict(r.hints);
  const measure::SmrProbeResult* p = r.probe ? &*r.probe : nullptr;
  if (p) r.evidence.insert(r.evidence.end(), p->evidence.begin(), p->evidence.end());
  else if (!r.hints.host_managed)  // a host-managed drive is not probed (run_smr): the line would mislead
    r.evidence.push_back("reads alone cannot show drive-managed SMR (they differ only for data a write put in the media cache); --write runs the timing probe");
  if (p && p->verdict == "dm-smr") {
    r.verdict = "dm-smr";
    std::string idle = !p->cleans_when_idle ? "idle cleaning not checked"
                       : *p->cleans_when_idle ? "cleaning goes on while idle" : "no cleaning seen while idle";
    r.sentence = fmt::format("drive-managed SMR: about {} of media cache, then random writes fall to {:.2f} MB/s; {}",
                             size_text(static_cast<double>(p->cache_bytes_estimate)), p->after_cliff_mb_s, idle);
    return;
  }
  if (!reported.empty()) {
    r.verdict = reported;
    const char* what = reported == "dm-smr" ? "drive-managed SMR" : reported == "host-aware" ? "host-aware zoned (SMR)"
                                                                                           : "host-managed zoned (SMR)";
    const bool from_db = reported == "dm-smr" && r.hints.zoned != 2;
    const std::string who = from_db ? "as smartmontools' drive database lists its family (\"" + r.hints.drivedb_family.value_or("") +
                                          "\"); the drive itself reports no zoned capabilities"
                                    : std::string("as the drive reports");
    r.sentence = fmt::format("{}, {}{}", what, who,
                             p ? " (the timing probe saw no cliff)" : reported == "dm-smr" ? "; --write measures its media cache" : "");
    return;
  }
  if (p && p->verdict == "cmr") {
    r.verdict = "cmr";
    r.sentence = "no sign of SMR: " + (p->evidence.empty() ? std::string("no cliff") : p->evidence.front().substr(p->evidence.front().find(':') + 2));
    return;
  }
  // A family its maker lists as conventional beside a shingled one ("Toshiba P300 (CMR)"): the
  // database's word, unless the probe ran and could not tell (its doubt is news).
  if (!p && r.hints.drivedb_smr && !*r.hints.drivedb_smr) {
    r.verdict = "cmr";
    r.sentence = fmt::format("conventional recording (CMR), as smartmontools' drive database lists its family (\"{}\"); "
                             "--write runs the timing probe", r.hints.drivedb_family.value_or(""));
    return;
  }
  r.verdict = "unknown";
  r.sentence = p ? "unknown: " + (p->evidence.empty() ? std::string("the probe could not judge") : p->evidence.front())
                 : std::string("unknown: ") + (r.hints.known ? "the drive reports no zoned capabilities" : "the drive could not be asked") +
                       " and reads cannot show drive-managed SMR; --write runs the timing probe";
}

Expected<SmrResult> run_smr(Target& t, const SmrOptions& o, const measure::ProgressFn* progress) {
  SmrResult r;
  r.hints = ask_drive(t, o);
  if (!r.hints.known) r.warnings.push_back("drive not asked: " + r.hints.note);
  if (o.write && r.hints.host_managed) {
    // Its random writes would be refused (UNALIGNED WRITE COMMAND): the drive has said what it is.
    r.warnings.push_back("the write probe was not run: a host-managed drive refuses writes that do not start at "
                         "their zone's write pointer");
  } else if (o.write) {
    if (!t.io) return make_error("the smr probe needs block I/O on the target");
    auto p = measure::run_smr_probe(*t.io, o.probe, progress);
    if (!p) return p.error();
    r.probe = std::move(*p);
  }
  decide_smr(r);
  return r;
}

Report smr_report(const Target& t, const SmrResult& r) {
  Report rep;
  const measure::SmrProbeResult* p = r.probe ? &*r.probe : nullptr;
  auto opt_u = [](const std::optional<std::uint64_t>& v) { return v ? json(*v) : json(nullptr); };
  json hints{{"known", r.hints.known},
             {"source", r.hints.source},
             {"zoned", r.hints.known ? json(scsi::zoned_name(r.hints.zoned)) : json(nullptr)},
             {"host_managed", r.hints.host_managed},
             {"trim", r.hints.trim ? json(*r.hints.trim) : json(nullptr)},
             {"rotation_rate_rpm", r.hints.rpm ? json(*r.hints.rpm) : json(nullptr)},
             {"drivedb_family", r.hints.drivedb_family ? json(*r.hints.drivedb_family) : json(nullptr)},
             {"drivedb_smr", r.hints.drivedb_smr ? json(*r.hints.drivedb_smr) : json(nullptr)}};
  if (!r.hints.note.empty()) hints["note"] = r.hints.note;
  json smr{{"verdict", r.verdict},
           {"sentence", r.sentence},
           {"media_cache_bytes_estimate", p && p->cliff ? json(p->cache_bytes_estimate) : json(nullptr)},
           {"band_bytes_estimate", p ? opt_u(p->band_bytes_estimate) : json(nullptr)},
           {"cleans_when_idle", p && p->cleans_when_idle ? json(*p->cleans_when_idle) : json(nullptr)},
           {"evidence", r.evidence},
           {"hints", hints},
           {"probe", p ? report::smr_probe_to_json(*p) : json(nullptr)}};
  rep.json = json{{"drivescope", {{"version", version()}}},
                  {"target", {{"kind", to_string(t.kind)}, {"name", t.spec}}},
                  {"smr", smr},
                  {"warnings", r.warnings}};
  std::string& o = rep.text;
  o = fmt::format("SMR on {}\n  {}\n", t.spec, r.sentence);
  if (p && p->cliff) {
    o += fmt::format("  media cache:  about {} (bytes written before the cliff)\n", size_text(static_cast<double>(p->cache_bytes_estimate)));
    o += p->band_bytes_estimate ? fmt::format("  band:         about {}\n", size_text(static_cast<double>(*p->band_bytes_estimate)))
                                : std::string("  band:         not estimated\n");
  }
  o += "  evidence:\n";
  for (const auto& e : r.evidence) o += "    - " + e + "\n";
  if (p)
    for (const auto& n : report::notes_with_withheld(p->notes, p->withheld)) o += "  note: " + n + "\n";
  rep.warnings = r.warnings;
  if (p && p->interrupted) rep.exit_code = kExitInterrupted;
  return rep;
}

}  // namespace ds::app
