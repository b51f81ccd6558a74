#include "app/replay_breakdown.hpp"

#include <fmt/core.h>

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <optional>
#include <fstream>
#include <sstream>

#include "app/kernel_errors.hpp"
#include "app/target.hpp"
#include "sim/drive.hpp"

namespace ds::app {

namespace {

using nlohmann::json;

// A trace is read whole; anything larger is surely not a block trace meant for this.
constexpr std::uintmax_t kMaxTraceBytes = 1ull << 30;

Expected<std::string> read_text(const std::string& path) {
  // A directory opens as a stream of no use, a FIFO blocks until someone writes to it: only a
  // regular file is read.
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    return make_error(fmt::format("{}: cannot open the trace: {}", path, std::strerror(errno)), errno);
  if (S_ISDIR(st.st_mode)) return make_error(fmt::format("{}: is a directory, not a trace file", path), EISDIR);
  if (!S_ISREG(st.st_mode)) return make_error(fmt::format("{}: not a regular file; give the trace as a file", path), EINVAL);
  if (static_cast<std::uintmax_t>(st.st_size) > kMaxTraceBytes)
    return make_error(fmt::format("{}: larger than 1 GiB; split the trace", path));
  std::ifstream f(path, std::ios::binary);
  if (!f) return make_error(fmt::format("{}: cannot open the trace", path));
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// A trace's times are read from outside: a gap of 1e30 us would sleep for ever (on a real target)
// or be cut silently to what a 64-bit count holds (on sim:). Nothing a drive does lasts an hour.
constexpr std::int64_t kMaxTraceGapNs = std::int64_t{3600} * 1'000'000'000;
constexpr double kMaxTraceServiceMs = 3600.0 * 1e3;

// Each pause before a request (after the previous completion, or since the previous issue time
// in an open-loop trace) and each recorded service time at most an hour; the line is named.
std::optional<Error> check_durations(const measure::Trace& t) {
  std::int64_t previous_at = 0;
  for (const auto& r : t.requests) {
    const std::int64_t gap = t.timing == measure::TraceTiming::at_time ? r.delay_ns - previous_at : r.delay_ns;
    if (t.timing == measure::TraceTiming::at_time) previous_at = std::max(previous_at, r.delay_ns);
    if (gap > kMaxTraceGapNs) {
      // The readers saturate a time too long for 64-bit nanoseconds at 9.2e18 ns (src/tests/trace.cpp).
      const std::string pause = r.delay_ns >= std::int64_t{9'200'000'000'000'000'000}
                                    ? std::string("too long to count")
                                    : fmt::format("{:.10g} s", static_cast<double>(gap) * 1e-9);
      return make_error(fmt::format("line {}: a pause of {} before this request: more than the {} s a trace may wait "
                                    "between requests", r.line, pause, kMaxTraceGapNs / 1'000'000'000));
    }
    if (r.measured_ms && !(*r.measured_ms <= kMaxTraceServiceMs))
      return make_error(fmt::format("line {}: a recorded service time of {:.6g} s: more than the {} s allowed",
                                    r.line, *r.measured_ms * 1e-3, kMaxTraceServiceMs * 1e-3));
  }
  return std::nullopt;
}

json num(double v) { return std::isfinite(v) ? json(v) : json(); }

json distribution_json(const measure::Distribution& d) {
  json cdf = json::array();
  for (const auto& p : d.cdf) cdf.push_back({{"p", p.p}, {"ms", p.ms}});
  return {{"count", d.count}, {"mean_ms", d.mean_ms}, {"p50_ms", d.p50_ms}, {"p90_ms", d.p90_ms},
          {"p99_ms", d.p99_ms}, {"max_ms", d.max_ms}, {"cdf", cdf}};
}

json comparison_json(const measure::Comparison& c) {
  return {{"subset", c.subset},
          {"simulated", distribution_json(c.simulated)},
          {"measured", distribution_json(c.measured)},
          {"demerit_ms", num(c.demerit_ms)},
          {"demerit_pct", num(c.demerit_pct)},
          {"fast_ms", c.fast_ms},
          {"simulated_fast_fraction", c.simulated_fast_fraction},
          {"measured_fast_fraction", c.measured_fast_fraction}};
}

std::string distribution_line(const char* label, const measure::Distribution& d) {
  return fmt::format("  {:<10} {:>6}  mean {:8.3f}  p50 {:8.3f}  p90 {:8.3f}  p99 {:8.3f}  max {:8.3f} ms\n",
                     label, d.count, d.mean_ms, d.p50_ms, d.p90_ms, d.p99_ms, d.max_ms);
}

std::string comparisons_text(const std::vector<measure::Comparison>& cs) {
  if (cs.empty()) return "";
  std::string s = fmt::format(
      "\nAgainst the trace's measured times (demerit: DiskSim's rms, the RMS horizontal distance\n"
      "between the two service-time CDFs; fast: at most {:.3f} ms, about what a cache hit costs):\n",
      cs.front().fast_ms);
  s += fmt::format("  {:<20} {:>6}  {:>9} {:>9}  {:>10} {:>8}  {:>9} {:>9}\n", "subset", "count", "sim mean",
                   "real mean", "demerit ms", "%", "sim fast", "real fast");
  for (const auto& c : cs)
    s += fmt::format("  {:<20} {:>6}  {:9.3f} {:9.3f}  {:10.3f} {:7.1f}%  {:8.1f}% {:8.1f}%\n", c.subset,
                     c.measured.count, c.simulated.mean_ms, c.measured.mean_ms, c.demerit_ms, c.demerit_pct,
                     100 * c.simulated_fast_fraction, 100 * c.measured_fast_fraction);
  return s;
}

// The breakdown's parts in ms, each a mean over `count` requests (total: their sum, the mean
// service time of the requests the breakdown covers).
json parts_json(const sim::ServiceBreakdown& sum, std::size_t count) {
  json parts = json::object();
  const double n = count > 0 ? static_cast<double>(count) : 1.0;
  for (const auto& [name, part] : sim::kServiceParts) parts[name] = static_cast<double>(sum.*part) * 1e-6 / n;
  parts["total"] = static_cast<double>(sum.total()) * 1e-6 / n;
  return parts;
}

// Sums of the parts over all requests, the reads and the writes.
struct BreakdownSums {
  sim::ServiceBreakdown sum[3];  // all, reads, writes
  std::size_t count[3] = {0, 0, 0};
  void add(const sim::ServiceBreakdown& b, bool write) {
    for (int k : {0, write ? 2 : 1}) {
      for (const auto& [name, part] : sim::kServiceParts) sum[k].*part += b.*part;
      ++count[k];
    }
  }
};

constexpr const char* kBreakdownSubsets[3] = {"all", "reads", "writes"};

// The sums over the trace's requests that have a breakdown (none: on a target without one).
std::optional<BreakdownSums> breakdown_sums(const measure::Trace& trace, const ReplayBreakdowns& parts) {
  if (parts.empty()) return std::nullopt;
  BreakdownSums s;
  for (std::size_t i = 0; i < parts.size() && i < trace.requests.size(); ++i)
    if (parts[i]) s.add(*parts[i], trace.requests[i].write);
  return s;
}

json breakdown_json(const std::optional<BreakdownSums>& s) {
  if (!s) return json();
  json names = json::array();
  for (const auto& [name, part] : sim::kServiceParts) names.push_back(name);
  json out = {{"parts", names}};
  for (int k = 0; k < 3; ++k)
    out[kBreakdownSubsets[k]] = {{"count", s->count[k]}, {"mean_ms", parts_json(s->sum[k], s->count[k])}};
  return out;
}

std::string breakdown_text(const std::optional<BreakdownSums>& s) {
  if (!s) return "";
  std::string out = "\nWhere the simulated drive's time went (mean ms per request):\n";
  out += fmt::format("  {:<8}", "subset");
  for (const auto& [name, part] : sim::kServiceParts) out += fmt::format(" {:>9}", name);
  out += fmt::format(" {:>9}\n", "total");
  for (int k = 0; k < 3; ++k) {
    if (s->count[k] == 0) continue;
    const double n = static_cast<double>(s->count[k]);
    out += fmt::format("  {:<8}", kBreakdownSubsets[k]);
    for (const auto& [name, part] : sim::kServiceParts)
      out += fmt::format(" {:9.3f}", static_cast<double>(s->sum[k].*part) * 1e-6 / n);
    out += fmt::format(" {:9.3f}\n", static_cast<double>(s->sum[k].total()) * 1e-6 / n);
  }
  return out;
}

}  // namespace

Report replay_report(const ReplayRequest& req, const measure::Trace& trace, const measure::ReplayResult& r,
                     const ReplayBreakdowns& parts) {
  Report rep;
  json reqs = json::array();
  for (std::size_t i = 0; i < r.requests.size(); ++i) {
    const auto& q = r.requests[i];
    reqs.push_back({{"lba", q.lba}, {"blocks", q.blocks}, {"write", q.write}, {"service_ms", q.service_ms},
                    {"measured_ms", q.measured_ms ? json(*q.measured_ms) : json()},
                    {"issue_ms", static_cast<double>(q.submit_ns) * 1e-6},
                    {"action", q.action.empty() ? json() : json(q.action)}});
    // (requests[i] is the trace's request i when every request completed)
    if (req.breakdown_per_request && r.requests.size() == parts.size() && parts[i])
      reqs.back()["breakdown_ms"] = parts_json(*parts[i], 1);
  }
  const auto sums = breakdown_sums(trace, parts);
  json replay = {{"trace", req.trace_path},
                 {"format", measure::to_string(trace.format)},
                 {"variant", trace.variant},
                 {"timing", trace.timing == measure::TraceTiming::at_time ? "at_time" : "after_completion"},
                 {"queue_depth", trace.timing == measure::TraceTiming::at_time ? req.queue_depth : 1u},
                 {"wrap", req.wrap},
                 {"elapsed_ms", r.elapsed_ms},
                 {"virtual_time", r.virtual_time},
                 {"summary", distribution_json(r.service)},
                 {"requests", reqs},
                 {"planned_requests", r.planned},
                 {"complete", !r.stopped},
                 {"error", r.stopped ? json(r.stopped->message) : json()},
                 {"breakdown", breakdown_json(sums)}};
  json comps = json::array();
  for (const auto& c : r.comparisons) comps.push_back(comparison_json(c));
  replay["comparisons"] = comps;
  replay["demerit_ms"] = r.comparisons.empty() ? json() : num(r.comparisons.front().demerit_ms);
  replay["measured"] = r.comparisons.empty() ? json() : distribution_json(r.comparisons.front().measured);
  rep.json = {{"drivescope", {{"version", version()}}},
              {"target", {{"name", req.target}}},
              {"replay", replay},
              {"settings", {{"seed", req.seed}, {"write", req.write}}}};
  rep.text = fmt::format("drivescope replay {} {}\n{} ({}), {} requests ({} writes), over {:.3f} s{}\n\n",
                         req.target, req.trace_path, measure::to_string(trace.format), trace.variant,
                         r.requests.size(), trace.writes(), r.elapsed_ms / 1e3,
                         r.virtual_time ? " of virtual time" : "");
  rep.text += "Service times:\n" + distribution_line("replayed", r.service);
  if (!r.comparisons.empty()) rep.text += distribution_line("measured", r.comparisons.front().measured);
  rep.text += comparisons_text(r.comparisons);
  rep.text += breakdown_text(sums);
  if (r.stopped) {
    // What completed before the failure is reported above; the run's status says it is partial,
    // and a failure of the device itself (not of the trace) is exit 5 like every other test's.
    rep.warnings.push_back(fmt::format("the replay stopped after {} of {} requests: {}", r.requests.size(),
                                       r.planned, r.stopped->message));
    rep.exit_code = device_failure(*r.stopped) ? kExitDevice : kExitPartial;
  }
  return rep;
}

Report replay_report(const ReplayRequest& req, const measure::Trace& trace, const measure::ReplayResult& r) {
  return replay_report(req, trace, r, {});
}

Expected<Report> run_replay(const ReplayRequest& req) {
  std::optional<measure::TraceFormat> fmt_given;
  if (!req.format.empty()) {
    auto f = measure::parse_trace_format(req.format);
    if (!f) return f.error();
    fmt_given = *f;
  }
  auto text = read_text(req.trace_path);
  if (!text) return text.error();
  auto trace = measure::parse_trace(*text, fmt_given);
  if (!trace) return make_error(fmt::format("{}: {}", req.trace_path, trace.error().message));
  if (auto bad = check_durations(*trace)) return make_error(fmt::format("{}: {}", req.trace_path, bad->message));
  if (trace->writes() > 0 && !req.write)
    return make_error(fmt::format("{}: the trace holds {} write(s): replay them with --write (on a real device "
                                  "also --destructive: its data is overwritten)", req.trace_path, trace->writes()));
  OpenOptions oo;
  oo.want_io = true;
  oo.write = req.write;
  oo.destructive = req.destructive;
  oo.seed = req.seed;
  auto t = open_target(req.target, oo);
  if (!t) return t.error();
  measure::ReplayOptions ro;
  ro.queue_depth = req.queue_depth;
  ro.wrap = req.wrap;
  ro.allow_write = req.write;
  const KernelErrorWatch kernel(t->block_name);
  // A simulated drive says where each request's time went: kept by the request's tag (its index
  // in the trace), the only record of it the drive has.
  ReplayBreakdowns parts;
  if (t->kind == TargetKind::sim && t->keepalive) {
    parts.resize(trace->requests.size());
    std::static_pointer_cast<sim::SimDrive>(t->keepalive)->set_service_hook([&parts](const sim::ServiceRecord& s) {
      if (s.tag < parts.size()) parts[s.tag] = s.parts;
    });
  }
  auto r = measure::replay(*t->io, *trace, ro);
  if (t->kind == TargetKind::sim && t->keepalive)
    std::static_pointer_cast<sim::SimDrive>(t->keepalive)->set_service_hook({});  // (parts goes out of scope)
  if (!r) return r.error();
  auto rep = replay_report(req, *trace, *r, parts);
  rep.json["target"]["kind"] = to_string(t->kind);
  kernel.finish(rep, rep.exit_code == kExitDevice);
  return rep;
}

}  // namespace ds::app
