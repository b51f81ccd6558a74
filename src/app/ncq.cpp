#include "app/ncq.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "app/features.hpp"
#include "app/restore.hpp"
#include "drivescope/commands.hpp"
#include "probe/scsi_decode.hpp"
#include "probe/sysfs.hpp"
#include "report/measure_report.hpp"
#include "tests/result_keys.hpp"

namespace ds::app {

namespace fs = std::filesystem;
using nlohmann::json;

NcqClaim claim_from_identify(const probe::AtaIdentity& id) {
  NcqClaim c;
  c.known = true;
  if (id.ncq.supported) {
    // ACS-3 7.12.7.41 (w76 bit 8) and 7.12.7.40 (w75 bits 4:0 = depth − 1).
    c.claimed = true;
    c.protocol = "NCQ";
    if (id.ncq_depth) c.depth = id.ncq_depth;
    c.source = "IDENTIFY word 76 bit 8, depth from word 75";
  } else if (id.tcq.supported) {
    // ATA/ATAPI-7 w83 bit 1 (TCQ, READ/WRITE QUEUED), depth also in w75.
    c.claimed = true;
    c.protocol = "TCQ";
    if (id.tcq_depth) c.depth = id.tcq_depth;
    c.source = "IDENTIFY word 83 bit 1 (legacy TCQ), depth from word 75";
  } else {
    c.protocol = "NCQ";
    c.source = "IDENTIFY words 76 and 83: neither NCQ nor TCQ";
  }
  return c;
}

NcqClaim claim_from_inquiry(bool cmd_que) {
  NcqClaim c;
  c.known = true;
  c.claimed = cmd_que;
  c.protocol = "command queuing";
  c.source = "INQUIRY byte 7 bit 1 (CmdQue); SCSI reports no queue depth there";
  return c;
}

namespace {

// The Linux side of a real device: host queue depth and scheduler from sysfs.
std::optional<sysfs::DriveFacts> facts_of(const Target& t, const fs::path& root) {
  if (t.block_name.empty()) return std::nullopt;
  auto f = sysfs::facts_for_device(t.block_name, root);
  if (!f) return std::nullopt;
  return std::move(*f);
}

NcqClaim ask_drive(Target& t) {
  NcqClaim c;
  if (!t.device) {
    c.note = "no command passthrough: " + t.no_device_reason;
    return c;
  }
  if (t.device->info().ata_capable || t.kind == TargetKind::ata) {
    std::array<std::uint8_t, 512> block{};
    auto res = ata::identify_device(*t.device, block);
    if (!res.ok()) {
      c.note = "IDENTIFY DEVICE failed: " + res.message;
      return c;
    }
    auto id = probe::decode_identify(block, probe::DecodeOptions{.allow_bad_checksum = true});
    if (!id) {
      c.note = "IDENTIFY DEVICE not decodable: " + id.error().message;
      return c;
    }
    return claim_from_identify(*id);
  }
  std::array<std::uint8_t, 96> inq{};
  auto res = scsi::inquiry(*t.device, inq);
  if (!res.ok()) {
    c.note = "INQUIRY failed: " + res.message;
    return c;
  }
  auto d = scsi::decode_standard_inquiry(inq);
  if (!d) {
    c.note = "INQUIRY not decodable: " + d.error().message;
    return c;
  }
  return claim_from_inquiry(d->cmd_que);
}

// What the host does with the drive's queue: Linux's depth from sysfs, or the I/O engine's own
// queue in front of a simulated drive.
NcqHost host_side(const Target& t, const std::optional<sysfs::DriveFacts>& facts) {
  NcqHost h;
  if (facts) {
    if (facts->queue_depth) {
      h.depth = *facts->queue_depth;
      h.enabled = *facts->queue_depth > 1;
      h.source = "sysfs " + facts->name + "/device/queue_depth (SCSI mid-layer; libata sets it to the NCQ depth in use)";
    } else {
      h.source = "sysfs has no device/queue_depth for " + facts->name;
    }
    h.scheduler = h.original_scheduler = facts->scheduler;
  } else if (t.kind == TargetKind::sim && t.io) {
    h.depth = t.io->info().max_queue_depth;
    h.enabled = *h.depth > 1;
    h.source = fmt::format("simulated drive: no Linux host; the host depth is the I/O engine's "
                           "queue ({} requests)", *h.depth);
    h.scheduler_note = "no Linux I/O scheduler in front of a simulated drive";
  } else {
    h.source = "not a Linux block device: host queue depth unknown";
  }
  return h;
}

// The scheduler sorts requests too: measure with `none` when the kernel offers it, through a
// RestoreStack so the original comes back on every exit path (docs/features.md). fc and stack
// stay empty when nothing was switched; a leftover state file from an earlier run is an error.
std::optional<Error> switch_to_none_scheduler(Target& t, const NcqOptions& o, const sysfs::DriveFacts& facts,
                                              NcqResult& r, std::optional<FeatureControl>& fc,
                                              std::optional<RestoreStack>& stack) {
  const bool offered = std::find(facts.schedulers.begin(), facts.schedulers.end(), "none") !=
                       facts.schedulers.end();
  if (!offered) {
    r.host.scheduler_note = "the kernel does not offer the none scheduler here";
  } else {
    std::optional<fs::path> file;
    if (o.state_dir) {
      std::error_code ec;
      fs::create_directories(*o.state_dir, ec);
      file = *o.state_dir / state_file_name(t.spec, t.block_name);
    } else if (auto d = state_dir(); d) {
      file = *d / state_file_name(t.spec, t.block_name);
    } else {
      r.warnings.push_back("no restore state directory (" + d.error().message +
                           "): the scheduler is restored in-process only");
    }
    fc.emplace(t.device.get(), t.block_name, o.root);
    RestoreState header;
    header.target = t.spec;
    header.kind = std::string(to_string(t.kind));
    header.device_path = t.device_path;
    header.block_name = t.block_name;
    stack.emplace(*fc, header, file);
    if (auto ok = stack->check_no_leftover(); !ok) return ok.error();
    auto s = stack->change(FeatureId::scheduler, FeatureValue{true, {}, "none"});
    if (s) {
      r.host.scheduler = "none";
      r.host.scheduler_switched = true;
    } else {
      r.host.scheduler_note = "could not switch to none: " + s.error().message;
      r.warnings.push_back("measured with the " + facts.scheduler + " scheduler, which sorts requests: " +
                           s.error().message);
    }
  }
  return std::nullopt;
}

// A few reads first: the first queued command after probing may be slow (QEMU's aborted-command
// quirk, a drive spinning up); they are not counted.
void warm_up(IoEngine& io) {
  measure::LoopOptions warm;
  warm.depth = 1;
  warm.max_ios = 4;
  warm.target_s = 0;
  warm.min_ios = 0;
  const std::uint32_t lb = io.info().logical_block_bytes ? io.info().logical_block_bytes : 512;
  measure::run_closed_loop(io, warm, [lb](std::uint64_t seq) {
    IoRequest q;
    q.offset_bytes = seq * 4096 / lb * lb;
    q.length_bytes = lb;
    return q;
  });
}

}  // namespace

Expected<NcqResult> run_ncq(Target& t, const NcqOptions& o) {
  if (o.measure && !t.io) return make_error("ncq: the target has no block I/O (open it with I/O)");
  NcqResult r;
  r.claim = ask_drive(t);
  auto facts = facts_of(t, o.root);
  r.host = host_side(t, facts);
  if (!o.measure) {
    r.summary = ncq_summary(r.claim, r.host, std::nullopt);
    r.sentence = ncq_sentence(r.claim, r.host, std::nullopt);
    return r;
  }

  std::optional<FeatureControl> fc;
  std::optional<RestoreStack> stack;
  if (facts && o.switch_scheduler && !facts->scheduler.empty() && facts->scheduler != "none")
    if (auto err = switch_to_none_scheduler(t, o, *facts, r, fc, stack)) return *err;
  warm_up(*t.io);

  measure::QueueOptions qo = o.queue;
  qo.scheduler = r.host.scheduler;
  if (o.stop) qo.stop = o.stop;
  auto q = measure::run_queue(*t.io, qo);
  if (stack) {
    for (const auto& m : stack->restore_all()) r.host.scheduler_note += (r.host.scheduler_note.empty() ? "" : "; ") + m;
    if (!stack->all_restored()) r.warnings.push_back("the scheduler could not be restored: " + r.host.scheduler_note);
  }
  if (q) {
    // Depths measured before a failed read are kept, and the failure is the run's: exit 5 and the
    // LBA, as when the first depth fails (a drive failing every 7th read through virtio-blk had
    // exited 0 with the failure only in the notes).
    if (q->error) {
      r.queue_error = q->error->message;
      r.queue_device_failed = device_failure(*q->error);
      r.warnings.push_back("queue test failed: " + r.queue_error);
    }
    r.queue = std::move(*q);
    r.effective = r.queue->verdict.reorders;
  } else {
    r.queue_error = q.error().message;
    r.queue_device_failed = device_failure(q.error());
    r.warnings.push_back("queue test failed: " + r.queue_error);
  }
  r.summary = ncq_summary(r.claim, r.host, r.queue);
  r.sentence = ncq_sentence(r.claim, r.host, r.queue);
  return r;
}

Report ncq_report(const Target& t, const NcqResult& r) {
  Report rep;
  auto opt_u = [](const std::optional<unsigned>& v) { return v ? json(*v) : json(nullptr); };
  auto opt_b = [](const std::optional<bool>& v) { return v ? json(*v) : json(nullptr); };
  json claimed{{"known", r.claim.known},
               {"supported", r.claim.known ? json(r.claim.claimed) : json(nullptr)},
               {"protocol", r.claim.protocol},
               {"depth", opt_u(r.claim.depth)},
               {"source", r.claim.source}};
  if (!r.claim.note.empty()) claimed["note"] = r.claim.note;
  json host{{"enabled", opt_b(r.host.enabled)},
            {"queue_depth", opt_u(r.host.depth)},
            {"source", r.host.source},
            {"scheduler", r.host.scheduler.empty() ? json(nullptr) : json(r.host.scheduler)},
            {"original_scheduler", r.host.original_scheduler.empty() ? json(nullptr) : json(r.host.original_scheduler)},
            {"scheduler_switched", r.host.scheduler_switched}};
  if (!r.host.scheduler_note.empty()) host["scheduler_note"] = r.host.scheduler_note;
  json eff{{"reorders", opt_b(r.effective)},
           {"measured", r.queue.has_value()}};
  if (r.queue) {
    const auto& c = r.queue->verdict.confidence;
    eff["confidence"] = c ? json(std::round(*c * 1000) / 1000) : json(nullptr);
    eff["evidence"] = report::reorder_evidence_text(r.queue->verdict);
    eff["no_positioning_cost"] = r.queue->verdict.no_positioning_cost;
    eff["parallel_service"] = r.queue->verdict.parallel_service;
  }
  if (!r.queue_error.empty()) eff["error"] = r.queue_error;
  rep.json = json{{"drivescope", {{"version", version()}}},
                  {"target", {{"kind", to_string(t.kind)}, {"name", t.spec}}},
                  {"ncq", {{"claimed", claimed}, {"enabled", host}, {"effective", eff},
                           {"summary", r.summary}, {"sentence", r.sentence}}},
                  {"warnings", r.warnings}};
  if (r.claim.known && r.claim.protocol != "command queuing") {
    const bool ncq = r.claim.protocol == "NCQ" && r.claim.claimed;
    const bool tcq = r.claim.protocol == "TCQ" && r.claim.claimed;
    rep.json["identify"] = {{"ncq", {{"supported", ncq}, {"depth", ncq ? opt_u(r.claim.depth) : json(nullptr)}}},
                            {"tcq", {{"supported", tcq}, {"depth", tcq ? opt_u(r.claim.depth) : json(nullptr)}}}};
  }
  if (r.queue) rep.json[measure::key::kDocumentKey] = {{measure::key::tests::queue, report::queue_to_json(*r.queue)}};

  std::string& o = rep.text;
  o = fmt::format("Command queuing on {}\n", t.spec);
  o += fmt::format("  claimed:   {}{}\n             ({})\n",
                   !r.claim.known ? "unknown" : r.claim.claimed ? "yes, " + r.claim.protocol : "no",
                   r.claim.depth ? fmt::format(", depth {}", *r.claim.depth) : std::string(),
                   r.claim.known ? r.claim.source : r.claim.note);
  o += fmt::format("  enabled:   {}{}\n             ({})\n",
                   !r.host.enabled ? "unknown" : *r.host.enabled ? "yes" : "no",
                   r.host.depth ? fmt::format(", host queue depth {}", *r.host.depth) : std::string(),
                   r.host.source);
  if (r.queue) {
    o += fmt::format("  effective: {}\n             ({})\n", report::reorder_verdict_text(r.queue->verdict),
                     report::reorder_evidence_text(r.queue->verdict));
  } else {
    o += fmt::format("  effective: not measured{}\n", r.queue_error.empty() ? "" : ": " + r.queue_error);
  }
  std::string sched = r.host.scheduler.empty() ? "none known" : r.host.scheduler;
  if (r.host.scheduler_switched) sched += " (switched from " + r.host.original_scheduler + ")";
  if (!r.host.scheduler_note.empty()) sched += "; " + r.host.scheduler_note;
  o += "  scheduler: " + sched + "\n";
  if (r.queue) o += "\n" + report::queue_to_text(*r.queue);
  o += "\n" + r.sentence + ".\n";
  rep.warnings = r.warnings;
  if (!r.queue_error.empty()) rep.exit_code = r.queue_device_failed ? kExitDevice : kExitPartial;
  if (r.queue && r.queue->interrupted) rep.exit_code = kExitInterrupted;
  return rep;
}

}  // namespace ds::app
