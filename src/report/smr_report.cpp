// The SMR probe's writer.
#include "report/measure_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "report/json_write.hpp"
#include "tests/result_keys.hpp"

namespace ds::report {

using namespace measure;

nlohmann::json smr_probe_to_json(const SmrProbeResult& r) {
  using nlohmann::json;
  json rate = json::array();
  for (const auto& p : r.rate) rate.push_back({{"t_s", p.t_s}, {"written_mb", p.written_mb}, {"mb_s", p.mb_s}});
  auto opt_u = [](const std::optional<std::uint64_t>& v) { return v ? json(*v) : json(nullptr); };
  return json{{"verdict", r.verdict},
              {"read_access_ms", r.read_access_ms},
              {"sequential_mb_s", r.sequential_mb_s},
              {"writes", r.writes},
              {"bytes_written", r.bytes_written},
              {"write_drive_time_s", r.write_drive_s},
              {"fast_write_ms", r.fast_write_ms},
              {"write_vs_read", r.write_vs_read},
              {"cliff", r.cliff},
              {"media_cache_bytes_estimate", r.cliff ? json(r.cache_bytes_estimate) : json(nullptr)},
              {"slow_write_ms", r.cliff ? json(r.slow_write_ms) : json(nullptr)},
              {"after_cliff_mb_s", r.cliff ? json(r.after_cliff_mb_s) : json(nullptr)},
              {"band_bytes_estimate", opt_u(r.band_bytes_estimate)},
              {"cleans_when_idle", r.cleans_when_idle ? json(*r.cleans_when_idle) : json(nullptr)},
              {"median_sequential_mb_s", r.median_sequential_mb_s},
              {"writes_per_slow", r.cliff ? json(r.writes_per_slow) : json(nullptr)},
              {"idle_check", {{"idle_s", r.idle_s}, {"fast_run_after", r.fast_run_after_idle},
                              {"checked_after", r.checked_after_idle}}},
              {"rate", rate},
              {"interrupted", r.interrupted},
              {"drive_time_s", r.drive_time_s},
              {"evidence", r.evidence},
              {"notes", notes_with_withheld(r.notes, r.withheld)},
              {"withheld", withheld_json(r.withheld)}};
}

}  // namespace ds::report
