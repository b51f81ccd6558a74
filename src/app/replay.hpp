// The `replay` flow: read a trace (DiskSim validate, fio iolog, blkparse; tests/trace.hpp), open
// the target (writes under the same rules as `bench --write`), replay it with its timing
// (tests/replay.hpp) and report every request's service time, their distribution and, when the
// trace recorded the real drive's times, DiskSim's demerit figure against those.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "app/identify.hpp"
#include "tests/replay.hpp"

namespace ds::app {

struct ReplayRequest {
  std::string target;
  std::string trace_path;
  std::string format;               // empty: detect
  unsigned queue_depth = 32;        // open-loop traces only
  bool wrap = false;
  bool write = false;
  bool destructive = false;
  std::uint64_t seed = 1;           // simulated drive's noise
  bool breakdown_per_request = false;  // --breakdown: each request's parts too (simulated targets)
};

// The report of a finished replay (pure: the tests build one from a hand-made result). On a
// simulated target it also says where the drive's time went (app/replay_breakdown.hpp).
Report replay_report(const ReplayRequest& req, const measure::Trace& trace, const measure::ReplayResult& r);

Expected<Report> run_replay(const ReplayRequest& req);

}  // namespace ds::app
