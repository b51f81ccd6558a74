#include "tests/slow_regions.hpp"

#include <algorithm>
#include <cmath>

namespace ds::measure {

namespace {

// The search's parameters (docs/methods.md, "Slow reads"), in one place.
struct SlowTuning {
  int bins_per_octave = 4;             // the normal-latency model: quarter-octaves of distance
  std::size_t min_bin_reads = 5;       // a bin's median needs this many reads
  std::size_t max_findings = 16;
  int scan_steps = 32;                 // steps of one descending scan
  int scan_levels = 3;                 // rounds of descending scans per edge
  std::uint64_t confirm_gap = 256;     // a normal probe is believed if one this far below is too
  int confirm_reads = 2;               // a slow seed is read again this many times, slow each time
  std::uint64_t merge_gap_div = 200;   // regions closer than span/200 are merged
  std::uint64_t fine_div = 4000;       // edges located to span/4000 (at least one block)
  // First probe distance from a slow read: below it max(span/left_probe_div, left_probe_min),
  // above it max(span/right_probe_div, right_probe_min); doubling from there.
  std::uint64_t left_probe_div = 2000, left_probe_min = 64;
  std::uint64_t right_probe_div = 500, right_probe_min = 4096;
  // A spike's neighbours: this far (or span/fine_div) away, out of its read-ahead's reach.
  std::uint64_t spike_neighbour_blocks = 4096;
};
constexpr SlowTuning kTuning{};

int bin_of(std::uint64_t d) {
  return d ? static_cast<int>(std::floor(std::log2(static_cast<double>(d)) * kTuning.bins_per_octave)) : 0;
}

std::uint64_t dist(std::uint64_t a, std::uint64_t b) { return a > b ? a - b : b - a; }

}  // namespace

LatencyModel::LatencyModel(const std::vector<std::pair<std::uint64_t, double>>& dist_ms,
                           double half_rev_ms, double margin_ms)
    : half_rev_ms_(half_rev_ms), margin_ms_(margin_ms) {
  std::vector<std::pair<int, double>> v;
  for (auto& [d, ms] : dist_ms) v.emplace_back(bin_of(d), ms);
  std::sort(v.begin(), v.end());
  for (std::size_t i = 0; i < v.size();) {
    std::size_t j = i;
    std::vector<double> ms;
    while (j < v.size() && v[j].first == v[i].first) ms.push_back(v[j++].second);
    if (ms.size() >= kTuning.min_bin_reads) bins_.emplace_back(v[i].first, median(ms));
    i = j;
  }
}

double LatencyModel::median_ms(std::uint64_t distance) const {
  if (bins_.empty()) return 0;
  const int b = bin_of(distance);
  // Below the shortest populated distance the seek can only be shorter: that bin's median is
  // an upper bound; above the longest, the longest bin's (a full stroke is not much longer).
  auto it = std::lower_bound(bins_.begin(), bins_.end(), std::make_pair(b, -1e300));
  if (it == bins_.end()) return bins_.back().second;
  if (it->first == b || it == bins_.begin()) return it->second;
  // Between two populated bins: the larger of the two (never flag a normal read).
  return std::max(it->second, std::prev(it)->second);
}

double LatencyModel::max_threshold_ms() const {
  double m = 0;
  for (auto& b : bins_) m = std::max(m, b.second);
  return bins_.empty() ? 0 : m + half_rev_ms_ + margin_ms_;
}

namespace {

struct Searcher {
  SlowIo& io;
  const LatencyModel& model;
  std::uint64_t span;

  // Reads the LBAs in order; per read 1 slow, 0 normal, -1 not completed. Slow times go to `ms`.
  std::vector<int> classify(const std::vector<std::uint64_t>& lbas, std::vector<double>* ms) {
    std::uint64_t prev = io.last_lba();
    auto l = io.read_ms(lbas);
    std::vector<int> out(lbas.size(), -1);
    for (std::size_t i = 0; i < lbas.size(); ++i) {
      if (l[i] < 0) break;
      out[i] = model.slow(dist(prev, lbas[i]), l[i]) ? 1 : 0;
      if (out[i] && ms) ms->push_back(l[i]);
      prev = lbas[i];
    }
    return out;
  }
  int one(std::uint64_t lba, std::vector<double>* ms) { return classify({lba}, ms)[0]; }
  // A normal read near a slow region is believed only when a second read just below it (which
  // read-ahead cannot serve) is normal too.
  int confirmed(std::uint64_t lba, std::vector<double>* ms) {
    const std::uint64_t below = lba > kTuning.confirm_gap ? lba - kTuning.confirm_gap : 0;
    auto c = classify({lba, below}, ms);
    if (c[0] < 0 || c[1] < 0) return -1;
    return c[0] == 1 || c[1] == 1 ? 1 : 0;
  }

  // Descending scan from hi to lo: (last probe like the start, first probe unlike it).
  std::pair<std::uint64_t, std::uint64_t> scan_down(std::uint64_t hi, std::uint64_t lo, bool start_slow,
                                                    std::vector<double>* ms) {
    std::vector<std::uint64_t> probe;
    const double step = static_cast<double>(hi - lo) / kTuning.scan_steps;
    for (int i = 1; i <= kTuning.scan_steps; ++i) probe.push_back(hi - static_cast<std::uint64_t>(std::llround(step * i)));
    auto c = classify(probe, ms);
    // A slow read can look normal (a short rotational wait hides a small extra time): the edge is
    // where two probes in a row are unlike the start, or the last probe is.
    std::uint64_t last = hi;
    for (std::size_t i = 0; i < probe.size(); ++i) {
      if (c[i] < 0) break;
      const bool unlike = (c[i] == 1) != start_slow;
      const bool next_unlike = i + 1 >= probe.size() || c[i + 1] < 0 || (c[i + 1] == 1) != start_slow;
      if (unlike && next_unlike) return {last, probe[i]};
      if (!unlike) last = probe[i];
    }
    return {last, lo};
  }

