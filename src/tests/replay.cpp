#include "tests/replay.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <functional>
#include <limits>

#include "tests/common.hpp"

namespace ds::measure {

namespace {

// The replay's parameters (docs/cli.md, "replay"), in one place.
struct ReplayTuning {
  // On a real device an open-loop replay waits for the next issue time in slices this long,
  // reaping completions between them, so a completion is stamped at most this late.
  std::int64_t poll_slice_ns = 100'000;
  int cdf_steps = 100;          // the CDF in reports: every whole percent
  double fast_quantile = 0.05;  // "what a cache hit costs": from the fastest 5 %
  double fast_factor = 2.0;
};
constexpr ReplayTuning kTuning{};

double fraction_at_most(const std::vector<double>& v, double limit) {
  if (v.empty()) return 0;
  return static_cast<double>(std::count_if(v.begin(), v.end(), [&](double x) { return x <= limit; })) /
         static_cast<double>(v.size());
}

Comparison compare(std::string subset, const std::vector<double>& sim, const std::vector<double>& real,
                   double fast_ms) {
  Comparison c;
  c.subset = std::move(subset);
  c.simulated = distribution_of(sim);
  c.measured = distribution_of(real);
  c.demerit_ms = demerit_ms(sim, real);
  c.demerit_pct = demerit_pct(sim, real);
  c.fast_ms = fast_ms;
  c.simulated_fast_fraction = fraction_at_most(sim, fast_ms);
  c.measured_fast_fraction = fraction_at_most(real, fast_ms);
  return c;
}

// The state of one replay: what is issued, what is outstanding, what completed.
class Replayer {
 public:
  Replayer(IoEngine& io, const Trace& trace, std::vector<ReplayedRequest> plan, const ReplayOptions& opt)
      : io_(io), trace_(trace), reqs_(std::move(plan)), opt_(opt),
        qd_(trace.timing == TraceTiming::after_completion ? 1u
                                                          : std::clamp(opt.queue_depth, 1u, std::max(1u, io.info().max_queue_depth))),
        comps_(qd_), lb_(io.info().logical_block_bytes ? io.info().logical_block_bytes : 512) {}

  // The requests that completed, in trace order, and the error that ended the run early (a
  // failed completion, a refused submit, a timeout) if one did: what was measured before a drive
  // failed is kept, as every other test keeps it.
  struct Run {
    std::vector<ReplayedRequest> completed;
    std::optional<Error> stopped;
  };
  Run run() {
    start_ns_ = io_.now_ns();
    last_complete_ns_ = start_ns_;
    done_flags_.assign(reqs_.size(), false);
    Run out;
    while (done_ < reqs_.size()) {
      Expected<bool> step = true;
      if (next_ < reqs_.size() && outstanding_ < qd_) {
        const std::int64_t now = io_.now_ns();
        const std::int64_t due = due_ns(next_);
        step = due <= now ? submit_next() : wait_until(due);
      } else {
        step = reap(1, std::chrono::milliseconds(opt_.timeout_ms));
      }
      if (!step) {
        out.stopped = step.error();
        break;
      }
    }
    for (std::size_t i = 0; i < reqs_.size(); ++i)
      if (done_flags_[i]) out.completed.push_back(std::move(reqs_[i]));
    return out;
  }

  std::int64_t first_submit_ns() const { return first_submit_ns_; }
  std::int64_t last_complete_ns() const { return last_complete_ns_; }

 private:
  // When request i may be issued: its time from the start (open loop), or its pause after the
  // previous request's completion (closed loop: only asked once that one completed).
  std::int64_t due_ns(std::size_t i) const {
    const std::int64_t d = trace_.requests[i].delay_ns;
    return trace_.timing == TraceTiming::at_time ? start_ns_ + d : last_complete_ns_ + d;
  }

  Expected<bool> submit_next() {
    const ReplayedRequest& r = reqs_[next_];
    IoRequest q;
    q.offset_bytes = r.lba * lb_;
    q.length_bytes = r.blocks * lb_;
    q.write = r.write;
    q.tag = next_;
    auto n = io_.submit(std::span<const IoRequest>(&q, 1));
    if (!n) return n.error();
    if (*n == 0) {  // the engine's queue is full: wait for a completion first
      if (outstanding_ == 0) return make_error("the I/O engine accepted no request");
      return reap(1, std::chrono::milliseconds(opt_.timeout_ms));
    }
    ++next_;
    ++outstanding_;
    return true;
  }

