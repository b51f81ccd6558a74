// The verdict of `drivescope ncq`: what the drive claims, what the host does with its queue and
// what the queue test measured (tests/queue.hpp: does the drive reorder queued reads?), in one
// summary ("claimed, enabled, not effective") and one plain sentence, e.g. "NCQ claimed (depth
// 32) and enabled by the host (depth 31), but the drive serves reads in arrival order". The claim
// and the host side are read by src/app (IDENTIFY, INQUIRY, sysfs); this is the analysis of what
// they and the measurement say together.
#pragma once
#include <optional>
#include <string>

#include "tests/queue.hpp"

namespace ds::measure {

struct NcqClaim {
  bool known = false;        // the drive could be asked
  bool claimed = false;
  std::string protocol;      // "NCQ", "TCQ", "command queuing"
  std::optional<unsigned> depth;
  std::string source;        // where the claim was read
  std::string note;          // why unknown
};

struct NcqHost {
  std::optional<bool> enabled;     // host depth > 1
  std::optional<unsigned> depth;
  std::string source;
  std::string scheduler;           // in effect during the measurement ("" none known)
  std::string original_scheduler;  // before drivescope switched it
  bool scheduler_switched = false;
  std::string scheduler_note;      // restored / could not switch / not applicable
};

std::string ncq_summary(const NcqClaim& c, const NcqHost& h, const std::optional<QueueResult>& q);
std::string ncq_sentence(const NcqClaim& c, const NcqHost& h, const std::optional<QueueResult>& q);

}  // namespace ds::measure
