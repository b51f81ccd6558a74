#include "tests/runner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <string>
#include <utility>

namespace ds::measure {

std::string_view to_string(StopReason r) {
  switch (r) {
    case StopReason::done: return "done";
    case StopReason::budget_spent: return "budget spent";
    case StopReason::device_gone: return "device gone";
    case StopReason::io_error: return "I/O error";
    case StopReason::interrupted: return "interrupted";
  }
  return "?";
}

namespace {

// A vanished device fails with ENODEV/ENXIO (the same test io_errno_text words); anything else
// the drive or the path did is an I/O error.
StopReason reason_of(const Error& e) {
  return e.code == ENODEV || e.code == ENXIO ? StopReason::device_gone : StopReason::io_error;
}

// What both ways of driving share: the engine, the completion buffer, the count of requests
// outstanding, and the stop reason with its error. Errors from submit and reap replace an earlier
// one (the latest says best why the run could not go on); a failed completion is kept only when
// it is the first.
class Core {
 public:
  Core(IoEngine& io, unsigned depth, std::int64_t timeout_ms)
      : io_(io), comps_(depth), timeout_ms_(timeout_ms) {}

  // Submits; on refusal records the error and returns nullopt.
  std::optional<std::size_t> submit(std::span<const IoRequest> batch) {
    auto s = io_.submit(batch);
    if (!s) {
      fail(s.error());
      return std::nullopt;
    }
    outstanding_ += *s;
    return *s;
  }
  // Waits for at least one completion; on an error or a timeout records it and returns none.
  std::optional<std::span<const IoCompletion>> reap() {
    auto got = io_.reap(comps_, 1, std::chrono::milliseconds(timeout_ms_));
    if (!got) {
      fail(got.error());
      return std::nullopt;
    }
    if (*got == 0) {
      fail(make_error(fmt::format("I/O timed out: no completion within {} ms: the device stopped answering", timeout_ms_), ETIMEDOUT));
      return std::nullopt;
    }
    return std::span<const IoCompletion>(comps_.data(), *got);
  }
  // A completion of ours reaped: one fewer outstanding.
  void completed() { --outstanding_; }
  // A failed completion at `where` ("LBA 123", "byte offset 4096"): kept if it is the first error.
  void failed_io(const IoCompletion& c, std::string_view where) {
    if (!error_)
      fail(make_error(fmt::format("I/O failed at {}: {}", where, io_errno_text(-c.result)), -c.result));
  }
  void fail(Error e) {
    if (stop_ != StopReason::interrupted) stop_ = reason_of(e);
    error_ = std::move(e);
  }
  void end(StopReason why) { stop_ = why; }
  void end(StopReason why, Error e) {
    stop_ = why;
    error_ = std::move(e);
  }

  IoEngine& io() { return io_; }
  std::size_t outstanding() const { return outstanding_; }
  bool has_error() const { return error_.has_value(); }
  StopReason stop() const { return stop_; }
  std::optional<Error> take_error() { return std::move(error_); }

