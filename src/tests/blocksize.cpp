#include "tests/blocksize.hpp"

#include <algorithm>

namespace ds::measure {

namespace {

// The sweep's parameters (docs/methods.md, "blocksize"), in one place.
struct BlocksizeTuning {
  std::uint32_t smallest_bytes = 512;    // or the logical block, when larger
  std::uint32_t largest_bytes = 1u << 20;
  // Requests per size: enough for its share of the budget at assumed_rate_bytes_s (the time
  // limit ends the run sooner), clamped to [min_requests, max_requests].
  double assumed_rate_bytes_s = 1e9;
  double min_requests = 16;
  double max_requests = 200'000;
  std::uint64_t gap_blocks = 8192;        // between sizes: what was just read is in the cache
  std::size_t min_completions = 4;        // before the share may end a size
  double min_completions_cap = 4;         // … waited for at most this many shares
  std::size_t min_rate_completions = 3;   // a rate needs this many, first to last
};
constexpr BlocksizeTuning kTuning{};

}  // namespace

Expected<BlocksizeResult> run_blocksize(IoEngine& io, const BlocksizeOptions& opt,
                                        const ProgressFn* progress) {
  BlocksizeResult res;
  const Span sp = span_of(io.info(), opt.span_blocks);
  const std::uint32_t lb = sp.block_bytes;
  const std::uint64_t span = sp.blocks;
  Budget budget(opt.budget_s);
  std::vector<std::uint32_t> sizes;
  for (std::uint32_t b = std::max(kTuning.smallest_bytes, lb); b <= kTuning.largest_bytes; b *= 2)
    sizes.push_back(b);
  const bool writes = opt.allow_write && io.info().writable;
  const double per = opt.budget_s / static_cast<double>(sizes.size() * (writes ? 2 : 1));
  std::uint64_t at = 0;  // each size reads fresh LBAs (what was just read is in the cache)
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    BlocksizeRow row;
    row.block_bytes = sizes[i];
    const std::uint32_t blocks = sizes[i] / lb;
    for (int w = 0; w < (writes ? 2 : 1); ++w) {
      const auto count = static_cast<std::size_t>(std::clamp(
          per * kTuning.assumed_rate_bytes_s / sizes[i], kTuning.min_requests, kTuning.max_requests));
      if (at + count * blocks >= span) at = 0;
      auto plan = sequential_plan(at, blocks, count, span);
      for (auto& p : plan) p.write = w == 1;
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
      // The share is counted on the engine's clock from the first completion, not to the end of
      // the completed prefix: a drive may hold a queued read back while it serves those behind it
      // (pure SPTF with no age limit), and the prefix then stops growing (the HP C2247A's model
      // ran 669 s of drive time on a 14 s share of 512-byte reads). Once the size ends, the held
      // read comes back with the rest, and the rate covers them all.
      RunResult r = run_plan(io, plan, ro, local, [&](const RunResult& rr) {
        if (!rr.done[0]) return true;
        const std::int64_t ran = io.now_ns() - rr.samples[0].complete_ns;
        while (prefix < rr.done.size() && rr.done[prefix]) ++prefix;
        if (prefix < kTuning.min_completions) return ran < kTuning.min_completions_cap * limit_ns;
        return ran < limit_ns;
      });
      budget.charge(r.drive_ns);
      std::size_t n = 0;
      while (n < r.done.size() && r.done[n]) ++n;
      // The next size starts past what this one read, not past what it planned: a plan is sized
      // for a fast target and its share usually ends it early, and stepping over the unread rest
      // carried the large sizes into inner zones (on sim:raptor 1 MiB read at 68.9 MB/s against
      // 72.6 for 8 KiB, one zone apart: large blocks looked slower than they are).
      std::size_t reached = 0;
      for (std::size_t k = 0; k < r.done.size(); ++k)
        if (r.done[k]) reached = k + 1;
      at = (reached ? plan[reached - 1].lba + blocks : at) + kTuning.gap_blocks;
      // The budget ending a size early is the normal way out; anything else is the drive failing.
      // Going on with the next sizes would only fail again (or wait out a timeout per size).
      if (failed(r.stop)) res.error = r.error;
      if (n >= kTuning.min_rate_completions) {
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
