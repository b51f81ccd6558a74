// The keys of the bench results (the "tests" object of a bench, ab or scan document, product.md),
// each spelled once. The writers (src/report/measure_report.hpp: bench_to_json and the other
// tests' *_to_json) and the readers (src/report: prom, compare, charts, html, the scan table) name
// a key only through these constants, so a renamed key is renamed everywhere or does not compile.
// tests/measure/result_keys_test.cpp checks that the writers emit exactly the keys listed here,
// each where its object says, that docs/schema/drivescope-output.schema.json describes every one
// and no other, and that no file of src/report spells one as a literal.
//
// Adding a result field: add X(its_key) to its object's list below, write it in the writer as
// j[key::OBJECT::its_key], and describe it in the schema (under properties.tests). When the key
// is written only in some runs, also set it in the full result of result_keys_test.cpp. A new
// object (a nested block, the items of an array): a new list and a line in DS_RESULT_OBJECTS.
#pragma once
#include <span>
#include <string_view>

// One list per object: X(key) for every key the object may hold.
#define DS_KEYS_TESTS(X) \
  X(access) X(transfer) X(cache) X(blocksize) X(queue) X(patterns) X(actuators) X(rmw) X(positioning) X(errors) X(drive_time_s)
#define DS_KEYS_ACCESS(X)                                                                                  \
  X(block_bytes) X(read) X(write) X(rpm_estimate) X(rpm_uncertainty) X(rotation_ms)                        \
  X(rotation_uncertainty_ms) X(rotation_source) X(command_overhead_ms) X(avg_seek_ms) X(avg_seek_uncertainty_ms)              \
  X(track_to_track_ms) X(track_to_track_uncertainty_ms) X(full_stroke_ms) X(full_stroke_uncertainty_ms)    \
  X(slow_regions) X(slow_spikes) X(outliers) X(seek_curve) X(map) X(reads) X(slow_threshold_ms)            \
  X(drive_time_s) X(notes) X(withheld)
#define DS_KEYS_LATENCY(X) X(mean_ms) X(p50_ms) X(p99_ms) X(mean_uncertainty_ms) X(samples)
#define DS_KEYS_SLOW_REGION(X) X(first_lba) X(last_lba) X(mean_ms) X(location_uncertainty_sectors)
#define DS_KEYS_SLOW_SPIKE(X) X(lba) X(mean_ms)
#define DS_KEYS_OUTLIERS(X) X(count) X(median_excess_ms)
#define DS_KEYS_SEEK_BIN(X) X(max_distance_sectors) X(samples) X(seek_ms)
#define DS_KEYS_MAP_REGION(X) X(first_lba) X(last_lba) X(samples) X(mean_ms) X(slow)
#define DS_KEYS_READS(X) X(lba) X(ms)
#define DS_KEYS_TRANSFER(X)                                                                                \
  X(points) X(zones) X(outer_mb_s) X(inner_mb_s) X(outer_inner_ratio) X(outer_inner_ratio_uncertainty)     \
  X(bytes_per_track) X(rotation_ms) X(surfaces_estimate) X(surfaces_confidence) X(surfaces_source) X(layout) \
  X(platters_estimate) X(platters_range) X(bytes_per_platter_estimate) X(read_size_bytes) X(drive_time_s)  \
  X(notes) X(withheld)
#define DS_KEYS_TRANSFER_POINT(X) X(lba) X(mb_s) X(sectors_per_track) X(anomalous)
#define DS_KEYS_ZONE(X) X(first_lba) X(last_lba) X(mb_s) X(mb_s_uncertainty) X(sectors_per_track) X(bytes_per_track)
#define DS_KEYS_CACHE(X)                                                                                   \
  X(burst_mb_s) X(burst_uncertainty_mb_s) X(hit_overhead_ms) X(size_bytes_estimate) X(size_at_least)       \
  X(segment_bytes_estimate) X(largest_hit_bytes) X(read_ahead) X(read_ahead_bytes_estimate)                \
  X(read_ahead_at_least) X(read_ahead_after_sequential_reads) X(read_ahead_mb_s) X(read_ahead_uncertainty_mb_s) X(drive_time_s)   \
  X(notes) X(withheld)
