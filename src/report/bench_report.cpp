// The bench's writers: access, transfer, cache, blocksize and positioning, and the bench document.
#include "report/measure_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "report/json_write.hpp"
#include "tests/result_keys.hpp"

namespace ds::report {

using namespace measure;

namespace {

using nlohmann::json;

// A figure the test could not measure (0) is null, not 0.
json fig(const Figure& f) { return f.value > 0 ? json(r4(f.value)) : json(nullptr); }
json unc(const Figure& f) { return f.value > 0 ? json(r4(f.uncertainty)) : json(nullptr); }

json access_json(const AccessResult& a) {
  namespace K = key::access;
  json j;
  auto lat = [](const LatencyStats& s) {
    namespace L = key::latency;
    return json{{L::mean_ms, r4(s.mean_ms)}, {L::p50_ms, r4(s.p50_ms)}, {L::p99_ms, r4(s.p99_ms)},
                {L::mean_uncertainty_ms, r4(s.stderr_ms)}, {L::samples, s.n}};
  };
  j[K::block_bytes] = a.block_bytes;  // every read of this test is one logical block
  j[K::read] = lat(a.read);
  if (a.write) j[K::write] = lat(*a.write);
  j[K::rpm_estimate] = a.rpm.value > 0 ? json(std::round(a.rpm.value * 10) / 10) : json(nullptr);
  j[K::rpm_uncertainty] = unc(a.rpm);
  j[K::rotation_ms] = fig(a.rotation_ms);
  j[K::rotation_uncertainty_ms] = unc(a.rotation_ms);
  const char* source = rotation_source_name(a.rotation_source);
  j[K::rotation_source] = source ? json(source) : json(nullptr);
  j[K::command_overhead_ms] = fig(a.overhead_ms);
  j[K::avg_seek_ms] = fig(a.avg_seek_ms);
  j[K::avg_seek_uncertainty_ms] = unc(a.avg_seek_ms);
  j[K::track_to_track_ms] = fig(a.track_to_track_ms);
  j[K::track_to_track_uncertainty_ms] = unc(a.track_to_track_ms);
  j[K::full_stroke_ms] = fig(a.full_stroke_ms);
  j[K::full_stroke_uncertainty_ms] = unc(a.full_stroke_ms);
  j[K::slow_regions] = json::array();
  namespace SR = key::slow_region;
  for (auto& s : a.slow_regions)
    j[K::slow_regions].push_back({{SR::first_lba, s.first_lba}, {SR::last_lba, s.last_lba},
                                  {SR::mean_ms, r3(s.mean_ms)},
                                  {SR::location_uncertainty_sectors, s.location_uncertainty_blocks}});
  j[K::slow_spikes] = json::array();
  namespace SS = key::slow_spike;
  for (auto& s : a.slow_spikes) j[K::slow_spikes].push_back({{SS::lba, s.lba}, {SS::mean_ms, r3(s.mean_ms)}});
  j[K::outliers] = {{key::outliers::count, a.outliers},
                    {key::outliers::median_excess_ms, a.outliers ? json(r3(a.outlier_excess_ms)) : json(nullptr)}};
  j[K::seek_curve] = json::array();
  namespace SB = key::seek_bin;
  for (auto& b : a.seek_curve)
    j[K::seek_curve].push_back({{SB::max_distance_sectors, b.max_distance}, {SB::samples, b.n}, {SB::seek_ms, b.seek_ms ? json(r3(*b.seek_ms)) : json(nullptr)}});
  j[K::map] = json::array();
  namespace M = key::map_region;
  for (auto& m : a.map)
    j[K::map].push_back({{M::first_lba, m.first_lba}, {M::last_lba, m.last_lba}, {M::samples, m.n},
                         {M::mean_ms, r3(m.mean_ms)}, {M::slow, m.slow}});
  // Per-read samples as two parallel arrays (compact: up to kMaxReadSamples reads).
  json lba = json::array(), ms = json::array();
  for (const auto& s : a.reads) lba.push_back(s.lba), ms.push_back(r4(s.ms));
  j[K::reads] = {{key::reads::lba, std::move(lba)}, {key::reads::ms, std::move(ms)}};
  j[K::slow_threshold_ms] = a.slow_threshold_ms > 0 ? json(r3(a.slow_threshold_ms)) : json(nullptr);
  j[K::drive_time_s] = r3(a.drive_time_s);
  j[K::notes] = notes_with_withheld(a.notes, a.withheld);
  j[K::withheld] = withheld_json(a.withheld);
  return j;
}

json transfer_json(const TransferResult& x, std::uint32_t block_bytes) {
  namespace K = key::transfer;
  json j;
  j[K::points] = json::array();
  namespace P = key::transfer_point;
  for (auto& p : x.points) {
    json pj{{P::lba, p.lba}, {P::mb_s, r3(p.mb_s)}};
    if (p.sectors_per_track) pj[P::sectors_per_track] = p.sectors_per_track;
    if (p.anomalous) pj[P::anomalous] = true;
    j[K::points].push_back(pj);
  }
  j[K::zones] = json::array();
  namespace Z = key::zone;
  for (auto& z : x.zones) {
    json zj{{Z::first_lba, z.first_lba}, {Z::last_lba, z.last_lba}, {Z::mb_s, r3(z.mb_s)},
            {Z::mb_s_uncertainty, r3(z.mb_s_uncertainty)}};
    if (z.sectors_per_track) {
      zj[Z::sectors_per_track] = z.sectors_per_track;
      zj[Z::bytes_per_track] = z.bytes_per_track;
    }
    j[K::zones].push_back(zj);
  }
  j[K::outer_mb_s] = fig(x.outer_mb_s);
  j[K::inner_mb_s] = fig(x.inner_mb_s);
  j[K::outer_inner_ratio] = fig(x.outer_inner_ratio);
  j[K::outer_inner_ratio_uncertainty] = unc(x.outer_inner_ratio);
  j[K::bytes_per_track] = x.bytes_per_track_outer ? json(x.bytes_per_track_outer) : json(nullptr);
  j[K::rotation_ms] = fig(x.rotation_ms);
  j[K::surfaces_estimate] = x.surfaces_estimate ? json(x.surfaces_estimate) : json(nullptr);
  j[K::surfaces_confidence] = r3(x.surfaces_confidence);
  j[K::surfaces_source] = x.surfaces_source.empty() ? json(nullptr) : json(x.surfaces_source);
  j[K::layout] = x.layout.empty() ? json(nullptr) : json(x.layout);
  j[K::platters_estimate] = x.platters_estimate ? json(x.platters_estimate) : json(nullptr);
  j[K::platters_range] = x.platters_estimate ? json::array({x.platters_low, x.platters_high}) : json(nullptr);
  j[K::bytes_per_platter_estimate] =
      x.platters_estimate ? json(std::llround(x.bytes_per_platter_estimate)) : json(nullptr);
  j[K::read_size_bytes] = x.read_blocks * block_bytes;
  j[K::drive_time_s] = r3(x.drive_time_s);
  j[K::notes] = notes_with_withheld(x.notes, x.withheld);
  j[K::withheld] = withheld_json(x.withheld);
  return j;
}

json cache_json(const CacheResult& c) {
  namespace K = key::cache;
  return {{K::burst_mb_s, fig(c.burst_mb_s)}, {K::burst_uncertainty_mb_s, unc(c.burst_mb_s)},
           {K::hit_overhead_ms, r4(c.hit_overhead_ms.value)},
           {K::size_bytes_estimate, c.size_bytes_estimate ? json(c.size_bytes_estimate) : json(nullptr)},
           {K::size_at_least, c.size_at_least},
           {K::segment_bytes_estimate, c.segment_bytes_estimate ? json(c.segment_bytes_estimate) : json(nullptr)},
           {K::largest_hit_bytes, c.largest_hit_bytes},
           {K::read_ahead, c.read_ahead ? json(*c.read_ahead) : json(nullptr)},
           {K::read_ahead_bytes_estimate, c.read_ahead ? json(c.read_ahead_bytes_estimate) : json(nullptr)},
           {K::read_ahead_at_least, c.read_ahead_at_least},
           {K::read_ahead_after_sequential_reads,
            c.read_ahead_after_sequential_reads ? json(*c.read_ahead_after_sequential_reads) : json(nullptr)},
           {K::read_ahead_mb_s, fig(c.read_ahead_mb_s)}, {K::read_ahead_uncertainty_mb_s, unc(c.read_ahead_mb_s)},
           {K::drive_time_s, r3(c.drive_time_s)}, {K::notes, notes_with_withheld(c.notes, c.withheld)},
           {K::withheld, withheld_json(c.withheld)}};
}

json blocksize_json(const BlocksizeResult& b) {
  namespace K = key::blocksize;
  namespace R = key::blocksize_row;
  json rows = json::array();
  for (auto& row : b.rows) {
    json rj{{R::block_bytes, row.block_bytes}, {R::read_mb_s, r3(row.read_mb_s)},
            {R::read_iops, std::round(row.read_iops)}};
    if (row.write_mb_s) rj[R::write_mb_s] = r3(*row.write_mb_s);
    rows.push_back(rj);
  }
  return {{K::queue_depth, 4}, {K::rows, rows}, {K::drive_time_s, r3(b.drive_time_s)}, {K::notes, b.notes}};
}

json positioning_json(const PositioningResult& p) {
  namespace K = key::positioning;
  const PositioningVerdict& v = p.verdict;
  const bool judged = v.mechanical.has_value();
  return {{K::mechanical, judged ? json(*v.mechanical) : json(nullptr)}, {K::reads, v.reads},
          {K::p10_ms, judged ? json(r4(v.p10_ms)) : json(nullptr)},
          {K::p50_ms, judged ? json(r4(v.p50_ms)) : json(nullptr)},
          {K::p90_ms, judged ? json(r4(v.p90_ms)) : json(nullptr)},
          {K::least_round_median_ms, judged ? json(r4(v.least_round_median_ms)) : json(nullptr)},
          {K::evidence, v.evidence}, {K::drive_time_s, r3(p.drive_time_s)}};
}

}  // namespace

nlohmann::json bench_to_json(const BenchResult& r) {
  namespace K = key::tests;
  json t = json::object();
  if (r.access) t[K::access] = access_json(*r.access);
  if (r.transfer) t[K::transfer] = transfer_json(*r.transfer, r.block_bytes);
  if (r.cache) t[K::cache] = cache_json(*r.cache);
  if (r.blocksize) t[K::blocksize] = blocksize_json(*r.blocksize);
  if (r.queue) t[K::queue] = queue_to_json(*r.queue);
  if (r.patterns) t[K::patterns] = patterns_to_json(*r.patterns);
  if (r.actuators) t[K::actuators] = actuators_to_json(*r.actuators);
  if (r.rmw) t[K::rmw] = rmw_to_json(*r.rmw);
  if (r.positioning) t[K::positioning] = positioning_json(*r.positioning);
  if (!r.errors.empty()) {
    t[K::errors] = json::object();
    for (auto& [name, e] : r.errors) t[K::errors][name] = e.message;
  }
  t[K::drive_time_s] = r3(r.drive_time_s);
  return t;
}

std::string bench_to_text(const BenchResult& r) {
  std::string o;
  auto line = [&](std::string_view k, const std::string& v) { o += fmt::format("  {:<28} {}\n", k, v); };
  auto pm = [](const Figure& f, const char* unit, int prec = 2) {
    if (f.value <= 0) return std::string("-");
    return fmt::format("{:.{}f} ± {:.{}f} {}", f.value, prec, f.uncertainty, prec, unit);
  };
  o += fmt::format("bench {}: {:.1f} GB, {} B blocks, span {:.1f} GB, drive time {:.1f} s\n", r.target,
                   r.capacity_bytes / 1e9, r.block_bytes, r.span_blocks * 1.0 * r.block_bytes / 1e9,
                   r.drive_time_s);
  // Said once, first: where it says no, the mechanical figures below are null.
  if (r.positioning && r.positioning->verdict.mechanical == false)
    o += fmt::format("\npositioning: {}; zones, surfaces, rotation, seeks and reordering are not told\n",
                     r.positioning->verdict.evidence);
  if (r.transfer) {
    const auto& x = *r.transfer;
    o += fmt::format("\ntransfer ({:.1f} s)\n", x.drive_time_s);
    auto rate = [](const Figure& f) { return f.value > 0 ? fmt::format("{:.2f}", f.value) : std::string("-"); };
    line("outer / inner", fmt::format("{} / {} MB/s, ratio {}", rate(x.outer_mb_s), rate(x.inner_mb_s),
                                      pm(x.outer_inner_ratio, "", 3)));
    line("rotation (from tracks)", pm(x.rotation_ms, "ms", 3));
    line("bytes per track (outer)", x.bytes_per_track_outer ? std::to_string(x.bytes_per_track_outer) : "-");
    line("surfaces", !x.surfaces_estimate ? "-"
                     : x.surfaces_source == "streams"
                         ? fmt::format("{} (confidence {:.0f} %)", x.surfaces_estimate, x.surfaces_confidence * 100)
                         : fmt::format("{} (from the {})", x.surfaces_estimate, x.surfaces_source));
    line("layout", x.layout.empty() ? "- (not told)" : x.layout);
    line("platters", x.platters_estimate ? fmt::format("{} (range {}–{}), {:.1f} GB per platter",
                                                       x.platters_estimate, x.platters_low, x.platters_high,
                                                       x.bytes_per_platter_estimate / 1e9) : "-");
    o += fmt::format("  {:>4} {:>14} {:>14} {:>10} {:>8}\n", "zone", "first LBA", "last LBA", "MB/s", "spt");
    for (std::size_t i = 0; i < x.zones.size(); ++i) {
      const auto& z = x.zones[i];
      o += fmt::format("  {:>4} {:>14} {:>14} {:>10.2f} {:>8}\n", i, z.first_lba, z.last_lba, z.mb_s,
                       z.sectors_per_track ? std::to_string(z.sectors_per_track) : "-");
    }
    for (auto& n : notes_with_withheld(x.notes, x.withheld)) o += "  note: " + n + "\n";
  }
  if (r.access) {
    const auto& a = *r.access;
    o += fmt::format("\naccess ({:.1f} s, {} reads of {} B)\n", a.drive_time_s, a.read.n, a.block_bytes);
    line("read mean / p50 / p99", fmt::format("{:.2f} / {:.2f} / {:.2f} ms", a.read.mean_ms, a.read.p50_ms, a.read.p99_ms));
    if (a.write)
      line("write mean / p50 / p99", fmt::format("{:.2f} / {:.2f} / {:.2f} ms", a.write->mean_ms, a.write->p50_ms, a.write->p99_ms));
    const char* rotation_source = rotation_source_name(a.rotation_source);
    line("rotation", pm(a.rotation_ms, "ms", 3) + (rotation_source ? fmt::format(" (from the {})", rotation_source) : ""));
    line("rpm", pm(a.rpm, "", 0));
    line("command overhead", pm(a.overhead_ms, "ms", 3));
    line("average seek", pm(a.avg_seek_ms, "ms"));
    line("track to track", pm(a.track_to_track_ms, "ms"));
    line("full stroke", pm(a.full_stroke_ms, "ms"));
    if (a.slow_regions.empty()) line("slow regions", "none");
    for (auto& s : a.slow_regions)
      line("slow region", fmt::format("LBA {}–{}, {:.1f} ms", s.first_lba, s.last_lba, s.mean_ms));
    for (auto& s : a.slow_spikes) line("slow LBA (spike)", fmt::format("LBA {}, {:.1f} ms", s.lba, s.mean_ms));
    if (a.outliers)
      line("outliers", fmt::format("{} read{} slow once, normal when read again (host stalls, pauses; median {:.1f} ms over)",
                                   a.outliers, a.outliers == 1 ? "" : "s", a.outlier_excess_ms));
    for (auto& n : notes_with_withheld(a.notes, a.withheld)) o += "  note: " + n + "\n";
  }
  if (r.cache) {
    const auto& c = *r.cache;
    o += fmt::format("\ncache ({:.1f} s)\n", c.drive_time_s);
    line("burst (interface)", pm(c.burst_mb_s, "MB/s", 1));
    line("cache size estimate", c.size_bytes_estimate ? fmt::format("{}{} KiB", c.size_at_least ? "at least " : "",
                                                                    c.size_bytes_estimate / 1024) : "-");
    if (c.segment_bytes_estimate) line("segment size", fmt::format("{} KiB", c.segment_bytes_estimate / 1024));
    const unsigned after = c.read_ahead_after_sequential_reads.value_or(0);
    line("read-ahead", !c.read_ahead ? std::string("not measured")
                       : *c.read_ahead ? fmt::format("yes, ≥ {} KiB{}", c.read_ahead_bytes_estimate / 1024,
                                                     after == 0   ? std::string()
                                                     : after == 1 ? std::string(", only once a read has continued another")
                                                                  : fmt::format(", only once {} reads in a row have each "
                                                                                "continued the one before", after))
                                       : std::string("none (the next block missed, also after reads in a row)"));
    if (c.read_ahead_mb_s.value > 0) line("read-ahead pace (media)", pm(c.read_ahead_mb_s, "MB/s", 1));
    for (auto& n : notes_with_withheld(c.notes, c.withheld)) o += "  note: " + n + "\n";
  }
  if (r.blocksize) {
    o += fmt::format("\nblocksize, queue depth 4 ({:.1f} s)\n", r.blocksize->drive_time_s);
    o += fmt::format("  {:>10} {:>12} {:>12}\n", "block", "read MB/s", "write MB/s");
    for (auto& b : r.blocksize->rows)
      o += fmt::format("  {:>10} {:>12.2f} {:>12}\n", b.block_bytes, b.read_mb_s,
                       b.write_mb_s ? fmt::format("{:.2f}", *b.write_mb_s) : "-");
  }
  if (r.queue) o += "\n" + queue_to_text(*r.queue);
  if (r.patterns) o += "\n" + patterns_to_text(*r.patterns);
  if (r.actuators) o += "\n" + actuators_to_text(*r.actuators);
  if (r.rmw) o += "\n" + rmw_to_text(*r.rmw);
  for (auto& [n, e] : r.errors) o += fmt::format("\n{}: error: {}\n", n, e.message);
  return o;
}

}  // namespace ds::report
