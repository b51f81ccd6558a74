// The queue test's writers (bench and ncq).
#include "report/measure_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "report/json_write.hpp"
#include "tests/result_keys.hpp"

namespace ds::report {

using namespace measure;

nlohmann::json queue_to_json(const QueueResult& r) {
  using nlohmann::json;
  namespace K = key::queue;
  namespace D = key::queue_depth;
  namespace H = key::histogram_bucket;
  json depths = json::array();
  for (const auto& d : r.depths) {
    json h = json::array();
    for (const auto& b : d.coarse.buckets())
      h.push_back({{H::lower_ms, r4(static_cast<double>(b.lower) * 1e-6)},
                   {H::upper_ms, r4(static_cast<double>(b.upper + 1) * 1e-6)},
                   {H::count, b.count}});
    depths.push_back({{D::depth, d.depth},
                      {D::reached_depth, d.reached_depth},
                      {D::ios, d.ios},
                      {D::iops, r3(d.iops)},
                      {D::iops_rel_se, r4(d.iops_rel_se)},
                      {D::mean_ms, r4(d.mean_ms)},
                      {D::p50_ms, r4(d.p50_ms)},
                      {D::p90_ms, r4(d.p90_ms)},
                      {D::p99_ms, r4(d.p99_ms)},
                      {D::max_ms, r4(d.max_ms)},
                      {D::stddev_ms, r4(d.stddev_ms)},
                      {D::overtaken_share, r4(d.overtaken_share)},
                      {D::drive_time_s, r3(d.drive_time_s)},
                      {D::histogram, std::move(h)}});
  }
  const auto& v = r.verdict;
  return json{{K::depths, std::move(depths)},
              {K::reorders, v.reorders ? json(*v.reorders) : json(nullptr)},
              {K::confidence, v.confidence ? json(r3(*v.confidence)) : json(nullptr)},
              {K::evidence, reorder_evidence_text(v)},
              {K::iops_gain, r3(v.iops_gain)},
              {K::iops_exponent, r3(v.iops_exponent)},
              {K::latency_exponent, r3(v.latency_exponent)},
              {K::no_positioning_cost, v.no_positioning_cost},
              {K::scheduler, r.scheduler.empty() ? json(nullptr) : json(r.scheduler)},
              {K::block_bytes, r.block_bytes},
              {K::drive_time_s, r3(r.drive_time_s)},
              {K::notes, r.notes},
              {K::withheld, withheld_json(v.undecided ? std::vector<Withheld>{*v.undecided} : std::vector<Withheld>{})}};
}

std::string reorder_evidence_text(const ReorderVerdict& v) {
  if (v.undecided) return withheld_text(*v.undecided);
  if (!v.reorders) return {};
  return std::string(*v.reorders ? "reorders: " : "serves in arrival order: ") +
         reorder_comparison_text(reorder_comparison(v));
}

std::string reorder_verdict_text(const ReorderVerdict& v) {
  const char* what = v.reorders               ? (*v.reorders ? "yes" : "no")
                     : v.no_positioning_cost  ? "no positioning cost to save"
                     : v.parallel_service     ? "no: parallel service"
                                              : "inconclusive";
  return v.confidence ? fmt::format("{} (confidence {:.1f} %)", what, *v.confidence * 100) : std::string(what);
}

std::string queue_to_text(const QueueResult& r) {
  std::string o = fmt::format("queue: random {}-byte reads by depth ({:.1f} s{})\n", r.block_bytes,
                              r.drive_time_s,
                              r.scheduler.empty() ? std::string() : ", scheduler " + r.scheduler);
  // The seed's 3-D picture in one row per depth: the share of accesses in each latency band.
  static constexpr double kBands[] = {10, 20, 50, 100, 200};
  o += fmt::format("{:>6} {:>9} {:>9} {:>9} {:>9} {:>8}   {:>6} {:>6} {:>6} {:>6} {:>7} {:>6}\n", "depth",
                   "IOPS", "mean ms", "p50 ms", "p99 ms", "overtook", "<10", "10-20", "20-50", "50-100",
                   "100-200", ">200");
  for (const auto& d : r.depths) {
    double share[6] = {};
    for (const auto& b : d.histogram.buckets()) {
      const double ms = static_cast<double>(b.lower) * 1e-6;
      std::size_t k = 0;
      while (k < 5 && ms >= kBands[k]) ++k;
      share[k] += static_cast<double>(b.count);
    }
    std::string bands;
    for (double& s : share) {
      s = d.ios ? 100.0 * s / static_cast<double>(d.ios) : 0;
      bands += fmt::format(" {:>5.0f}%", s);
    }
    o += fmt::format("{:>6} {:>9.1f} {:>9.2f} {:>9.2f} {:>9.2f} {:>7.0f}%  {}\n",
                     d.reached_depth == d.depth ? std::to_string(d.depth)
                                                : fmt::format("{}({})", d.depth, d.reached_depth),
                     d.iops, d.mean_ms, d.p50_ms, d.p99_ms, d.overtaken_share * 100, bands);
  }
  o += fmt::format("reorders: {}\n  {}\n", reorder_verdict_text(r.verdict), reorder_evidence_text(r.verdict));
  for (const auto& n : r.notes) o += "  note: " + n + "\n";
  return o;
}

}  // namespace ds::report