 private:
  IoEngine& io_;
  std::vector<IoCompletion> comps_;
  std::int64_t timeout_ms_;
  std::size_t outstanding_ = 0;
  StopReason stop_ = StopReason::done;
  std::optional<Error> error_;
};

// Busy time = length of the union of [submit, complete] over all completed I/Os.
std::int64_t busy_ns(const RunResult& r) {
  std::vector<std::pair<std::int64_t, std::int64_t>> iv;
  iv.reserve(r.samples.size());
  for (std::size_t i = 0; i < r.samples.size(); ++i)
    if (r.done[i]) iv.emplace_back(r.samples[i].submit_ns, r.samples[i].complete_ns);
  std::sort(iv.begin(), iv.end());
  std::int64_t total = 0, cur_s = 0, cur_e = 0;
  bool open = false;
  for (auto [s, e] : iv) {
    if (!open || s > cur_e) {
      if (open) total += cur_e - cur_s;
      cur_s = s;
      cur_e = e;
      open = true;
    } else {
      cur_e = std::max(cur_e, e);
    }
  }
  if (open) total += cur_e - cur_s;
  return total;
}

// The closed loop's parameters (docs/methods.md, "Read queuing").
struct RunnerTuning {
  // Batch means of the IOPS' standard error (steady_iops): at least min_batch_blocks runs of
  // completions (fewer leave their spread too loose), about gaps_per_block gaps each, at most
  // max_batch_blocks runs.
  std::size_t min_batch_blocks = 8;
  std::size_t gaps_per_block = 16;
  std::size_t max_batch_blocks = 32;
};
constexpr RunnerTuning kTuning{};

// Steady-state IOPS from completion times (sorted): skip the first completions (the queue was
// just filled) and the last depth−1 (the queue was draining), then count completions per second
// over what is left. The relative standard error comes from batch means of the gaps between
// completions (below).
void steady_iops(const std::vector<std::int64_t>& t, unsigned depth, std::int64_t t0, LoopResult& r) {
  const std::size_t n = t.size();
  if (n == 0) return;
  std::size_t k0 = std::min<std::size_t>(depth, n / 4);
  std::size_t k1 = n > depth ? n - depth : 0;
  if (k1 <= k0 + 8) {
    const double span = static_cast<double>(t.back() - t0) * 1e-9;
    r.iops = span > 0 ? static_cast<double>(n) / span : 0;
    r.iops_rel_se = 1.0 / std::sqrt(static_cast<double>(n));
    return;
  }
  const double span = static_cast<double>(t[k1] - t[k0]) * 1e-9;
  const std::size_t m = k1 - k0;
  if (span <= 0) {
    // Completions seen in one instant (a coarse clock): fall back to the whole run.
    const double all = static_cast<double>(t.back() - t0) * 1e-9;
    r.iops = all > 0 ? static_cast<double>(n) / all : 0;
    r.iops_rel_se = 1.0 / std::sqrt(static_cast<double>(n));
    return;
  }
  r.iops = static_cast<double>(m) / span;
  // Batch means: the window cut into `blocks` runs of consecutive gaps, whose mean gaps spread
  // about as the window's does times sqrt(blocks). Unlike the spread of single gaps this holds
  // when gaps are not independent: a host that reports completions in clumps (a guest under
  // QEMU: a long gap, then several near 0) makes single gaps vary 2-4x more than the window's
  // length does. Short windows keep the single gaps (blocks = m).
  const auto& k = kTuning;
  const std::size_t blocks = m < 4 * k.min_batch_blocks
                                 ? m
                                 : std::clamp<std::size_t>(m / k.gaps_per_block, k.min_batch_blocks, k.max_batch_blocks);
  double sum = 0, sum2 = 0;
  for (std::size_t b = 0; b < blocks; ++b) {
    const std::size_t i0 = k0 + m * b / blocks, i1 = k0 + m * (b + 1) / blocks;
    const double g = static_cast<double>(t[i1] - t[i0]) / static_cast<double>(i1 - i0);
    sum += g;
    sum2 += g * g;
  }
  const double nb = static_cast<double>(blocks);
  const double mean = sum / nb;
  const double var = std::max(0.0, sum2 / nb - mean * mean);
  r.iops_rel_se = mean > 0 ? std::sqrt(var) / (mean * std::sqrt(nb)) : 0;
}

// ---- run_plan's parts ----

struct PlanRun {
  Core core;
  std::span<const PlanEntry> plan;
  const RunOptions& opt;
  RunResult r;
  std::uint32_t lb;
  unsigned qd;
  std::size_t next = 0;
  std::vector<IoRequest> batch;
  // Running estimate of busy time, for stopping on the budget while the run goes on.
  std::int64_t busy_before = 0, busy_since = 0;
  bool stopping = false;

  // Fills the queue up to the depth in one submit call.
  void refill() {
    batch.clear();
    const unsigned depth = opt.first_alone && !r.done[0] ? 1 : qd;
    while (next + batch.size() < plan.size() && core.outstanding() + batch.size() < depth) {
      const PlanEntry& p = plan[next + batch.size()];
      IoRequest q;
      q.offset_bytes = p.lba * lb;
      q.length_bytes = p.blocks * lb;
      q.write = p.write;
      q.tag = next + batch.size();
      batch.push_back(q);
    }
    if (core.outstanding() == 0) busy_since = core.io().now_ns();
    auto sub = core.submit(batch);
    if (!sub) {
      stopping = true;
      return;
    }
    next += *sub;
    if (*sub == 0 && core.outstanding() == 0) {
      core.fail(make_error("the I/O engine accepted no request"));
      stopping = true;
    }
  }