  // Let time pass until `due`, collecting completions meanwhile. Virtual time jumps there at once;
  // a real device is polled in short slices so completions are stamped close to when they happen.
  Expected<bool> wait_until(std::int64_t due) {
    const std::int64_t now = io_.now_ns();
    const bool poll = !io_.info().virtual_time && outstanding_ > 0;
    const std::int64_t slice = poll ? std::min(due - now, kTuning.poll_slice_ns) : due - now;
    io_.idle(std::chrono::nanoseconds(slice));
    if (outstanding_ > 0) return reap(0, std::chrono::milliseconds(0));
    return true;
  }

  Expected<bool> reap(std::size_t min_events, std::chrono::milliseconds timeout) {
    auto got = io_.reap(comps_, min_events, timeout);
    if (!got) return got.error();
    if (*got == 0 && min_events > 0)
      return make_error(fmt::format("I/O timed out: no completion within {} ms: the device stopped answering", timeout.count()), ETIMEDOUT);
    for (std::size_t k = 0; k < *got; ++k) {
      const IoCompletion& c = comps_[k];
      if (c.tag >= reqs_.size()) continue;
      ReplayedRequest& r = reqs_[c.tag];
      if (!c.ok())
        return make_error(fmt::format("I/O failed at LBA {} (trace line {}): {}", r.lba,
                                      trace_.requests[c.tag].line, io_errno_text(-c.result)),
                          -c.result);
      r.service_ms = static_cast<double>(c.latency_ns()) * 1e-6;
      r.submit_ns = c.submit_ns;
      if (first_submit_ns_ < 0 || c.submit_ns < first_submit_ns_) first_submit_ns_ = c.submit_ns;
      last_complete_ns_ = std::max(last_complete_ns_, c.complete_ns);
      --outstanding_;
      ++done_;
      done_flags_[c.tag] = true;
    }
    return true;
  }

