// Loading and validating drivescope-disk-model/1 files. Every error names the field it is about
// so that a hand-written model can be fixed from the message alone. Unknown keys are ignored on
// purpose: converted models carry provenance and notes next to the fields.
#include <cmath>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

#include "sim/model.hpp"
#include "sim/model_json_reader.hpp"

namespace ds::sim {

using nlohmann::json;

std::string_view to_string(Transport t) { return t == Transport::ata ? "ata" : "scsi"; }
std::string_view to_string(QueueProtocol p) {
  switch (p) {
    case QueueProtocol::none: return "none";
    case QueueProtocol::ncq: return "ncq";
    case QueueProtocol::tcq: return "tcq";
  }
  return "?";
}
std::string_view to_string(QueuePolicy p) { return p == QueuePolicy::fifo ? "fifo" : "sptf"; }
std::string_view to_string(ZonedModel z) {
  return z == ZonedModel::host_aware ? "host-aware" : z == ZonedModel::host_managed ? "host-managed" : "none";
}

std::uint64_t DiskModel::zone_sectors() const {
  return layout_user_sectors(*this);
}
std::uint64_t DiskModel::capacity() const {
  const auto all = zone_sectors();
  return capacity_sectors ? std::min(*capacity_sectors, all) : all;
}
std::uint32_t DiskModel::total_cylinders() const {
  std::uint32_t c = 0;
  for (const auto& z : zones) c += z.cylinders;
  return c;
}

namespace {

constexpr std::uint64_t kMaxU32 = 0xFFFFFFFFu;

// The timing keys of format /2 (the layout keys: model_json_layout.cpp). Only a /2 file has them:
// in a /1 file they are unknown keys and ignored, so that it behaves exactly as before.
void parse_v2_timing(Reader& r, const json& doc, DiskModel& m) {
  const std::string top;
  if (auto v = r.number(doc, top, "rpm_actual", false, 0, true)) {
    m.rpm_actual = *v;
    if (!r.err && (*v < 600 || *v > 30000)) r.fail("rpm_actual", "must be between 600 and 30000");
  }
  if (const json* n = r.object(doc, top, "noise", false)) {
    m.noise.overhead_jitter_ms = r.number(*n, "noise", "overhead_jitter_ms", false, 0, false).value_or(0);
    m.noise.host_latency_us = r.number(*n, "noise", "host_latency_us", false, 0, false).value_or(0);
    if (const json* h = r.object(*n, "noise", "host_stall", false)) {
      m.noise.host_stall_probability = r.number(*h, "noise.host_stall", "probability", true, 0, false).value_or(0);
      m.noise.host_stall_ms = r.number(*h, "noise.host_stall", "ms", true, 0, false).value_or(0);
      if (!r.err && m.noise.host_stall_probability > 1) r.fail("noise.host_stall.probability", "must be at most 1");
    }
  }
  if (const json* rs = r.member(doc, top, "remapped", false)) {
    if (!rs->is_array()) r.fail("remapped", "must be an array");
    for (std::size_t i = 0; rs->is_array() && i < rs->size() && !r.err; ++i) {
      const std::string p = "remapped[" + std::to_string(i) + "]";
      if (!(*rs)[i].is_object()) {
        r.fail(p, "must be an object");
        break;
      }
      RemappedLba x;
      x.lba = r.integer((*rs)[i], p, "lba", true, false).value_or(0);
      x.extra_ms = r.number((*rs)[i], p, "extra_ms", true, 0, false).value_or(0);
      if (!r.err && x.lba >= m.capacity()) r.fail(p + ".lba", "lies beyond the capacity");
      m.remapped.push_back(x);
    }
  }
  if (const json* c = r.object(doc, top, "recalibration", false)) {
    m.recalibration.every_s = r.number(*c, "recalibration", "every_s", true, 0, true).value_or(0);
    m.recalibration.duration_ms = r.number(*c, "recalibration", "duration_ms", true, 0, false).value_or(0);
    if (!r.err && m.recalibration.duration_ms >= m.recalibration.every_s * 1000)
      r.fail("recalibration.duration_ms", "must be shorter than every_s");
  }
  if (const json* a = r.object(doc, top, "aam", false))
    m.aam.short_seek_cylinders =
        static_cast<std::uint32_t>(r.integer(*a, "aam", "short_seek_cylinders", false, false, kMaxU32).value_or(0));
  if (const json* c = r.object(doc, top, "cache", false))
    m.cache.zero_latency_read = r.boolean(*c, "cache", "zero_latency_read", false).value_or(false);
  if (const json* q = r.object(doc, top, "queue", false)) {
    m.queue.window = static_cast<std::uint32_t>(r.integer(*q, "queue", "window", false, true, 256).value_or(0));
    m.queue.max_wait_ms = r.number(*q, "queue", "max_wait_ms", false, 0, true).value_or(0);
  }
}

// The same keys back (only those set).
void write_v2_timing(const DiskModel& m, json& j) {
  if (m.rpm_actual) j["rpm_actual"] = *m.rpm_actual;
  if (m.noise.overhead_jitter_ms > 0) j["noise"]["overhead_jitter_ms"] = m.noise.overhead_jitter_ms;
  if (m.noise.host_latency_us > 0) j["noise"]["host_latency_us"] = m.noise.host_latency_us;
  if (m.noise.host_stall_probability > 0)
    j["noise"]["host_stall"] = {{"probability", m.noise.host_stall_probability}, {"ms", m.noise.host_stall_ms}};
  if (!m.remapped.empty()) {
    json rs = json::array();
    for (const auto& x : m.remapped) rs.push_back({{"lba", x.lba}, {"extra_ms", x.extra_ms}});
    j["remapped"] = rs;
  }
  if (m.recalibration.every_s > 0)
    j["recalibration"] = {{"every_s", m.recalibration.every_s}, {"duration_ms", m.recalibration.duration_ms}};
  if (m.aam.short_seek_cylinders > 0) j["aam"]["short_seek_cylinders"] = m.aam.short_seek_cylinders;
  if (m.cache.zero_latency_read) j["cache"]["zero_latency_read"] = true;
  if (m.queue.window > 0) j["queue"]["window"] = m.queue.window;
  if (m.queue.max_wait_ms > 0) j["queue"]["max_wait_ms"] = m.queue.max_wait_ms;
}

// "actuators": either a count (the LBA space split into that many equal ranges, the last taking
// the remainder) or a list of {first_lba, lba_count} that must tile the capacity from LBA 0 in
// order. Checked against the capacity, so parsed last.
void parse_actuators(Reader& r, const json& doc, DiskModel& m) {
  const json* a = r.member(doc, "", "actuators", false);
  if (!a) return;
  const std::uint64_t cap = m.capacity();
  constexpr std::uint64_t kMaxRanges = 8;  // MACH.2 has two; the log format allows 255
  if (a->is_number()) {
    const auto n = r.integer(doc, "", "actuators", true, true, kMaxRanges);
    if (!n || *n == 1) return;  // 1: one positioner, as without the key
    if (cap < *n) return r.fail("actuators", "more ranges than sectors");
    for (std::uint64_t i = 0; i < *n; ++i) {
      const std::uint64_t first = cap / *n * i;
      m.actuators.push_back({first, i + 1 == *n ? cap - first : cap / *n});
    }
    return;
  }
  if (!a->is_array() || a->empty() || a->size() > kMaxRanges)
    return r.fail("actuators", "must be a count of 1 to 8 or a list of 1 to 8 {first_lba, lba_count} objects");
  std::uint64_t next = 0;
  for (std::size_t i = 0; i < a->size() && !r.err; ++i) {
    const std::string p = "actuators[" + std::to_string(i) + "]";
    if (!(*a)[i].is_object()) return r.fail(p, "must be an object");
    ActuatorRange x;
    x.first_lba = r.integer((*a)[i], p, "first_lba", true, false).value_or(0);
    x.lba_count = r.integer((*a)[i], p, "lba_count", true, true).value_or(0);
    if (r.err) return;
    if (x.first_lba != next) return r.fail(p + ".first_lba", "must be " + std::to_string(next) + " (the ranges tile the LBAs in order)");
    if (x.lba_count > cap - next) return r.fail(p + ".lba_count", "goes beyond the capacity");
    next += x.lba_count;
    m.actuators.push_back(x);
  }
  if (!r.err && next != cap) r.fail("actuators", "the ranges cover " + std::to_string(next) + " of " + std::to_string(cap) + " sectors");
  if (m.actuators.size() == 1) m.actuators.clear();
}

// "smr": the drive-managed SMR keys; checked against the capacity, so parsed after the zones.
void parse_smr(Reader& r, const json& doc, DiskModel& m) {
  const json* o = r.object(doc, "", "smr", false);
  if (!o) return;
  SmrSpec s;
  const std::uint64_t bs = m.logical_sector_bytes, cap = m.capacity();
  s.media_cache_bytes = r.integer(*o, "smr", "media_cache_bytes", true, true).value_or(0);
  s.cache_first_lba = r.integer(*o, "smr", "cache_first_lba", false, false).value_or(0);
  s.band_bytes = r.integer(*o, "smr", "band_bytes", true, true).value_or(0);
  s.idle_delay_ms = r.number(*o, "smr", "idle_delay_ms", false, 0, false).value_or(s.idle_delay_ms);
  s.idle_clean_mb_s = r.number(*o, "smr", "idle_clean_mb_s", false, 0, false).value_or(0);
  if (r.err) return;
  // Bounds that keep the nanosecond arithmetic in range (a day of idle delay is plenty).
  if (s.idle_delay_ms > 86'400'000) return r.fail("smr.idle_delay_ms", "must be at most 86400000 (a day)");
  if (s.idle_clean_mb_s > 0 && s.idle_clean_mb_s < 0.001) return r.fail("smr.idle_clean_mb_s", "must be 0 or at least 0.001");
  if (s.media_cache_bytes % bs) return r.fail("smr.media_cache_bytes", "must be a multiple of the sector size");
  if (s.band_bytes % bs) return r.fail("smr.band_bytes", "must be a multiple of the sector size");
  if (s.band_bytes / bs > cap) return r.fail("smr.band_bytes", "is larger than the drive");
  if (s.cache_first_lba >= cap || s.media_cache_bytes / bs > cap - s.cache_first_lba)
    return r.fail("smr.media_cache_bytes", "the cache region runs past the capacity");
  // One positioner serves the cache and the bands (sim/smr.hpp): not with several actuators.
  if (!m.actuators.empty()) return r.fail("smr", "cannot be combined with actuators");
  m.smr = s;
}

// "zoned": host-aware / host-managed zones; checked against the capacity, so parsed after the zones.
void parse_zoned(Reader& r, const json& doc, DiskModel& m) {
  const json* o = r.object(doc, "", "zoned", false);
  if (!o) return;
  ZonedSpec z;
  const auto kind = r.string(*o, "zoned", "model", true);
  z.zone_bytes = r.integer(*o, "zoned", "zone_bytes", true, true).value_or(0);
  z.conventional_zones = r.integer(*o, "zoned", "conventional_zones", false, false).value_or(0);
  if (r.err) return;
  if (*kind == "host-aware") z.model = ZonedModel::host_aware;
  else if (*kind == "host-managed") z.model = ZonedModel::host_managed;
  else return r.fail("zoned.model", "must be \"host-aware\" or \"host-managed\"");
  const std::uint64_t bs = m.logical_sector_bytes, cap = m.capacity();
  // Zones hold whole physical sectors (a 512e drive's zone starts are 4 KiB aligned).
  if (z.zone_bytes % m.physical_sector_bytes || z.zone_bytes % bs)
    return r.fail("zoned.zone_bytes", "must be a multiple of the physical sector size");
  if (z.zone_bytes / bs > cap) return r.fail("zoned.zone_bytes", "is larger than the drive");
  const std::uint64_t zones = (cap + z.zone_bytes / bs - 1) / (z.zone_bytes / bs);
  // The drive keeps a write pointer per zone: bound the table (16 Mi zones, 128 MiB of pointers).
  if (zones > (1u << 24)) return r.fail("zoned.zone_bytes", "makes more than 16777216 zones");
  if (z.conventional_zones > zones)
    return r.fail("zoned.conventional_zones", "is more than the " + std::to_string(zones) + " zones");
  // A drive is either drive-managed or host-aware/-managed, not both.
  if (m.smr.enabled()) return r.fail("zoned", "cannot be combined with smr");
  m.zoned = z;
}

// "format": checked first, since the keys that follow depend on its version.
void parse_format(Reader& r, const json& doc) {
  const std::string top;
  if (auto f = r.string(doc, top, "format", true); f && *f != kModelFormat && *f != kModelFormat2)
    r.fail("format", "unknown value \"" + *f + "\" (expected \"" + std::string(kModelFormat) + "\" or \"" +
                         std::string(kModelFormat2) + "\")");
}

// "name", "transport" and "identity": what the drive says it is.
void parse_identity(Reader& r, const json& doc, DiskModel& m) {
  const std::string top;
  m.format_version = doc.at("format").get<std::string>() == kModelFormat2 ? 2 : 1;
  m.name = r.string(doc, top, "name", true).value_or("");
  if (auto t = r.string(doc, top, "transport", true)) {
    if (*t == "ata") m.transport = Transport::ata;
    else if (*t == "scsi") m.transport = Transport::scsi;
    else r.fail("transport", "unknown value \"" + *t + "\" (expected \"ata\" or \"scsi\")");
  }
  if (const json* id = r.object(doc, top, "identity", true)) {
    m.identity.vendor = r.string(*id, "identity", "vendor", false).value_or(
        m.transport == Transport::ata ? "ATA" : "");
    m.identity.model = r.string(*id, "identity", "model", true).value_or("");
    m.identity.serial = r.string(*id, "identity", "serial", false).value_or("SIM0000001");
    m.identity.firmware = r.string(*id, "identity", "firmware", false).value_or("SIM1");
  }
}

// Sector sizes, spindle and heads: the numbers every later key is checked against.
void parse_geometry(Reader& r, const json& doc, DiskModel& m) {
  const std::string top;
  m.logical_sector_bytes =
      static_cast<std::uint32_t>(r.integer(doc, top, "logical_sector_bytes", true, true, 1u << 20).value_or(512));
  if (!r.err && (m.logical_sector_bytes < 512 || (m.logical_sector_bytes & (m.logical_sector_bytes - 1))))
    r.fail("logical_sector_bytes", "must be a power of two of at least 512");
  m.physical_sector_bytes = static_cast<std::uint32_t>(
      r.integer(doc, top, "physical_sector_bytes", false, true, 1u << 20).value_or(m.logical_sector_bytes));
  if (!r.err && (m.physical_sector_bytes < m.logical_sector_bytes ||
                 m.physical_sector_bytes % m.logical_sector_bytes ||
                 (m.physical_sector_bytes & (m.physical_sector_bytes - 1))))
    r.fail("physical_sector_bytes", "must be a power-of-two multiple of logical_sector_bytes");
  m.rpm = r.number(doc, top, "rpm", true, 0, true).value_or(7200);
  if (!r.err && (m.rpm < 600 || m.rpm > 30000)) r.fail("rpm", "must be between 600 and 30000");
  m.surfaces = static_cast<std::uint32_t>(r.integer(doc, top, "surfaces", true, true, 64).value_or(1));
  m.platters = static_cast<std::uint32_t>(r.integer(doc, top, "platters", true, true, 64).value_or(1));
  if (!r.err && m.platters * 2 < m.surfaces) r.fail("platters", "too few for the surfaces (2 per platter)");
}

// "zones" (the /1 form of each; the /2 layout keys follow in parse_layout_keys), the capacity
// they bound, and the skews.
void parse_zones(Reader& r, const json& doc, DiskModel& m) {
  const std::string top;
  if (const json* zs = r.member(doc, top, "zones", true)) {
    if (!zs->is_array()) {
      r.fail("zones", "must be an array");
    } else if (zs->empty()) {
      r.fail("zones", "must hold at least one zone");
    } else {
      for (std::size_t i = 0; i < zs->size() && !r.err; ++i) {
        const std::string p = "zones[" + std::to_string(i) + "]";
        const json& zj = (*zs)[i];
        if (!zj.is_object()) {
          r.fail(p, "must be an object");
          break;
        }
        Zone z;
        z.cylinders = static_cast<std::uint32_t>(r.integer(zj, p, "cylinders", true, true, 10'000'000).value_or(0));
        if (!zj.contains("sectors_per_track") || !zj["sectors_per_track"].is_array())  // /2 lists: parse_layout_keys
          z.sectors_per_track =
              static_cast<std::uint32_t>(r.integer(zj, p, "sectors_per_track", true, true, 1'000'000).value_or(0));
        if (auto v = r.integer(zj, p, "track_skew_sectors", false, false, kMaxU32)) z.track_skew_sectors = *v;
        if (auto v = r.integer(zj, p, "cylinder_skew_sectors", false, false, kMaxU32))
          z.cylinder_skew_sectors = *v;
        m.zones.push_back(z);
      }
    }
  }
  if (!r.err) r.err = parse_layout_keys(doc, m);
  if (auto v = r.integer(doc, top, "capacity_sectors", false, true)) m.capacity_sectors = *v;
  if (!r.err && m.capacity_sectors && *m.capacity_sectors > m.zone_sectors())
    r.fail("capacity_sectors", "exceeds what the zones hold (" + std::to_string(m.zone_sectors()) + ")");
  if (auto v = r.integer(doc, top, "track_skew_sectors", false, false, kMaxU32)) m.track_skew_sectors = *v;
  if (auto v = r.integer(doc, top, "cylinder_skew_sectors", false, false, kMaxU32)) m.cylinder_skew_sectors = *v;
}

// "seek": the three figures and the optional measured curve, plus the other per-command times.
void parse_seek_and_timing(Reader& r, const json& doc, DiskModel& m) {
  const std::string top;
  if (const json* s = r.object(doc, top, "seek", true)) {
    m.seek.track_to_track_ms = r.number(*s, "seek", "track_to_track_ms", true, 0, true).value_or(1);
    m.seek.average_ms = r.number(*s, "seek", "average_ms", true, 0, true).value_or(8);
    m.seek.full_stroke_ms = r.number(*s, "seek", "full_stroke_ms", true, 0, true).value_or(16);
    if (const json* c = r.member(*s, "seek", "curve", false)) {
      if (!c->is_array() || c->empty()) {
        r.fail("seek.curve", "must be null or a non-empty array of [cylinders, ms] pairs");
      } else {
        double last_d = 0;
        for (std::size_t i = 0; i < c->size() && !r.err; ++i) {
          const json& pt = (*c)[i];
          const std::string p = "seek.curve[" + std::to_string(i) + "]";
          if (!pt.is_array() || pt.size() != 2 || !pt[0].is_number() || !pt[1].is_number()) {
            r.fail(p, "must be a [cylinders, ms] pair of numbers");
            break;
          }
          const double d = pt[0].get<double>(), ms = pt[1].get<double>();
          if (!(d >= 1) || !(d > last_d)) r.fail(p, "cylinders must be ≥ 1 and increasing");
          else if (!(ms >= 0) || !std::isfinite(ms)) r.fail(p, "ms must be a non-negative number");
          last_d = d;
          m.seek.curve.emplace_back(d, ms);
        }
      }
    }
    if (!r.err && m.seek.curve.empty() &&
        !(m.seek.track_to_track_ms <= m.seek.average_ms && m.seek.average_ms <= m.seek.full_stroke_ms))
      r.fail("seek", "need track_to_track_ms ≤ average_ms ≤ full_stroke_ms");
  }
  m.head_switch_ms = r.number(doc, top, "head_switch_ms", true, 0, false).value_or(0);
  m.write_settle_ms = r.number(doc, top, "write_settle_ms", false, 0, false).value_or(0);
  m.command_overhead_ms = r.number(doc, top, "command_overhead_ms", true, 0, false).value_or(0);
  m.interface_mb_s = r.number(doc, top, "interface_mb_s", true, 0, true).value_or(150);
}

void parse_cache_and_queue(Reader& r, const json& doc, DiskModel& m) {
  const std::string top;
  if (const json* c = r.object(doc, top, "cache", true)) {
    m.cache.bytes = r.integer(*c, "cache", "bytes", true, false).value_or(0);
    m.cache.segments = static_cast<std::uint32_t>(r.integer(*c, "cache", "segments", true, true, 4096).value_or(1));
    m.cache.read_ahead_sectors =
        static_cast<std::uint32_t>(r.integer(*c, "cache", "read_ahead_sectors", false, false, kMaxU32).value_or(0));
    m.cache.write_back = r.boolean(*c, "cache", "write_back", false).value_or(false);
  }
  if (const json* q = r.object(doc, top, "queue", true)) {
    if (auto p = r.string(*q, "queue", "protocol", true)) {
      if (*p == "none") m.queue.protocol = QueueProtocol::none;
      else if (*p == "ncq") m.queue.protocol = QueueProtocol::ncq;
      else if (*p == "tcq") m.queue.protocol = QueueProtocol::tcq;
      else r.fail("queue.protocol", "unknown value \"" + *p + "\" (expected \"none\", \"ncq\" or \"tcq\")");
    }
    m.queue.depth = static_cast<std::uint32_t>(r.integer(*q, "queue", "depth", false, true, 256).value_or(1));
    if (auto p = r.string(*q, "queue", "policy", false)) {
      if (*p == "fifo") m.queue.policy = QueuePolicy::fifo;
      else if (*p == "sptf") m.queue.policy = QueuePolicy::sptf;
      else r.fail("queue.policy", "unknown value \"" + *p + "\" (expected \"fifo\" or \"sptf\")");
    }
    if (m.queue.protocol == QueueProtocol::none) m.queue.depth = 1;
    if (!r.err && m.queue.protocol == QueueProtocol::ncq && m.queue.depth > 32)
      r.fail("queue.depth", "NCQ holds at most 32 commands");
  }
}

// "aam", "defects" and "noise": optional; each absent one leaves the model's defaults.
void parse_aam_defects_noise(Reader& r, const json& doc, DiskModel& m) {
  const std::string top;
  if (const json* a = r.object(doc, top, "aam", false)) {
    m.aam.supported = r.boolean(*a, "aam", "supported", true).value_or(false);
    m.aam.default_level =
        static_cast<std::uint8_t>(r.integer(*a, "aam", "default_level", false, true, 254).value_or(254));
    if (!r.err && m.aam.default_level < 128) r.fail("aam.default_level", "must be between 128 and 254");
    m.aam.quiet_seek_scale = r.number(*a, "aam", "quiet_seek_scale", false, 0, true).value_or(1.0);
    m.aam.quiet_rate_scale = r.number(*a, "aam", "quiet_rate_scale", false, 0, true).value_or(1.0);
    if (!r.err && m.aam.quiet_rate_scale > 4) r.fail("aam.quiet_rate_scale", "must be at most 4");
  }
  if (const json* ds = r.member(doc, top, "defects", false)) {
    if (!ds->is_array()) {
      r.fail("defects", "must be an array");
    } else {
      for (std::size_t i = 0; i < ds->size() && !r.err; ++i) {
        const std::string p = "defects[" + std::to_string(i) + "]";
        if (!(*ds)[i].is_object()) {
          r.fail(p, "must be an object");
          break;
        }
        DefectRegion d;
        d.first_lba = r.integer((*ds)[i], p, "first_lba", true, false).value_or(0);
        d.sectors = r.integer((*ds)[i], p, "sectors", true, true).value_or(1);
        d.extra_ms = r.number((*ds)[i], p, "extra_ms", true, 0, false).value_or(0);
        if (!r.err && d.first_lba + d.sectors > m.capacity()) r.fail(p, "lies beyond the capacity");
        m.defects.push_back(d);
      }
    }
  }
  if (const json* n = r.object(doc, top, "noise", false)) {
    m.noise.seed = r.integer(*n, "noise", "seed", false, false).value_or(1);
    m.noise.seek_jitter_pct = r.number(*n, "noise", "seek_jitter_pct", false, 0, false).value_or(0);
    if (!r.err && m.noise.seek_jitter_pct > 50) r.fail("noise.seek_jitter_pct", "must be at most 50");
  }
}

}  // namespace

// Keys are read in a fixed order and only the first error is kept, so each phase below reads on
// past an error (the Reader ignores later ones) exactly as a single pass would.
Expected<DiskModel> parse_model(std::string_view text) {
  const json doc = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return make_error("model: not valid JSON");
  if (!doc.is_object()) return make_error("model: must be a JSON object");
  Reader r;
  DiskModel m;
  parse_format(r, doc);
  if (r.err) return *r.err;
  parse_identity(r, doc, m);
  parse_geometry(r, doc, m);
  parse_zones(r, doc, m);
  parse_seek_and_timing(r, doc, m);
  parse_cache_and_queue(r, doc, m);
  parse_aam_defects_noise(r, doc, m);
  if (m.format_version >= 2 && !r.err) parse_v2_timing(r, doc, m);
  if (!r.err) parse_controller(r, doc, m);
  if (!r.err) parse_actuators(r, doc, m);
  if (!r.err) parse_smr(r, doc, m);
  if (!r.err) parse_zoned(r, doc, m);
  if (r.err) return *r.err;
  if (auto f = doc.find("faults"); f != doc.end()) {
    auto fs = parse_faults(*f, m.capacity());
    if (!fs) return fs.error();
    m.faults = std::move(*fs);
  }
  return m;
}

Expected<DiskModel> load_model_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return make_error(path + ": cannot open the model file", errno);
  std::ostringstream ss;
  ss << in.rdbuf();
  auto m = parse_model(ss.str());
  if (!m) return make_error(path + ": " + m.error().message, m.error().code);
  return m;
}

