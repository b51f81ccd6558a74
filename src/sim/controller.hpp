// The drive's controller and its bus to the host (DiskSim's controller/bus side): the time to
// decode a command by its type and whether it hits the buffer (controller.overheads_ms, else
// command_overhead_ms; noise.overhead_jitter_ms), the completion overhead, the transfer of data
// the buffer holds or takes in (the interface rate, bulk_sector_ms, controller.bus's block
// times), a read's disconnect and reconnect at its high-water mark (controller.read_reconnect)
// and a written-through write's bus phases (controller.write_reconnect). It remembers what the
// overheads depend on: whether the previous command was a write, and where it ended.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "sim/model.hpp"
#include "sim/positioner.hpp"
#include "sim/rng.hpp"

namespace ds::sim {

// A command as the mechanism sees it (location precomputed once, on arrival in the drive).
struct Access {
  std::uint64_t lba = 0;
  std::uint32_t sectors = 0;
  bool write = false;
  Chs chs;
  std::int64_t s_ns = 0;  // Layout::stream_ns(lba)
  // When the command reached the drive: a queued command's controller overhead runs while the
  // mechanism serves earlier ones, so it is counted from here, not from dispatch.
  std::int64_t arrival_ns = 0;
};

class Controller {
 public:
  Controller(const DiskModel& m, std::uint64_t seed);

  std::int64_t interface_ns(std::uint64_t bytes) const;
  // A transfer of data the buffer holds (a hit) or takes in (write-behind): interface_ns, or
  // controller.bulk_sector_ms per sector when that is slower; with controller.bus, its block
  // time for the direction (write: into the drive) per block.
  std::int64_t buffer_ns(std::uint64_t bytes, bool write) const;
  bool bus_on() const { return bus_read_ns_ > 0; }
  std::int64_t bus_write_ns() const { return bus_write_ns_; }

  // The nominal decode time of a command: command_overhead_ms without an overheads table (has_table
  // false); else by its type, whether it hits the buffer on arrival and the type of the command
  // before it (controller.overheads_ms).
  bool has_table() const { return model_->controller.overheads.has_value(); }
  std::int64_t decode_ns() const { return overhead_ns_; }
  std::int64_t decode_ns(bool write, bool hit) const;
  // What a command that needs the media pays to decode (the SPTF planner's view).
  std::int64_t miss_decode_ns(bool write) const;
  // The controller time of one command around `nominal` (draws noise in a /2 model with
  // overhead_jitter_ms).
  std::int64_t overhead_draw(std::int64_t nominal);
  std::int64_t completion_ns(const Access& a) const;

  // DiskSim's extra write disconnect: a write the drive does not cache that does not continue the
  // write before it; its decode is the extra command overhead plus the seek delta.
  bool extra_write_disconnect(const Access& a, bool write_cache) const {
    const auto& w = model_->controller.write_reconnect;
    return w && w->extra && a.write && !write_cache && last_write_ && a.lba != last_write_end_;
  }
  std::int64_t extra_write_decode_ns() const {
    const auto& x = *model_->controller.write_reconnect->extra;
    return ms_to_ns(x.command_ms + x.seek_delta_ms);
  }
  // A written-through write over controller.bus, decoded at t: how its data crosses the bus
  // while the head seeks, and its completion once the head has written it (`written`).
  WritePacing write_pacing(const Access& a, std::int64_t t, bool write_cache) const;
  std::int64_t write_through_done(const Access& a, std::int64_t written, const WritePacing& pace,
                                  bool write_cache) const;

  // The command is done: the next one's overheads follow its type.
  void after(bool write, std::uint64_t end) {
    last_write_ = write;
    if (write) last_write_end_ = end;
  }
  bool last_write() const { return last_write_; }

  // controller.bus: when the last block of read a has crossed the bus, the command decoded at t,
  // the blocks before `split` in the buffer by then and the sector before e there at at(e)
  // (controller.read_reconnect: with the disconnect and reselect of a read that waits).
  // seg_sectors: a cache segment's sectors (0: no cache).
  template <class At>
  std::int64_t bus_done(const Positioner& pos, std::uint64_t seg_sectors, const Access& a, std::int64_t t,
                        std::uint64_t split, At&& at) const;

 private:
  const DiskModel* model_;  // the drive's (outlives this)
  std::int64_t overhead_ns_ = 0;
  std::int64_t bulk_sector_ns_ = 0;  // controller.bulk_sector_ms (0: the interface rate alone)
  std::int64_t bus_read_ns_ = 0, bus_write_ns_ = 0;  // controller.bus: per block (0: no bus key)
  Rng overhead_rng_;
  std::int64_t overhead_sd_ns_ = 0;
  bool last_write_ = false;           // the previous command was a write (overheads "after write")
  std::uint64_t last_write_end_ = 0;  // ... and where the last write ended
};

// controller.bus: the blocks of [a.lba, end) cross the bus one by one in order, from when the
// drive holds the bus, each once it is in the buffer: at(e) is when the sector before e is
// there (at most t). Within a track the sectors pass at one rate, so the last block's time
// follows from the first and last sector of each track the read touches (and of each side of
// `split`, before which everything is in the buffer already).
template <class At>
std::int64_t Controller::bus_done(const Positioner& pos, std::uint64_t seg_sectors, const Access& a, std::int64_t t,
                                  std::uint64_t split, At&& at) const {
  const std::uint64_t end = a.lba + a.sectors;
  const std::int64_t b = bus_read_ns_;
  auto ready = [&](std::uint64_t e) { return e <= split ? t : std::max(t, at(e)); };
  std::int64_t r = t;
  if (const auto& w = model_->controller.read_reconnect) {
    // A read that would wait for the media lets the bus go and takes it back once its
    // high-water mark of blocks is in the buffer (DiskSim: at least one block).
    const std::uint64_t seg = seg_sectors > 0 ? seg_sectors : a.sectors;
    const double base = w->by_request_size ? static_cast<double>(std::min<std::uint64_t>(seg, a.sectors))
                                           : static_cast<double>(seg);
    const auto mark = std::clamp<std::uint64_t>(static_cast<std::uint64_t>(w->by_request_size
                                                    ? std::floor(base * w->high_water)
                                                    : std::ceil(base * w->high_water - 1e-9)),
                                                1, a.sectors);
    const std::int64_t reached = ready(a.lba + mark);
    if (reached > t)
      r = std::max(t + ms_to_ns(w->disconnect_ms[last_write_ ? 1 : 0]), reached) +
          ms_to_ns(w->first_reselect_ms + w->data_prep_ms);
  }
  std::int64_t c = r + static_cast<std::int64_t>(a.sectors) * b;
  for (std::uint64_t p = a.lba; p < end;) {
    std::uint64_t q = std::min(end, pos.track_end_lba(p));
    if (p < split) q = std::min(q, split);
    c = std::max(c, ready(p + 1) + static_cast<std::int64_t>(end - p) * b);
    c = std::max(c, ready(q) + static_cast<std::int64_t>(end - q + 1) * b);
    p = q;
  }
  return c;
}

}  // namespace ds::sim
