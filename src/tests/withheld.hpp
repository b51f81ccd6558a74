// Why a figure is null or not told: a reason code, the figure it concerns and the numbers the
// reason rests on (#29 build 6). The measurement modules record these as values; src/report says
// them in English (report/withheld_text.cpp) and writes them under each test's `withheld` key
// (docs/json-schema.md), and tests assert on the codes, never on the words.
//
// The notes that stay prose say how a figure was found, not why one is missing.
#pragma once
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

namespace ds::measure {

// One line per reason: X(code). The code is also the reason's name in the JSON.
#define DS_WITHHELD_REASONS(X)                                                                          \
  /* any test */                                                                                       \
  X(budget_spent)              /* the drive-time budget ran out: figure "" (all not yet measured) */   \
  /* transfer: the track structure */                                                                  \
  X(rates_only_asked)          /* --rates-only: no track, zone structure or surfaces looked for */    \
  X(no_track_boundaries)       /* the completions show no track boundaries: rates only */             \
  /* transfer: the edges' rates */                                                                     \
  X(edge_not_sampled)          /* no sample near an edge {reach_pct, outer, inner} */                 \
  X(slow_samples)              /* samples far under their neighbours {samples, share_pct, edge} */    \
  /* transfer: surfaces, spares, layout */                                                             \
  X(surfaces_period_open)      /* a period of the sector times, too few tracks {period, places} */    \
  X(switches_alike)            /* head and cylinder switches cost the same */                          \
  X(surfaces_one_place)        /* one place showed the period {votes, told, period} */               \
  X(surfaces_multiple_open)    /* no stream long enough to rule out a multiple {period, votes, told} */\
  X(spares_open)               /* the zones allow several spare counts {low, high, rotation_hw_ms} */ \
  X(layout_no_period)          /* the track switches show no period of the surfaces */               \
  X(structure_not_rotation)    /* the streams' tracks take another time than the drive's revolution   \
                                  {structure_ms, spindle_ms} (the bench, after the access test) */    \
  X(spares_not_rotation)       /* (spt + spares) · sector time is not the drive's revolution: the     \
                                  spare count is wrong {structure_ms, spindle_ms, spares} */          \
  /* access: rotation (and with it rpm and the seek figures) */                                        \
  X(rotation_buffered_no_waits)  /* the buffer answered the steps, and no rotational wait showed */  \
  X(rotation_not_a_disk)         /* the step line is no revolution {step_ms, hit_ms} */              \
  X(rotation_no_line)            /* no step line, and their median is no revolution either */        \
  X(rotation_not_confirmed)      /* the phase lock did not confirm the steps' median */              \
  /* access: the other seek figures */                                                                 \
  X(stroke_under_average)      /* full stroke under the average seek {stroke_ms, stroke_hw_ms,         \
                                  average_ms, average_hw_ms} */                                        \
  X(write_not_open)            /* the target is not open for writing */                                \
  /* access: track to track (track_seek.hpp) */                                                        \
  X(t2t_no_clear_place)        /* every place in the zone lies in a slow region */                    \
  X(t2t_no_track_structure)    /* the zone's stream shows no tracks */                                 \
  X(t2t_track_size_untold)     /* the zone's track size was not told */                                \
  X(t2t_track_inexact)         /* surfaces not told and the track size not exact */                    \
  X(t2t_zone_too_small)        /* no room in the zone for the sweep */                                 \
  X(t2t_no_room_for_moves)     /* no room in the zone for the random moves */                          \
  X(t2t_no_time_for_moves)     /* too little drive time left for the random moves */                   \
  X(t2t_too_few_moves)         /* too few random moves completed */                                    \
  X(t2t_foot_no_seek)          /* the sweep's foot leaves no seek after the overhead {foot_ms} */      \
  X(t2t_scan_no_sawtooth)      /* the track-offset scan found no sawtooth */                           \
  X(t2t_scan_too_short)        /* surfaces not told, too few offsets scanned {offsets} */             \
  /* cache */                                                                                          \
  X(no_cache_seen)             /* re-reads are not faster than first reads */                          \
  X(no_positioning_cost)       /* a miss costs barely more than a re-read {miss_ms, slack_ms,          \
                                  reread_ms} */                                                        \
  X(burst_unresolved)          /* the re-reads' jitter leaves the burst open {largest_kib, rate_mb_s,        \
                                  low_mb_s, high_mb_s (0: unbounded)} */                               \
  X(read_ahead_no_time)        /* the budget was spent before the read-ahead probe */                  \
  X(trigger_no_time)           /* the budget ran out while the trigger was probed */                  \
  X(pace_extent_short)         /* too little read-ahead to time its pace {extent_blocks} */           \
  X(pace_no_time)              /* the budget ran out while the pace was probed {waits, needed} */     \
  X(pace_too_few_waits)        /* too few reads waited for the read-ahead {waits, needed} */          \
  X(pace_vague)                /* the pace's interval too wide {slope_us_per_block, slope_hw_us} */   \
  /* actuators */                                                                                      \
  X(gain_one_round)            /* one round: no interval {measured_gain, threshold} */                 \
  X(gain_undecided)            /* the gain's interval holds the threshold {measured_gain, gain_hw,     \
                                  rounds, threshold} */                                                \
  /* rmw: the physical sector size */                                                                  \
  X(writes_not_allowed)        /* no --write: only the claims */                                       \
  X(too_few_writes)            /* the aligned baseline was not timed {min_writes} */                   \
  X(small_writes_untimed)      /* the sizes below the first free one were not timed {first_free} */   \
  X(sizes_unordered)           /* the sizes that pay and those that do not are not in size order */ \
  /* queue: whether the drive reorders (reorders null) */                                              \
  X(queue_no_depth1)           /* no usable depth-1 run */                                             \
  X(queue_not_mechanical)      /* the target positions in no time {median_ms, floor_ms} */            \
  X(queue_no_positioning_cost) /* depth-1 reads cost no positioning {d1_median_ms, d1_mean_ms,          \
                                  spread_pct, depth_gain, deepest (0: no deeper depth)} */             \
  X(queue_depth1_vague)        /* depth 1's IOPS too uncertain {iops_hw_pct} */                        \
  X(queue_too_shallow)         /* too few requests outstanding {deepest} */                            \
  X(queue_deep_vague)          /* no deep enough depth's IOPS known well {min_depth, vague_depth,      \
                                  vague_iops, vague_reads, iops_hw_pct, judged_at} */                  \
  X(queue_parallel_service)    /* IOPS grow, not by reordering {ceiling, overtaken_min_pct} and the    \
                                  comparison's (reorder_comparison) */                                 \
  X(queue_disagree)            /* IOPS and latency point different ways {the comparison's} */          \
  /* patterns: a cell (its skip_code) and the summaries over cells */                                  \
  X(cell_needs_write)          /* the cell writes and the run is read-only (no --write) */             \
  X(cell_interrupted)          /* the run was interrupted before the cell */                           \
  X(cell_io_failed)            /* every I/O of the cell failed (the error is in the notes) */          \
  X(cells_skipped)             /* a cell the summary needs was skipped or read nothing {skipped} */    \
  /* smr: the band size and idle cleaning */                                                           \
  X(smr_no_cliff)              /* no write cliff: no media cache filled, no band cleaned */            \
  X(smr_no_slow_writes)        /* after the cliff no write waited for a clean */                       \
  X(smr_clean_unresolved)      /* a forced clean no longer than two random reads {slow_write_ms,       \
                                  read_access_ms, median_sequential_mb_s} */                           \
  X(smr_idle_not_asked)        /* --idle 0 */                                                          \
  X(smr_idle_not_judged)       /* the budget ran out, or the run was interrupted, in the idle check */

enum class WithheldReason : std::uint8_t {
#define DS_WITHHELD_ENUM(code) code,
  DS_WITHHELD_REASONS(DS_WITHHELD_ENUM)
#undef DS_WITHHELD_ENUM
};

// The code's name ("surfaces_one_place"), as written in the JSON.
const char* withheld_reason_name(WithheldReason r);
// Every reason, in declaration order (for the schema's list and its test).
const std::vector<WithheldReason>& all_withheld_reasons();

struct Withheld {
  const char* figure = "";  // the result key it concerns (tests/result_keys.hpp); "": every figure
                            // the test had not measured yet
  WithheldReason reason{};
  // The numbers the reason rests on, named, in the order the sentence quotes them.
  std::vector<std::pair<const char*, double>> numbers;
  // A named number (0 when it was not recorded).
  double number(std::string_view name) const;
};

// Whether any record gives this reason, or concerns this figure (tests, and a caller that acts
// on one).
bool has_reason(const std::vector<Withheld>& w, WithheldReason r);
bool withholds(const std::vector<Withheld>& w, std::string_view figure);

}  // namespace ds::measure
