// Zoned layout: LBA → (cylinder, head, sector), and where each sector sits in angle and time.
//
// Zones from the outside in; within a zone the tracks are read in *fill order*: with the
// "cylinder" layout a track, then the next surface of the same cylinder, then the next cylinder
// (DiskSim's "diskmodel" layout, kept apart from the mechanics as there); with
// "surface_serpentine" (format /2) a zone is cut into bands of band_cylinders cylinders (the last
// band of a zone may be narrower: bands never cross a zone boundary), and within a band surface 0
// is filled across the band outward (innermost cylinder of the band to outermost), surface 1
// inward, and so on. Surfaces may hold different numbers of sectors per track (adaptive
// formatting). A track starts `track_skew` sectors (of that track) after the previous track ends
// when the head changes, `cylinder_skew` when the cylinder changes, so that a streaming read loses
// only the skew.
//
// Physical sectors are numbered in fill order over every track of every zone, from 0. The last
// `spares.per_track` sectors of every track and `spares.per_cylinder` more on the last surface's
// track of every cylinder are spares (no LBA); a slipped physical sector gets no LBA either. LBAs
// go, in order, to the other physical sectors.
//
// The key quantity is the *stream time* S(lba) in ns: when a read streaming from LBA 0 without a
// break would reach the start of that sector, passing every physical sector (spares and slipped
// ones included) in one sector time each. Because a streaming head follows the platter, the
// sector's angle is S(lba) mod rotation: sector `lba` is under the head at every virtual time t
// with t ≡ S(lba) (mod rotation_ns). When a switch takes longer than its skew, the stream loses
// whole revolutions there; these are added to S without changing any angle.
//
// Exactness: within a zone, times are sums of whole sector times of each surface's track; S is
// their floor in ns, exact (integer arithmetic) whenever the zone's distinct sectors-per-track
// values have a least common multiple below 2^64, which always holds for a /1 model.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "drivescope/expected.hpp"
#include "sim/model.hpp"

namespace ds::sim {

struct Chs {
  std::uint32_t cyl = 0;   // 0 = outermost
  std::uint32_t head = 0;
  std::uint32_t sector = 0;  // physical sector of the track, 0 = the track's first
  std::uint32_t zone = 0;
};

struct SurfaceGeometry {
  std::uint32_t spt = 0;            // physical sectors per track
  std::uint32_t user = 0;           // of which hold LBAs (spares excluded)
  std::uint32_t track_skew = 0;     // sectors of this track, before it after a head change
  std::uint32_t cylinder_skew = 0;  // the same after a cylinder change
};

struct ZoneGeometry {
  std::uint64_t first_lba = 0;
  std::uint64_t end_lba = 0;  // exclusive, cut to the capacity
  std::uint32_t first_cyl = 0;
  std::uint32_t cylinders = 0;  // holding user data (the capacity cut drops the rest)
  std::vector<SurfaceGeometry> surface;  // one per surface
  std::uint32_t spt = 0;                 // surface 0's (every surface's in a /1 model)
  std::uint32_t track_skew = 0;          // surface 0's, as formatted (given or derived)
  std::uint32_t cylinder_skew = 0;
  std::uint32_t band_cylinders = 1;  // cylinders per band; 1 for the cylinder layout
  // Sequential truth: user sectors of one (full) band — a cylinder for the cylinder layout — and
  // the ns a streaming head needs for it, switches into the next band included.
  std::uint64_t band_user_sectors = 0;
  double band_ns = 0;
  // Only for a zone with one sectors-per-track value in the cylinder layout (else 0): stream
  // units (sector times) from one track start / cylinder start to the next, whole revolutions
  // lost to a switch slower than its skew included.
  std::uint64_t track_units = 0;
  std::uint64_t cylinder_units = 0;
  std::int64_t s0_ns = 0;  // S of the zone's first physical sector
};

// x / d and x % d for a divisor fixed when the layout is built, by a multiplication instead of
// a division instruction (which costs tens of cycles, several times per access): the quotient
// from the reciprocal m = floor(2^64 / d) is x / d or one less for any 64-bit x, and one
// correction makes it exact.
class Divider {
 public:
  Divider() = default;
  explicit Divider(std::uint64_t d)
      : d_(d), m_(d > 1 ? static_cast<std::uint64_t>((static_cast<unsigned __int128>(1) << 64) / d) : 0) {}
  std::uint64_t divisor() const { return d_; }
  std::uint64_t div(std::uint64_t x, std::uint64_t* rest) const {
    if (d_ <= 1) {
      *rest = 0;
      return x;
    }
    auto q = static_cast<std::uint64_t>((static_cast<unsigned __int128>(x) * m_) >> 64);
    std::uint64_t r = x - q * d_;
    if (r >= d_) {
      ++q;
      r -= d_;
    }
    *rest = r;
    return q;
  }

