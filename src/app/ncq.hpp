// `drivescope ncq TARGET`: the three layers behind "does this drive really do NCQ/TCQ?"
//   claimed   — the drive says so: IDENTIFY w76 bit 8 + w75 depth (NCQ, ACS-3 7.12.7.41/7.12.7.40),
//               the legacy TCQ bits w83/w86 bit 1 (ATA/ATAPI-7), or INQUIRY byte 7 CmdQue (SPC-4
//               6.4.2; SCSI reports no depth there);
//   enabled   — the host sends more than one command at a time: Linux's SCSI mid-layer
//               device/queue_depth (libata sets it to the NCQ depth it negotiated, 1 without NCQ);
//               a simulated drive has no Linux host, its host depth is the I/O engine's queue;
//   effective — the drive measurably reorders queued reads (the queue test, tests/queue.hpp),
//               measured with the `none` scheduler when the tool may switch it (restored after).
// One plain sentence says it all, e.g. "NCQ claimed (depth 32) and enabled by the host (depth 31),
// but the drive serves reads in arrival order".
#pragma once
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "app/identify.hpp"
#include "app/target.hpp"
#include "probe/identify.hpp"
#include "report/measure_report.hpp"
#include "tests/ncq_verdict.hpp"
#include "tests/queue.hpp"

namespace ds::app {

using measure::NcqClaim;
using measure::NcqHost;

struct NcqOptions {
  bool measure = true;             // run the queue test (effective)
  bool switch_scheduler = true;    // use `none` during the measurement when the kernel offers it
  measure::QueueOptions queue;     // depths, budget (default 12 s of drive time), seed
  std::filesystem::path root = "/";
  std::optional<std::filesystem::path> state_dir;  // restore state file (default: restore.hpp's)
  std::function<bool()> stop;      // Ctrl-C
};

struct NcqResult {
  NcqClaim claim;
  NcqHost host;
  std::optional<measure::QueueResult> queue;
  std::string queue_error;
  bool queue_device_failed = false;  // the queue test stopped because the device failed (exit 5)
  std::optional<bool> effective;   // the queue verdict (null: inconclusive or not measured)
  std::string summary;             // "claimed, enabled, not effective"
  std::string sentence;            // the plain sentence
  std::vector<std::string> warnings;
};

// Pure pieces (tested on their own): the claim from IDENTIFY or INQUIRY, and the verdict in words
// (report/measure_report.hpp).
NcqClaim claim_from_identify(const probe::AtaIdentity& id);
NcqClaim claim_from_inquiry(bool cmd_que);
using report::ncq_sentence;
using report::ncq_summary;

// The target must have been opened with want_io when o.measure is set.
Expected<NcqResult> run_ncq(Target& t, const NcqOptions& o);
Report ncq_report(const Target& t, const NcqResult& r);

}  // namespace ds::app
