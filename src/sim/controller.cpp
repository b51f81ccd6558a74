#include "sim/controller.hpp"

namespace ds::sim {

namespace {
constexpr double kOverheadFloor = 0.3;  // /2: the command overhead never drops below 0.3 × nominal
// The overhead noise's own stream of the drive's seed, so that one key does not shift another.
constexpr std::uint64_t kOverheadStream = 0x6F76657268656164ull;
}  // namespace

Controller::Controller(const DiskModel& m, std::uint64_t seed) : model_(&m), overhead_rng_(seed ^ kOverheadStream) {
  overhead_ns_ = ms_to_ns(m.command_overhead_ms);
  bulk_sector_ns_ = ms_to_ns(m.controller.bulk_sector_ms.value_or(0));
  if (const auto& b = m.controller.bus) {
    // DiskSim's block time on a bus is the slower of the bus's and the drive's (bulk sector) own,
    // and the interface rate stays a floor.
    const std::int64_t floor_ns = std::max(bulk_sector_ns_, interface_ns(m.logical_sector_bytes));
    bus_read_ns_ = std::max(ms_to_ns(b->read_block_ms), floor_ns);
    bus_write_ns_ = std::max(ms_to_ns(b->write_block_ms), floor_ns);
  }
  overhead_sd_ns_ = ms_to_ns(m.noise.overhead_jitter_ms);
}

std::int64_t Controller::interface_ns(std::uint64_t bytes) const {
  // MB/s = 10^6 bytes per second: bytes·1000/rate ns.
  return static_cast<std::int64_t>(std::ceil(static_cast<double>(bytes) * 1000.0 / model_->interface_mb_s));
}

std::int64_t Controller::buffer_ns(std::uint64_t bytes, bool write) const {
  const std::uint64_t blocks = (bytes + model_->logical_sector_bytes - 1) / model_->logical_sector_bytes;
  if (bus_on()) return static_cast<std::int64_t>(blocks) * (write ? bus_write_ns_ : bus_read_ns_);
  const std::int64_t by_rate = interface_ns(bytes);
  if (bulk_sector_ns_ == 0) return by_rate;
  // DiskSim's bulk sector transfer time against the bus rate: the slower of the two. Only for
  // data the buffer already holds or takes in (hits, write-behind): a media transfer overlaps
  // with the bus, and at 0.1 ms a sector the bus would hold the drives to 5 MB/s, a third of
  // their media rate (controller.bus says otherwise, block by block: bus_done).
  return std::max(by_rate, static_cast<std::int64_t>(blocks) * bulk_sector_ns_);
}

std::int64_t Controller::decode_ns(bool write, bool hit) const {
  const OverheadTable& o = *model_->controller.overheads;
  const int after = last_write_ ? 1 : 0;
  if (!write) return ms_to_ns(hit ? o.read_hit[after] : o.read_miss[after]);
  return ms_to_ns(hit ? o.write_hit[after] : o.write_miss[after]);
}

std::int64_t Controller::miss_decode_ns(bool write) const {
  if (!has_table()) return overhead_ns_;
  return decode_ns(write, false);
}

std::int64_t Controller::overhead_draw(std::int64_t nominal) {
  if (overhead_sd_ns_ == 0) return nominal;
  const double v = static_cast<double>(nominal) + static_cast<double>(overhead_sd_ns_) * overhead_rng_.normal();
  return std::max(std::llround(v), std::llround(kOverheadFloor * static_cast<double>(nominal)));
}

std::int64_t Controller::completion_ns(const Access& a) const {
  if (!model_->controller.overheads) return 0;
  return ms_to_ns(a.write ? model_->controller.overheads->write_completion : model_->controller.overheads->read_completion);
}

// DiskSim's write path for a drive that does not cache writes: the drive takes the data from the
// decode on (after its data preparation) while the head seeks; on the extra write disconnect
// path it lets the bus go first and reselects after the inter-disconnect delay, the seek starting
// at the extra command overhead plus the seek delta (serve charged that as the overhead, so t is
// then). Once the data has crossed it disconnects, and once the media is written it reselects to
// send the status. The drives with an extra write disconnect also hold the head until
// min(blocks, 10) blocks are in (15 from 45 blocks on: DiskSim 4.0 disk_buffer_block_available).
WritePacing Controller::write_pacing(const Access& a, std::int64_t t, bool write_cache) const {
  static const WriteReconnectSpec kNone{};
  const WriteReconnectSpec& w = model_->controller.write_reconnect ? *model_->controller.write_reconnect : kNone;
  WritePacing pace;
  pace.bus_from = t + ms_to_ns(w.data_prep_ms);
  if (extra_write_disconnect(a, write_cache)) {
    const ExtraDisconnectSpec& x = *w.extra;
    pace.bus_from += ms_to_ns(x.disconnect_ms + x.inter_disconnect_ms + w.reselect_ms - x.seek_delta_ms);
  }
  if (w.extra) pace.min_blocks = std::min<std::uint64_t>(a.sectors, a.sectors < 45 ? 10 : 15);
  pace.min_move_ns = ms_to_ns(w.min_seek_ms);
  pace.block_ns = bus_write_ns_;
  return pace;
}

std::int64_t Controller::write_through_done(const Access& a, std::int64_t written, const WritePacing& pace,
                                            bool write_cache) const {
  static const WriteReconnectSpec kNone{};
  const WriteReconnectSpec& w = model_->controller.write_reconnect ? *model_->controller.write_reconnect : kNone;
  const bool extra = extra_write_disconnect(a, write_cache);
  const std::int64_t crossed = pace.bus_from + static_cast<std::int64_t>(a.sectors) * bus_write_ns_;
  const double disconnect = extra ? w.extra->second_disconnect_ms : w.disconnect_ms;
  const double reselect = extra ? w.extra->reselect_ms : w.reselect_ms;
  return std::max(written, crossed + ms_to_ns(disconnect)) + ms_to_ns(reselect);
}

}  // namespace ds::sim