  void take(const IoCompletion& c) {
    core.completed();
    if (c.tag >= plan.size()) return;
    if (!c.ok()) {
      core.failed_io(c, where_text(core.io().info(), plan[c.tag].lba * lb));
      stopping = true;
      return;
    }
    Sample& s = r.samples[c.tag];
    s.lba = plan[c.tag].lba;
    s.blocks = plan[c.tag].blocks;
    s.submit_ns = c.submit_ns;
    s.complete_ns = c.complete_ns;
    r.done[c.tag] = true;
    if (core.outstanding() == 0) busy_before += c.complete_ns - busy_since;
  }

  void check_budget(const Budget& budget) {
    const std::size_t out = core.outstanding();
    const std::int64_t running = busy_before + (out ? core.io().now_ns() - busy_since : 0);
    if (budget.used_ns() + running < static_cast<std::int64_t>(budget.limit_s() * 1e9)) return;
    stopping = true;
    if (next < plan.size()) core.end(StopReason::budget_spent, make_error(std::string(kBudgetSpentMessage), 0));
  }
};

// ---- run_closed_loop's parts ----

struct LoopRun {
  // The I/O path costs no more per I/O than the engine: tags are seqs, so what is outstanding is
  // a flag per seq and the oldest of them a cursor (no tree node per I/O); the arrays grow by
  // doubling only; the clock and the stop callback are read once per reap, not per submit (a
  // batch's submissions follow each other within microseconds; the simulator's clock only moves
  // in reap); the replacements of one reap go down in one submit call (LoopOptions::batch_submit).
  Core core;
  const LoopOptions& opt;
  const NextRequest& next;
  LoopResult r;
  std::vector<IoRequest> by_seq;      // what was asked, by seq (tags are seqs)
  std::vector<std::uint8_t> pending;  // by seq: still outstanding
  std::vector<std::int64_t> times;
  std::vector<IoRequest> batch;       // the next submit call's
  std::uint64_t oldest = 0;  // no seq below it is outstanding
  std::uint64_t seq = 0;
  std::int64_t t0 = 0;
  bool time_checked = false, out_of_time = false;

