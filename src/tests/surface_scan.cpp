#include "tests/surface_scan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "tests/result_keys.hpp"

namespace ds::measure {

namespace {

using t2t::kTuning;

// No offset dips alone: the comb of every multiple of H (H, 2H, … as far as the scan went, at
// least two), each below the median foot by its resolution, and their mean below it by the
// scatter test's 4 deviations scaled to the mean of that many feet. The least such H.
void comb_dip(const std::vector<SawtoothFoot>& feet, double scatter, DipFinding& d) {
  for (std::size_t H = 2; 2 * H <= feet.size(); ++H) {
    double sum = 0;
    unsigned n = 0;
    bool all = true;
    for (std::size_t j = H; j <= feet.size(); j += H) {
      const auto& f = feet[j - 1];
      all &= f.k_ms > 0 && f.k_ms < d.k_mode_ms - kTuning.dip_separation * (f.half_width_ms + d.hw_mode_ms);
      sum += f.k_ms;
      ++n;
    }
    const double thr = kTuning.dip_scatter * scatter / std::sqrt(static_cast<double>(n));
    if (all && n >= 2 && sum / n < d.k_mode_ms - thr) {
      d.offset = static_cast<unsigned>(H);
      d.dips = n;
      d.offset_dips = true;
      d.dip_threshold_ms = thr;
      return;
    }
  }
}

}  // namespace

DipFinding find_dip(const std::vector<SawtoothFoot>& feet) {
  DipFinding d;
  std::vector<double> k, hw;
  for (auto& f : feet)
    if (f.k_ms > 0) {
      k.push_back(f.k_ms);
      hw.push_back(f.half_width_ms);
    }
  if (k.size() < 3) return d;
  d.k_mode_ms = median(k);
  d.hw_mode_ms = median(hw);
  // The feet's own scatter across offsets (most of them are the same switch): host latency and
  // overhead jitter move a foot by more than its resolution says.
  const double scatter = robust_sigma(k);
  auto threshold = [&](const SawtoothFoot& f) {
    return std::max(kTuning.dip_separation * (f.half_width_ms + d.hw_mode_ms), kTuning.dip_scatter * scatter);
  };
  // Every offset that clears its threshold dips. The move H tracks on is the one-cylinder seek on
  // the same head, but so are 2H, 3H … tracks on seeks alone (2, 3 … cylinders), and they dip too
  // wherever those seeks are still faster than the head switch: H is their greatest common
  // divisor, not the lowest foot (which noise may put at 2H).
  unsigned g = 0;
  for (std::size_t j = 0; j < feet.size(); ++j) {
    const auto& f = feet[j];
    if (f.k_ms <= 0) continue;
    const double thr = threshold(f);
    d.threshold_ms = std::max(d.threshold_ms, thr);
    if (f.k_ms < d.k_mode_ms - thr) {
      g = std::gcd(g, static_cast<unsigned>(j + 1));
      ++d.dips;
    }
  }
  d.offset = g;
  d.offset_dips = g && feet[g - 1].k_ms > 0 && feet[g - 1].k_ms < d.k_mode_ms - threshold(feet[g - 1]);
  if (!g) comb_dip(feet, scatter, d);
  if (g && feet[g - 1].k_ms > 0) d.dip_threshold_ms = threshold(feet[g - 1]);
  else if (g) d.dip_threshold_ms = std::max(kTuning.dip_separation * 2 * d.hw_mode_ms, kTuning.dip_scatter * scatter);
  return d;
}

namespace t2t {

namespace {

// The scan's step between sources, in tracks: at least 2, and no multiple of it equal to j, j − 1
// or j − 2, so that no source lies on a track an earlier target read, or read ahead into (up to two
// tracks above it).
std::uint64_t scan_step(unsigned j) {
  for (unsigned s = 2;; ++s) {
    bool ok = j % s != 0;
    for (unsigned q = 1; q <= 2 && q < j; ++q) ok &= (j - q) % s != 0;
    if (ok) return s;
  }
}

}  // namespace

std::uint64_t scan_tracks(unsigned j) { return (kTuning.scan_coarse + kTuning.scan_fine) * scan_step(j) + j + 4; }

namespace {

struct Scan {
  std::vector<SawtoothFoot> feet;  // feet[j − 1]: target j tracks below the source
  std::optional<Error> err;
};

// Surfaces not told: the one-cylinder move on the same head is among the offsets j = 1, 2, … (at
// j = H), each a head switch, a cylinder switch with one (max(seek, head switch)), or at j = H the
// one-cylinder seek alone. Each offset's foot
// from its own sweep, the regions one below the other from `top` down.
Scan scan_offsets(IoEngine& io, Budget& budget, std::uint64_t top, unsigned max_j, const Track& tk, Rng& rng) {
  Scan sc;
  for (unsigned j = 1; j <= max_j && !budget.exhausted(); ++j) {
    Aim aim{top, scan_step(j) * tk.spt, -static_cast<std::int64_t>(j) * tk.spt};
    FootRun fr = find_foot(io, budget, aim, tk, kTuning.scan_coarse, kTuning.scan_fine, rng);
    if (fr.err) {
      sc.err = fr.err;
      break;
    }
    if (budget.exhausted()) break;  // a sweep the budget cut short is not a foot
    sc.feet.push_back(fr.f);
    top -= scan_tracks(j) * tk.spt;
  }
  return sc;
}

// One offset out of 24 below the rest may be chance: the dip and its neighbour again, at full
// resolution, below `at` (what the scan read). Returns the dip's new foot, or k_ms 0 when the
// re-measure does not confirm it.
SawtoothFoot confirm_dip(IoEngine& io, Budget& budget, const TrackSeekInput& in, const Track& tk, std::uint64_t at,
                         unsigned D, double scan_threshold, Rng& rng) {
  const unsigned nb = D > 1 ? D - 1 : D + 1;
  const std::uint64_t low = in.first_lba + 2 * tk.spt;
  const std::uint64_t span_d = (kTuning.coarse + kTuning.fine) * scan_step(D) + D + 4;
  const std::uint64_t span_n = (kTuning.coarse + kTuning.fine) * scan_step(nb) + nb + 4;
  if (at <= low + (span_d + span_n) * tk.spt) return {};
  FootRun a = find_foot(io, budget, {at, scan_step(D) * tk.spt, -static_cast<std::int64_t>(D) * tk.spt}, tk, kTuning.coarse,
                        kTuning.fine, rng);
  if (a.err || a.f.k_ms <= 0) return {};
  at -= span_d * tk.spt;
  FootRun c = find_foot(io, budget, {at, scan_step(nb) * tk.spt, -static_cast<std::int64_t>(nb) * tk.spt}, tk, kTuning.coarse,
                        kTuning.fine, rng);
  const double thr = kTuning.dip_separation * (a.f.half_width_ms + c.f.half_width_ms);
  if (c.f.k_ms <= 0 || a.f.k_ms >= c.f.k_ms - std::max(thr, scan_threshold / 2)) return {};
  return a.f;
}

// The surfaces H told by the scan: the move to the same head one cylinder on measured again at
// the full resolution of an aimed sweep (24 + 16 pairs, as where the surfaces are told), below
// `at` (what the scan read) where the zone has room; else the scan's own foot `scan`.
SawtoothFoot same_head_sweep(IoEngine& io, Budget& budget, const TrackSeekInput& in, const Track& tk, std::uint64_t at,
                             unsigned H, const SawtoothFoot& scan, Rng& rng) {
  const std::uint64_t cyl = std::uint64_t{tk.spt} * H;
  const std::uint64_t need = (2 * (kTuning.coarse + kTuning.fine) + 4) * cyl;
  if (at <= in.first_lba + 2 * cyl + need) return scan;
  FootRun fr = find_foot(io, budget, {at - 2 * cyl, 2 * cyl, static_cast<std::int64_t>(cyl)}, tk, kTuning.coarse,
                         kTuning.fine, rng);
  return fr.err || fr.f.k_ms <= 0 ? scan : fr.f;
}

// Feet that rise with the offset from the first on, the first the lowest: j tracks down are j
// cylinders, the seek curve itself (a surface-serpentine band, or a drive with one surface). In a
// cylinder layout the first H − 1 offsets are head switches alike, and the H-th the dip.
bool rising_feet(const std::vector<SawtoothFoot>& feet) {
  std::vector<double> j, k;
  for (std::size_t i = 0; i < feet.size(); ++i)
    if (feet[i].k_ms > 0) j.push_back(static_cast<double>(i + 1)), k.push_back(feet[i].k_ms);
  if (k.size() < kTuning.min_rising_feet || feet[0].k_ms <= 0 || feet[1].k_ms <= 0) return false;
  for (std::size_t i = 1; i < feet.size(); ++i)
    if (feet[i].k_ms > 0 && feet[i].k_ms < feet.front().k_ms - feet.front().half_width_ms) return false;
  // Rising from the first step on: a cylinder layout whose one-cylinder seek outlasts a head
  // switch rises too, but only at offset H (step_up below).
  if (feet[1].k_ms - feet[0].k_ms <= kTuning.dip_separation * (feet[0].half_width_ms + feet[1].half_width_ms)) return false;
  return rank_correlation(j, k) >= kTuning.rising_correlation;
}

// Offsets 1 .. H − 1 alike (head switches), then a step up that holds from offset H (the move to
// the same head one cylinder on) to 2H − 1 (one cylinder and a head switch): a cylinder layout
// whose one-cylinder seek outlasts its head switch. The step must clear the feet's resolution
// and the spread of the flat part. Returns H (at least 3: with H = 2 the first offset alone is
// the flat part, and a serpentine band's rise looks the same), or 0.
unsigned step_up(const std::vector<SawtoothFoot>& feet) {
  const std::size_t n = feet.size();
  for (std::size_t p = 2; p + 2 < n; ++p) {  // p flat offsets; the step at offset p + 1
    double lo = 1e300, hi = -1e300, hw_a = 0, lo_b = 1e300, hw_b = 0;
    bool all = true;
    for (std::size_t i = 0; i < p; ++i) {
      all &= feet[i].k_ms > 0;
      lo = std::min(lo, feet[i].k_ms), hi = std::max(hi, feet[i].k_ms), hw_a = std::max(hw_a, feet[i].half_width_ms);
    }
    const std::size_t end = std::min(n, 2 * (p + 1) - 1);  // offsets H .. 2H − 1
    for (std::size_t i = p; i < end; ++i) {
      all &= feet[i].k_ms > 0;
      lo_b = std::min(lo_b, feet[i].k_ms), hw_b = std::max(hw_b, feet[i].half_width_ms);
    }
    const double step = lo_b - hi;
    if (all && end - p >= 2 && step > kTuning.dip_separation * (hw_a + hw_b) && step > hi - lo) return static_cast<unsigned>(p + 1);
  }
  return 0;
}

}  // namespace

// Surfaces not told: the feet of the moves to the next 24 tracks, from `top` down.
void offset_scan(IoEngine& io, Budget& budget, const TrackSeekInput& in, const Track& tk, std::uint64_t top,
                 unsigned max_j, Rng& rng, TrackSeekResult& res) {
  res.at_lba = top;
  Scan sc = scan_offsets(io, budget, top, max_j, tk, rng);
  res.error = sc.err;
  DipFinding d = find_dip(sc.feet);
  if (!d.k_mode_ms) {
    res.withheld.push_back({key::access::track_to_track_ms, WithheldReason::t2t_scan_no_sawtooth});
    return;
  }
  std::uint64_t at = top;  // below what the scan read
  for (unsigned j = 1; j <= sc.feet.size(); ++j) at -= scan_tracks(j) * tk.spt;
  // The move to the next track, measured again at full resolution where the zone has room, else
  // the scan's own foot.
  auto next_track = [&] {
    SawtoothFoot f = sc.feet.front();
    const std::uint64_t low = in.first_lba + 2 * tk.spt;
    if (at > low + (kTuning.coarse + kTuning.fine + 4) * scan_step(1) * tk.spt) {
      FootRun a = find_foot(io, budget, {at, scan_step(1) * tk.spt, -static_cast<std::int64_t>(tk.spt)}, tk, kTuning.coarse,
                            kTuning.fine, rng);
      if (a.err) res.error = a.err;
      if (a.f.k_ms > 0) f = a.f;
    }
    return f;
  };
  if (const unsigned H = d.offset ? 0 : step_up(sc.feet)) {
    // The moves from H tracks on are the one-cylinder seek (with or without a head switch).
    std::vector<SawtoothFoot> b(sc.feet.begin() + H - 1, sc.feet.begin() + std::min<std::size_t>(sc.feet.size(), 2 * H - 1));
    std::sort(b.begin(), b.end(), [](const SawtoothFoot& x, const SawtoothFoot& y) { return x.k_ms < y.k_ms; });
    res.surfaces = H;
    res.surfaces_found = true;
    res.notes.push_back(fmt::format("track_to_track: surfaces not told by the stream; of track offsets 1..{} the first "
                                    "{} cost the same and the moves from {} tracks down cost more ({:.3f} vs {:.3f} ms): "
                                    "one cylinder on, {} surfaces", sc.feet.size(), H - 1, H, b[b.size() / 2].k_ms,
                                    sc.feet.front().k_ms, H));
    set_seek(res, b[b.size() / 2], in, tk);
    return;
  }
  if (rising_feet(sc.feet)) {
    // The move to the next track is the one-cylinder seek.
    const SawtoothFoot f = next_track();
    res.notes.push_back(fmt::format("track_to_track: surfaces not told; the moves 1..{} tracks down cost more the "
                                    "farther they go ({:.3f} to {:.3f} ms): each track is a cylinder on from the last "
                                    "(a surface-serpentine layout, or one surface), so the move to the next track is "
                                    "the one-cylinder seek", sc.feet.size(), sc.feet.front().k_ms, sc.feet.back().k_ms));
    set_seek(res, f, in, tk);
    return;
  }
  if (d.offset) {
    // The offset and a multiple of it both dip, each in its own sweep and place: the prediction
    // of a same-head move, replicated, and chance does not put two dips in that ratio. A lone dip
    // is measured again against its neighbour.
    const SawtoothFoot f = d.offset_dips && d.dips >= 2 ? same_head_sweep(io, budget, in, tk, at, d.offset, sc.feet[d.offset - 1], rng)
                                                        : confirm_dip(io, budget, in, tk, at, d.offset, d.dip_threshold_ms, rng);
    if (f.k_ms > 0) {
      res.surfaces = d.offset;
      res.surfaces_found = true;
      res.notes.push_back(fmt::format("track_to_track: surfaces not told by the stream; of track offsets 1..{} the "
                                      "move {} tracks down costs less than the rest ({:.3f} vs {:.3f} ms; {} offsets dip, "
                                      "all multiples of it): the same head one cylinder on, {} surfaces",
                                      sc.feet.size(), d.offset, f.k_ms, d.k_mode_ms, d.dips, d.offset));
      set_seek(res, f, in, tk);
      return;
    }
  }
  if (sc.feet.size() < 12) {
    res.withheld.push_back({key::access::track_to_track_ms, WithheldReason::t2t_scan_too_short,
                            {{"offsets", sc.feet.size()}}});
    return;
  }
  // Every offset costs the same: the move H tracks on (the one-cylinder seek on the same head)
  // dips below the head switches by no more than the scan could tell, nor rises above them. The
  // move to the next track is then the figure: a head switch in a cylinder layout (the same
  // cost), the one-cylinder seek in a serpentine band, where the feet rise with the offset but
  // too gently for the scan to tell (the median foot, taken here once, was the seek of ten
  // cylinders there: 15-19 % high).
  res.notes.push_back(fmt::format("track_to_track: surfaces not told; track offsets 1..{} all cost the same ({:.3f} ms): "
                                  "a move to the next cylinder costs what a head switch does", sc.feet.size(), d.k_mode_ms));
  SawtoothFoot f = next_track();
  f.half_width_ms += d.threshold_ms;
  set_seek(res, f, in, tk);
}

}  // namespace t2t

}  // namespace ds::measure
