// The `bench` flow: open the target's block-I/O engine, run the chosen measurement modules within
// the drive-time budget, and put the drive's identity beside the results.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "app/identify.hpp"
#include "app/target.hpp"
#include "tests/common.hpp"

namespace ds::app {

struct BenchRequest {
  std::string target;
  std::vector<std::string> tests;   // empty: the default set (unless tests_given)
  bool tests_given = false;         // --tests was on the command line (an empty list is refused)
  // Absent when not given; given empty ("--span ''") is refused, not taken as the whole drive.
  std::optional<std::string> span;  // "50GB", "10%", "1TiB", "4096" (bytes); absent: whole drive
  std::optional<std::string> offset;  // where the bench starts, same syntax as span; absent: LBA 0
  bool write = false;
  bool destructive = false;
  std::uint64_t seed = 1;
  std::optional<double> budget_s;   // total drive time
  bool rates_only = false;          // transfer: no track structure looked for (--rates-only)
  DeviceChoice device;              // -d, --trace (the identity read beside the results)
  // Ctrl-C: once true, the running test's next submit fails (ECANCELED) and no further test
  // starts; the report keeps what was measured and exits kExitInterrupted.
  std::function<bool()> stop;
};

// "50GB" → 50e9, "1TiB" → 2^40, "10%" of capacity, a plain number is bytes: the --span of bench
// and ab. A span under one logical block (it used to round to zero and mean "the whole drive")
// or over the capacity is refused; every refusal is a usage_error (exit 2).
Expected<std::uint64_t> parse_span(std::string_view text, std::uint64_t capacity_bytes,
                                   std::uint32_t block_bytes);

// --offset: the same syntax as --span (a percentage is of the capacity); 0 allowed; at or beyond
// the capacity refused (usage_error, exit 2, as a --span over the capacity). Rounded down to a
// multiple of align_bytes (the physical sector), so reads stay aligned on a 512e drive.
Expected<std::uint64_t> parse_offset(std::string_view text, std::uint64_t capacity_bytes,
                                     std::uint32_t align_bytes);

Expected<Report> run_bench(const BenchRequest& req, const measure::ProgressFn& progress);

// The same on a target already opened (with want_io): req.target is only its name in the report.
// For targets that have no name to open by (the twin, a model held in memory: app/twin.cpp).
Expected<Report> bench_target(Target& target, const BenchRequest& req, const measure::ProgressFn& progress);

}  // namespace ds::app
