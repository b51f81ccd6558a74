// `replay` on a simulated target: where the drive's time went. The drive's service hook
// (sim/drive.hpp) gives each request's service time by part (sim/breakdown.hpp); the report
// gives the mean of each part over all requests, the reads and the writes, and with --breakdown
// each request's. Apart from app/replay.hpp so that what includes that needs no simulator header.
#pragma once
#include <optional>
#include <vector>

#include "app/replay.hpp"
#include "sim/breakdown.hpp"

namespace ds::app {

// Each request's parts by its index in the trace (its tag); empty on any other target.
using ReplayBreakdowns = std::vector<std::optional<sim::ServiceBreakdown>>;

// replay_report with `parts`: the "breakdown" section (null when parts is empty).
Report replay_report(const ReplayRequest& req, const measure::Trace& trace, const measure::ReplayResult& r,
                     const ReplayBreakdowns& parts);

}  // namespace ds::app
