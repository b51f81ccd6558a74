#include "sim/layout.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

namespace ds::sim {

namespace {

using u128 = unsigned __int128;

// x / d and x % d, by a 64-bit division whenever x fits 64 bits (it nearly always does: units of
// a zone times a rotation in ns); the 128-bit division is a library call several times slower,
// and the layout runs it on every command.
inline u128 divmod(u128 x, std::uint64_t d, std::uint64_t* r) {
  if (x >> 64 == 0) {
    const auto x64 = static_cast<std::uint64_t>(x);
    *r = x64 % d;
    return x64 / d;
  }
  *r = static_cast<std::uint64_t>(x % d);
  return x / d;
}

// Skew sectors just covering a switch of t ns on a track whose sector lasts sector_ns.
std::uint32_t cover(std::int64_t t, double sector_ns) {
  if (t <= 0) return 0;
  return static_cast<std::uint32_t>(std::ceil(static_cast<double>(t) / sector_ns - 1e-9));
}

// Stream units (sectors of the track led into) a switch really costs: the skew, plus whole
// revolutions while the switch is slower than the skew (the next track's first sector has then
// just gone by).
std::uint64_t effective(std::uint32_t skew, std::uint32_t spt, std::int64_t switch_ns, std::int64_t rot_ns) {
  std::uint64_t units = skew;
  // skew·rot/spt < switch  ⇔  skew·rot < switch·spt
  while (static_cast<u128>(units) * rot_ns < static_cast<u128>(switch_ns) * spt) units += spt;
  return units;
}

// The least common multiple of v, or 0 when it does not fit 64 bits.
std::uint64_t lcm_or_0(const std::vector<std::uint64_t>& v) {
  u128 l = 1;
  for (std::uint64_t x : v) {
    l = l / std::gcd(static_cast<std::uint64_t>(l), x) * x;
    if (l >> 64) return 0;
  }
  return static_cast<std::uint64_t>(l);
}

// The first k in [lo, hi] that is not done(k) (hi when every k < hi is), for a predicate true on
// a prefix and asked only below hi; galloping from an estimate, so that a good estimate costs one
// or two calls.
template <class Done>
std::uint64_t first_not(std::uint64_t lo, std::uint64_t hi, double est, Done done) {
  const auto lo_i = static_cast<std::int64_t>(lo), hi_i = static_cast<std::int64_t>(hi);
  if (!(est >= static_cast<double>(lo))) est = static_cast<double>(lo);
  if (est > static_cast<double>(hi)) est = static_cast<double>(hi);
  const auto k = static_cast<std::int64_t>(est);
  std::int64_t a = 0, b = 0;  // the answer lies in [a, b]
  if (k < hi_i && done(static_cast<std::uint64_t>(k))) {
    a = b = k + 1;
    for (std::int64_t step = 1; b < hi_i && done(static_cast<std::uint64_t>(b)); step *= 2) {
      a = b + 1;
      b = std::min(hi_i, b + step);
    }
  } else {
    b = k;
    std::int64_t p = k - 1;
    for (std::int64_t step = 1; p >= lo_i && !done(static_cast<std::uint64_t>(p)); step *= 2) {
      b = p;
      p -= step;
    }
    a = std::max(p + 1, lo_i);
  }
  while (a < b) {
    const std::int64_t mid = a + (b - a) / 2;
    if (done(static_cast<std::uint64_t>(mid))) a = mid + 1;
    else b = mid;
  }
  return static_cast<std::uint64_t>(a);
}

}  // namespace

// floor (or ceil) of Σ_c units(c)·rot/spt_c: exact through the classes' common multiple when it
// fits 64 bits, else to within a long double's rounding.
template <bool Ceil, class Units>
std::int64_t Layout::to_ns(const ZoneMap& z, Units units) const {
  if (z.cls_spt.size() == 1) {
    // One class (every /1 zone): floor (or ceil) of units·rot/spt, without the fraction's sum.
    const u128 x = static_cast<u128>(units(0)) * static_cast<std::uint64_t>(rot_ns_);
    std::uint64_t r = 0;
    const u128 q = x >> 64 == 0 ? z.spt0.div(static_cast<std::uint64_t>(x), &r) : divmod(x, z.cls_spt[0], &r);
    return static_cast<std::int64_t>(q) + (Ceil && r != 0 ? 1 : 0);
  }
  u128 q = 0, frac = 0;
  long double approx = 0;
  for (std::size_t c = 0; c < z.cls_spt.size(); ++c) {
    const u128 x = static_cast<u128>(units(c)) * static_cast<std::uint64_t>(rot_ns_);
    const std::uint64_t d = z.cls_spt[c];
    std::uint64_t r = 0;
    q += divmod(x, d, &r);
    if (z.lcm) frac += static_cast<u128>(r) * (z.lcm / d);
    else approx += static_cast<long double>(r) / static_cast<long double>(d);
  }
  bool rest = false;
  if (z.lcm) {
    std::uint64_t r = 0;
    q += divmod(frac, z.lcm, &r);
    rest = r != 0;
  } else {
    q += static_cast<u128>(std::floor(approx));
    rest = approx != std::floor(approx);
  }
  return static_cast<std::int64_t>(q) + (Ceil && rest ? 1 : 0);
}

std::uint32_t Layout::cyl_of(const Run& r, std::uint64_t band, std::uint32_t head, std::uint64_t track) {
  const std::uint64_t first = r.first_cyl + band * r.width;
  // Even surfaces go outward (from the band's innermost cylinder), odd ones inward; with one
  // cylinder per band this is the cylinder layout.
  return static_cast<std::uint32_t>(head % 2 == 0 ? first + r.width - 1 - track : first + track);
}

Expected<Layout::ZoneMap> Layout::map_zone(const DiskModel& m, std::size_t i, std::uint32_t first_cyl,
                                           std::int64_t head_switch_ns, std::int64_t seek1_worst_ns,
                                           ZoneGeometry& g) const {
  const Zone& mz = m.zones[i];
  const LayoutSpec& ls = m.layout_spec;
  ZoneMap z;
  g.first_cyl = first_cyl;
  g.cylinders = mz.cylinders;
  for (std::uint32_t h = 0; h < heads_; ++h) {
    SurfaceGeometry s;
    s.spt = mz.spt_per_surface.empty() ? mz.sectors_per_track : mz.spt_per_surface[h];
    const std::uint64_t spares = ls.spares_per_track + (h + 1 == heads_ ? ls.spares_per_cylinder : 0);
    if (s.spt == 0 || spares >= s.spt)
      return make_error("spares: leave no user sector on a track of zones[" + std::to_string(i) + "] (surface " +
                        std::to_string(h) + ": " + std::to_string(s.spt) + " sectors)");
    s.user = static_cast<std::uint32_t>(s.spt - spares);
    const double sector_ns = static_cast<double>(rot_ns_) / s.spt;
    s.track_skew = mz.track_skew_sectors ? *mz.track_skew_sectors
                   : m.track_skew_sectors ? *m.track_skew_sectors
                                          : cover(head_switch_ns, sector_ns);
    s.cylinder_skew = mz.cylinder_skew_sectors ? *mz.cylinder_skew_sectors
                      : m.cylinder_skew_sectors ? *m.cylinder_skew_sectors
                                                : cover(std::max(seek1_worst_ns, head_switch_ns), sector_ns);
    g.surface.push_back(s);
    z.user.emplace_back(s.user);
    auto it = std::find(z.cls_spt.begin(), z.cls_spt.end(), s.spt);
    z.cls.push_back(static_cast<std::uint32_t>(it - z.cls_spt.begin()));
    if (it == z.cls_spt.end()) z.cls_spt.push_back(s.spt);
  }
  z.lcm = lcm_or_0(z.cls_spt);
  z.spt0 = Divider(z.cls_spt[0]);
  g.spt = g.surface[0].spt;
  g.track_skew = g.surface[0].track_skew;
  g.cylinder_skew = g.surface[0].cylinder_skew;
  const bool serp = ls.kind == LayoutKind::surface_serpentine;
  const std::uint32_t width = serp ? std::min(std::max<std::uint32_t>(1, ls.band_cylinders), mz.cylinders) : 1;
  g.band_cylinders = width;
  auto add_run = [&](std::uint32_t cyl0, std::uint32_t w, std::uint64_t bands) {
    Run r;
    r.first_cyl = cyl0;
    r.width = w;
    r.bands = bands;
    r.first_user = z.users;
    r.first_phys = z.phys;
    r.upre.assign(heads_ + 1, 0);
    r.ppre.assign(heads_ + 1, 0);
    for (std::uint32_t h = 0; h < heads_; ++h) {
      r.upre[h + 1] = r.upre[h] + std::uint64_t{w} * g.surface[h].user;
      r.ppre[h + 1] = r.ppre[h] + std::uint64_t{w} * g.surface[h].spt;
    }
    r.user_per_band = r.upre[heads_];
    r.per_band = Divider(r.user_per_band);
    r.phys_per_band = r.ppre[heads_];
    // From a band's last track to the next band's first (a narrower band after it changes
    // out_move, set once the next run or zone is known).
    r.next_move = cyl_of(r, 1, 0, 0) - cyl_of(r, 0, heads_ - 1, w - 1);
    z.users += bands * r.user_per_band;
    z.phys += bands * r.phys_per_band;
    z.runs.push_back(std::move(r));
  };
  add_run(first_cyl, width, mz.cylinders / width);
  if (const std::uint32_t rest = mz.cylinders % width)
    add_run(first_cyl + mz.cylinders - rest, rest, 1);
  g.band_user_sectors = z.runs[0].user_per_band;
  return z;
}

Expected<Layout> Layout::build(const DiskModel& m, std::int64_t head_switch_ns, std::int64_t seek1_worst_ns) {
  Layout l;
  l.heads_ = m.surfaces;
  l.rot_ns_ = std::llround(60e9 / m.rpm);
  l.rot_div_ = Divider(static_cast<std::uint64_t>(l.rot_ns_));
  std::uint32_t cyl = 0;
  std::uint64_t users = 0, phys = 0;
  for (std::size_t i = 0; i < m.zones.size(); ++i) {
    ZoneGeometry g;
    auto z = l.map_zone(m, i, cyl, head_switch_ns, seek1_worst_ns, g);
    if (!z) return z.error();
    z->first_user = users;
    z->first_phys = phys;
    users += z->users;
    phys += z->phys;
    cyl += g.cylinders;
    l.zones_.push_back(std::move(g));
    l.zone_first_user_.push_back(z->first_user);
    l.zi_.push_back(std::move(*z));
  }
  l.build_zone_hint();
  // Moves between runs and zones: from a run's last track to the next one's first.
  for (std::size_t i = 0; i < l.zi_.size(); ++i) {
    auto& runs = l.zi_[i].runs;
    for (std::size_t k = 0; k < runs.size(); ++k) {
      const Run* next = k + 1 < runs.size() ? &runs[k + 1] : i + 1 < l.zi_.size() ? &l.zi_[i + 1].runs[0] : nullptr;
      if (next) runs[k].out_move = cyl_of(*next, 0, 0, 0) - cyl_of(runs[k], runs[k].bands - 1, l.heads_ - 1, runs[k].width - 1);
    }
  }
  l.first_offset_ = m.layout_spec.first_sector_offset;
  std::vector<std::uint64_t> slipped = m.layout_spec.slipped;
  if (auto e = l.map_track_sparing(m, &slipped)) return *e;
  if (auto e = l.map_slipped(slipped, phys)) return *e;
  const std::uint64_t total = users - l.slipped_.size();
  l.capacity_ = m.capacity_sectors ? std::min(*m.capacity_sectors, total) : total;
  if (l.capacity_ == 0) return make_error("zones: hold no sectors");
  // LBA ranges; zones wholly beyond the capacity are dropped.
  std::size_t kept = 0;
  for (std::size_t i = 0; i < l.zones_.size(); ++i) {
    ZoneGeometry& g = l.zones_[i];
    g.first_lba = l.lba_of_user(l.zi_[i].first_user);
    if (i > 0 && g.first_lba >= l.capacity_) break;
    g.end_lba = std::min(l.lba_of_user(l.zi_[i].first_user + l.zi_[i].users), l.capacity_);
    if (g.end_lba == l.capacity_) {  // cylinders up to the band holding the last LBA
      const Pos p = l.pos_of_user(l.user_of_lba(l.capacity_ - 1));
      const Run& r = l.zi_[i].runs[p.run];
      if (p.zone == i) g.cylinders = static_cast<std::uint32_t>(r.first_cyl + (p.band + 1) * r.width - g.first_cyl);
    }
    kept = i + 1;
  }
  l.zones_.resize(kept);
  l.zi_.resize(kept);
  l.zone_first_user_.resize(kept);
  l.cylinders_ = l.zones_.back().first_cyl + l.zones_.back().cylinders;
  l.build_zone_hint();  // for the zones kept
  // Skips beyond the capacity lead to no LBA.
  while (!l.skip_user_.empty() && l.lba_of_user(l.skip_user_.back()) >= l.capacity_) l.skip_user_.pop_back();
  l.set_switch_times(head_switch_ns, std::max(seek1_worst_ns, head_switch_ns));
  return l;
}

std::optional<Error> Layout::map_slipped(const std::vector<std::uint64_t>& slipped, std::uint64_t phys) {
  slipped_.clear();
  for (std::size_t k = 0; k < slipped.size(); ++k) {
    const std::string field = "slipped[" + std::to_string(k) + "]";
    const std::uint64_t p = slipped[k];
    if (p >= phys) return make_error(field + ": beyond the zones' physical sectors (" + std::to_string(phys) + ")");
    auto zit = std::upper_bound(zi_.begin(), zi_.end(), p, [](std::uint64_t x, const ZoneMap& z) { return x < z.first_phys; }) - 1;
    const std::uint64_t rel = p - zit->first_phys;
    std::size_t ri = 0;
    while (ri + 1 < zit->runs.size() && zit->runs[ri + 1].first_phys <= rel) ++ri;
    const Run& r = zit->runs[ri];
    const std::uint64_t band = (rel - r.first_phys) / r.phys_per_band;
    const std::uint64_t x = (rel - r.first_phys) % r.phys_per_band;
    std::uint32_t h = 0;
    while (h + 1 < heads_ && r.ppre[h + 1] <= x) ++h;
    const SurfaceGeometry& s = zones_[static_cast<std::size_t>(zit - zi_.begin())].surface[h];
    const std::uint64_t track = (x - r.ppre[h]) / s.spt, sector = (x - r.ppre[h]) % s.spt;
    if (sector >= s.user) return make_error(field + ": physical sector " + std::to_string(p) + " is a spare");
    slipped_.push_back(zit->first_user + r.first_user + band * r.user_per_band + r.upre[h] + track * s.user + sector);
  }
  std::vector<std::size_t> order(slipped_.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return slipped_[a] < slipped_[b]; });
  for (std::size_t k = 1; k < order.size(); ++k)
    if (slipped_[order[k]] == slipped_[order[k - 1]])
      return make_error("slipped[" + std::to_string(std::max(order[k], order[k - 1])) + "]: listed twice");
  std::sort(slipped_.begin(), slipped_.end());
  slip_key_.resize(slipped_.size());
  for (std::size_t k = 0; k < slipped_.size(); ++k) slip_key_[k] = slipped_[k] - k;
  return std::nullopt;
}

