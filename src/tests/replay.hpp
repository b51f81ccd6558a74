// Replaying a trace (tests/trace.hpp) on a target through ds::IoEngine, with the trace's timing:
// a closed-loop trace (DiskSim validate, fio iolog v2) issues each request its delay after the
// previous one completed, one at a time; an open-loop trace (fio iolog v3, blkparse) issues each
// request at its time from the start, up to `queue_depth` outstanding (a request whose slot is
// not free yet waits for one). Service time = the engine's completion stamp − its submit stamp,
// so a simulated drive (virtual time) replays hours of trace in seconds.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "drivescope/expected.hpp"
#include "drivescope/io.hpp"
#include "tests/demerit.hpp"
#include "tests/trace.hpp"

namespace ds::measure {

struct ReplayOptions {
  unsigned queue_depth = 32;      // open-loop traces: most requests outstanding at once
  bool wrap = false;              // an LBA beyond the end is taken modulo the capacity
  bool allow_write = false;       // the trace's writes are issued (else: refused before any I/O)
  std::int64_t timeout_ms = 30'000;
};

struct ReplayedRequest {
  std::uint64_t lba = 0;          // in the target's logical blocks (after --wrap)
  std::uint32_t blocks = 0;
  bool write = false;
  double service_ms = 0;
  std::optional<double> measured_ms;
  std::string action;             // validate traces: what the real drive's cache did
  std::int64_t submit_ns = 0;     // engine clock, from the first submit
};

// The shape of a set of service times.
struct Distribution {
  std::size_t count = 0;
  double mean_ms = 0, p50_ms = 0, p90_ms = 0, p99_ms = 0, max_ms = 0;
  std::vector<CdfPoint> cdf;      // at every whole percent (0, 0.01, … 1)
};
Distribution distribution_of(std::vector<double> ms);

// Simulated against measured for one subset of the requests (all, reads, writes, an action).
struct Comparison {
  std::string subset;
  Distribution simulated, measured;
  double demerit_ms = 0;          // DiskSim's rms figure (tests/demerit.hpp)
  double demerit_pct = 0;         // the same over the measured mean
  // Requests served no slower than `fast_ms` (what a cache hit costs on the real drive: twice
  // the median measured time of the trace's fastest tenth), on each side.
  double fast_ms = 0;
  double simulated_fast_fraction = 0, measured_fast_fraction = 0;
};

struct ReplayResult {
  std::vector<ReplayedRequest> requests;  // the completed ones, in trace order
  std::size_t planned = 0;                // the trace's requests
  // Set when the run ended before every request completed (a failed read, a timeout, a vanished
  // device): the error, whose message names the LBA and trace line; `requests` and the figures
  // are then those of the requests completed before it.
  std::optional<Error> stopped;
  Distribution service;                   // all requests
  std::vector<Comparison> comparisons;    // when the trace carries measured times
  double elapsed_ms = 0;                  // engine time from the first submit to the last completion
  bool virtual_time = false;              // the engine's clock is simulated time
};

// Every request checked against the target (block alignment, capacity, writes) before any I/O.
Expected<std::vector<ReplayedRequest>> plan_replay(const Trace& trace, const IoTargetInfo& info,
                                                   const ReplayOptions& opt);

// The comparisons for a finished replay (pure: used by replay() and the tests).
std::vector<Comparison> compare_replay(const std::vector<ReplayedRequest>& requests);

// An error only when the trace does not fit the target (plan_replay); a run that fails midway
// returns what it measured, with `stopped` set.
Expected<ReplayResult> replay(IoEngine& io, const Trace& trace, const ReplayOptions& opt);

}  // namespace ds::measure