  // The count rule (with the batch being made), then the time rules and the stop callback (these
  // once per reap).
  bool should_stop() {
    if (r.records.size() + core.outstanding() + batch.size() >= opt.max_ios) return true;
    if (time_checked) return out_of_time;
    time_checked = true;
    const double e = static_cast<double>(core.io().now_ns() - t0) * 1e-9;
    if (e >= opt.hard_limit_s || (e >= opt.target_s && r.records.size() >= opt.min_ios)) {
      out_of_time = true;
    } else if (opt.stop && opt.stop()) {
      out_of_time = true;
      core.end(StopReason::interrupted);
    }
    return out_of_time;
  }
  // The next request, into the batch.
  void add() {
    IoRequest q = next(seq + batch.size());
    q.tag = seq + batch.size();
    batch.push_back(q);
  }
  // Submits the batch: in one call, or one call per request (opt.batch_submit false); false once
  // the engine refused one or its queue was full (the depth we get).
  bool submit_batch() {
    std::size_t sent = 0;
    const std::size_t per_call = opt.batch_submit ? batch.size() : 1;
    while (sent < batch.size()) {
      const std::size_t n = std::min(per_call, batch.size() - sent);
      auto s = core.submit(std::span<const IoRequest>(batch.data() + sent, n));
      if (!s) break;
      ++r.submit_calls;
      r.largest_batch = std::max(r.largest_batch, *s);
      sent += *s;
      if (*s < n) break;
    }
    for (std::size_t i = 0; i < sent; ++i) {
      by_seq.push_back(batch[i]);
      pending.push_back(1);
    }
    seq += sent;
    r.max_outstanding = std::max<unsigned>(r.max_outstanding, static_cast<unsigned>(core.outstanding()));
    const bool all = sent == batch.size();
    batch.clear();
    return all;
  }
  // Returns false once no more requests should be submitted.
  bool take(const IoCompletion& c) {
    if (c.tag >= seq || !pending[c.tag]) return true;  // not ours
    pending[c.tag] = 0;
    core.completed();
    while (oldest < seq && !pending[oldest]) ++oldest;
    const IoRequest& q = by_seq[c.tag];
    if (!c.ok()) {
      core.failed_io(c, where_text(core.io().info(), q.offset_bytes));
      return false;
    }
    LoopRecord rec;
    rec.seq = c.tag;
    rec.offset_bytes = q.offset_bytes;
    rec.length_bytes = q.length_bytes;
    rec.write = q.write;
    rec.submit_ns = c.submit_ns;
    rec.complete_ns = c.complete_ns;
    rec.overtook = core.outstanding() > 0 && oldest < c.tag;
    r.records.push_back(rec);
    times.push_back(c.complete_ns);
    return true;
  }
};

}  // namespace

RunResult run_plan(IoEngine& io, std::span<const PlanEntry> plan, const RunOptions& opt,
                   Budget& budget, const KeepGoing& keep_going) {
  const unsigned qd = std::max(1u, opt.queue_depth);
  const std::uint32_t lb = io.info().logical_block_bytes ? io.info().logical_block_bytes : 512;
  PlanRun p{Core(io, qd, opt.timeout_ms), plan, opt, {}, lb, qd};
  p.r.samples.resize(plan.size());
  p.r.done.assign(plan.size(), false);
  while (true) {
    if (!p.stopping && p.next < plan.size() && p.core.outstanding() < qd) p.refill();
    if (p.core.outstanding() == 0) break;
    auto got = p.core.reap();
    if (!got) break;
    for (const IoCompletion& c : *got) p.take(c);
    if (!p.stopping && opt.stop_on_budget) p.check_budget(budget);
    if (!p.stopping && keep_going && !keep_going(p.r)) p.stopping = true;
  }
  // Later entries may have completed out of order: they stay marked in `done`.
  p.r.stop = p.core.stop();
  p.r.error = p.core.take_error();
  p.r.drive_ns = busy_ns(p.r);
  budget.charge(p.r.drive_ns);
  return std::move(p.r);
}

LoopResult run_closed_loop(IoEngine& io, const LoopOptions& opt, const NextRequest& next) {
  const unsigned depth = std::max(1u, opt.depth);
  LoopRun l{Core(io, depth, opt.timeout_ms), opt, next};
  const std::size_t expect = std::min<std::size_t>(opt.max_ios, std::size_t{1} << 16);
  l.by_seq.reserve(expect);
  l.pending.reserve(expect);
  l.r.records.reserve(expect);
  l.times.reserve(expect);
  l.t0 = io.now_ns();

  l.batch.reserve(depth);
  for (unsigned i = 0; i < depth; ++i) l.add();
  l.submit_batch();
  if (l.core.outstanding() == 0 && !l.core.has_error()) l.core.fail(make_error("the I/O engine accepted no request"));

  bool submitting = true;
  while (l.core.outstanding() > 0) {
    auto got = l.core.reap();
    if (!got) break;
    for (const IoCompletion& c : *got)
      if (!l.take(c)) submitting = false;
    l.time_checked = false;
    // One replacement per completion, as far as the depth has room.
    for (std::size_t k = 0; k < got->size() && submitting; ++k) {
      if (l.core.outstanding() + l.batch.size() >= depth) break;
      if (l.should_stop()) submitting = false;
      else l.add();
    }
    if (!l.batch.empty() && !l.submit_batch()) submitting = false;
    if (submitting && l.core.outstanding() == 0) submitting = false;  // nothing accepted any more
  }
  // (Completions mostly come in stamp order: the sort is then only the check.)
  if (!std::is_sorted(l.times.begin(), l.times.end())) std::sort(l.times.begin(), l.times.end());
  if (!l.times.empty()) l.r.drive_time_s = static_cast<double>(l.times.back() - l.t0) * 1e-9;
  steady_iops(l.times, std::max(1u, l.r.max_outstanding), l.t0, l.r);
  l.r.stop = l.core.stop();
  l.r.error = l.core.take_error();
  return std::move(l.r);
}

}  // namespace ds::measure
