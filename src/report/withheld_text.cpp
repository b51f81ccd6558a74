// Why a figure is null, in words and as JSON (tests/withheld.hpp). The sentences name the
// figures the reason takes away, so a reader of the notes need not know the codes.
#include <fmt/format.h>

#include <cmath>
#include <optional>

#include "report/json_write.hpp"
#include "report/measure_report.hpp"
#include "tests/result_keys.hpp"
#include "tests/runner.hpp"

namespace ds::report {

using measure::Withheld;
using measure::WithheldReason;

namespace {

// A count the reason quotes.
long long whole(const Withheld& w, const char* name) { return std::llround(w.number(name)); }

// The transfer test: track structure, edges, surfaces, spares, layout.
std::optional<std::string> transfer_sentence(const Withheld& w) {
  using R = WithheldReason;
  switch (w.reason) {
    case R::rates_only_asked:
      return "rates only (--rates-only): no track structure looked for, no zone structure or surfaces";
    case R::no_track_boundaries:
      return "no track boundaries visible in the completion times (interface-bound, solid state or noisy): rates "
             "only, no zone structure or surfaces";
    case R::structure_not_rotation:
      return fmt::format("the streams' \"tracks\" pass in {:.3f} ms, not the drive's revolution of {:.3f} ms: what they "
                         "showed is no track structure (the interface's or the buffer's pace): rates only, no track "
                         "size, spares, surfaces or layout",
                         w.number("structure_ms"), w.number("spindle_ms"));
    case R::spares_not_rotation:
      return fmt::format("the tracks with {} spare sector(s) each would turn in {:.3f} ms, not the drive's revolution of "
                         "{:.3f} ms: the spare count is not told, nor the revolution from the zones",
                         whole(w, "spares"), w.number("structure_ms"), w.number("spindle_ms"));
    case R::edge_not_sampled: {
      const bool outer = w.number("outer") > 0, inner = w.number("inner") > 0;
      return fmt::format("no sample within {:.0f} % of the {} edge: that rate and the ratio are not told",
                         w.number("reach_pct"), outer && inner ? "outer and the inner" : outer ? "outer" : "inner");
    }
    case R::slow_samples:
      return fmt::format("rates only: {} samples read at under {:.0f} % of the rate outside them (a slow region or a "
                         "stall, not a zone): left out of the zones{}",
                         whole(w, "samples"), w.number("share_pct"),
                         w.number("edge") > 0 ? "; the rate at that edge of the disk is not told" : "");
    case R::surfaces_period_open:
      return fmt::format("surfaces not told: the tracks' sector times repeat every {} tracks at {} places, but a "
                         "sample covers too few tracks to rule out a multiple of {}",
                         whole(w, "period"), whole(w, "places"), whole(w, "period"));
    case R::switches_alike:
      return "head and cylinder switches take the same time here: surfaces not told";
    case R::surfaces_one_place:
      return fmt::format("surfaces not told: only one place ({} of {} votes) showed a period of {} tracks",
                         whole(w, "votes"), whole(w, "told"), whole(w, "period"));
    case R::surfaces_multiple_open:
      return fmt::format("surfaces not told: the switches' costs repeat every {} tracks ({} of {} votes), but no "
                         "stream covered enough tracks to rule out a multiple of {}",
                         whole(w, "period"), whole(w, "votes"), whole(w, "told"), whole(w, "period"));
    case R::spares_open:
      return fmt::format("spare sectors per track not told: the zones allow {} to {} (revolution within ±{:.3f} ms)",
                         whole(w, "low"), whole(w, "high"), w.number("rotation_hw_ms"));
    case R::layout_no_period:
      return "layout not told: the track switches show no period of the surfaces (a surface-serpentine layout, or "
             "head and cylinder switches that take the same time)";
    default:
      return std::nullopt;
  }
}

// The access test: rotation, full stroke, writes, track to track.
std::optional<std::string> access_sentence(const Withheld& w) {
  using R = WithheldReason;
  switch (w.reason) {
    case R::rotation_buffered_no_waits:
      return "rotation: most backward steps took no longer than a cache hit (the drive's buffer answers them, or "
             "there is no platter: solid state) and reads a fixed distance apart show no rotational wait; not "
             "measured, and so no seek figures";
    case R::rotation_not_a_disk:
      return fmt::format("rotation: backward-step reads take {:.3f} ms against {:.3f} ms for a cache hit: not one "
                         "revolution (2-40 ms on any disk, at least 4 cache hits); not a rotating target, so no rpm, "
                         "no seek figures and no track layout",
                         w.number("step_ms"), w.number("hit_ms"));
    case R::rotation_no_line:
      return "rotation: the backward-step latencies do not fit one revolution (solid state or a non-rotating "
             "target?)";
    case R::rotation_not_confirmed:
      return "rotation: not measured: the phase lock did not confirm the backward steps' median, so no rpm and no "
             "seek figures";
    case R::stroke_under_average:
      return fmt::format("full_stroke: {:.3f} ± {:.3f} ms, under the average seek ({:.3f} ± {:.3f} ms): the ends of "
                         "the span are not one positioner's stroke apart (positioning ranges the drive does not "
                         "report?); left out",
                         w.number("stroke_ms"), w.number("stroke_hw_ms"), w.number("average_ms"),
                         w.number("average_hw_ms"));
    case R::write_not_open:
      return "write access skipped: the target is not open for writing";
    case R::t2t_no_clear_place:
      return "track_to_track: no place in the zone clear of slow regions; not measured";
    case R::t2t_no_track_structure:
      return "track_to_track: no track structure found in the zone; not measured";
    case R::t2t_track_size_untold:
      return "track_to_track: the zone's track size was not told; not measured";
    case R::t2t_track_inexact:
      return "track_to_track: surfaces not told and the track size not exact; not measured";
    case R::t2t_zone_too_small:
      return "track_to_track: the zone is too small for the sweep; not measured";
    case R::t2t_no_room_for_moves:
      return "track_to_track: the zone is too small for the random moves; not measured";
    case R::t2t_no_time_for_moves:
      return "track_to_track: too little drive time left for the random moves; not measured";
    case R::t2t_too_few_moves:
      return "track_to_track: too few random moves completed; not measured";
    case R::t2t_foot_no_seek:
      return fmt::format("track_to_track: the foot of the sweep ({:.3f} ms) leaves no seek after the overhead; not "
                         "measured",
                         w.number("foot_ms"));
    case R::t2t_scan_no_sawtooth:
      return "track_to_track: the track-offset scan found no sawtooth; not measured";
    case R::t2t_scan_too_short:
      return fmt::format("track_to_track: surfaces not told and only {} track offsets scanned; not measured",
                         whole(w, "offsets"));
    default:
      return std::nullopt;
  }
}

// The cache test.
std::optional<std::string> cache_sentence(const Withheld& w) {
  using R = WithheldReason;
  switch (w.reason) {
    case R::no_cache_seen:
      return "re-reads are not faster than the first read: no read cache seen";
    case R::no_positioning_cost:
      return fmt::format("a miss ({:.4f} ms) costs less than {:.2f} ms more than a re-read ({:.4f} ms): no "
                         "positioning cost, so a cache cannot be told apart from the media",
                         w.number("miss_ms"), w.number("slack_ms"), w.number("reread_ms"));
    case R::burst_unresolved:
      return fmt::format("burst rate not resolved: re-reads of up to {} KiB give {:.1f} MB/s, but their jitter "
                         "leaves it between {:.1f} and {} MB/s (95 %)",
                         whole(w, "largest_kib"), w.number("rate_mb_s"), w.number("low_mb_s"),
                         w.number("high_mb_s") > 0 ? fmt::format("{:.1f}", w.number("high_mb_s"))
                                                   : std::string("unbounded"));
    case R::read_ahead_no_time:
      return "read-ahead not probed: the drive-time budget was spent before it";
    case R::trigger_no_time:
      return "read-ahead trigger not settled: the drive-time budget ran out";
    case R::pace_extent_short:
      return fmt::format("read-ahead pace not timed: the read-ahead reaches only {} blocks", whole(w, "extent_blocks"));
    case R::pace_no_time:
      return fmt::format("read-ahead pace not timed: the budget ran out after {} of the {} waits it needs",
                         whole(w, "waits"), whole(w, "needed"));
    case R::pace_too_few_waits:
      return fmt::format("read-ahead pace not timed: only {} reads just ahead of a read waited for the media "
                         "({} needed; the drive may have read them before they came)",
                         whole(w, "waits"), whole(w, "needed"));
    case R::pace_vague:
      return fmt::format("read-ahead pace not told: the waits for blocks ahead of a read leave it too uncertain "
                         "({:.1f} ± {:.1f} µs a block; waits that do not grow with the distance, a drive answering "
                         "such reads as misses, leave it so too)",
                         w.number("slope_us_per_block"), w.number("slope_hw_us"));
    default:
      return std::nullopt;
  }
}

// The actuators and read-modify-write tests.
std::optional<std::string> actuators_rmw_sentence(const Withheld& w) {
  using R = WithheldReason;
  switch (w.reason) {
    case R::gain_one_round:
      return fmt::format("independent not told: one round gives the gain ({:.2f}) no interval to hold against "
                         "the threshold {:.1f}", w.number("measured_gain"), w.number("threshold"));
    case R::gain_undecided:
      return fmt::format("independent not told: the gain's interval ({:.2f} ± {:.2f} over {} rounds) holds the "
                         "threshold {:.1f}", w.number("measured_gain"), w.number("gain_hw"), whole(w, "rounds"),
                         w.number("threshold"));
    case R::writes_not_allowed:
      return "physical sector size not measured: timing it needs writes (--write)";
    case R::too_few_writes:
      return fmt::format("physical sector size not told: fewer than {} aligned 16 KiB writes were timed within the "
                         "budget", whole(w, "min_writes"));
    case R::small_writes_untimed:
      return fmt::format("physical sector size not told: {}-byte writes pay nothing, but the smaller sizes were not "
                         "timed within the budget", whole(w, "first_free"));
    case R::sizes_unordered:
      return "the aligned sizes that pay and those that do not are not in size order: no physical sector size is "
             "inferred";
    default:
      return std::nullopt;
  }
}

// The queue test: why it does not say whether the drive reorders.
std::optional<std::string> queue_sentence(const Withheld& w) {
  using R = WithheldReason;
  switch (w.reason) {
    case R::queue_no_depth1:
      return "no usable depth-1 run: nothing to compare against";
    case R::queue_not_mechanical:
      return fmt::format("no mechanical positioning: random reads take {:.3f} ms (median of the fastest round), under "
                         "the {:.1f} ms a rotating drive needs: no positioning time for a queue to save",
                         w.number("median_ms"), w.number("floor_ms"));
    case R::queue_no_positioning_cost:
      return fmt::format("no positioning cost to save: depth-1 reads take {:.3f} ms (median; mean {:.3f} ms, spread "
                         "{:.0f} % of the mean), unlike a mechanical access{}",
                         w.number("d1_median_ms"), w.number("d1_mean_ms"), w.number("spread_pct"),
                         w.number("deepest") > 1 ? fmt::format("; IOPS x{:.2f} from depth 1 to {}", w.number("depth_gain"),
                                                               whole(w, "deepest"))
                                                 : std::string());
    case R::queue_depth1_vague:
      return fmt::format("depth 1's IOPS is known only to +-{:.0f} %: nothing to compare against", w.number("iops_hw_pct"));
    case R::queue_too_shallow:
      return fmt::format("at most {} requests were outstanding: too shallow to judge", whole(w, "deepest"));
    case R::queue_deep_vague:
      return fmt::format("no depth of {} or more with IOPS known well enough to judge (depth {}'s IOPS ({:.0f}, from {} "
                         "reads) is known only to +-{:.0f} %: judged at depth {}; a larger budget gives the deep "
                         "queues more reads)",
                         whole(w, "min_depth"), whole(w, "vague_depth"), w.number("vague_iops"), whole(w, "vague_reads"),
                         w.number("iops_hw_pct"), whole(w, "judged_at"));
    case R::queue_parallel_service:
      return fmt::format("IOPS grow with depth through parallel service, not reordering (gain above x{:.1f} or under "
                         "{:.0f} % served out of order): {}",
                         w.number("ceiling"), w.number("overtaken_min_pct"), reorder_comparison_text(w.numbers));
    case R::queue_disagree:
      return "IOPS and latency disagree: " + reorder_comparison_text(w.numbers);
    default:
      return std::nullopt;
  }
}

// The patterns test's cells and summaries, and the SMR probe's band size and idle cleaning.
std::optional<std::string> patterns_smr_sentence(const Withheld& w) {
  using R = WithheldReason;
  switch (w.reason) {
    case R::cell_needs_write:
      return "writes not allowed (needs --write)";
    case R::cell_interrupted:
      return "interrupted before this cell";
    case R::cell_io_failed:
      return "every I/O of the cell failed (the error is in the notes)";
    case R::cells_skipped:
      return fmt::format("{} not told: {} of the cells it needs did not run (their skip reasons say why)", w.figure,
                         whole(w, "skipped"));
    case R::smr_no_cliff:
      return fmt::format("{} not told: no write cliff was seen, so no media cache filled and no band was cleaned", w.figure);
    case R::smr_no_slow_writes:
      return "band size not told: after the cliff no write waited for a band clean";
    case R::smr_clean_unresolved:
      return fmt::format("band size not told: the slow writes ({:.1f} ms, median) take no longer than two random reads "
                         "({:.1f} ms each), or no sequential rate was measured ({:.1f} MB/s)",
                         w.number("slow_write_ms"), w.number("read_access_ms"), w.number("median_sequential_mb_s"));
    case R::smr_idle_not_asked:
      return "idle cleaning not checked (--idle 0)";
    case R::smr_idle_not_judged:
      return "idle cleaning not checked: the budget ran out or the run was interrupted during the check";
    default:
      return std::nullopt;
  }
}

}  // namespace

std::string reorder_comparison_text(const std::vector<std::pair<const char*, double>>& numbers) {
  const Withheld w{"", {}, numbers};
  return fmt::format("IOPS {:.0f} at depth 1 and {:.0f} at depth {} (x{:.2f}, threshold x{:.2f}); mean latency grows "
                     "as depth^{:.2f}; {:.0f} % of completions at depth {} overtook an older request",
                     w.number("d1_iops"), w.number("deep_iops"), whole(w, "deepest"), w.number("depth_gain"),
                     w.number("threshold"), w.number("latency_slope"), w.number("overtaken_pct"), whole(w, "deepest"));
}

std::string withheld_text(const Withheld& w) {
  if (w.reason == WithheldReason::budget_spent) return fmt::format("stopped early: {}", measure::kBudgetSpentMessage);
  for (auto sentence : {transfer_sentence, access_sentence, cache_sentence, actuators_rmw_sentence, queue_sentence,
                        patterns_smr_sentence})
    if (auto s = sentence(w)) return *s;
  return measure::withheld_reason_name(w.reason);
}

nlohmann::json withheld_json(const std::vector<Withheld>& w) {
  namespace W = measure::key::withheld;
  nlohmann::json a = nlohmann::json::array();
  for (const auto& x : w) {
    nlohmann::json numbers = nlohmann::json::object();
    // Counts stay integers; measured figures keep four decimals.
    for (const auto& [name, v] : x.numbers)
      numbers[name] = v == std::floor(v) && std::fabs(v) < 9e15 ? nlohmann::json(static_cast<std::int64_t>(v))
                                                                 : nlohmann::json(r4(v));
    a.push_back({{W::figure, x.figure},
                 {W::reason, measure::withheld_reason_name(x.reason)},
                 {W::numbers, std::move(numbers)}});
  }
  return a;
}

std::vector<std::string> notes_with_withheld(const std::vector<std::string>& notes, const std::vector<Withheld>& w) {
  std::vector<std::string> all;
  for (const auto& x : w) all.push_back(withheld_text(x));
  all.insert(all.end(), notes.begin(), notes.end());
  return all;
}

}  // namespace ds::report