// Why a figure is null (tests/withheld.hpp): numbers holds the reason's own named figures.
#define DS_KEYS_WITHHELD(X) X(figure) X(reason) X(numbers)
#define DS_KEYS_BLOCKSIZE(X) X(queue_depth) X(rows) X(drive_time_s) X(notes)
#define DS_KEYS_BLOCKSIZE_ROW(X) X(block_bytes) X(read_mb_s) X(read_iops) X(write_mb_s)
#define DS_KEYS_QUEUE(X)                                                                                   \
  X(depths) X(reorders) X(confidence) X(evidence) X(iops_gain) X(iops_exponent) X(latency_exponent)        \
  X(no_positioning_cost) X(scheduler) X(block_bytes) X(drive_time_s) X(notes) X(withheld)
#define DS_KEYS_QUEUE_DEPTH(X)                                                                             \
  X(depth) X(reached_depth) X(ios) X(iops) X(iops_rel_se) X(mean_ms) X(p50_ms) X(p90_ms) X(p99_ms)         \
  X(max_ms) X(stddev_ms) X(overtaken_share) X(drive_time_s) X(histogram)
#define DS_KEYS_HISTOGRAM_BUCKET(X) X(lower_ms) X(upper_ms) X(count)
#define DS_KEYS_PATTERNS(X)                                                                                \
  X(cells) X(fileserver_average_iops) X(webserver_average_iops) X(workstation_rating) X(writes_allowed)    \
  X(drive_time_s) X(notes) X(withheld)
#define DS_KEYS_PATTERN_CELL(X)                                                                            \
  X(pattern) X(depth) X(write_pct) X(skipped) X(skip_reason) X(skip_code) X(reached_depth) X(iops)         \
  X(iops_rel_se)                                                                                           \
  X(mb_s) X(mean_ms) X(ios) X(reads) X(writes) X(drive_time_s)
#define DS_KEYS_ACTUATORS(X)                                                                               \
  X(ranges) X(ranges_source) X(reported_ranges) X(together_iops) X(apart_iops) X(gain) X(gain_uncertainty) \
  X(rounds) X(independent) X(verdict) X(drive_time_s) X(notes) X(withheld)
#define DS_KEYS_ACTUATOR_RANGE(X) X(first_lba) X(lba_count)
#define DS_KEYS_RMW(X)                                                                                     \
  X(measured) X(logical_bytes) X(reported_physical_bytes) X(claimed_physical_bytes) X(claimed_by)          \
  X(physical_bytes_estimate) X(penalty_ms) X(buffer_writes) X(kinds) X(verdict) X(drive_time_s) X(notes) X(withheld)
#define DS_KEYS_POSITIONING(X) \
  X(mechanical) X(reads) X(p10_ms) X(p50_ms) X(p90_ms) X(least_round_median_ms) X(evidence) X(drive_time_s)
#define DS_KEYS_RMW_KIND(X) \
  X(bytes) X(offset_bytes) X(warmup_writes) X(writes) X(mean_ms) X(sd_ms) X(mean_se_ms) X(penalty_ms) X(pays)