 private:
  std::uint64_t d_ = 1, m_ = 0;
};

class Layout {
 public:
  // seek1_worst_ns: the slowest 1-cylinder seek the drive may do (quietest AAM level, jitter),
  // used to derive skews the model leaves open ("just enough to cover the switch"). Errors name
  // the model field (a slipped sector that is a spare, ...).
  static Expected<Layout> build(const DiskModel& m, std::int64_t head_switch_ns,
                                std::int64_t seek1_worst_ns);
  // Recompute the stream timing for the current switch times (AAM changes the seek).
  // move_ns(d): the time to move d ≥ 1 cylinders (and maybe heads) between the end of one
  // serpentine band and the start of the next; empty: cylinder_switch_ns for any d.
  void set_switch_times(std::int64_t head_switch_ns, std::int64_t cylinder_switch_ns,
                        const std::function<std::int64_t(std::uint32_t)>& move_ns = {});

  std::uint64_t capacity() const { return capacity_; }
  std::uint32_t surfaces() const { return heads_; }
  std::uint32_t cylinders() const { return cylinders_; }
  std::int64_t rotation_ns() const { return rot_ns_; }
  const std::vector<ZoneGeometry>& zones() const { return zones_; }

  std::uint32_t zone_of(std::uint64_t lba) const;
  Chs locate(std::uint64_t lba) const;
  // locate(lba), and stream_ns(lba) into *s: the two at the cost of one.
  Chs locate(std::uint64_t lba, std::int64_t* s) const;
  // locate(lba), and the LBAs of its track, [*track_first, *track_end) (a track's LBAs are
  // consecutive: spares and slipped sectors hold none).
  Chs locate(std::uint64_t lba, std::uint64_t* track_first, std::uint64_t* track_end) const;
  // When a head reading on without a break has passed the sector before `end` (1 <= end <=
  // capacity): S(end) when `end` is on the same track, else S(end − 1) plus that sector's time,
  // rounded (a read ending with its track does not wait for the skew, nor a revolution lost to
  // the switch). *last: where the sector before `end` lies.
  // track_first, track_end (when given): the LBA bounds of that sector's track, as locate's.
  std::int64_t end_ns(std::uint64_t end, Chs* last, std::uint64_t* track_first = nullptr,
                      std::uint64_t* track_end = nullptr) const;
  // S(lba) (see above); lba may equal capacity (the end of the last sector).
  std::int64_t stream_ns(std::uint64_t lba) const;
  // The LBA a streaming head is over (or about to read) at stream time s: the first LBA whose
  // sector's exact end is after s (over a gap, spares or a slipped sector: the next LBA). So
  // lba_at_stream_ns(stream_ns(l) + 1) == l, and lba_at_stream_ns(stream_ns(l)) == l unless the
  // exact start of l lies inside the ns stream_ns rounds it down to (then l − 1 is still being
  // read: the same rule as the /1 code, kept for bit-identical /1 timing).
  // closed_form = false: by the general search even where a zone allows the closed form (for
  // tests, which check that both agree).
  std::uint64_t lba_at_stream_ns(std::int64_t s, bool closed_form = true) const;
  // Media time of one sector in zone z, on surface 0 / on a given surface.
  double sector_ns(std::uint32_t z) const { return sector_ns(z, 0); }
  double sector_ns(std::uint32_t z, std::uint32_t head) const {
    return static_cast<double>(rot_ns_) / zones_[z].surface[head].spt;
  }
  // The physical sector number (fill order, see above) of an LBA.
  std::uint64_t physical_of(std::uint64_t lba) const;

 private:
  // A run of equal bands within a zone (a zone is one run, plus one for a narrower last band).
  struct Run {
    std::uint32_t first_cyl = 0;   // absolute
    std::uint32_t width = 1;       // cylinders per band
    std::uint64_t bands = 0;
    std::uint64_t first_user = 0;  // non-spare index, from the zone's first
    std::uint64_t first_phys = 0;  // physical index, from the zone's first
    std::uint64_t user_per_band = 0, phys_per_band = 0;
    std::vector<std::uint64_t> upre, ppre;  // per surface: user / physical sectors before it in a band
    std::uint32_t next_move = 1;            // cylinders from a band's last track to the next band's first
    std::uint32_t out_move = 1;             // ... to the next run's (or zone's) first track
    // Timing, per sectors-per-track class (see ZoneMap::cls): from the zone's first track start.
    std::vector<std::uint64_t> start;  // to this run's first track
    std::vector<std::uint64_t> band;   // one band, the move into the next band included
    std::vector<std::uint64_t> fill;   // one band up to the end of its last sector
    std::vector<std::uint64_t> pre;    // [h·classes + c]: band start to surface h's first track
    double band_ns = 0, start_ns = 0;
    Divider per_band;    // user_per_band
    Divider band_units;  // band[0], for a zone of one class (user_at_one_class)
  };
  struct ZoneMap {
    std::vector<std::uint64_t> cls_spt;  // distinct sectors-per-track values
    std::vector<std::uint32_t> cls;      // per surface: index into cls_spt
    std::uint64_t lcm = 0;               // of cls_spt, 0 when above 2^64 (then long double)
    std::vector<std::uint64_t> step;     // per surface: units from a track start to the next in a pass
    std::vector<Run> runs;
    std::uint64_t first_user = 0, users = 0;  // non-spare indexes
    std::uint64_t first_phys = 0, phys = 0;
    std::vector<Divider> user;   // per surface: its user sectors per track
    std::vector<Divider> steps;  // per surface: step, for a zone of one class
    Divider spt0;                // cls_spt[0]
  };
  // Where a non-spare sector sits.
  struct Pos {
    std::uint32_t zone = 0, run = 0, head = 0;
    std::uint64_t band = 0, track = 0, sector = 0;  // track: index within the surface's pass
  };