std::optional<Error> Layout::map_track_sparing(const DiskModel& m, std::vector<std::uint64_t>* slipped) {
  skip_user_.clear();
  const LayoutSpec& ls = m.layout_spec;
  if (ls.track_sparing.empty()) return std::nullopt;
  bool after_unused = false;  // the track before the current one holds no LBA
  for (std::size_t i = 0; i < zi_.size(); ++i) {
    const auto& ts = i < ls.track_sparing.size() ? ls.track_sparing[i] : std::nullopt;
    if (!ts) {
      after_unused = false;
      continue;
    }
    const std::string field = "zones[" + std::to_string(i) + "].track_sparing";
    const ZoneMap& z = zi_[i];
    if (z.cls_spt.size() != 1 || ls.kind != LayoutKind::cylinder || zones_[i].surface[0].user != zones_[i].surface[0].spt)
      return make_error(field + ": only with the cylinder layout, one sectors_per_track and no spares");
    const std::uint64_t spt = z.cls_spt[0], tracks = z.phys / spt;
    if (ts->front_sectors + std::uint64_t{ts->spare_tracks} * spt >= z.phys)
      return make_error(field + ": leaves the zone no sector");
    std::uint64_t left = z.phys - ts->front_sectors - std::uint64_t{ts->spare_tracks} * spt;
    std::uint64_t from = ts->front_sectors;  // within the zone: the next sector that may hold an LBA
    std::size_t slip = 0;
    for (std::uint64_t p = 0; p < from; ++p) slipped->push_back(z.first_phys + p);
    after_unused = after_unused || from >= spt;
    for (std::uint64_t t = from / spt; t < tracks; ++t) {
      const std::uint64_t a = std::max(from, t * spt), b = (t + 1) * spt;
      while (slip < ts->slipped_tracks.size() && ts->slipped_tracks[slip] < t) ++slip;
      const bool unused = left == 0 || (slip < ts->slipped_tracks.size() && ts->slipped_tracks[slip] == t);
      const std::uint64_t used = unused ? 0 : std::min(left, b - a);
      if (used && after_unused && a == t * spt) skip_user_.push_back(z.first_user + a);
      for (std::uint64_t p = a + used; p < b; ++p) slipped->push_back(z.first_phys + p);
      left -= used;
      after_unused = used == 0;
    }
  }
  return std::nullopt;
}

