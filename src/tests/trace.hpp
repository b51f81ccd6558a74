// Block-I/O traces to replay (`drivescope replay`): pure readers over text, one per format.
//
//   disksim-validate  DiskSim's "validate" traces (real drives' measured service times):
//                     `R|W ACTION LBA BLOCKS SERVICE_US NEXT_US` per line, 512-byte blocks; one
//                     request at a time, the next one NEXT_US after this one completes (DiskSim
//                     4.0, src/disksim_iotrace.c, iotrace_validate_get_ioreq_event).
//   fio-iolog         fio's iolog, version 2 (`fio version 2 iolog`: `FILE read|write OFFSET
//                     LENGTH`, no times: back to back at queue depth 1; `FILE wait USEC` adds a
//                     pause) or version 3 (`fio version 3 iolog`: `TIME FILE ACTION OFFSET LENGTH`,
//                     TIME in microseconds from the start of the run, as fio's iolog.c writes it
//                     (utime_since_now) and replays it (iolog_delay counts µs): issued at those
//                     times). Offsets and lengths in bytes; add/open/close/sync/datasync/trim lines
//                     are accepted and not replayed.
//   blkparse          blkparse's default text output: the D events (the request as the driver
//                     handed it to the device, after merging) are replayed at their times; a trace
//                     without D events falls back to its Q events. When a C (complete) event
//                     matches a D event (same device, sector, count, direction), C − D is that
//                     request's measured time. Sectors are 512 bytes (the kernel's unit).
//
// Errors name the line ("line 12: expected R or W, got 'X'"); no reader throws or crashes on any
// input (fuzz/fuzz_trace.cpp).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "drivescope/expected.hpp"

namespace ds::measure {

enum class TraceFormat { disksim_validate, fio_iolog, blkparse };
const char* to_string(TraceFormat f);
Expected<TraceFormat> parse_trace_format(std::string_view name);

// How a request's issue time is given.
enum class TraceTiming {
  after_completion,  // `delay_ns` after the previous request completed (one request at a time)
  at_time,           // `delay_ns` from the start of the replay (open loop; requests may overlap)
};

struct TraceRequest {
  std::uint64_t offset_bytes = 0;
  std::uint32_t length_bytes = 0;
  bool write = false;
  std::int64_t delay_ns = 0;               // see TraceTiming
  std::optional<double> measured_ms;       // the service time the trace recorded, if any
  std::string action;                      // validate traces: the real cache's Hit/Miss/Doub/Trip
  std::size_t line = 0;                    // 1-based line in the trace text
};

struct Trace {
  TraceFormat format = TraceFormat::disksim_validate;
  TraceTiming timing = TraceTiming::after_completion;
  std::string variant;                     // "fio version 3 iolog", "D events", ...
  std::vector<TraceRequest> requests;
  bool has_measured() const;
  std::size_t writes() const;
};

// The format from the text itself: an iolog header, blkparse's event lines, or validate lines.
Expected<TraceFormat> detect_trace_format(std::string_view text);

Expected<Trace> parse_disksim_validate(std::string_view text);
Expected<Trace> parse_fio_iolog(std::string_view text);
Expected<Trace> parse_blkparse(std::string_view text);
// `format` absent: detect it.
Expected<Trace> parse_trace(std::string_view text, std::optional<TraceFormat> format = {});

}  // namespace ds::measure
