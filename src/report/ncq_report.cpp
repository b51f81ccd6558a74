// `drivescope ncq`'s verdict in words: what the drive claims, what the host does with its queue
// and what the queue test measured, in one summary and one sentence (report/measure_report.hpp).
#include "report/measure_report.hpp"

#include <fmt/format.h>

namespace ds::report {

using measure::NcqClaim;
using measure::NcqHost;
using measure::QueueResult;

namespace {

std::string claim_phrase(const NcqClaim& c) {
  if (!c.known) return "Queuing support unknown" + (c.note.empty() ? std::string() : " (" + c.note + ")");
  if (!c.claimed) return "No command queuing claimed by the drive";
  std::string p = c.protocol == "command queuing" ? "Command queuing (CmdQue)" : c.protocol;
  return p + " claimed" + (c.depth ? fmt::format(" (depth {})", *c.depth) : std::string());
}

}  // namespace

std::string ncq_summary(const NcqClaim& c, const NcqHost& h, const std::optional<QueueResult>& q) {
  std::string s = !c.known ? "claim unknown" : c.claimed ? "claimed" : "not claimed";
  s += !h.enabled ? ", host depth unknown" : *h.enabled ? ", enabled" : ", not enabled";
  if (!q) s += ", effectiveness not measured";
  else if (!q->verdict.reorders) s += ", effectiveness inconclusive";
  else s += *q->verdict.reorders ? ", effective" : ", not effective";
  return s;
}

std::string ncq_sentence(const NcqClaim& c, const NcqHost& h, const std::optional<QueueResult>& q) {
  std::string s = claim_phrase(c);
  const bool enabled = h.enabled.value_or(false);
  if (!h.enabled) s += "; host queue depth unknown";
  else if (enabled && c.claimed) s += fmt::format(" and enabled by the host (depth {})", h.depth.value_or(0));
  else if (enabled) s += fmt::format("; the host queues up to {} requests", h.depth.value_or(0));
  else if (c.claimed) s += fmt::format(", but not enabled by the host (queue depth {})", h.depth.value_or(1));
  else s += fmt::format("; the host sends one command at a time (queue depth {})", h.depth.value_or(1));
  if (!q) return s + "; effectiveness not measured";
  const auto& v = q->verdict;
  if (!v.reorders) {
    if (v.no_positioning_cost) return s + "; effectiveness inconclusive: no positioning cost to save on this device";
    if (v.parallel_service)
      return s + fmt::format("; effectiveness inconclusive: the device serves requests in parallel (IOPS x{:.1f} "
                             "from depth 1 to {}, {:.0f} % out of order), not like a drive saving positioning time",
                             v.iops_gain, v.deepest, v.overtaken_share * 100);
    return s + "; effectiveness inconclusive: " + reorder_evidence_text(v);
  }
  if (*v.reorders)
    return s + fmt::format(", and the drive reorders queued reads (IOPS x{:.1f} from depth 1 to {})",
                           v.iops_gain, v.deepest);
  if (h.enabled && !enabled)
    return s + ", so the drive sees one read at a time and serves them in arrival order";
  return s + (c.claimed && enabled ? ", but" : ";") + " the drive serves reads in arrival order";
}

}  // namespace ds::report