// A transfer that reaches an unused track moves straight on to the next track holding LBAs (the
// head switch, or the seek to its cylinder), as DiskSim's head does (it positions for each track
// of a transfer in turn, at its LBNs' physical place: disksim_diskctlr.c, disk_buffer_sector_done
// and disk_buffer_seekdone). The
// stream, which passes every physical track, saves the whole revolutions it would spend on the
// unused tracks beyond that move; the angle of every sector stays that of its physical track.
void Layout::time_skips(std::int64_t head_switch_ns, const std::function<std::int64_t(std::uint32_t)>& move) {
  skip_saved_.assign(skip_user_.size(), 0);
  skip_at_ns_.assign(skip_user_.size(), 0);
  std::int64_t saved = 0;
  for (std::size_t k = 0; k < skip_user_.size(); ++k) {
    const std::uint64_t u = skip_user_[k], lba = lba_of_user(u);
    if (lba > 0) {
      const std::uint64_t u_prev = user_of_lba(lba - 1);
      const Pos a = pos_of_user(u_prev), b = pos_of_user(u);
      const std::int64_t end = zones_[a.zone].s0_ns + rel_ns(zi_[a.zone], a) + std::llround(sector_ns(a.zone, a.head));
      const std::int64_t next = zones_[b.zone].s0_ns + rel_ns(zi_[b.zone], b);
      const Chs ca = chs_of(a), cb = chs_of(b);
      const std::int64_t need = ca.cyl == cb.cyl ? head_switch_ns : move(cb.cyl > ca.cyl ? cb.cyl - ca.cyl : ca.cyl - cb.cyl);
      if (next - end > need) saved += (next - end - need) / rot_ns_ * rot_ns_;
      skip_at_ns_[k] = next - saved;
    } else {
      const Pos b = pos_of_user(u);
      skip_at_ns_[k] = zones_[b.zone].s0_ns + rel_ns(zi_[b.zone], b) - saved;
    }
    skip_saved_[k] = saved;
  }
}