  IoEngine& io_;
  const Trace& trace_;
  std::vector<ReplayedRequest> reqs_;
  std::vector<bool> done_flags_;  // request i has completed
  const ReplayOptions& opt_;
  unsigned qd_;
  std::vector<IoCompletion> comps_;
  std::uint32_t lb_;
  std::size_t next_ = 0, outstanding_ = 0, done_ = 0;
  std::int64_t start_ns_ = 0, last_complete_ns_ = 0, first_submit_ns_ = -1;
};

}  // namespace

Distribution distribution_of(std::vector<double> ms) {
  Distribution d;
  d.count = ms.size();
  if (ms.empty()) return d;
  std::sort(ms.begin(), ms.end());
  d.mean_ms = mean(ms);
  d.p50_ms = quantile(ms, 0.50);
  d.p90_ms = quantile(ms, 0.90);
  d.p99_ms = quantile(ms, 0.99);
  d.max_ms = ms.back();
  for (int k = 0; k <= kTuning.cdf_steps; ++k) {
    const double p = static_cast<double>(k) / kTuning.cdf_steps;
    d.cdf.push_back({quantile(ms, p), p});
  }
  return d;
}

Expected<std::vector<ReplayedRequest>> plan_replay(const Trace& trace, const IoTargetInfo& info,
                                                   const ReplayOptions& opt) {
  const std::uint64_t lb = info.logical_block_bytes ? info.logical_block_bytes : 512;
  const std::uint64_t cap = info.capacity_bytes / lb;
  const std::size_t writes = trace.writes();
  if (writes > 0 && !opt.allow_write)
    return make_error(fmt::format("the trace holds {} write(s): replay them with --write (on a real device "
                                  "also --destructive: its data is overwritten)", writes));
  std::vector<ReplayedRequest> out;
  out.reserve(trace.requests.size());
  for (const TraceRequest& t : trace.requests) {
    if (t.offset_bytes % lb || t.length_bytes % lb)
      return make_error(fmt::format("trace line {}: offset {} / length {} bytes are not multiples of the "
                                    "target's {}-byte blocks", t.line, t.offset_bytes, t.length_bytes, lb));
    ReplayedRequest r;
    r.lba = t.offset_bytes / lb;
    r.blocks = static_cast<std::uint32_t>(t.length_bytes / lb);
    r.write = t.write;
    r.measured_ms = t.measured_ms;
    r.action = t.action;
    if (r.blocks > cap)
      return make_error(fmt::format("trace line {}: a request of {} blocks on a target of {}", t.line, r.blocks, cap));
    if (r.lba + r.blocks > cap) {
      if (!opt.wrap)
        return make_error(fmt::format("trace line {}: LBA {} + {} blocks is beyond the target's {} blocks "
                                      "(--wrap folds such LBAs into the target)", t.line, r.lba, r.blocks, cap));
      r.lba %= cap;
      if (r.lba + r.blocks > cap) r.lba = cap - r.blocks;
    }
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<Comparison> compare_replay(const std::vector<ReplayedRequest>& requests) {
  std::vector<double> all_real;
  for (const auto& r : requests)
    if (r.measured_ms) all_real.push_back(*r.measured_ms);
  if (all_real.empty()) return {};
  const double fast_ms = kTuning.fast_factor * quantile(all_real, kTuning.fast_quantile);
  // Subsets: all, reads, writes, each cache action the trace names (in first-seen order), then by
  // the request before in trace order (a drive's controller takes another path after a read than
  // after a write, and a request that continues the one before meets its read-ahead or write
  // stream): where a model is off, these say which path.
  std::vector<std::string> actions;
  for (const auto& r : requests)
    if (!r.action.empty() && std::find(actions.begin(), actions.end(), r.action) == actions.end())
      actions.push_back(r.action);
  struct Subset {
    std::string name;
    std::function<bool(const ReplayedRequest&, const ReplayedRequest*)> in;
  };
  std::vector<Subset> subsets{{"all", [](const auto&, const auto*) { return true; }},
                              {"reads", [](const auto& r, const auto*) { return !r.write; }},
                              {"writes", [](const auto& r, const auto*) { return r.write; }}};
  if (actions.size() > 1)
    for (const auto& a : actions)
      for (bool w : {false, true})
        subsets.push_back({fmt::format("{} {}", w ? "W" : "R", a),
                           [a, w](const auto& r, const auto*) { return r.action == a && r.write == w; }});
  for (bool w : {false, true})
    for (bool prev_w : {false, true})
      subsets.push_back({fmt::format("{} after {}", w ? "writes" : "reads", prev_w ? "writes" : "reads"),
                         [w, prev_w](const auto& r, const auto* p) { return p && r.write == w && p->write == prev_w; }});
  const auto continues = [](const ReplayedRequest& r, const ReplayedRequest* p) {
    return p && r.lba == p->lba + p->blocks;
  };
  subsets.push_back({"sequential", continues});
  subsets.push_back({"not sequential", [continues](const auto& r, const auto* p) { return p && !continues(r, p); }});
  std::vector<Comparison> out;
  for (const auto& s : subsets) {
    std::vector<double> sim, real;
    for (std::size_t i = 0; i < requests.size(); ++i) {
      const ReplayedRequest& r = requests[i];
      if (r.measured_ms && s.in(r, i > 0 ? &requests[i - 1] : nullptr)) {
        sim.push_back(r.service_ms);
        real.push_back(*r.measured_ms);
      }
    }
    if (!real.empty()) out.push_back(compare(s.name, sim, real, fast_ms));
  }
  return out;
}

Expected<ReplayResult> replay(IoEngine& io, const Trace& trace, const ReplayOptions& opt) {
  auto plan = plan_replay(trace, io.info(), opt);
  if (!plan) return plan.error();
  ReplayResult out;
  out.planned = plan->size();
  Replayer r(io, trace, std::move(*plan), opt);
  auto run = r.run();
  out.requests = std::move(run.completed);
  out.stopped = std::move(run.stopped);
  std::vector<double> all;
  all.reserve(out.requests.size());
  for (auto& q : out.requests) {
    q.submit_ns -= r.first_submit_ns();
    all.push_back(q.service_ms);
  }
  out.service = distribution_of(std::move(all));
  out.comparisons = compare_replay(out.requests);
  out.elapsed_ms = out.requests.empty() ? 0.0
                                        : static_cast<double>(r.last_complete_ns() - r.first_submit_ns()) * 1e-6;
  out.virtual_time = io.info().virtual_time;
  return out;
}

}  // namespace ds::measure
