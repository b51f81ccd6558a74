// How a twin is judged (issue "A drive's twin", docs/twin.md): the same read traces replayed on a
// drive D and on its twin T = `drivescope model D`, each with its own noise seed; the demerit of T's
// service times against D's, as a percentage of D's mean. Beside it the noise floor: D against
// itself with another seed. Shared by the twin test and tools/twin-table (docs/twin.md's table).
#pragma once
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "app_test_util.hpp"
#include "sim/sim.hpp"
#include "tests/demerit.hpp"
#include "tests/replay.hpp"
#include "tests/trace.hpp"

namespace twintest {

using ds::measure::Trace;
using ds::measure::TraceRequest;

struct NamedTrace {
  std::string name;
  Trace trace;
  unsigned queue_depth = 1;
};

// Uniform random reads of `blocks` 512-byte blocks over the capacity, back to back.
inline Trace random_reads(std::uint64_t capacity_bytes, std::uint32_t bytes, std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  Trace t;
  t.format = ds::measure::TraceFormat::fio_iolog;
  t.timing = ds::measure::TraceTiming::after_completion;
  std::uniform_int_distribution<std::uint64_t> at(0, capacity_bytes / bytes - 1);
  for (std::size_t i = 0; i < n; ++i) t.requests.push_back({at(rng) * bytes, bytes, false, 0, {}, {}, i + 1});
  return t;
}

// A database-like read mix: 8 KiB reads, a third of them continuing the previous one (sequential
// runs), the rest random; think time between requests exponential with mean 1 ms.
inline Trace database_reads(std::uint64_t capacity_bytes, std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  Trace t;
  t.format = ds::measure::TraceFormat::fio_iolog;
  t.timing = ds::measure::TraceTiming::after_completion;
  const std::uint32_t bytes = 8192;
  std::uniform_int_distribution<std::uint64_t> at(0, capacity_bytes / bytes - 2);
  std::uniform_real_distribution<double> u(0, 1);
  std::exponential_distribution<double> think(1.0);  // per ms
  std::uint64_t next = at(rng) * bytes;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t off = (u(rng) < 1.0 / 3 && next + bytes <= capacity_bytes) ? next : at(rng) * bytes;
    t.requests.push_back({off, bytes, false, static_cast<std::int64_t>(think(rng) * 1e6), {}, {}, i + 1});
    next = off + bytes;
  }
  return t;
}

// Open-loop 4 KiB random reads arriving every `gap_ms` on average (exponential), faster than the
// drive serves them: replayed at queue depth 8, the queue stays full.
inline Trace timed_reads(std::uint64_t capacity_bytes, std::size_t n, double gap_ms, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  Trace t;
  t.format = ds::measure::TraceFormat::fio_iolog;
  t.timing = ds::measure::TraceTiming::at_time;
  const std::uint32_t bytes = 4096;
  std::uniform_int_distribution<std::uint64_t> at(0, capacity_bytes / bytes - 1);
  std::exponential_distribution<double> gap(1.0 / gap_ms);
  double clock_ms = 0;
  for (std::size_t i = 0; i < n; ++i) {
    t.requests.push_back({at(rng) * bytes, bytes, false, static_cast<std::int64_t>(clock_ms * 1e6), {}, {}, i + 1});
    clock_ms += gap(rng);
  }
  return t;
}

// A recorded stream's reads (its writes left out: a twin made read-only does not model them),
// without the recorded times; LBAs beyond the capacity are folded in by the replay (--wrap).
inline Trace recorded_reads(const std::filesystem::path& file, std::size_t max_requests) {
  auto t = ds::measure::parse_trace(apptest::slurp(file));
  Trace out;
  if (!t) return out;
  out.format = t->format;
  out.timing = t->timing;
  for (auto r : t->requests) {
    if (r.write) continue;
    r.measured_ms.reset();
    r.action.clear();
    out.requests.push_back(r);
    if (out.requests.size() >= max_requests) break;
  }
  return out;
}

// The service times of a trace replayed on a model with a noise seed; empty when the replay failed.
inline std::vector<double> service_ms(const std::string& spec, std::uint64_t seed, const NamedTrace& nt) {
  ds::sim::SimOptions so;
  so.seed = seed;
  auto target = ds::sim::open(spec, so);
  if (!target) return {};
  ds::measure::ReplayOptions ro;
  ro.wrap = true;
  ro.queue_depth = nt.queue_depth;
  auto r = ds::measure::replay(*target->io, nt.trace, ro);
  std::vector<double> ms;
  if (!r || r->stopped) return ms;
  for (const auto& q : r->requests) ms.push_back(q.service_ms);
  return ms;
}

inline double mean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return v.empty() ? NAN : s / static_cast<double>(v.size());
}

}  // namespace twintest