std::int64_t Layout::offset_start_ns(std::size_t i, std::int64_t end, std::int64_t move) const {
  const std::uint64_t spt = zones_[i].surface[0].spt;
  const auto angle = static_cast<std::int64_t>(static_cast<u128>(*first_offset_[i]) * static_cast<std::uint64_t>(rot_ns_) / spt);
  std::int64_t lead = ((angle - end) % rot_ns_ + rot_ns_) % rot_ns_;
  while (lead < move) lead += rot_ns_;
  return end + lead;
}

std::int64_t Layout::skipped_before(std::uint64_t u) const {
  if (skip_user_.empty()) return 0;
  const auto k = std::upper_bound(skip_user_.begin(), skip_user_.end(), u) - skip_user_.begin();
  return k == 0 ? 0 : skip_saved_[static_cast<std::size_t>(k - 1)];
}

void Layout::set_switch_times(std::int64_t head_switch_ns, std::int64_t cylinder_switch_ns,
                              const std::function<std::int64_t(std::uint32_t)>& move_ns) {
  auto move = [&](std::uint32_t d) { return d <= 1 || !move_ns ? cylinder_switch_ns : move_ns(d); };
  for (std::size_t i = 0; i < zones_.size(); ++i) {
    time_zone(i, head_switch_ns, cylinder_switch_ns, move);
    const bool offset = i < first_offset_.size() && first_offset_[i];
    if (i == 0) {
      zones_[i].s0_ns = offset ? offset_start_ns(i, 0, 0) : 0;
      continue;
    }
    // From the end of the previous zone's last sector, a move into this zone's first track.
    const ZoneMap& p = zi_[i - 1];
    const Run& last = p.runs.back();
    const std::int64_t end = zones_[i - 1].s0_ns + floor_ns(p, [&](std::size_t c) {
      return last.start[c] + (last.bands - 1) * last.band[c] + last.fill[c];
    });
    if (offset) {
      zones_[i].s0_ns = offset_start_ns(i, end, move(last.out_move));
      continue;
    }
    const ZoneMap& z = zi_[i];
    const SurfaceGeometry& s0 = zones_[i].surface[0];
    const std::uint64_t lead = effective(s0.cylinder_skew, s0.spt, move(last.out_move), rot_ns_);
    zones_[i].s0_ns = end + floor_ns(z, [&](std::size_t c) { return c == z.cls[0] ? lead : 0; });
  }
  if (!skip_user_.empty()) time_skips(head_switch_ns, move);
}

