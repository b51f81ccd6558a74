#include "tests/structure.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "tests/common.hpp"

namespace ds::measure {

double two_cluster_threshold(std::vector<double> v, double min_rel_separation) {
  if (v.size() < 2) return -1;
  std::sort(v.begin(), v.end());
  std::size_t best = 0;
  double best_jump = -1;
  for (std::size_t k = 1; k < v.size(); ++k) {
    double j = v[k] - v[k - 1];
    if (j > best_jump) {
      best_jump = j;
      best = k;
    }
  }
  std::span<const double> lo(v.data(), best), hi(v.data() + best, v.size() - best);
  double spread = std::max(stddev(lo), stddev(hi));
  double scale = std::max(std::fabs(v.back()), 1e-12);
  if (best_jump < min_rel_separation * scale || best_jump < 4 * spread) return -1;
  return (v[best - 1] + v[best]) / 2;
}

std::uint32_t fit_period(std::span<const std::int64_t> pos_lo, std::span<const std::int64_t> pos_hi,
                         std::span<const std::int64_t> k, std::uint32_t lo, std::uint32_t hi,
                         std::int64_t* base, std::uint32_t* range) {
  std::uint32_t first = 0, last = 0;
  std::int64_t first_base = 0;
  for (std::uint32_t p = std::max<std::uint32_t>(lo, 1); p <= hi; ++p) {
    std::int64_t b_lo = INT64_MIN, b_hi = INT64_MAX;
    for (std::size_t j = 0; j < k.size(); ++j) {
      b_lo = std::max(b_lo, pos_lo[j] - k[j] * static_cast<std::int64_t>(p));
      b_hi = std::min(b_hi, pos_hi[j] - k[j] * static_cast<std::int64_t>(p));
    }
    if (b_lo <= b_hi) {
      if (!first) {
        first = p;
        first_base = b_lo;
      }
      last = p;
    }
  }
  if (!first) return 0;
  std::uint32_t mid = first + (last - first) / 2;
  if (base) {
    // Recompute the base for the chosen period.
    std::int64_t b_lo = INT64_MIN;
    for (std::size_t j = 0; j < k.size(); ++j)
      b_lo = std::max(b_lo, pos_lo[j] - k[j] * static_cast<std::int64_t>(mid));
    *base = mid == first ? first_base : b_lo;
  }
  if (range) *range = last - first;
  return mid;
}

TrackStructure analyse_stream(std::span<const std::int64_t> c, std::uint64_t first_lba,
                              std::uint32_t m, std::uint32_t block_bytes, std::size_t warmup,
                              unsigned surfaces_hint, double rotation_hint_ns) {
  TrackStructure t;
  const std::size_t n = c.size();
  if (m == 0 || n < warmup + 4) return t;
  const double lb = block_bytes;
  double span_ns = static_cast<double>(c[n - 1] - c[warmup]);
  if (span_ns > 0) t.raw_bytes_s = static_cast<double>(n - 1 - warmup) * m * lb / (span_ns * 1e-9);
  // Until a track structure says otherwise, what the stream delivered is its sustained rate (a
  // target without tracks, a file or a RAM disk, has no switch gaps to account for).
  t.sustained_bytes_s = t.raw_bytes_s;

  std::vector<double> d;
  std::vector<std::size_t> idx;
  for (std::size_t i = warmup + 1; i < n; ++i) {
    d.push_back(static_cast<double>(c[i] - c[i - 1]));
    idx.push_back(i);
  }
  const double b = median(d);
  const double sigma = 1.4826 * mad(d);
  if (b <= 0) return t;
  const double thr = b + std::max(0.08 * b, 6 * sigma);
  std::vector<std::int64_t> r;  // read index of each boundary
  std::vector<double> gaps;
  for (std::size_t q = 0; q < d.size(); ++q)
    if (d[q] > thr) {
      r.push_back(static_cast<std::int64_t>(idx[q]));
      gaps.push_back(d[q] - b);
    }
  t.boundaries = r.size();
  t.sector_ns = b / m;
  t.media_bytes_s = lb / (t.sector_ns * 1e-9);
  if (r.size() < 3) return t;
  t.media_bound = true;

  // Period in sectors: first a rough value from the spacing of the late reads, then the exact
  // integer that every boundary's position interval admits.
  std::vector<double> dr;
  for (std::size_t j = 1; j < r.size(); ++j) dr.push_back(static_cast<double>(r[j] - r[j - 1]) * m);
  const double rot_spt = rotation_hint_ns > 0 ? rotation_hint_ns / t.sector_ns : 0;
  double est = rot_spt > 0 ? rot_spt : median(dr);
  std::vector<std::int64_t> k(r.size(), 0), plo(r.size()), phi(r.size());
  for (std::size_t j = 0; j < r.size(); ++j) {
    if (j) k[j] = k[j - 1] + std::max<std::int64_t>(1, std::llround(dr[j - 1] / est));
    plo[j] = static_cast<std::int64_t>(first_lba) + r[j] * m;
    phi[j] = plo[j] + m - 1;
  }
  const double half = rot_spt > 0 ? 0.005 * est + 1 : 2.0 * m + 1;
  const auto lo = static_cast<std::uint32_t>(std::max(1.0, est - half));
  const auto hi = static_cast<std::uint32_t>(est + half);
  std::int64_t base = 0;
  std::uint32_t range = 0;
  std::uint32_t spt = 0;
  if (rot_spt > 0) {
    // The feasible track size nearest to what the rotation implies.
    const auto c0 = static_cast<std::int64_t>(std::llround(rot_spt));
    for (std::int64_t d = 0; !spt && c0 - d >= static_cast<std::int64_t>(lo); ++d)
      for (std::int64_t p : {c0 - d, c0 + d})
        if (!spt && p >= static_cast<std::int64_t>(lo) && p <= static_cast<std::int64_t>(hi))
          spt = fit_period(plo, phi, k, static_cast<std::uint32_t>(p), static_cast<std::uint32_t>(p), &base, &range);
    if (spt) fit_period(plo, phi, k, lo, hi, nullptr, &range);  // the uncertainty: the feasible range
  } else {
    spt = fit_period(plo, phi, k, lo, hi, &base, &range);
  }
  if (!spt && r.size() >= 6) {
    // The stream may cross a zone boundary: fit the longer consistent half.
    std::size_t h = r.size() / 2;
    for (int side = 0; side < 2 && !spt; ++side) {
      std::size_t s0 = side ? h : 0, s1 = side ? r.size() : h;
      std::vector<std::int64_t> kk(k.begin() + s0, k.begin() + s1), l(plo.begin() + s0, plo.begin() + s1),
          u(phi.begin() + s0, phi.begin() + s1);
      for (auto& x : kk) x -= k[s0];
      spt = fit_period(l, u, kk, lo, hi, &base, &range);
    }
  }
  if (spt) {
    t.sectors_per_track = spt;
    t.spt_uncertainty = range / 2.0;
    t.first_track_lba = static_cast<std::uint64_t>(std::max<std::int64_t>(base, 0));
    t.rotation_ns = spt * t.sector_ns;
  }

  // Gaps: head switches and cylinder switches. The minority group, when it recurs regularly,
  // marks the cylinder switches; its period in tracks is the number of surfaces.
  double cut = two_cluster_threshold(gaps, 0.05);
  std::vector<double> g_small, g_large;
  std::vector<std::int64_t> k_small, k_large;
  for (std::size_t j = 0; j < gaps.size(); ++j) {
    bool big = cut >= 0 && gaps[j] > cut;
    (big ? g_large : g_small).push_back(gaps[j]);
    (big ? k_large : k_small).push_back(k[j]);
  }
  bool large_is_cyl = g_large.size() <= g_small.size();
  auto& g_cyl = large_is_cyl ? g_large : g_small;
  auto& g_trk = large_is_cyl ? g_small : g_large;
  auto& k_cyl = large_is_cyl ? k_large : k_small;
  if (cut >= 0 && k_cyl.size() >= 2) {
    std::map<std::int64_t, int> count;
    for (std::size_t j = 1; j < k_cyl.size(); ++j) ++count[k_cyl[j] - k_cyl[j - 1]];
    auto best = std::max_element(count.begin(), count.end(),
                                 [](auto& a, auto& b2) { return a.second < b2.second; });
    double conf = static_cast<double>(best->second) / static_cast<double>(k_cyl.size() - 1);
    if (conf >= 0.5 && best->first >= 2) {
      t.surfaces = static_cast<unsigned>(best->first);
      t.surfaces_confidence = conf;
      t.track_gap_ns = median(g_trk);
      t.cyl_gap_ns = median(g_cyl);
    }
  }
  unsigned H_used = t.surfaces;
  if (!t.surfaces && surfaces_hint && cut >= 0 && !k_cyl.empty()) {
    // One cylinder switch seen: not enough to count surfaces here, enough to weigh the gaps.
    H_used = surfaces_hint;
    t.track_gap_ns = median(g_trk);
    t.cyl_gap_ns = median(g_cyl);
  }
  if (!H_used) t.track_gap_ns = median(gaps);

  if (t.sectors_per_track) {
    const double spt_d = t.sectors_per_track;
    if (H_used) {
      const double H = H_used;
      double ns = H * spt_d * t.sector_ns + (H - 1) * t.track_gap_ns + t.cyl_gap_ns;
      t.sustained_bytes_s = H * spt_d * lb / (ns * 1e-9);
    } else {
      double ns = spt_d * t.sector_ns + t.track_gap_ns;
      t.sustained_bytes_s = spt_d * lb / (ns * 1e-9);
    }
  } else {
    t.sustained_bytes_s = t.raw_bytes_s;
  }
  return t;
}

CostStream analyse_cost_stream(std::span<const std::int64_t> c, std::uint64_t first_lba,
                               std::uint32_t m_small, std::size_t n_small, std::uint32_t m_large,
                               std::uint32_t block_bytes, unsigned surfaces_hint,
                               double rotation_hint_ns) {
  CostStream r;
  const std::size_t n = c.size();
  // At least 5 spacings of each kind; the first spacing of each kind is skipped (the first read
  // carries the positioning, the first large read follows a small one).
  if (m_large <= m_small || n_small < 7 || n < n_small + 8) return r;
  std::vector<double> ds, dl;
  for (std::size_t i = 2; i < n_small; ++i) ds.push_back(static_cast<double>(c[i] - c[i - 1]));
  for (std::size_t i = n_small + 1; i < n; ++i) dl.push_back(static_cast<double>(c[i] - c[i - 1]));
  // Medians: a read crosses a track boundary with probability (read size / track size), well
  // under one half for both sizes, so the median spacing is that of a read inside a track.
  const double bs = median(ds), bl = median(dl);
  const double s = (bl - bs) / static_cast<double>(m_large - m_small);
  if (!(s > 0)) return r;
  r.command_ns = bl - s * m_large;
  // Every read must have needed at least half its media time beyond the cost; one that did not
  // was a cache hit, or the extra time is not a fixed cost per command.
  for (double d : ds)
    if (d - r.command_ns < 0.5 * s * m_small) return r;
  for (double d : dl)
    if (d - r.command_ns < 0.5 * s * m_large) return r;
  r.fitted = true;
  std::vector<std::int64_t> e;
  e.reserve(n - n_small);
  for (std::size_t j = 0; j + n_small < n; ++j)
    e.push_back(c[n_small + j] - static_cast<std::int64_t>(std::llround(r.command_ns * static_cast<double>(j))));
  r.t = analyse_stream(e, first_lba + static_cast<std::uint64_t>(n_small) * m_small, m_large, block_bytes, 2,
                       surfaces_hint, rotation_hint_ns);
  return r;
}

}  // namespace ds::measure
