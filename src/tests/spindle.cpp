#include "tests/spindle.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <numbers>

#include "tests/common.hpp"

namespace ds::measure {

namespace {

constexpr double kTwoPi = 2 * std::numbers::pi;
// The phase lock's fixed limits (its caller's options: SpindleTuning, spindle.hpp).
struct PeakScanTuning {
  std::size_t max_scan_steps = 400000;  // a wider search than this is not a refinement
  // The peak's main lobe: for stamps spread over a span S it reaches its first zero 1/S from the
  // best frequency, and the scan steps phase_step/S; twice that is left out when looking for another.
  double peak_guard_turns = 2;
  double alias_ratio = 0.8;  // another peak this close to the best: ambiguous
  int refits = 3;  // outlier rejection rounds
};
constexpr PeakScanTuning kTuning{};

struct Stamp {
  unsigned anchor = 0;
  double t = 0;  // ns since the first stamp
};

// Mean resultant length of every anchor's phases at frequency f (turns per ns), weighted by the
// anchors' read counts: 1 when every stamp of each anchor sits at one phase.
double coherence(const std::vector<Stamp>& s, unsigned anchors, double f, std::vector<double>* phase = nullptr) {
  std::vector<std::complex<double>> z(anchors);
  for (const auto& x : s) z[x.anchor] += std::polar(1.0, kTwoPi * std::fmod(x.t * f, 1.0));
  double sum = 0;
  for (const auto& v : z) sum += std::abs(v);
  if (phase) {
    phase->assign(anchors, 0.0);
    for (unsigned j = 0; j < anchors; ++j) (*phase)[j] = std::arg(z[j]) / kTwoPi;  // turns
  }
  return s.empty() ? 0 : sum / static_cast<double>(s.size());
}

// The scan: frequencies f0 + m·df, each stamp's unit phasor advanced by a fixed rotation per
// step (the phase is linear in f), so a step costs one complex product per stamp.
struct Scan {
  double f = 0, r = 0, second = 0;  // best frequency, its coherence, the best away from its peak
};

Scan scan(const std::vector<Stamp>& s, unsigned anchors, double f_lo, double df, std::size_t steps,
          std::size_t guard) {
  std::vector<std::complex<double>> z, w;
  z.reserve(s.size());
  w.reserve(s.size());
  for (const auto& x : s) {
    z.push_back(std::polar(1.0, kTwoPi * std::fmod(x.t * f_lo, 1.0)));
    w.push_back(std::polar(1.0, kTwoPi * std::fmod(x.t * df, 1.0)));
  }
  std::vector<double> r(steps);
  std::vector<std::complex<double>> acc(anchors);
  for (std::size_t m = 0; m < steps; ++m) {
    std::fill(acc.begin(), acc.end(), std::complex<double>{});
    for (std::size_t k = 0; k < s.size(); ++k) {
      acc[s[k].anchor] += z[k];
      z[k] *= w[k];
    }
    double sum = 0;
    for (const auto& v : acc) sum += std::abs(v);
    r[m] = sum / static_cast<double>(s.size());
  }
  Scan out;
  const auto best = static_cast<std::size_t>(std::max_element(r.begin(), r.end()) - r.begin());
  out.f = f_lo + df * static_cast<double>(best);
  out.r = r[best];
  for (std::size_t m = 0; m < steps; ++m)
    if (m + guard < best || m > best + guard) out.second = std::max(out.second, r[m]);
  return out;
}

// Least squares of t = φ_j + n·T over the stamps kept (one intercept per anchor, one slope).
struct CombFit {
  double T = 0, se = 0, sd = 0;
  std::size_t used = 0;
};

CombFit fit_comb(const std::vector<Stamp>& s, const std::vector<double>& n, const std::vector<bool>& keep,
                 unsigned anchors) {
  std::vector<double> sn(anchors), st(anchors), cnt(anchors);
  for (std::size_t k = 0; k < s.size(); ++k)
    if (keep[k]) sn[s[k].anchor] += n[k], st[s[k].anchor] += s[k].t, ++cnt[s[k].anchor];
  double sxx = 0, sxy = 0;
  CombFit c;
  for (std::size_t k = 0; k < s.size(); ++k) {
    if (!keep[k] || cnt[s[k].anchor] < 2) continue;
    const unsigned j = s[k].anchor;
    const double dn = n[k] - sn[j] / cnt[j], dt = s[k].t - st[j] / cnt[j];
    sxx += dn * dn;
    sxy += dn * dt;
    ++c.used;
  }
  if (sxx <= 0) return c;
  c.T = sxy / sxx;
  double ss = 0;
  std::size_t groups = 0;
  for (unsigned j = 0; j < anchors; ++j) groups += cnt[j] >= 2;
  for (std::size_t k = 0; k < s.size(); ++k) {
    if (!keep[k] || cnt[s[k].anchor] < 2) continue;
    const unsigned j = s[k].anchor;
    const double r = (s[k].t - st[j] / cnt[j]) - c.T * (n[k] - sn[j] / cnt[j]);
    ss += r * r;
  }
  const double dof = static_cast<double>(c.used) - static_cast<double>(groups) - 1;
  if (dof < 1) return c;
  c.sd = std::sqrt(ss / dof);
  c.se = c.sd / std::sqrt(sxx);
  return c;
}

}  // namespace

SpindleFit fit_spindle(const std::vector<AnchorRead>& reads, double t0_ns, double rel, const SpindleTuning& tun) {
  SpindleFit fit;
  if (reads.size() < tun.min_reads || t0_ns <= 0) return fit;
  std::int64_t first = reads.front().complete_ns, last = first;
  unsigned anchors = 0;
  for (const auto& r : reads) {
    first = std::min(first, r.complete_ns);
    last = std::max(last, r.complete_ns);
    anchors = std::max(anchors, r.anchor + 1);
  }
  std::vector<Stamp> s;
  s.reserve(reads.size());
  for (const auto& r : reads) s.push_back({r.anchor, static_cast<double>(r.complete_ns - first)});
  const double span = static_cast<double>(last - first);
  if (span < 4 * t0_ns) return fit;

  // 1. The scan, in frequency: the phase of the last stamp moves by phase_step of a turn per step.
  const double r = std::max(rel, tun.scan_rel);
  const double f_lo = 1 / (t0_ns * (1 + r)), f_hi = 1 / (t0_ns * std::max(1 - r, 0.5));
  const double df = tun.phase_step / span;
  const auto steps = static_cast<std::size_t>(std::ceil((f_hi - f_lo) / df)) + 1;
  if (steps > kTuning.max_scan_steps) return fit;
  const Scan sc = scan(s, anchors, f_lo, df, steps, static_cast<std::size_t>(std::ceil(kTuning.peak_guard_turns / tun.phase_step)));
  fit.coherence = sc.r;
  if (sc.r < tun.min_coherence || sc.second > kTuning.alias_ratio * sc.r) return fit;

  // 2. Each stamp's revolution count on its anchor's comb, then the line, refitted without the
  //    stamps far off it (host stalls, a read that was in fact served from the buffer).
  double T = 1 / sc.f;
  std::vector<double> phase;
  coherence(s, anchors, sc.f, &phase);
  std::vector<double> n(s.size());
  std::vector<bool> keep(s.size(), true);
  CombFit c;
  for (int round = 0; round < kTuning.refits; ++round) {
    for (std::size_t k = 0; k < s.size(); ++k) n[k] = std::round(s[k].t / T - phase[s[k].anchor]);
    c = fit_comb(s, n, keep, anchors);
    if (c.T <= 0) return fit;
    T = c.T;
    // Residuals about each anchor's own comb, the robust σ, and who stays.
    std::vector<double> res(s.size());
    std::vector<double> mean_res(anchors, 0), cnt(anchors, 0);
    for (std::size_t k = 0; k < s.size(); ++k) {
      res[k] = s[k].t - n[k] * T;
      if (keep[k]) mean_res[s[k].anchor] += res[k], ++cnt[s[k].anchor];
    }
    for (unsigned j = 0; j < anchors; ++j) {
      if (cnt[j] > 0) mean_res[j] /= cnt[j];
      phase[j] = mean_res[j] / T;
    }
    std::vector<double> dev;
    for (std::size_t k = 0; k < s.size(); ++k)
      if (keep[k]) dev.push_back(res[k] - mean_res[s[k].anchor]);
    const double sigma = std::max(1.0, robust_sigma(dev));
    fit.residual_sd_ns = sigma;
    std::size_t dropped = 0;
    for (std::size_t k = 0; k < s.size(); ++k) {
      const bool in = std::fabs(res[k] - mean_res[s[k].anchor]) <= tun.outlier_sigmas * sigma;
      dropped += !in;
      keep[k] = in;
    }
    fit.outliers = dropped;
  }
  c = fit_comb(s, n, keep, anchors);
  if (c.T <= 0 || c.used < tun.min_reads) return fit;
  fit.revolution_ns = c.T;
  fit.half_width_ns = kZ95 * c.se + tun.rel_floor * c.T;
  fit.used = c.used;
  double lo = 1e300, hi = -1e300;
  for (std::size_t k = 0; k < s.size(); ++k)
    if (keep[k]) lo = std::min(lo, s[k].t), hi = std::max(hi, s[k].t);
  fit.span_s = (hi - lo) * 1e-9;
  return fit;
}

}  // namespace ds::measure