void Layout::time_zone(std::size_t zi, std::int64_t head_switch_ns, std::int64_t cylinder_switch_ns,
                       const std::function<std::int64_t(std::uint32_t)>& move) {
  ZoneMap& z = zi_[zi];
  ZoneGeometry& g = zones_[zi];
  const std::size_t nc = z.cls_spt.size();
  std::vector<std::uint64_t> teff(heads_);
  z.step.assign(heads_, 0);
  z.steps.assign(heads_, Divider());
  for (std::uint32_t h = 0; h < heads_; ++h) {
    const SurfaceGeometry& s = g.surface[h];
    teff[h] = effective(s.track_skew, s.spt, head_switch_ns, rot_ns_);
    z.step[h] = s.spt + effective(s.cylinder_skew, s.spt, cylinder_switch_ns, rot_ns_);
    z.steps[h] = Divider(z.step[h]);
  }
  auto ns_of = [&](const std::vector<std::uint64_t>& v) {
    double ns = 0;
    for (std::size_t c = 0; c < nc; ++c) ns += static_cast<double>(v[c]) * static_cast<double>(rot_ns_) / z.cls_spt[c];
    return ns;
  };
  const SurfaceGeometry& s0 = g.surface[0];
  for (std::size_t k = 0; k < z.runs.size(); ++k) {
    Run& r = z.runs[k];
    std::vector<std::uint64_t> acc(nc, 0);
    r.pre.assign(std::size_t{heads_} * nc, 0);
    for (std::uint32_t h = 0; h < heads_; ++h) {
      if (h > 0) acc[z.cls[h]] += teff[h];
      std::copy(acc.begin(), acc.end(), r.pre.begin() + static_cast<std::ptrdiff_t>(h * nc));
      acc[z.cls[h]] += (r.width - 1) * z.step[h] + g.surface[h].spt;
    }
    r.fill = acc;
    r.band = acc;
    r.band[z.cls[0]] += effective(s0.cylinder_skew, s0.spt, move(r.next_move), rot_ns_);
    if (k == 0) {
      r.start.assign(nc, 0);
    } else {
      const Run& p = z.runs[k - 1];
      r.start = p.start;
      for (std::size_t c = 0; c < nc; ++c) r.start[c] += (p.bands - 1) * p.band[c] + p.fill[c];
      r.start[z.cls[0]] += effective(s0.cylinder_skew, s0.spt, move(p.out_move), rot_ns_);
    }
    r.band_ns = ns_of(r.band);
    r.band_units = Divider(r.band[0]);
    r.start_ns = ns_of(r.start);
  }
  g.band_ns = z.runs[0].band_ns;
  const bool plain = nc == 1 && z.runs[0].width == 1;
  g.track_units = plain ? s0.spt + teff[0] : 0;
  g.cylinder_units = plain ? z.runs[0].band[0] : 0;
}

