// The access test's reads: QD1 plans of single-block reads through the runner, with the context
// every phase reads through (its budget, the failure that ends the test, where the head was last).
// Internal to the access test: access.cpp and access_rotation.cpp include it, nothing else.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "drivescope/io.hpp"
#include "tests/common.hpp"

namespace ds::measure::access_detail {

inline constexpr double kMsPerNs = 1e-6;

struct Ctx {
  IoEngine& io;
  Budget& budget;
  std::uint64_t span;
  std::optional<Error> err;    // a failed I/O: the test ends with it
  bool spent = false;          // the budget ended a plan early: an end, not a failure
  std::uint64_t last_lba = 0;  // the last LBA read: the start of the next read's seek
};

// Run a QD1 plan of single-block reads; returns latencies in ns (negative for not completed).
// With `since_previous`, each read after the first is timed from the previous one's completion
// instead of its own submission: the same in virtual time, and on a real host it leaves out the
// reader's own time between the two (through a TCG guest 25-50 us, which made a backward step's
// revolution 0.4-0.9 % short: docs/serve.md).
std::vector<double> qd1(Ctx& c, const std::vector<std::uint64_t>& lbas, bool write = false,
                        std::vector<std::int64_t>* complete_ns = nullptr, bool since_previous = false);

}  // namespace ds::measure::access_detail
