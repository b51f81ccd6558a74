// The transfer test's pure analysis of its samples: zones from the rate samples, the spares per
// track the zones allow, the layout the track switches tell (split from transfer.cpp, which
// measures).
#include "tests/transfer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "tests/result_keys.hpp"

namespace ds::measure {

namespace {
// The zone analysis's parameters (docs/methods.md, "transfer").
struct ZonesTuning {
  double sample_rate_resolution = 0.005;  // relative resolution of one rate sample (zones_from_points)
  double outlier_sigmas = 4;      // a zone's sample this far from its median is left out of its rate
  double pooled_spread = 0.005;   // media rates this far apart in one zone: several surfaces
  double layout_agreement = 0.6;  // share of samples that must agree on the surfaces
  std::size_t all_falling = 7;    // rates only: this many neighbour differences, all falls, are a decline
  std::size_t min_pooled_samples = 3;  // samples a pooled loss share rests on (pooled_loss_share)
  double min_pooled_loss = 0.01;  // and the share of time lost (2 × sample_rate_resolution)
};
constexpr ZonesTuning kZones{};
}  // namespace

void fit_spares(TransferResult& res, std::uint32_t lb) {
  // Every track takes one whole revolution, its spare sectors passing unread: a zone with n
  // logical sectors per track of s each turns in T = (n + x)·s. A stream alone cannot tell x from
  // the switch time that follows it, but zones can: n·s = T − x·s is a line over the zones' sector
  // times, whose slope is the spares and whose intercept the revolution. Taken only when the
  // zones spread their sector times (10 % or more) and x comes out a whole number.
  std::vector<double> xs, ys;
  for (auto& p : res.points)
    if (!p.anomalous && p.sectors_per_track && p.media_mb_s > 0) {
      const double s = lb / (p.media_mb_s * 1e6) * 1e9;
      xs.push_back(s);
      ys.push_back(p.sectors_per_track * s);
    }
  if (xs.size() < 4) return;
  const auto [lo, hi] = std::minmax_element(xs.begin(), xs.end());
  if (*hi < 1.1 * *lo) return;
  // The slope is judged over the zones, not the samples: samples of one zone share its errors
  // (the same boundaries, the same switches), so their scatter would understate the slope's.
  std::map<long, std::pair<double, std::pair<double, int>>> by_zone;  // keyed by rounded x
  for (std::size_t i = 0; i < xs.size(); ++i) {
    auto& g = by_zone[std::lround(xs[i] * 200.0 / *lo)];  // 0.5 % bins of the sector time
    g.first += xs[i];
    g.second.first += ys[i];
    ++g.second.second;
  }
  std::vector<double> zx, zy;
  for (const auto& [key, g] : by_zone) {
    zx.push_back(g.first / g.second.second);
    zy.push_back(g.second.first / g.second.second);
  }
  const LineFit f = zx.size() >= 3 ? fit_line(zx, zy) : fit_line(xs, ys);
  const double x = -f.slope;
  // Every whole count the fit allows (its 95 % interval, at least ±0.3) stays a candidate; the
  // nearest is taken, and the revolution's interval spans what the others would give.
  const double reach = std::max(0.3, kZ95 * f.slope_se);
  const int nearest = static_cast<int>(std::max(0.0, std::round(x)));
  if (std::fabs(x - nearest) > reach) return;
  auto revolution = [&](int k) {
    std::vector<double> t;
    for (std::size_t i = 0; i < xs.size(); ++i) t.push_back((ys[i] + k * xs[i]) * 1e-6);
    return t;
  };
  const std::vector<double> t = revolution(nearest);
  const double med = median(t);
  double spread = 0;
  const int k_lo = static_cast<int>(std::max(0.0, std::ceil(x - reach)));
  const int k_hi = static_cast<int>(std::floor(x + reach));
  for (int k = k_lo; k <= k_hi; ++k) spread = std::max(spread, std::fabs(median(revolution(k)) - med));
  res.rotation_ms = {med, kZ95 * median_se(t) + spread + med * 1e-4};
  if (k_hi > k_lo) {
    res.withheld.push_back({"spares_per_track", WithheldReason::spares_open,
                            {{"low", k_lo}, {"high", k_hi}, {"rotation_hw_ms", res.rotation_ms.uncertainty}}});
    return;
  }
  const double xr = nearest;
  res.spares_per_track = nearest;
  if (xr > 0)
    res.notes.push_back(fmt::format("{} spare sector(s) per track: the zones' track sizes and sector times "
                                    "fit one revolution only with them", static_cast<int>(xr)));
}

// A cylinder layout visits every surface before it moves the arm, so a stream's track switches
// repeat with the period of the surfaces (H−1 head switches, then a cylinder switch, or per-surface
// rates in that order). A surface-serpentine layout fills one surface across a band of cylinders:
// within a band every switch is a one-cylinder move, with no period to see. So "cylinder" is
// said only where the surfaces were told from that period by most samples; otherwise not told.
void tell_layout(TransferResult& res) {
  if (res.surfaces_estimate >= 2 && res.surfaces_confidence >= kZones.layout_agreement) {
    res.layout = "cylinder";
    return;
  }
  res.withheld.push_back({key::transfer::layout, WithheldReason::layout_no_period});
}

// A zone's samples less those whose sustained rate falls far short of their media rate compared
// with the rest (three or more samples): a stream that met a rare long pause — on a
// surface-serpentine drive the seek to the next band, once in thousands of tracks — weighs it as
// if every few tracks had one. The ratio, not the rate: samples of one zone may read surfaces of
// their own density (a few % apart), whose switches cost the same share of a track. Far: beyond
// kZones.outlier_sigmas robust σ of the ratios, σ never below one sample's resolution.
namespace {
std::vector<const TransferPoint*> without_outliers(const std::vector<const TransferPoint*>& g) {
  if (g.size() < 3) return g;
  std::vector<double> ratio;
  // Judged without the lost revolutions a sample met: they are the drive's (a quiet AAM level's
  // switch that overran its skew; rare enough that most samples of a zone meet none, and then a
  // test on mb_s dropped the ones that did: 52.6 ± 0.4 MB/s for a quiet zone of 47.2), and they
  // stay in the zone's mean below.
  for (auto* p : g) {
    const double r = p->lossless_mb_s > 0 ? p->lossless_mb_s : p->mb_s;
    ratio.push_back(p->media_mb_s > 0 ? r / p->media_mb_s : 1.0);
  }
  const double m = median(ratio);
  const double sigma = std::max(robust_sigma(ratio), kZones.sample_rate_resolution * m);
  std::vector<const TransferPoint*> kept;
  for (std::size_t i = 0; i < g.size(); ++i)
    if (std::fabs(ratio[i] - m) <= kZones.outlier_sigmas * sigma) kept.push_back(g[i]);
  return kept;
}
}  // namespace

namespace {
double mean_media(const std::vector<const TransferPoint*>& g) {
  double sum = 0;
  for (auto* p : g) sum += p->media_mb_s;
  return sum / static_cast<double>(g.size());
}

// Zones slow down from the outer edge in (more sectors on a longer track), so a group that reads
// faster than the one outside it is not a zone of its own: on a surface-serpentine drive whose
// surfaces each have their own density, a sample reads one surface, and neighbouring samples of
// one zone differ by the surfaces' spread, up and down. Adjacent groups are pooled while one is
// faster than the one before it (pool adjacent violators: the non-increasing fit of the groups'
// media rates, Ayer et al. 1955), so that such a zone's rate is the mean over the surfaces its
// samples read. On a cylinder layout every sample crosses all surfaces and the zones keep their
// order: nothing is pooled.
void pool_rising_groups(std::vector<std::vector<const TransferPoint*>>& groups) {
  for (std::size_t i = 1; i < groups.size();) {
    if (mean_media(groups[i]) > mean_media(groups[i - 1])) {
      groups[i - 1].insert(groups[i - 1].end(), groups[i].begin(), groups[i].end());
      groups.erase(groups.begin() + static_cast<std::ptrdiff_t>(i));
      if (i > 1) --i;  // the pooled group may now be faster than the one before it
    } else {
      ++i;
    }
  }
}

// Rates alone (no track structure): the sample-to-sample noise, and the spikes taken out of
// `use`. A step between zones then counts only if it stands out of the noise, so that a flat but
// noisy target (a file, a RAM disk, a loop device) is one zone.
double drop_rate_spikes(std::vector<const TransferPoint*>& use, double rel) {
  double noise = 0;
  // The noise comes from neighbouring samples (a smooth ZCAV decline barely moves them). Most
  // neighbours differ by noise only, but not all: each zone edge is a step, and a spike
  // makes two. Through QEMU those were over half of the differences (15 edges and 8 spikes in
  // 54): their median absolute deviation was the size of a zone step and three of it merged
  // the zones pairwise. The noise is read from the smallest quarter of the differences instead
  // (|N(0, 2σ²)| has its first quartile at 0.4506 σ), which holds while three in four differ
  // by more than noise, and overstates it only while just a few differ by noise alone.
  std::vector<double> diffs, rises;
  for (std::size_t i = 1; i < use.size(); ++i) {
    const double d = use[i]->mb_s - use[i - 1]->mb_s;
    diffs.push_back(std::fabs(d));
    if (d > 0) rises.push_back(d * d);
  }
  if (diffs.size() >= 3) noise = quantile(diffs, 0.25) / kAbsDiffQ1PerSigma;
  // Fewer samples than zones (a short budget: 8 samples of a 16-zone drive) make every
  // difference a step, its smallest quarter too: read as noise, that merged the whole disk into
  // one zone, 42.2 ± 5.8 MB/s for 52.5 outside and 29.2 inside. Zones never get faster inward,
  // so a rise is noise or a spike, and |N(0, 2σ²)| squared has mean 2σ²: the noise is at most
  // what three or more rises show. No rise among kZones.all_falling differences or more (by
  // chance 1 in 2^n): a decline, and no noise is seen at all.
  if (rises.size() >= 3) noise = std::min(noise, std::sqrt(mean(rises) / 2));
  else if (rises.empty() && diffs.size() >= kZones.all_falling) noise = 0;
  auto tol = [&](double m) { return std::max(rel * m, 3 * noise); };
  // Zones slow down inward, so a sample that reads faster than the last one kept outside it is
  // a spike too, whatever its neighbours, when the rate comes back within one of the next two
  // (through QEMU about one sample in seven came out 1-4 % fast, once two in a row: docs/serve.md).
  // Where the rate does not come back, the one outside was the odd one (slow), which the
  // neighbour rule below then takes. These go first: a true sample of the next zone in, beside
  // a fast spike, would otherwise sit between two neighbours that agree (55.94 outside, the
  // spike's 56.11 inside, for a sample at 54.40 of a 54.13 MB/s zone) and go as a spike as well,
  // moving the zone's edge past its middle.
  {
    std::vector<const TransferPoint*> fast_gone{use[0]};
    for (std::size_t i = 1; i < use.size(); ++i) {
      const double last = fast_gone.back()->mb_s, x = use[i]->mb_s;
      double back = -1;  // the slower of the next two, -1 for none
      for (std::size_t j = i + 1; j < std::min(use.size(), i + 3); ++j)
        back = back < 0 ? use[j]->mb_s : std::min(back, use[j]->mb_s);
      const bool fast = x - last > tol(last) && (back < 0 || back <= last + tol(last));
      if (!fast) fast_gone.push_back(use[i]);
    }
    use = fast_gone;
  }
  // A lone sample that differs from both neighbours, which agree, is a spike (a host hiccup); so
  // is one slower than the sample inside it, which no zone is (a host stall inside a stream
  // between two zones' rates: 71.46 MB/s between 92.98 and 89.60 on a simulated /2 DM-SMR drive,
  // a zone of its own without this).
  std::vector<const TransferPoint*> kept{use[0]};
  for (std::size_t i = 1; i + 1 < use.size(); ++i) {
    const double a = use[i - 1]->mb_s, b = use[i + 1]->mb_s, x = use[i]->mb_s, m = (a + b) / 2;
    const bool lone = std::fabs(a - b) <= tol(m) && std::fabs(x - m) > tol(m);
    if (!lone && !(b - x > tol(b))) kept.push_back(use[i]);
  }
  if (use.size() > 1) kept.push_back(use.back());
  use = kept;
  return noise;
}

}  // namespace

LossShare pooled_loss_share(const std::vector<const TransferPoint*>& points) {
  LossShare ls;
  std::vector<double> g;
  for (auto* p : points)
    if (p->lossless_told && p->mb_s > 0 && p->lossless_mb_s > 0) g.push_back(p->mb_s / p->lossless_mb_s);
  ls.samples = g.size();
  if (g.empty()) return ls;
  ls.reading = mean(g);
  ls.half_width = mean_half_width(g);
  return ls;
}

unsigned most_voted(const std::map<unsigned, int>& votes) {
  return std::max_element(votes.begin(), votes.end(), [](auto& a, auto& b) { return a.second < b.second; })->first;
}

SurfaceVotes tally_surfaces(const std::vector<SurfaceVote>& told) {
  SurfaceVotes v;
  for (auto& t : told)
    if (t.settled) v.settled.insert(t.H);
  for (auto& t : told) {
    bool hidden = false;
    for (unsigned c : v.settled) hidden = hidden || (!t.settled && c > t.H && c % t.H == 0);
    if (hidden) continue;
    v.votes[t.H] += t.weight;
    v.told += t.weight;
  }
  return v;
}

bool same_zone(const TransferPoint& a, const TransferPoint& b) {
  if (!a.sectors_per_track || !b.sectors_per_track) return false;
  if (a.per_surface || b.per_surface) {
    // Surfaces of their own density: a sample's media rate is that of the surfaces it happened to
    // cross (a few % apart), and its track size their mean, known to within its fit.
    const double dspt = std::fabs(static_cast<double>(a.sectors_per_track) - b.sectors_per_track);
    return dspt <= a.spt_uncertainty + b.spt_uncertainty + 0.5 &&
           std::fabs(a.media_mb_s - b.media_mb_s) <= 0.02 * std::max(a.media_mb_s, b.media_mb_s);
  }
  return std::fabs(a.media_mb_s - b.media_mb_s) <= 0.0025 * std::max(a.media_mb_s, b.media_mb_s);
}

std::vector<TransferZone> zones_from_points(const std::vector<TransferPoint>& pts,
                                            std::uint64_t span, std::uint32_t lb, double rel) {
  std::vector<TransferZone> zones;
  std::vector<const TransferPoint*> use;
  for (auto& p : pts)
    if (!p.anomalous && p.mb_s > 0) use.push_back(&p);
  if (use.empty()) return zones;
  std::size_t with_spt = 0;
  for (auto* p : use) with_spt += p->sectors_per_track > 0;
  const bool by_spt = with_spt == use.size();
  double noise = 0;
  if (!by_spt) noise = drop_rate_spikes(use, rel);
  std::vector<std::vector<const TransferPoint*>> groups{{use[0]}};
  for (std::size_t i = 1; i < use.size(); ++i) {
    auto& g = groups.back();
    bool same;
    if (by_spt) {
      same = same_zone(*use[i], *g.back());
    } else {
      std::vector<double> r;
      for (auto* p : g) r.push_back(p->mb_s);
      double m = median(r);
      same = std::fabs(use[i]->mb_s - m) <= std::max(rel * m, 3 * noise);
    }
    // A place read twice (a retake) is one place: it cannot start a zone that the same LBA's
    // other sample belongs to (that once made a zone end before it began, at 2^64 - 1).
    same = same || use[i]->lba == g.back()->lba;
    if (same) g.push_back(use[i]);
    else groups.push_back({use[i]});
  }
  if (by_spt) pool_rising_groups(groups);
  // Where samples lost revolutions, each zone's rate is its samples' lossless rates times the
  // share of time spent reading pooled over all of them (a zone's few samples meet few losses:
  // on a WD1200JD-shaped drive whose quiet AAM level loses one switch in nine, the outer rate of
  // an A/B's rounds had swung by several %). Where none did, the rates are the samples' own.
  const LossShare loss = by_spt ? pooled_loss_share(use) : LossShare{};
  // Pooled only where the losses cost more than twice what one sample resolves (0.5 %): below
  // that a zone's own samples weigh them within the interval's floor, and pooling would only
  // add its assumption that losses are spread evenly. Serpentine and dual-actuator drives lose
  // about 0.6 % to rare events of a place (a seek to the next band), and spreading those over
  // every zone had put their zones' intervals off the truth (coverage 100 -> 94 % on exos2x14).
  const bool pooled = loss.samples >= kZones.min_pooled_samples && 1 - loss.reading >= kZones.min_pooled_loss;
  // Zone z + 1 starts midway between the last sample of z and its own first, and always after
  // the former: the points are sorted and no LBA is in two groups, so the zones tile the span.
  auto start_of = [&](std::size_t z) {
    const std::uint64_t a = groups[z - 1].back()->lba, b = groups[z].front()->lba;
    return std::max((a + b) / 2, a + 1);
  };
  for (std::size_t z = 0; z < groups.size(); ++z) {
    TransferZone tz;
    tz.first_lba = z == 0 ? 0 : start_of(z);
    tz.last_lba = z + 1 == groups.size() ? span - 1 : start_of(z + 1) - 1;
    std::vector<double> r;
    for (auto* p : without_outliers(groups[z]))
      r.push_back(pooled && p->lossless_told ? p->lossless_mb_s * loss.reading : p->mb_s);
    tz.mb_s = mean(r);
    // 95 % half-width: the samples' spread, plus the resolution of one sample's rate (it rests on
    // about one cylinder: which surfaces it crossed and the few switches it saw move it by up to
    // ~0.5 % on the simulated /2 drives, docs/accuracy.md), which more samples do not shrink, plus
    // the pooled loss share's own interval, which every zone shares.
    tz.mb_s_uncertainty = mean_half_width(r) + kZones.sample_rate_resolution * tz.mb_s +
                          (pooled ? tz.mb_s * loss.half_width / loss.reading : 0);
    // The most common sectors-per-track of the group (single fits can be off by a few).
    std::map<unsigned, int> votes;
    std::vector<double> media;
    // Only samples that told a track size vote: one that did not (0) is no size, and once made
    // the mean of 4219, 4192, 4214, 4227, 0 and 0 a 2809-sector track.
    double sum = 0;
    int told = 0;
    for (auto* p : groups[z]) {
      if (p->sectors_per_track) {
        ++votes[p->sectors_per_track];
        sum += p->sectors_per_track;
        ++told;
      }
      media.push_back(p->media_mb_s);
    }
    tz.sectors_per_track = votes.empty() ? 0 : most_voted(votes);
    // Samples of several surfaces (pooled above, or per-surface tracks): their mean track size.
    if (votes.size() > 1 && media.size() > 1 &&
        *std::max_element(media.begin(), media.end()) > (1 + kZones.pooled_spread) * *std::min_element(media.begin(), media.end()))
      tz.sectors_per_track = static_cast<std::uint32_t>(std::lround(sum / told));
    tz.media_mb_s = mean(media);
    tz.bytes_per_track = static_cast<std::uint64_t>(tz.sectors_per_track) * lb;
    zones.push_back(tz);
  }
  return zones;
}

bool zones_tile_span(const std::vector<TransferZone>& zones, std::uint64_t span_blocks) {
  if (zones.empty()) return true;
  std::uint64_t next = 0;
  for (const auto& z : zones) {
    if (z.first_lba != next || z.last_lba < z.first_lba || z.last_lba >= span_blocks) return false;
    next = z.last_lba + 1;
  }
  return next == span_blocks;
}

}  // namespace ds::measure