std::uint32_t Layout::zone_of(std::uint64_t lba) const {
  auto it = std::upper_bound(zones_.begin(), zones_.end(), lba,
                             [](std::uint64_t x, const ZoneGeometry& g) { return x < g.first_lba; });
  return static_cast<std::uint32_t>((it - zones_.begin()) - 1);
}

std::uint64_t Layout::user_of_lba(std::uint64_t lba) const {
  return lba + static_cast<std::uint64_t>(std::upper_bound(slip_key_.begin(), slip_key_.end(), lba) - slip_key_.begin());
}

std::uint64_t Layout::lba_of_user(std::uint64_t u) const {
  return u - static_cast<std::uint64_t>(std::lower_bound(slipped_.begin(), slipped_.end(), u) - slipped_.begin());
}

void Layout::build_zone_hint() {
  // Buckets of non-spare indexes no wider than the narrowest zone, about four per zone.
  const std::uint64_t all = zi_.back().first_user + zi_.back().users;
  std::uint64_t narrowest = all;
  for (const ZoneMap& z : zi_) narrowest = std::min(narrowest, std::max<std::uint64_t>(1, z.users));
  hint_shift_ = 0;
  while ((std::uint64_t{2} << hint_shift_) <= narrowest && (all >> hint_shift_) > 4 * zi_.size()) ++hint_shift_;
  zone_hint_.assign((all >> hint_shift_) + 1, 0);
  for (std::size_t b = 0, zi = 0; b < zone_hint_.size(); ++b) {
    while (zi + 1 < zi_.size() && zone_first_user_[zi + 1] <= (std::uint64_t{b} << hint_shift_)) ++zi;
    zone_hint_[b] = static_cast<std::uint32_t>(zi);
  }
}

std::uint32_t Layout::zone_of_user(std::uint64_t u) const {
  const std::size_t b = std::min<std::size_t>(u >> hint_shift_, zone_hint_.size() - 1);
  std::uint32_t z = zone_hint_[b];
  // (over a flat copy of the zones' first_user: the ZoneMaps are large and far apart)
  while (z + 1 < zone_first_user_.size() && zone_first_user_[z + 1] <= u) ++z;
  return z;
}

Layout::Pos Layout::pos_of_user(std::uint64_t u) const {
  Pos p;
  p.zone = zone_of_user(u);
  const auto zit = zi_.begin() + p.zone;
  const std::uint64_t rel = u - zit->first_user;
  while (p.run + 1 < zit->runs.size() && zit->runs[p.run + 1].first_user <= rel) ++p.run;
  const Run& r = zit->runs[p.run];
  std::uint64_t x = 0;
  p.band = r.per_band.div(rel - r.first_user, &x);
  // The surfaces of a band hold about equal shares, so x·heads/per-band lands on or next to the
  // surface; the two walks then make it the last one starting at or before x, as a walk from 0.
  std::uint64_t unused = 0;
  p.head = static_cast<std::uint32_t>(r.per_band.div(x * heads_, &unused));
  if (p.head >= heads_) p.head = heads_ - 1;
  while (p.head > 0 && r.upre[p.head] > x) --p.head;
  while (p.head + 1 < heads_ && r.upre[p.head + 1] <= x) ++p.head;
  p.track = zit->user[p.head].div(x - r.upre[p.head], &p.sector);
  return p;
}

std::int64_t Layout::rel_ns(const ZoneMap& z, const Pos& p, std::uint64_t extra) const {
  const Run& r = z.runs[p.run];
  const std::size_t nc = z.cls_spt.size();
  const std::uint32_t ch = z.cls[p.head];
  const std::uint64_t in_pass = p.track * z.step[p.head] + p.sector + extra;
  return floor_ns(z, [&](std::size_t c) {
    return r.start[c] + p.band * r.band[c] + r.pre[p.head * nc + c] + (c == ch ? in_pass : 0);
  });
}