  Expected<ZoneMap> map_zone(const DiskModel& m, std::size_t i, std::uint32_t first_cyl,
                             std::int64_t head_switch_ns, std::int64_t seek1_worst_ns,
                             ZoneGeometry& g) const;
  std::optional<Error> map_slipped(const std::vector<std::uint64_t>& slipped, std::uint64_t phys);
  // Track sparing (LayoutSpec::track_sparing): the physical sectors it leaves without LBAs
  // appended to *slipped, and the first sector of every track that holds LBAs after one or more
  // that hold none into skip_user_.
  std::optional<Error> map_track_sparing(const DiskModel& m, std::vector<std::uint64_t>* slipped);
  // The stream time a head reading on does not spend on the unused tracks before non-spare
  // index u: the sum of skip_saved_ over the skips at or before u.
  std::int64_t skipped_before(std::uint64_t u) const;
  // The stream time of zone i's first physical sector when it has a first_sector_offset: the
  // first time at or after `end` + `move` ns at which the head is at that angle.
  std::int64_t offset_start_ns(std::size_t i, std::int64_t end, std::int64_t move) const;
  void time_skips(std::int64_t head_switch_ns, const std::function<std::int64_t(std::uint32_t)>& move);
  Pos pos_of_user(std::uint64_t u) const;
  Chs chs_of(const Pos& p) const;  // the cylinder, head, sector and zone of a position
  std::uint64_t user_of_lba(std::uint64_t lba) const;
  std::uint64_t lba_of_user(std::uint64_t u) const;  // the first LBA at or after non-spare u
  // The LBA bounds of the track that holds non-spare u (at p).
  void track_lbas(std::uint64_t u, const Pos& p, std::uint64_t* track_first, std::uint64_t* track_end) const;
  static std::uint32_t cyl_of(const Run& r, std::uint64_t band, std::uint32_t head, std::uint64_t track);
  // Stream time from the zone's s0 to the start of sector `sector` (+ extra units) of the track.
  std::int64_t rel_ns(const ZoneMap& z, const Pos& p, std::uint64_t extra = 0) const;
  template <bool Ceil, class Units>
  std::int64_t to_ns(const ZoneMap& z, Units units) const;
  template <class Units>
  std::int64_t floor_ns(const ZoneMap& z, Units units) const { return to_ns<false>(z, units); }
  template <class Units>
  std::int64_t ceil_ns(const ZoneMap& z, Units units) const { return to_ns<true>(z, units); }
  std::uint64_t user_at(std::uint32_t zi, std::int64_t rel, bool closed_form) const;
  std::uint64_t user_at_one_class(const ZoneMap& z, const ZoneGeometry& g, const Run& r, std::int64_t rel) const;
  void time_zone(std::size_t zi, std::int64_t head_switch_ns, std::int64_t cylinder_switch_ns,
                 const std::function<std::int64_t(std::uint32_t)>& move);

  std::vector<ZoneGeometry> zones_;
  std::vector<ZoneMap> zi_;                 // parallel to zones_
  std::vector<std::uint64_t> zone_first_user_;  // zi_[i].first_user, to search
  // The zone holding non-spare index u is zone_hint_[u >> hint_shift_] or one of the next few:
  // a table instead of a binary search over the zones (which mispredicts at every step).
  std::vector<std::uint32_t> zone_hint_;
  std::uint32_t hint_shift_ = 0;
  std::uint32_t zone_of_user(std::uint64_t u) const;
  void build_zone_hint();
  Divider rot_div_;  // rot_ns_
  std::vector<std::uint64_t> slipped_;   // non-spare indexes, sorted
  std::vector<std::uint64_t> slip_key_;  // slipped_[i] − i (non-decreasing)
  std::vector<std::optional<std::uint32_t>> first_offset_;  // LayoutSpec::first_sector_offset
  // Track sparing's skips: the first non-spare index after unused tracks (sorted), the stream
  // time saved there and before (cumulative, whole revolutions), and the skip's stream time
  // with those savings taken off (to invert stream_ns).
  std::vector<std::uint64_t> skip_user_;
  std::vector<std::int64_t> skip_saved_;
  std::vector<std::int64_t> skip_at_ns_;
  std::uint64_t capacity_ = 0;
  std::uint32_t heads_ = 1;
  std::uint32_t cylinders_ = 0;
  std::int64_t rot_ns_ = 0;
};

}  // namespace ds::sim
