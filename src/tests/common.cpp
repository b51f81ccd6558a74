#include "tests/common.hpp"

#include <cerrno>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace ds::measure {

namespace {

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

}  // namespace

std::string io_errno_text(int e) {
  // A device that vanished fails its in-flight I/O with ENODEV/ENXIO: say so, like a refused submit.
  if (e == ENODEV || e == ENXIO) return "the device is gone (errno " + std::to_string(e) + ")";
  if (e == EIO) return "medium or device error (errno " + std::to_string(e) + ", EIO)";
  return "errno " + std::to_string(e);
}

RunResult run_plan(IoEngine& io, std::span<const PlanEntry> plan, const RunOptions& opt,
                   Budget& budget, const KeepGoing& keep_going) {
  RunResult r;
  r.samples.resize(plan.size());
  r.done.assign(plan.size(), false);
  const std::uint32_t lb = io.info().logical_block_bytes ? io.info().logical_block_bytes : 512;
  const unsigned qd = std::max(1u, opt.queue_depth);
  std::size_t next = 0, outstanding = 0;
  std::vector<IoRequest> batch;
  std::vector<IoCompletion> comps(qd);
  // Running estimate of busy time, for stopping on the budget while the run goes on.
  std::int64_t busy_before = 0, busy_since = 0;
  bool stop = false;
  while (true) {
    if (!stop && next < plan.size() && outstanding < qd) {
      batch.clear();
      const unsigned depth = opt.first_alone && !r.done[0] ? 1 : qd;
      while (next + batch.size() < plan.size() && outstanding + batch.size() < depth) {
        const PlanEntry& p = plan[next + batch.size()];
        IoRequest q;
        q.offset_bytes = p.lba * lb;
        q.length_bytes = p.blocks * lb;
        q.write = p.write;
        q.tag = next + batch.size();
        batch.push_back(q);
      }
      if (outstanding == 0) busy_since = io.now_ns();
      auto sub = io.submit(batch);
      if (!sub) {
        r.error = sub.error();
        stop = true;
      } else {
        next += *sub;
        outstanding += *sub;
        if (*sub == 0 && outstanding == 0) {
          r.error = make_error("the I/O engine accepted no request");
          stop = true;
        }
      }
    }
    if (outstanding == 0) break;
    auto got = io.reap(comps, 1, std::chrono::milliseconds(opt.timeout_ms));
    if (!got) {
      r.error = got.error();
      break;
    }
    if (*got == 0) {
      r.error = make_error("I/O timed out: no completion within " + std::to_string(opt.timeout_ms) +
                           " ms", 110);
      break;
    }
    for (std::size_t k = 0; k < *got; ++k) {
      const IoCompletion& c = comps[k];
      --outstanding;
      if (c.tag >= plan.size()) continue;
      if (!c.ok()) {
        if (!r.error)
          r.error = make_error("I/O failed at LBA " + std::to_string(plan[c.tag].lba) + ": " +
                                   io_errno_text(-c.result), -c.result);
        stop = true;
        continue;
      }
      Sample& s = r.samples[c.tag];
      s.lba = plan[c.tag].lba;
      s.blocks = plan[c.tag].blocks;
      s.submit_ns = c.submit_ns;
      s.complete_ns = c.complete_ns;
      r.done[c.tag] = true;
      if (outstanding == 0) busy_before += c.complete_ns - busy_since;
    }
    if (!stop && opt.stop_on_budget) {
      std::int64_t running = busy_before + (outstanding ? io.now_ns() - busy_since : 0);
      if (budget.used_ns() + running >= static_cast<std::int64_t>(budget.limit_s() * 1e9)) {
        stop = true;
        if (next < plan.size()) r.error = make_error("drive-time budget spent", 0);
      }
    }
    if (!stop && keep_going && !keep_going(r)) stop = true;
  }
  // Keep only the completed prefix in order (later entries may have completed out of order; they
  // stay marked in `done`).
  r.drive_ns = busy_ns(r);
  budget.charge(r.drive_ns);
  return r;
}

std::vector<PlanEntry> sequential_plan(std::uint64_t lba, std::uint32_t blocks, std::size_t count,
                                       std::uint64_t end_lba) {
  std::vector<PlanEntry> p;
  p.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    std::uint64_t a = lba + static_cast<std::uint64_t>(i) * blocks;
    if (a + blocks > end_lba) break;
    p.push_back({a, blocks, false});
  }
  return p;
}

double mean(std::span<const double> v) {
  if (v.empty()) return 0;
  return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

double stddev(std::span<const double> v) {
  if (v.size() < 2) return 0;
  double m = mean(v), s = 0;
  for (double x : v) s += (x - m) * (x - m);
  return std::sqrt(s / static_cast<double>(v.size() - 1));
}

double quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  q = std::clamp(q, 0.0, 1.0);
  double pos = q * static_cast<double>(v.size() - 1);
  auto i = static_cast<std::size_t>(pos);
  if (i + 1 >= v.size()) return v.back();
  double f = pos - static_cast<double>(i);
  return v[i] * (1 - f) + v[i + 1] * f;
}

double median(std::vector<double> v) { return quantile(std::move(v), 0.5); }

double mad(std::vector<double> v) {
  double m = median(v);
  for (double& x : v) x = std::fabs(x - m);
  return median(std::move(v));
}

LineFit fit_line(std::span<const double> x, std::span<const double> y) {
  LineFit f;
  std::size_t n = std::min(x.size(), y.size());
  if (n < 2) return f;
  double mx = mean(x.first(n)), my = mean(y.first(n)), sxx = 0, sxy = 0, syy = 0;
  for (std::size_t i = 0; i < n; ++i) {
    sxx += (x[i] - mx) * (x[i] - mx);
    sxy += (x[i] - mx) * (y[i] - my);
    syy += (y[i] - my) * (y[i] - my);
  }
  if (sxx <= 0) return f;
  f.slope = sxy / sxx;
  f.intercept = my - f.slope * mx;
  f.r2 = syy > 0 ? (sxy * sxy) / (sxx * syy) : 1.0;
  if (n > 2) f.slope_se = std::sqrt(std::max(0.0, syy - f.slope * sxy) / static_cast<double>(n - 2) / sxx);
  return f;
}

std::uint64_t Rng::next() {
  std::uint64_t z = (s_ += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

}  // namespace ds::measure