Chs Layout::chs_of(const Pos& p) const {
  Chs c;
  c.zone = p.zone;
  c.head = p.head;
  c.sector = static_cast<std::uint32_t>(p.sector);
  c.cyl = cyl_of(zi_[p.zone].runs[p.run], p.band, p.head, p.track);
  return c;
}

Chs Layout::locate(std::uint64_t lba) const {
  if (lba >= capacity_) lba = capacity_ - 1;
  return chs_of(pos_of_user(user_of_lba(lba)));
}

Chs Layout::locate(std::uint64_t lba, std::int64_t* s) const {
  if (lba >= capacity_) {
    *s = stream_ns(lba);
    return locate(lba);
  }
  const std::uint64_t u = user_of_lba(lba);
  const Pos p = pos_of_user(u);  // once for both
  *s = zones_[p.zone].s0_ns + rel_ns(zi_[p.zone], p) - skipped_before(u);
  return chs_of(p);
}

void Layout::track_lbas(std::uint64_t u, const Pos& p, std::uint64_t* track_first, std::uint64_t* track_end) const {
  const std::uint64_t first = u - p.sector;  // the track's first non-spare index
  *track_first = lba_of_user(first);
  *track_end = std::min(lba_of_user(first + zones_[p.zone].surface[p.head].user), capacity_);
}

Chs Layout::locate(std::uint64_t lba, std::uint64_t* track_first, std::uint64_t* track_end) const {
  if (lba >= capacity_) lba = capacity_ - 1;
  const std::uint64_t u = user_of_lba(lba);
  const Pos p = pos_of_user(u);
  track_lbas(u, p, track_first, track_end);
  return chs_of(p);
}

std::int64_t Layout::end_ns(std::uint64_t end, Chs* last, std::uint64_t* track_first, std::uint64_t* track_end) const {
  const std::uint64_t u = user_of_lba(end - 1);
  Pos p = pos_of_user(u);
  *last = chs_of(p);
  const std::uint64_t first = u - p.sector;
  if (track_first) track_lbas(u, p, track_first, track_end);
  if (end < capacity_) {
    // `end` on the same track: its non-spare index among the track's (they are consecutive).
    const std::uint64_t u_end = user_of_lba(end);
    if (u_end - first < zones_[p.zone].surface[p.head].user) {
      p.sector = u_end - first;
      return zones_[p.zone].s0_ns + rel_ns(zi_[p.zone], p) - skipped_before(u);
    }
  }
  return zones_[p.zone].s0_ns + rel_ns(zi_[p.zone], p) + std::llround(sector_ns(p.zone, p.head)) - skipped_before(u);
}

std::uint64_t Layout::physical_of(std::uint64_t lba) const {
  const Pos p = pos_of_user(user_of_lba(std::min(lba, capacity_ - 1)));
  const ZoneMap& z = zi_[p.zone];
  const Run& r = z.runs[p.run];
  return z.first_phys + r.first_phys + p.band * r.phys_per_band + r.ppre[p.head] +
         p.track * zones_[p.zone].surface[p.head].spt + p.sector;
}

std::int64_t Layout::stream_ns(std::uint64_t lba) const {
  if (lba >= capacity_) {
    const std::uint64_t u = user_of_lba(capacity_ - 1);
    const Pos p = pos_of_user(u);
    return zones_[p.zone].s0_ns + rel_ns(zi_[p.zone], p, 1) - skipped_before(u);
  }
  const std::uint64_t u = user_of_lba(lba);
  const Pos p = pos_of_user(u);
  return zones_[p.zone].s0_ns + rel_ns(zi_[p.zone], p) - skipped_before(u);
}

std::uint64_t Layout::lba_at_stream_ns(std::int64_t s, bool closed_form) const {
  if (s <= 0) return 0;
  if (!skip_at_ns_.empty()) {
    // Back to the stream that passes the unused tracks: add what was saved before s.
    const auto k = std::upper_bound(skip_at_ns_.begin(), skip_at_ns_.end(), s) - skip_at_ns_.begin();
    if (k > 0) s += skip_saved_[static_cast<std::size_t>(k - 1)];
  }
  auto it = std::upper_bound(zones_.begin(), zones_.end(), s,
                             [](std::int64_t x, const ZoneGeometry& g) { return x < g.s0_ns; });
  const auto zi = static_cast<std::uint32_t>((it - zones_.begin()) - 1);
  return std::min(lba_of_user(user_at(zi, s - zones_[zi].s0_ns, closed_form)), capacity_);
}