// Every object: O(namespace, its key list, where it sits). A place is a JSON pointer from the
// "tests" object; "*" stands for every item of an array. One object may sit in several places.
#define DS_RESULT_OBJECTS(O)                                      \
  O(tests, DS_KEYS_TESTS, "")                                     \
  O(access, DS_KEYS_ACCESS, "/access")                            \
  O(latency, DS_KEYS_LATENCY, "/access/read", "/access/write")    \
  O(slow_region, DS_KEYS_SLOW_REGION, "/access/slow_regions/*")   \
  O(slow_spike, DS_KEYS_SLOW_SPIKE, "/access/slow_spikes/*")      \
  O(outliers, DS_KEYS_OUTLIERS, "/access/outliers")               \
  O(seek_bin, DS_KEYS_SEEK_BIN, "/access/seek_curve/*")           \
  O(map_region, DS_KEYS_MAP_REGION, "/access/map/*")              \
  O(reads, DS_KEYS_READS, "/access/reads")                        \
  O(transfer, DS_KEYS_TRANSFER, "/transfer")                      \
  O(transfer_point, DS_KEYS_TRANSFER_POINT, "/transfer/points/*") \
  O(zone, DS_KEYS_ZONE, "/transfer/zones/*")                      \
  O(cache, DS_KEYS_CACHE, "/cache")                               \
  O(withheld, DS_KEYS_WITHHELD, "/access/withheld/*", "/transfer/withheld/*", "/cache/withheld/*", \
    "/actuators/withheld/*", "/rmw/withheld/*", "/queue/withheld/*", "/patterns/withheld/*") \
  O(blocksize, DS_KEYS_BLOCKSIZE, "/blocksize")                   \
  O(blocksize_row, DS_KEYS_BLOCKSIZE_ROW, "/blocksize/rows/*")    \
  O(queue, DS_KEYS_QUEUE, "/queue")                               \
  O(queue_depth, DS_KEYS_QUEUE_DEPTH, "/queue/depths/*")          \
  O(histogram_bucket, DS_KEYS_HISTOGRAM_BUCKET, "/queue/depths/*/histogram/*") \
  O(patterns, DS_KEYS_PATTERNS, "/patterns")                      \
  O(pattern_cell, DS_KEYS_PATTERN_CELL, "/patterns/cells/*")      \
  O(actuators, DS_KEYS_ACTUATORS, "/actuators")                   \
  O(actuator_range, DS_KEYS_ACTUATOR_RANGE, "/actuators/ranges/*") \
  O(rmw, DS_KEYS_RMW, "/rmw")                                     \
  O(rmw_kind, DS_KEYS_RMW_KIND, "/rmw/kinds/*")                   \
  O(positioning, DS_KEYS_POSITIONING, "/positioning")

namespace ds::measure::key {

// An object of the results as the checks see it.
struct ResultObject {
  std::string_view name;                    // its namespace below
  std::span<const std::string_view> places;  // JSON pointers from "tests"
  std::span<const std::string_view> keys;
};

#define DS_KEY_CONSTANT(k) inline constexpr char k[] = #k;
#define DS_KEY_NAME(k) std::string_view(#k),
#define DS_RESULT_NAMESPACE(ns, LIST, ...)                                \
  namespace ns {                                                          \
  LIST(DS_KEY_CONSTANT)                                                   \
  inline constexpr std::string_view kKeys[] = {LIST(DS_KEY_NAME)};        \
  inline constexpr std::string_view kPlaces[] = {__VA_ARGS__};            \
  }
DS_RESULT_OBJECTS(DS_RESULT_NAMESPACE)
#define DS_RESULT_ENTRY(ns, LIST, ...) ResultObject{#ns, ns::kPlaces, ns::kKeys},
inline constexpr ResultObject kResultObjects[] = {DS_RESULT_OBJECTS(DS_RESULT_ENTRY)};
#undef DS_RESULT_ENTRY
#undef DS_RESULT_NAMESPACE
#undef DS_KEY_NAME
#undef DS_KEY_CONSTANT

// Where a document (bench, ab, ncq, scan) holds the results: {"tests": {"access": ...}}.
inline constexpr char kDocumentKey[] = "tests";

// Every test's object keeps its notes (sentences on what was not told, and why) under one key.
inline constexpr const char* kNotes = access::notes;
static_assert(std::string_view(kNotes) == transfer::notes && std::string_view(kNotes) == cache::notes &&
              std::string_view(kNotes) == blocksize::notes && std::string_view(kNotes) == queue::notes &&
              std::string_view(kNotes) == patterns::notes && std::string_view(kNotes) == actuators::notes &&
              std::string_view(kNotes) == rmw::notes);

// Maps, not objects of fixed keys: tests.errors (a failed test's name → why it failed) and a
// withheld figure's numbers (each reason's own, named in tests/withheld.hpp).
inline constexpr std::string_view kMapPlaces[] = {"/errors", "/access/withheld/*/numbers",
                                                  "/transfer/withheld/*/numbers", "/cache/withheld/*/numbers",
                                                  "/actuators/withheld/*/numbers", "/rmw/withheld/*/numbers",
                                                  "/queue/withheld/*/numbers", "/patterns/withheld/*/numbers"};

}  // namespace ds::measure::key
