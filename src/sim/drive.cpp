#include "sim/drive.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <limits>

namespace ds::sim {

namespace {
constexpr double kHostLatencySigma = 0.5;  // format /2: noise.host_latency_us is lognormal, sigma 0.5
constexpr std::uint64_t kHostStream = 0x686F73745F726E67ull;  // the host noise's own stream of the seed
constexpr std::uint64_t kActuatorStream = 0x6163747561746F72ull;  // positioner k > 0: seed ^ k × this
}  // namespace

Expected<std::shared_ptr<SimDrive>> SimDrive::create(DiskModel model, std::uint64_t seed) {
  auto seek = SeekCurve::build(model.seek, model.total_cylinders());
  if (!seek) return seek.error();
  // Skews the model leaves open cover the slowest 1-cylinder seek: quietest AAM, jitter high
  // (/1: the uniform jitter's bound; /2: three standard deviations of the normal one).
  const double quiet = model.aam.supported && model.aam.short_seek_cylinders == 0
                           ? std::max(1.0, model.aam.quiet_seek_scale) : 1.0;
  const double jit = 1.0 + model.noise.seek_jitter_pct / 100.0 * (model.format_version >= 2 ? 3.0 : 1.0);
  const auto hs = static_cast<std::int64_t>(std::llround(model.head_switch_ms * 1e6));
  const auto seek1 = static_cast<std::int64_t>(std::ceil(static_cast<double>(seek->ns(1)) * quiet * jit));
  // The mechanism turns at the spindle's real speed (rpm_actual); IDENTIFY and VPD report the
  // nominal rpm from model_.
  DiskModel physical = model;
  physical.rpm = model.spindle_rpm();
  auto layout = Layout::build(physical, static_cast<std::int64_t>(std::ceil(static_cast<double>(hs) * jit)), seek1);
  if (!layout) return layout.error();
  // Every positioner maps LBAs with the same layout; each serves only its range's LBAs (and so
  // moves over its range's cylinders). The first keeps the drive's seed, so a model without
  // "actuators" draws exactly the noise it drew before; the others get streams of their own.
  const std::size_t n = std::max<std::size_t>(1, model.actuators.size());
  std::vector<std::unique_ptr<Mechanics>> mechs;
  mechs.reserve(n);
  for (std::size_t k = 1; k < n; ++k)
    mechs.push_back(std::make_unique<Mechanics>(physical, *layout, *seek, seed ^ (kActuatorStream * k)));
  mechs.insert(mechs.begin(), std::make_unique<Mechanics>(physical, std::move(*layout), std::move(*seek), seed));
  return std::shared_ptr<SimDrive>(new SimDrive(std::move(model), std::move(mechs), seed));
}

SimDrive::SimDrive(DiskModel model, std::vector<std::unique_ptr<Mechanics>> mechs, std::uint64_t seed)
    : model_(std::move(model)), mechs_(std::move(mechs)), held_(mechs_.size()), pos_(mechs_.size()),
      host_rng_(seed ^ kHostStream) {
  depth_ = model_.queue.protocol == QueueProtocol::none ? 1 : std::max<std::uint32_t>(1, model_.queue.depth);
  // A drive that queues nothing still lets each positioner hold one command: otherwise the
  // ranges could never overlap (MACH.2 SATA drives queue anyway; this only matters to a model
  // that asks for actuators without a queue).
  depth_ = std::max<std::uint32_t>(depth_, static_cast<std::uint32_t>(mechs_.size()));
  free_.reserve(kHostDepth);
  for (std::size_t i = kHostDepth; i-- > 0;) free_.push_back(static_cast<std::uint16_t>(i));
  delayed_.reserve(kHostDepth);
  faults_ = FaultState(model_.faults);
  if (model_.smr.enabled()) smr_ = ShingledTranslation(model_.smr, model_.logical_sector_bytes, capacity());
  if (model_.zoned.enabled()) zones_ = ZoneTable(model_.zoned, capacity(), model_.logical_sector_bytes);
  aam_enabled_ = model_.aam.supported;
  aam_level_ = model_.aam.supported ? model_.aam.default_level : 254;
  update_aam();
}

std::vector<ActuatorRange> SimDrive::positioning_ranges() const {
  if (!model_.actuators.empty()) return model_.actuators;
  return {ActuatorRange{0, capacity()}};
}

std::uint8_t SimDrive::actuator_of(std::uint64_t lba) const {
  std::uint8_t k = 0;
  for (std::size_t i = 1; i < model_.actuators.size(); ++i)
    if (lba >= model_.actuators[i].first_lba) k = static_cast<std::uint8_t>(i);
  return k;
}

std::int64_t SimDrive::flush_all() {
  std::int64_t t = 0;
  for (auto& m : mechs_) t = std::max(t, m->flush());
  return t;
}

std::size_t SimDrive::busy() const {
  std::size_t n = 0;
  for (const auto& p : pos_) n += p.current >= 0;
  return n;
}

void SimDrive::set_write_cache(bool on) {
  // Turning the write cache off flushes it first (ACS-3 7.45.5): wait for pending media writes.
  if (!on) advance_to(std::max(now_, flush_all()));
  for (auto& m : mechs_) m->set_write_cache(on);
}

bool SimDrive::set_aam_level(std::uint8_t level) {
  if (!model_.aam.supported || level < 128 || level > 254) return false;
  aam_enabled_ = true;
  aam_level_ = level;
  update_aam();
  return true;
}

void SimDrive::disable_aam() {
  aam_enabled_ = false;
  update_aam();
}

void SimDrive::update_aam() {
  // Linear between the quiet scales at level 128 and 1 at level 254; disabled = fastest.
  const double f = aam_enabled_ ? (254.0 - aam_level_) / 126.0 : 0.0;
  seek_scale_ = 1.0 + (model_.aam.quiet_seek_scale - 1.0) * f;
  rate_scale_ = 1.0 + (model_.aam.quiet_rate_scale - 1.0) * f;
  for (auto& m : mechs_) m->set_aam_scales(seek_scale_, rate_scale_, now_);
}

void SimDrive::push_ready(std::uint16_t slot, std::int64_t done, std::int32_t result) {
  if (hook_ && slots_[slot].served) report(slot, done);
  IoCompletion& c = ready_[(ready_head_ + ready_count_) % kHostDepth];
  c.tag = slots_[slot].req.tag;
  c.submit_ns = slots_[slot].submit_ns;
  c.complete_ns = done;
  c.result = result;
  ++ready_count_;
  free_.push_back(slot);
}

std::size_t SimDrive::submit(std::span<const IoRequest> reqs, bool writable) {
  const std::uint32_t bs = model_.logical_sector_bytes;
  const std::uint64_t cap_bytes = capacity() * bs;
  std::size_t n = 0;
  for (const IoRequest& r : reqs) {
    if (unreaped_ >= kHostDepth) break;
    const std::uint16_t slot = free_.back();
    free_.pop_back();
    ++unreaped_;
    ++n;
    Slot& s = slots_[slot];
    s.req = r;
    s.submit_ns = now_;
    s.served = false;
    int err = 0;
    if (r.length_bytes == 0 || r.offset_bytes % bs || r.length_bytes % bs) err = EINVAL;
    else if (r.offset_bytes >= cap_bytes || r.length_bytes > cap_bytes - r.offset_bytes) err = EINVAL;
    else if (r.write && !writable) err = EROFS;
    else if (r.write && zones_.enabled() && zones_.write(r.offset_bytes / bs, r.length_bytes / bs) != ZoneTable::WriteCheck::ok)
      err = EIO;
    if (err) {
      push_ready(slot, now_, -err);
      continue;
    }
    s.actuator = actuator_of(r.offset_bytes / bs);
    s.access = mechs_[s.actuator]->make_access(r.offset_bytes / bs, r.length_bytes / bs, r.write);
    host_[(host_head_ + host_count_) % kHostDepth] = slot;
    ++host_count_;
  }
  refill();
  return n;
}

void SimDrive::refill() {
  const bool scored = model_.queue.policy == QueuePolicy::sptf;
  while (host_count_ > 0 && held_count_ + busy() < depth_) {
    const std::uint16_t slot = host_[host_head_];
    Slot& s = slots_[slot];
    s.access.arrival_ns = now_;
    held_[s.actuator].push(s.access, slot, scored ? &mechs_[s.actuator]->cache() : nullptr);
    ++held_count_;
    host_head_ = (host_head_ + 1) % kHostDepth;
    --host_count_;
  }
}

std::uint16_t SimDrive::pick_sptf(std::size_t k) {
  const CommandQueue& q = held_[k];
  const auto max_wait = static_cast<std::int64_t>(std::llround(model_.queue.max_wait_ms * 1e6));
  if (max_wait > 0 && now_ - q.access(q.at(0)).arrival_ns >= max_wait) return q.at(0);
  return mechs_[k]->sptf_pick(now_, held_[k], model_.queue.window);
}

void SimDrive::dispatch(std::size_t k) {
  const bool sptf = model_.queue.policy == QueuePolicy::sptf && held_[k].size() > 1;
  const std::uint16_t slot = sptf ? pick_sptf(k) : held_[k].at(0);  // else the oldest
  held_[k].take(slot);
  --held_count_;
  Positioner& p = pos_[k];
  p.current = slot;
  Slot& s = slots_[p.current];
  if (smr_.enabled()) p.done = smr_serve(k, s.access);
  else p.done = mechs_[k]->serve(s.access, now_);
  s.served = true;
  s.drive_done = p.done;
  if (hook_) s.parts = mechs_[k]->last_breakdown();
}

std::int64_t SimDrive::smr_serve(std::size_t k, const Access& a) {
  if (idle_) smr_.idle(*mechs_[k], idle_since_, now_);
  idle_ = false;
  return smr_.serve(*mechs_[k], a, now_);
}

void SimDrive::report(std::uint16_t slot, std::int64_t done) {
  const Slot& s = slots_[slot];
  ServiceRecord r;
  r.tag = s.req.tag;
  r.lba = s.access.lba;
  r.sectors = s.access.sectors;
  r.write = s.access.write;
  r.submit_ns = s.submit_ns;
  r.complete_ns = done;
  r.parts = s.parts;  // from its arrival in the drive to the drive's completion
  r.parts.queue += s.access.arrival_ns - s.submit_ns;  // on the host side, the drive's queue full
  r.parts.other += done - s.drive_done;                // the host's latency in seeing the completion
  hook_(r);
}

std::int64_t SimDrive::host_delay_ns() {
  double ms = 0;
  // Lognormal around the median (sigma 0.5): mostly near it, a long thin tail.
  if (model_.noise.host_latency_us > 0)
    ms += model_.noise.host_latency_us * 1e-3 * std::exp(kHostLatencySigma * host_rng_.normal());
  if (model_.noise.host_stall_probability > 0 && host_rng_.uniform() < model_.noise.host_stall_probability)
    ms += model_.noise.host_stall_ms;
  return static_cast<std::int64_t>(std::llround(ms * 1e6));
}

void SimDrive::finish(std::size_t k) {
  Positioner& p = pos_[k];
  const Slot& s = slots_[p.current];
  const std::uint32_t bs = model_.logical_sector_bytes;
  const std::int32_t result = faults_.complete(s.req.offset_bytes / bs, s.req.length_bytes / bs, p.done,
                                               static_cast<std::int32_t>(s.req.length_bytes));
  const auto slot = static_cast<std::uint16_t>(p.current);
  p.current = -1;
  const std::int64_t done = p.done;
  const std::int64_t delay = host_delay_ns();
  if (delay > 0) delayed_.push_back({slot, done + delay, result});
  else push_ready(slot, done, result);
  refill();
  if (smr_.enabled() && held_count_ == 0 && busy() == 0) {
    idle_ = true;
    idle_since_ = done;
  }
}

void SimDrive::run(std::int64_t limit, std::size_t want) {
  // Injected faults: a drive that stopped answering completes nothing more.
  limit = std::min(limit, faults_.answer_limit_ns() - 1);
  constexpr std::int64_t kNever = std::numeric_limits<std::int64_t>::max();
  while (ready_count_ < want) {
    if (faults_.stopped(now_)) return;
    for (std::size_t k = 0; k < pos_.size() && held_count_ > 0; ++k)
      if (pos_[k].current < 0 && has_work(k)) dispatch(k);
    // The next event: a positioner finishing its command (the lowest range first on a tie), or
    // the host seeing an earlier one.
    std::int64_t drive_t = kNever;
    std::size_t next = 0;
    for (std::size_t k = 0; k < pos_.size(); ++k)
      if (pos_[k].current >= 0 && pos_[k].done < drive_t) drive_t = pos_[k].done, next = k;
    auto host = std::min_element(delayed_.begin(), delayed_.end(),
                                 [](const Delayed& a, const Delayed& b) { return a.visible_ns < b.visible_ns; });
    const std::int64_t host_t = host == delayed_.end() ? kNever : host->visible_ns;
    if (drive_t == kNever && host_t == kNever) return;
    if (std::min(drive_t, host_t) > limit) return;
    if (host_t < drive_t) {
      now_ = std::max(now_, host_t);
      push_ready(host->slot, host_t, host->result);
      delayed_.erase(host);
    } else {
      now_ = std::max(now_, drive_t);
      finish(next);
    }
  }
}

std::size_t SimDrive::reap(std::span<IoCompletion> out, std::size_t min_events, std::int64_t deadline_ns) {
  min_events = std::min(min_events, out.size());
  const std::int64_t limit = deadline_ns < 0 ? std::numeric_limits<std::int64_t>::max() : deadline_ns;
  run(limit, min_events);
  if (ready_count_ < min_events && deadline_ns >= 0 && deadline_ns > now_) advance_to(deadline_ns);
  const std::size_t n = std::min(out.size(), ready_count_);
  for (std::size_t i = 0; i < n; ++i) {
    out[i] = ready_[ready_head_];
    ready_head_ = (ready_head_ + 1) % kHostDepth;
  }
  ready_count_ -= n;
  unreaped_ -= n;
  return n;
}

std::int64_t SimDrive::next_event_ns() const {
  constexpr std::int64_t kNever = std::numeric_limits<std::int64_t>::max();
  std::int64_t t = kNever;
  for (std::size_t k = 0; k < pos_.size(); ++k) {
    if (pos_[k].current >= 0) t = std::min(t, pos_[k].done);
    else if (has_work(k)) t = std::min(t, now_);  // run() dispatches it at once
  }
  for (const Delayed& d : delayed_) t = std::min(t, d.visible_ns);
  // A drive that stopped answering (injected fault) does nothing from then on (see run()).
  if (t == kNever || t >= faults_.answer_limit_ns() || faults_.stopped(now_)) return -1;
  return t;
}

void SimDrive::advance_to(std::int64_t t) {
  run(t, std::numeric_limits<std::size_t>::max());
  now_ = std::max(now_, t);
}

std::int64_t SimDrive::run_command(std::uint64_t lba, std::uint32_t sectors, bool write) {
  run(std::numeric_limits<std::int64_t>::max(), std::numeric_limits<std::size_t>::max());
  const std::int64_t start = now_;
  Mechanics& mech = *mechs_[actuator_of(lba)];
  Access a = mech.make_access(lba, sectors, write);
  a.arrival_ns = now_;
  const std::int64_t done = smr_.enabled() ? smr_serve(actuator_of(lba), a) : mech.serve(a, now_);
  now_ = std::max(now_, done);
  if (smr_.enabled()) idle_ = true, idle_since_ = now_;
  return now_ - start;
}

std::int64_t SimDrive::run_control() {
  const auto d = static_cast<std::int64_t>(std::llround(model_.command_overhead_ms * 1e6));
  advance_to(now_ + d);
  return d;
}

}  // namespace ds::sim
