#include "tests/blocksize.hpp"

#include <algorithm>

namespace ds::measure {

Expected<BlocksizeResult> run_blocksize(IoEngine& io, const BlocksizeOptions& opt,
                                        const ProgressFn* progress) {
  BlocksizeResult res;
  const std::uint32_t lb = io.info().logical_block_bytes ? io.info().logical_block_bytes : 512;
  const std::uint64_t cap = io.info().capacity_bytes / lb;
  const std::uint64_t span = opt.span_blocks ? std::min(opt.span_blocks, cap) : cap;
  Budget budget(opt.budget_s);
  std::vector<std::uint32_t> sizes;
  for (std::uint32_t b = std::max<std::uint32_t>(512, lb); b <= (1u << 20); b *= 2) sizes.push_back(b);
  const bool writes = opt.allow_write && io.info().writable;
  const double per = opt.budget_s / static_cast<double>(sizes.size() * (writes ? 2 : 1));
  std::uint64_t at = 0;  // each size reads fresh LBAs (what was just read is in the cache)
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    BlocksizeRow row;
    row.block_bytes = sizes[i];
    const std::uint32_t blocks = sizes[i] / lb;
    for (int w = 0; w < (writes ? 2 : 1); ++w) {
      // Enough requests for `per` seconds at 1 GB/s; the time limit ends the run sooner.
      const auto count = static_cast<std::size_t>(std::clamp(per * 1e9 / sizes[i], 16.0, 200000.0));
      if (at + count * blocks >= span) at = 0;
      auto plan = sequential_plan(at, blocks, count, span);
      for (auto& p : plan) p.write = w == 1;
      at += static_cast<std::uint64_t>(plan.size()) * blocks + 8192;
      RunOptions ro;
      ro.queue_depth = opt.queue_depth;
      ro.first_alone = true;  // a reordering drive would otherwise start mid-stream
      // The share ends the size (below), not the budget: a first request slower than the whole
      // share (a seek, a journal flush on a file) would otherwise leave the size without a rate.
      ro.stop_on_budget = false;
      Budget local(per);
      const auto limit_ns = static_cast<std::int64_t>(per * 1e9);
      // The completed prefix only grows: carry it between calls (a rescan from 0 on every
      // completion made 512-byte sizes quadratic: 50 CPU-seconds on sim:modern8tb).
      std::size_t prefix = 0;
      RunResult r = run_plan(io, plan, ro, local, [&](const RunResult& rr) {
        while (prefix < rr.done.size() && rr.done[prefix]) ++prefix;
        return prefix < 4 || rr.samples[prefix - 1].complete_ns - rr.samples[0].complete_ns < limit_ns;
      });
      budget.charge(r.drive_ns);
      std::size_t n = 0;
      while (n < r.done.size() && r.done[n]) ++n;
      // The budget ending a size early is the normal way out; anything else is the drive failing.
      // Going on with the next sizes would only fail again (or wait out a timeout per size).
      if (failed(r.stop)) res.error = r.error;
      if (n >= 3) {
        // From the first completion to the last: the first request's positioning is left out.
        const double ns = static_cast<double>(r.samples[n - 1].complete_ns - r.samples[0].complete_ns);
        const double rate = ns > 0 ? static_cast<double>(n - 1) * sizes[i] / ns * 1e3 : 0;  // MB/s
        if (w == 0) {
          row.read_mb_s = rate;
          row.read_iops = ns > 0 ? (n - 1) / (ns * 1e-9) : 0;
        } else {
          row.write_mb_s = rate;
        }
      }
      if (res.error) break;
    }
    if (res.error) {
      if (row.read_mb_s > 0) res.rows.push_back(row);
      if (res.rows.empty()) return *res.error;
      res.notes.push_back("stopped at " + std::to_string(sizes[i]) + " B: " + res.error->message);
      break;
    }
    res.rows.push_back(row);
    if (progress && *progress) (*progress)("blocksize", (i + 1.0) / sizes.size(), budget.used_s());
  }
  res.drive_time_s = budget.used_s();
  return res;
}

}  // namespace ds::measure