// With one sectors-per-track value in the zone every stream time is a whole number of units of
// rot/spt ns, and "u units have passed by rel" (ceil(u·rot/spt) <= rel) is u <= floor(rel·spt/rot):
// each of user_at's searches (the first band, surface, track and sector not over by rel) is then
// a division or a short loop over the surfaces, with the same answers.
std::uint64_t Layout::user_at_one_class(const ZoneMap& z, const ZoneGeometry& g, const Run& r,
                                        std::int64_t rel) const {
  std::uint64_t rest = 0;
  const u128 x = static_cast<u128>(rel) * z.cls_spt[0];
  const auto m = static_cast<std::uint64_t>(x >> 64 == 0 ? rot_div_.div(static_cast<std::uint64_t>(x), &rest)
                                                          : divmod(x, static_cast<std::uint64_t>(rot_ns_), &rest));
  // The first k in [0, hi] with base + k·step > m (hi when every k below hi has base + k·step <= m).
  auto first_past = [m](std::uint64_t base, const Divider& step, std::uint64_t hi) -> std::uint64_t {
    if (base > m) return 0;
    std::uint64_t r = 0;
    return std::min(hi, step.div(m - base, &r) + 1);
  };
  const std::uint64_t b = first_past(r.start[0] + r.fill[0], r.band_units, r.bands);
  if (b == r.bands) return z.first_user + r.first_user + r.bands * r.user_per_band;
  const std::uint64_t band0 = r.start[0] + b * r.band[0];
  std::uint32_t h = 0;  // the first surface whose pass is not over (the last one if all others are)
  while (h + 1 < heads_ && band0 + r.pre[h] + (r.width - 1) * z.step[h] + g.surface[h].spt <= m) ++h;
  const SurfaceGeometry& s = g.surface[h];
  const std::uint64_t pass0 = band0 + r.pre[h];
  const std::uint64_t t = first_past(pass0 + s.spt, z.steps[h], r.width - 1);
  const std::uint64_t j = first_past(pass0 + t * z.step[h] + 1, Divider(1), s.spt - 1);
  const std::uint64_t track_user = z.first_user + r.first_user + b * r.user_per_band + r.upre[h] + t * s.user;
  return track_user + std::min<std::uint64_t>(j, s.user);
}

// The first non-spare sector of zone zi whose end (floor, ns from the zone's s0) is after rel:
// the band, then the surface's pass, the track and the sector, each the first that ends after rel.
std::uint64_t Layout::user_at(std::uint32_t zi, std::int64_t rel, bool closed_form) const {
  const ZoneMap& z = zi_[zi];
  const ZoneGeometry& g = zones_[zi];
  const std::size_t nc = z.cls_spt.size();
  std::size_t ri = z.runs.size() - 1;
  while (ri > 0 && floor_ns(z, [&](std::size_t c) { return z.runs[ri].start[c]; }) > rel) --ri;
  const Run& r = z.runs[ri];
  if (nc == 1 && closed_form) return user_at_one_class(z, g, r, rel);
  const double relf = static_cast<double>(rel);
  // Stream units to the start of (band b, surface h, track t) + `units` more on that surface.
  auto at = [&](std::uint64_t b, std::uint32_t h, std::uint64_t units) {
    return ceil_ns(z, [&](std::size_t c) {
      return r.start[c] + b * r.band[c] + r.pre[h * nc + c] + (c == z.cls[h] ? units : 0);
    });
  };
  const std::uint64_t b = first_not(0, r.bands, (relf - r.start_ns) / r.band_ns, [&](std::uint64_t k) {
    return ceil_ns(z, [&](std::size_t c) { return r.start[c] + k * r.band[c] + r.fill[c]; }) <= rel;
  });
  if (b == r.bands) return z.first_user + r.first_user + r.bands * r.user_per_band;
  // The surface: the first whose pass ends after rel (passes follow each other in surface order),
  // searched from where rel lies in the band rather than surface by surface.
  const double in_band = (relf - r.start_ns - static_cast<double>(b) * r.band_ns) / r.band_ns;
  const auto h = static_cast<std::uint32_t>(first_not(0, heads_ - 1, in_band * heads_, [&](std::uint64_t k) {
    const auto hk = static_cast<std::uint32_t>(k);
    return at(b, hk, (r.width - 1) * z.step[hk] + g.surface[hk].spt) <= rel;
  }));
  const SurfaceGeometry& s = g.surface[h];
  const double unit_ns = static_cast<double>(rot_ns_) / s.spt;
  const std::int64_t pass0 = at(b, h, 0);
  const std::uint64_t t = first_not(0, r.width - 1, static_cast<double>(rel - pass0) / (unit_ns * static_cast<double>(z.step[h])),
                                    [&](std::uint64_t k) { return at(b, h, k * z.step[h] + s.spt) <= rel; });
  const std::int64_t track0 = at(b, h, t * z.step[h]);
  const std::uint64_t j = first_not(0, s.spt - 1, static_cast<double>(rel - track0) / unit_ns,
                                    [&](std::uint64_t k) { return at(b, h, t * z.step[h] + k + 1) <= rel; });
  const std::uint64_t track_user = z.first_user + r.first_user + b * r.user_per_band + r.upre[h] + t * s.user;
  return track_user + std::min<std::uint64_t>(j, s.user);
}

}  // namespace ds::sim