  SlowFinding region(std::uint64_t s, std::vector<double> slow_ms) {
    const std::uint64_t fine = std::max<std::uint64_t>(1, span / kTuning.fine_div);
    // Left edge: probes below s at doubling distances until a normal read, then descending scans.
    std::uint64_t d = std::max<std::uint64_t>(span / kTuning.left_probe_div, kTuning.left_probe_min), hi = s, lo = 0;
    while (!io.stop()) {
      const std::uint64_t q = s > d ? s - d : 0;
      const int c = confirmed(q, &slow_ms);
      if (c < 0) break;
      if (c == 0) { lo = q; break; }
      hi = q;
      if (q == 0) break;
      d *= 2;
    }
    for (int level = 0; level < kTuning.scan_levels && hi > lo && hi - lo > fine && !io.stop(); ++level) {
      io.flush();
      std::tie(hi, lo) = scan_down(hi, lo, true, &slow_ms);
    }
    SlowFinding f;
    f.first_lba = hi;
    std::uint64_t lerr = hi - lo;
    // Right edge: far probes above s until a normal read, then descending scans.
    d = std::max<std::uint64_t>(span / kTuning.right_probe_div, kTuning.right_probe_min);
    std::uint64_t top = span - 1, bottom = s;
    while (!io.stop()) {
      const std::uint64_t q = std::min(span - 1, s + d);
      const int c = confirmed(q, &slow_ms);
      if (c < 0) break;
      if (c == 0) { top = q; break; }
      bottom = q;
      if (q == span - 1) { top = span - 1; break; }
      d *= 2;
    }
    for (int level = 0; level < kTuning.scan_levels && top > bottom && top - bottom > fine && !io.stop(); ++level) {
      io.flush();
      std::tie(top, bottom) = scan_down(top, bottom, false, &slow_ms);
    }
    f.last_lba = bottom;
    f.mean_ms = mean(slow_ms);
    f.location_uncertainty_blocks = static_cast<double>(std::max(lerr, top - bottom));
    return f;
  }
};

}  // namespace

SlowSearch find_slow(SlowIo& io, const LatencyModel& model, std::uint64_t span,
                     const std::vector<std::uint64_t>& seed_lbas, const std::vector<std::uint64_t>& seed_dist,
                     const std::vector<double>& seed_ms) {
  SlowSearch out;
  if (model.empty()) return out;
  Searcher s{io, model, span};
  const std::uint64_t fine = std::max<std::uint64_t>(1, span / kTuning.fine_div);
  // Neighbours of a confirmed seed: far enough that its read-ahead cannot serve them.
  const std::uint64_t w = std::max<std::uint64_t>(fine, kTuning.spike_neighbour_blocks);
  for (std::size_t i = 0; i < seed_lbas.size() && out.found.size() < kTuning.max_findings; ++i) {
    const std::uint64_t x = seed_lbas[i];
    bool covered = false;
    for (auto& f : out.found)
      covered |= f.spike ? dist(f.first_lba, x) <= w : x + fine >= f.first_lba && x <= f.last_lba + fine;
    if (covered) continue;
    if (io.stop()) break;
    // Read again, twice, each after a flush: a normal read is slow now and then (its rotational
    // wait and seek jitter in the tail, against a threshold whose distance bin holds few reads),
    // twice running it almost never is; a region or a remapped LBA is slow every time.
    std::vector<double> slow_ms{seed_ms[i]};
    int again = 1;
    for (int r = 0; r < kTuning.confirm_reads && again == 1; ++r) {
      io.flush();
      again = s.one(x, &slow_ms);
    }
    if (again < 0) break;
    if (again == 0) {
      ++out.outliers;
      out.outlier_excess_ms.push_back(seed_ms[i] - model.threshold_ms(seed_dist[i]));
      continue;
    }
    io.flush();
    const int up = s.one(std::min(span - 1, x + w), nullptr);
    const int down = s.one(x > w ? x - w : 0, nullptr);
    if (up == 0 && down == 0) {
      out.found.push_back({x, x, mean(slow_ms), static_cast<double>(w), true});
      continue;
    }
    out.found.push_back(s.region(x, slow_ms));
  }
  std::sort(out.found.begin(), out.found.end(),
            [](const SlowFinding& a, const SlowFinding& b) { return a.first_lba < b.first_lba; });
  // Regions found from different seeds that overlap or lie within 0.5 % of the span of each other
  // are one region: a small extra time is missed on reads with a short rotational wait, which
  // can end an edge scan early and leave one region in pieces (seen on 5400 rpm drives).
  std::vector<SlowFinding> merged;
  for (auto& f : out.found) {
    if (!merged.empty() && !f.spike && !merged.back().spike && f.first_lba <= merged.back().last_lba + std::max(2 * fine, span / kTuning.merge_gap_div)) {
      auto& m = merged.back();
      m.mean_ms = (m.mean_ms + f.mean_ms) / 2;
      m.last_lba = std::max(m.last_lba, f.last_lba);
      m.location_uncertainty_blocks = std::max(m.location_uncertainty_blocks, f.location_uncertainty_blocks);
    } else {
      merged.push_back(f);
    }
  }
  out.found = std::move(merged);
  return out;
}

}  // namespace ds::measure