std::string model_to_json(const DiskModel& m) {
  json j;
  j["format"] = std::string(m.format_version >= 2 ? kModelFormat2 : kModelFormat);
  j["name"] = m.name;
  j["transport"] = std::string(to_string(m.transport));
  j["identity"] = {{"vendor", m.identity.vendor}, {"model", m.identity.model},
                   {"serial", m.identity.serial}, {"firmware", m.identity.firmware}};
  j["logical_sector_bytes"] = m.logical_sector_bytes;
  if (m.physical_sector_bytes != m.logical_sector_bytes) j["physical_sector_bytes"] = m.physical_sector_bytes;
  j["rpm"] = m.rpm;
  j["surfaces"] = m.surfaces;
  j["platters"] = m.platters;
  json zs = json::array();
  for (const auto& z : m.zones) {
    json zj = {{"cylinders", z.cylinders}, {"sectors_per_track", z.sectors_per_track}};
    if (z.track_skew_sectors) zj["track_skew_sectors"] = *z.track_skew_sectors;
    if (z.cylinder_skew_sectors) zj["cylinder_skew_sectors"] = *z.cylinder_skew_sectors;
    zs.push_back(zj);
  }
  j["zones"] = zs;
  if (m.capacity_sectors) j["capacity_sectors"] = *m.capacity_sectors;
  j["track_skew_sectors"] = m.track_skew_sectors ? json(*m.track_skew_sectors) : json(nullptr);
  j["cylinder_skew_sectors"] = m.cylinder_skew_sectors ? json(*m.cylinder_skew_sectors) : json(nullptr);
  json curve = nullptr;
  if (!m.seek.curve.empty()) {
    curve = json::array();
    for (const auto& [d, ms] : m.seek.curve) curve.push_back({d, ms});
  }
  j["seek"] = {{"track_to_track_ms", m.seek.track_to_track_ms}, {"average_ms", m.seek.average_ms},
               {"full_stroke_ms", m.seek.full_stroke_ms}, {"curve", curve}};
  j["head_switch_ms"] = m.head_switch_ms;
  j["write_settle_ms"] = m.write_settle_ms;
  j["command_overhead_ms"] = m.command_overhead_ms;
  j["interface_mb_s"] = m.interface_mb_s;
  j["cache"] = {{"bytes", m.cache.bytes}, {"segments", m.cache.segments},
                {"read_ahead_sectors", m.cache.read_ahead_sectors}, {"write_back", m.cache.write_back}};
  j["queue"] = {{"protocol", std::string(to_string(m.queue.protocol))}, {"depth", m.queue.depth},
                {"policy", std::string(to_string(m.queue.policy))}};
  j["aam"] = {{"supported", m.aam.supported}, {"default_level", m.aam.default_level},
              {"quiet_seek_scale", m.aam.quiet_seek_scale}, {"quiet_rate_scale", m.aam.quiet_rate_scale}};
  json ds = json::array();
  for (const auto& d : m.defects)
    ds.push_back({{"first_lba", d.first_lba}, {"sectors", d.sectors}, {"extra_ms", d.extra_ms}});
  j["defects"] = ds;
  j["noise"] = {{"seed", m.noise.seed}, {"seek_jitter_pct", m.noise.seek_jitter_pct}};
  if (m.format_version >= 2) write_v2_timing(m, j);
  write_controller(m.controller, j);
  if (!m.faults.empty()) j["faults"] = faults_to_json(m.faults);
  layout_keys_to_json(m, j);
  if (!m.actuators.empty()) {
    json as = json::array();
    for (const auto& x : m.actuators) as.push_back({{"first_lba", x.first_lba}, {"lba_count", x.lba_count}});
    j["actuators"] = as;
  }
  if (m.smr.enabled())
    j["smr"] = {{"media_cache_bytes", m.smr.media_cache_bytes}, {"cache_first_lba", m.smr.cache_first_lba},
                {"band_bytes", m.smr.band_bytes}, {"idle_delay_ms", m.smr.idle_delay_ms},
                {"idle_clean_mb_s", m.smr.idle_clean_mb_s}};
  if (m.zoned.enabled())
    j["zoned"] = {{"model", to_string(m.zoned.model)}, {"zone_bytes", m.zoned.zone_bytes},
                  {"conventional_zones", m.zoned.conventional_zones}};
  return j.dump(1);
}

}  // namespace ds::sim
