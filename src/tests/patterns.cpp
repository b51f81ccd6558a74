#include "tests/patterns.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "tests/queue.hpp"
#include "tests/result_keys.hpp"

namespace ds::measure {

namespace {

struct CellPlan {
  const AccessSpec* spec = nullptr;
  unsigned depth = 1;
  double write_share = 0;
};

constexpr double kShareEps = 1e-9;

// The method's parameters (docs/methods.md, "Patterns"), in one place; the IOMeter specifications
// themselves are iometer_specs() below.
struct PatternsTuning {
  int database_write_steps = 10;    // database cells at 0 %, 10 % … 100 % writes
  // One cell's closed loop: up to hard_limit_factor times its share of drive time, at least
  // min_ios_per_depth·depth + min_ios_base I/Os (deep queues need a fill), at most max_ios.
  double hard_limit_factor = 4;
  std::size_t min_ios_per_depth = 2;
  std::size_t min_ios_base = 32;
  std::size_t max_ios = 200'000;
  double min_cell_s = 0.05;         // a cell's share of the budget never below this
  std::uint64_t min_span_blocks = 2048;
  std::uint64_t seed_mix = 0x5A17E4ull;  // the patterns' generator apart from other tests'
};
constexpr PatternsTuning kTuning{};

}  // namespace

const std::vector<AccessSpec>& iometer_specs() {
  // methods.md "IOMeter patterns": the access specifications as IOMeter reviews publish them.
  static const std::vector<AccessSpec> specs = {
      {"database", {{8192, 100}}, 0.67, 1.0},
      {"fileserver",
       {{512, 10}, {1024, 5}, {2048, 5}, {4096, 60}, {8192, 2}, {16384, 4}, {32768, 4}, {65536, 10}},
       0.80, 1.0},
      {"webserver",
       {{512, 22}, {1024, 15}, {2048, 8}, {4096, 23}, {8192, 15}, {16384, 2}, {32768, 6}, {65536, 7},
        {131072, 1}, {524288, 1}},
       1.0, 1.0},
      {"workstation", {{8192, 100}}, 0.80, 0.80},
  };
  return specs;
}

const AccessSpec* find_spec(const std::string& name) {
  for (const auto& s : iometer_specs())
    if (s.name == name) return &s;
  return nullptr;
}

const PatternCell* PatternsResult::cell(const std::string& pattern, unsigned depth, double write_share) const {
  for (const auto& c : cells)
    if (c.pattern == pattern && c.depth == depth &&
        (write_share < 0 || std::abs(c.write_share - write_share) < 1e-6))
      return &c;
  return nullptr;
}

double workstation_rating(const std::vector<std::pair<unsigned, double>>& iops_by_depth) {
  double s = 0;
  for (auto [q, iops] : iops_by_depth) s += q ? iops / q : 0;
  return s;
}

namespace {

// The cells to run, in order: database at every write share from 0 to 100 % in steps of 10 at
// each of its depths, the others at their own write share and depths.
Expected<std::vector<CellPlan>> plan_cells(const PatternsOptions& opt) {
  auto check_depths = [](const std::vector<unsigned>& v) -> Expected<bool> {
    for (unsigned d : v)
      if (d < 1 || d > 256) return make_error(fmt::format("patterns: depth {} is out of range (1..256)", d));
    return true;
  };
  for (const auto* v : {&opt.load_depths, &opt.database_depths, &opt.workstation_depths})
    if (auto c = check_depths(*v); !c) return c.error();
  std::vector<CellPlan> plan;
  for (const auto& name : opt.patterns) {
    const AccessSpec* s = find_spec(name);
    if (!s)
      return make_error(fmt::format("patterns: unknown pattern '{}' (known: database, fileserver, "
                                    "webserver, workstation)", name));
    if (name == "database") {
      const int steps = kTuning.database_write_steps;
      for (int w = 0; w <= steps; ++w)
        for (unsigned d : opt.database_depths) plan.push_back({s, d, w / static_cast<double>(steps)});
    } else {
      for (unsigned d : name == "workstation" ? opt.workstation_depths : opt.load_depths)
        plan.push_back({s, d, 1.0 - s->read_share});
    }
  }
  if (plan.empty()) return make_error("patterns: nothing to run");
  return plan;
}

// Where requests may go: logical and physical block, and the span in logical blocks.
struct Extent {
  std::uint32_t lb = 512, pb = 512;
  std::uint64_t span = 0;
};

// One cell's closed loop: requests drawn from the pattern's size mix, random or continuing the
// sequential cursor in the pattern's proportion, writes in its write share. All cells draw from
// the one generator, in plan order, so a seed gives the same run.
LoopResult run_cell(IoEngine& io, const PatternsOptions& opt, const CellPlan& c, const Extent& x, double cell_s,
                    Rng& rng, bool& rounded_small) {
  const std::uint32_t lb = x.lb, pb = x.pb;
  const std::uint64_t span = x.span;
  double total_w = 0;
  for (const auto& s : c.spec->sizes) total_w += s.weight;
  std::uint64_t cursor = rng.below(span);  // where the sequential share continues
  LoopOptions lo;
  lo.depth = std::min(c.depth, std::max(1u, io.info().max_queue_depth));
  lo.target_s = cell_s;
  lo.hard_limit_s = kTuning.hard_limit_factor * cell_s;
  lo.min_ios = kTuning.min_ios_per_depth * c.depth + kTuning.min_ios_base;
  lo.max_ios = kTuning.max_ios;
  lo.stop = opt.stop;
  return run_closed_loop(io, lo, [&](std::uint64_t) {
    IoRequest q;
    double pick = rng.uniform() * total_w;
    std::uint32_t bytes = c.spec->sizes.back().bytes;
    for (const auto& s : c.spec->sizes) {
      if (pick < s.weight) {
        bytes = s.bytes;
        break;
      }
      pick -= s.weight;
    }
    if (bytes < lb) {
      bytes = lb;  // a 512-byte request on a 4Kn drive cannot be sent
      rounded_small = true;
    }
    bytes = (bytes + lb - 1) / lb * lb;
    const std::uint64_t blocks = bytes / lb;
    // Align to the physical block when the size allows (no read-modify-write on 512e drives).
    const std::uint64_t align = bytes % pb == 0 ? pb / lb : 1;
    std::uint64_t lba;
    if (rng.uniform() < c.spec->random_share || cursor + blocks > span) {
      const std::uint64_t slots = (span - blocks) / align + 1;
      lba = rng.below(slots) * align;
    } else {
      lba = cursor;
    }
    cursor = lba + blocks;
    q.offset_bytes = lba * lb;
    q.length_bytes = bytes;
    q.write = opt.allow_write && c.write_share > kShareEps && rng.uniform() < c.write_share;
    return q;
  });
}

// A cell's figures from its loop's completions.
void fill_cell(PatternCell& cell, const LoopResult& loop) {
  cell.reached_depth = loop.max_outstanding;
  cell.iops = loop.iops;
  cell.iops_rel_se = loop.iops_rel_se;
  cell.drive_time_s = loop.drive_time_s;
  double bytes = 0, lat = 0;
  for (const auto& r : loop.records) {
    ++cell.ios;
    (r.write ? cell.writes : cell.reads) += 1;
    bytes += r.length_bytes;
    lat += r.latency_ms();
  }
  if (cell.ios) {
    cell.mean_ms = lat / static_cast<double>(cell.ios);
    cell.mb_s = cell.iops * bytes / static_cast<double>(cell.ios) * 1e-6;
  }
}

// The published summaries (fileserver and webserver averages, the workstation rating), each only
// when every cell it needs ran, and the notes that qualify the run.
void summarise(PatternsResult& res, const PatternsOptions& opt, std::uint32_t lb, bool rounded_small) {
  // A summary is told only when every cell it needs ran; else it is withheld with the count of
  // those that did not.
  auto withhold = [&res](const char* figure, int skipped) {
    res.withheld.push_back({figure, WithheldReason::cells_skipped, {{"skipped", skipped}}});
  };
  auto average = [&](const std::string& name, const char* figure) -> std::optional<double> {
    double s = 0;
    int n = 0, skipped = 0;
    for (const auto& c : res.cells) {
      if (c.pattern != name) continue;
      if (c.skipped || c.iops <= 0) ++skipped;
      else s += c.iops;
      ++n;
    }
    if (skipped) withhold(figure, skipped);
    return n && !skipped ? std::optional<double>(s / n) : std::nullopt;
  };
  res.fileserver_average_iops = average("fileserver", key::patterns::fileserver_average_iops);
  res.webserver_average_iops = average("webserver", key::patterns::webserver_average_iops);
  {
    std::vector<std::pair<unsigned, double>> w;
    int skipped = 0;
    for (unsigned q : {1u, 2u, 4u, 8u, 16u, 32u}) {
      const PatternCell* c = res.cell("workstation", q);
      if (!c || c->skipped || c->iops <= 0) ++skipped;
      else w.emplace_back(q, c->iops);
    }
    if (skipped) withhold(key::patterns::workstation_rating, skipped);
    else res.workstation_rating = workstation_rating(w);
  }
  if (rounded_small)
    res.notes.push_back(fmt::format("requests smaller than the {}-byte logical block were sent as one block", lb));
  if (!opt.allow_write)
    res.notes.push_back("read-only run: cells with writes were skipped (fileserver and workstation write "
                        "20 %, database above 0 % writes); --write runs them");
  bool deep = false;
  for (const auto& c : res.cells) deep = deep || (!c.skipped && c.depth >= 64);
  if (deep)
    res.notes.push_back("depths 64-256 favour drives with deep queues but are rare in real servers; "
                        "do not rank drives by them alone");
}

}  // namespace

Expected<PatternsResult> run_patterns(IoEngine& io, const PatternsOptions& opt, const ProgressFn* progress) {
  const IoTargetInfo& info = io.info();
  if (opt.allow_write && !info.writable)
    return make_error("patterns: writes were asked for (--write) but the target was not opened for "
                      "writing; refusing before any I/O");
  auto planned = plan_cells(opt);
  if (!planned) return planned.error();
  const std::vector<CellPlan>& plan = *planned;

  PatternsResult res;
  res.allow_write = opt.allow_write;
  Extent x;
  const Span sp = span_of(info, opt.span_blocks);
  x.lb = sp.block_bytes;
  x.pb = info.physical_block_bytes >= x.lb ? info.physical_block_bytes : x.lb;
  x.span = sp.blocks;
  if (x.span < kTuning.min_span_blocks)
    return make_error(fmt::format("patterns: the target is too small (needs at least {} blocks)",
                                  kTuning.min_span_blocks));
  std::size_t to_run = 0;
  for (const auto& c : plan) to_run += (c.write_share <= kShareEps || opt.allow_write) ? 1 : 0;
  const double cell_s = std::clamp(opt.budget_s / std::max<std::size_t>(1, to_run), kTuning.min_cell_s, opt.cell_s);
  bool rounded_small = false;

  Rng rng(opt.seed ^ kTuning.seed_mix);
  std::size_t done = 0;
  for (const auto& c : plan) {
    PatternCell cell;
    cell.pattern = c.spec->name;
    cell.depth = c.depth;
    cell.write_share = c.write_share;
    if (c.write_share > kShareEps && !opt.allow_write) {
      cell.skipped = true;
      cell.skip_reason = WithheldReason::cell_needs_write;
      res.cells.push_back(cell);
      continue;
    }
    if (res.interrupted) {
      cell.skipped = true;
      cell.skip_reason = WithheldReason::cell_interrupted;
      res.cells.push_back(cell);
      continue;
    }
    const LoopResult loop = run_cell(io, opt, c, x, cell_s, rng, rounded_small);
    fill_cell(cell, loop);
    res.drive_time_s += loop.drive_time_s;
    if (loop.stop == StopReason::interrupted) res.interrupted = true;
    if (loop.error) {
      res.notes.push_back(fmt::format("{} depth {}: {}", cell.pattern, cell.depth, loop.error->message));
      if (cell.ios == 0) {
        cell.skipped = true;
        cell.skip_reason = WithheldReason::cell_io_failed;
      }
    }
    res.cells.push_back(cell);
    ++done;
    if (progress && *progress)
      (*progress)("patterns", static_cast<double>(done) / static_cast<double>(to_run), res.drive_time_s);
    if (loop.error && cell.ios == 0 && done == 1) return *loop.error;  // the target does not work
  }
  summarise(res, opt, x.lb, rounded_small);
  return res;
}

}  // namespace ds::measure
