// What `drivescope ncq` judges besides the queue test (tests/queue.hpp: does the drive reorder
// queued reads?): what the drive claims and what the host does with its queue, read by src/app
// (IDENTIFY, INQUIRY, sysfs). src/report says the three together in one summary and one sentence
// (report::ncq_summary, ncq_sentence).
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


}  // namespace ds::measure
