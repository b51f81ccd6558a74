// Model JSON → truth::detail::Model. Reads the keys of the format spec that the truth depends on;
// everything else (identity, cache policy, queue depth, provenance, ...) is ignored.
#include <algorithm>

#include "model.hpp"

namespace truth::detail {
namespace {

using nlohmann::json;

struct Bad {
  std::string what;
};

double num(const json& o, const char* key, double dflt, const std::string& where) {
  if (!o.is_object() || !o.contains(key) || o[key].is_null()) return dflt;
  if (!o[key].is_number()) throw Bad{where + key + ": must be a number"};
  return o[key].get<double>();
}

double need(const json& o, const char* key, const std::string& where) {
  if (!o.is_object() || !o.contains(key) || !o[key].is_number()) throw Bad{where + key + ": must be a number"};
  return o[key].get<double>();
}

std::optional<double> opt(const json& o, const char* key, const std::string& where) {
  if (!o.contains(key) || o[key].is_null()) return std::nullopt;
  return need(o, key, where);
}

const json& obj(const json& o, const char* key) {
  static const json empty = json::object();
  return o.contains(key) && o[key].is_object() ? o[key] : empty;
}

Zone parse_zone(const json& z, unsigned surfaces, const std::string& where) {
  Zone out;
  out.cylinders = static_cast<std::uint32_t>(need(z, "cylinders", where));
  const json& s = z.contains("sectors_per_track") ? z["sectors_per_track"] : json();
  if (s.is_number()) {
    out.spt.assign(surfaces, s.get<std::uint32_t>());
  } else if (s.is_array() && s.size() == surfaces) {
    for (const auto& v : s) {
      if (!v.is_number()) throw Bad{where + "sectors_per_track: must hold numbers"};
      out.spt.push_back(v.get<std::uint32_t>());
    }
  } else {
    throw Bad{where + "sectors_per_track: a number or one per surface"};
  }
  if (out.cylinders == 0 || std::find(out.spt.begin(), out.spt.end(), 0u) != out.spt.end())
    throw Bad{where + "cylinders and sectors_per_track must be positive"};
  out.track_skew = opt(z, "track_skew_sectors", where);
  out.cylinder_skew = opt(z, "cylinder_skew_sectors", where);
  return out;
}

void parse_seek(const json& j, Model& m) {
  const json& s = obj(j, "seek");
  m.t2t_ms = need(s, "track_to_track_ms", "seek.");
  m.avg_ms = need(s, "average_ms", "seek.");
  m.full_ms = need(s, "full_stroke_ms", "seek.");
  if (s.contains("curve") && s["curve"].is_array())
    for (const auto& p : s["curve"]) {
      if (!p.is_array() || p.size() != 2 || !p[0].is_number() || !p[1].is_number())
        throw Bad{"seek.curve: pairs of [cylinders, ms]"};
      m.curve.emplace_back(p[0].get<double>(), p[1].get<double>());
    }
  std::sort(m.curve.begin(), m.curve.end());
}

void parse_faults(const json& j, Model& m) {
  if (j.contains("defects") && j["defects"].is_array())
    for (const auto& d : j["defects"])
      m.defects.push_back({static_cast<std::uint64_t>(need(d, "first_lba", "defects[].")),
                           static_cast<std::uint64_t>(need(d, "sectors", "defects[].")),
                           need(d, "extra_ms", "defects[].")});
  if (j.contains("remapped") && j["remapped"].is_array())
    for (const auto& r : j["remapped"])
      m.remapped.push_back({static_cast<std::uint64_t>(need(r, "lba", "remapped[].")),
                            need(r, "extra_ms", "remapped[].")});
  if (j.contains("slipped") && j["slipped"].is_array())
    for (const auto& s : j["slipped"]) {
      if (!s.is_number_integer() || s.get<std::int64_t>() < 0) throw Bad{"slipped: must hold sector numbers"};
      m.slipped.push_back(s.get<std::uint64_t>());
    }
  std::sort(m.slipped.begin(), m.slipped.end());
  const json& sp = obj(j, "spares");
  m.spares_per_track = static_cast<std::uint32_t>(num(sp, "per_track", 0, "spares."));
  m.spares_per_cylinder = static_cast<std::uint32_t>(num(sp, "per_cylinder", 0, "spares."));
}

void parse_host(const json& j, Model& m) {
  const json& n = obj(j, "noise");
  m.host_latency_us = num(n, "host_latency_us", 0, "noise.");
  const json& st = obj(n, "host_stall");
  m.stall_probability = num(st, "probability", 0, "noise.host_stall.");
  m.stall_ms = num(st, "ms", 0, "noise.host_stall.");
  const json& rc = obj(j, "recalibration");
  m.recal_every_s = num(rc, "every_s", 0, "recalibration.");
  m.recal_ms = num(rc, "duration_ms", 0, "recalibration.");
}

// The controller keys the truth depends on (model.hpp says which and why).
void parse_controller(const json& j, Model& m) {
  const json& c = obj(j, "controller");
  m.bulk_sector_ms = num(c, "bulk_sector_ms", 0, "controller.");
  if (c.is_object() && c.contains("bus") && c["bus"].is_object()) {
    m.has_bus = true;
    m.bus_block_ms = num(c["bus"], "read_block_ms", 0, "controller.bus.");
  }
  if (c.is_object() && c.contains("overheads_ms") && c["overheads_ms"].is_object()) {
    const json& o = c["overheads_ms"];
    m.miss_overhead_ms = num(o, "read_miss_after_read", 0, "controller.overheads_ms.") +
                         num(o, "read_completion", 0, "controller.overheads_ms.");
  }
  if (m.has_bus && c.contains("read_reconnect") && c["read_reconnect"].is_object()) {
    const json& r = c["read_reconnect"];
    m.reconnect_ms = num(r, "first_reselect_ms", 0, "controller.read_reconnect.") +
                     num(r, "data_prep_ms", 0, "controller.read_reconnect.");
  }
}

void parse_drive(const json& j, Model& m) {
  const json& q = obj(j, "queue");
  const std::string proto = q.value("protocol", "none");
  const double window = num(q, "window", 2, "queue.");
  m.reorders = proto != "none" && q.value("policy", "fifo") == "sptf" && num(q, "depth", 1, "queue.") > 1 &&
               window > 1;
  const json& a = obj(j, "aam");
  m.aam_supported = a.value("supported", false);
  m.aam_level = num(a, "default_level", 254, "aam.");
  m.quiet_seek_scale = num(a, "quiet_seek_scale", 1, "aam.");
  m.short_seek_cylinders = num(a, "short_seek_cylinders", 0, "aam.");
  if (m.aam_supported && m.short_seek_cylinders == 0) m.quiet_cover = std::max(1.0, m.quiet_seek_scale);
  const bool v2 = j.value("format", "") == "drivescope-disk-model/2";
  m.jitter_cover = 1 + num(obj(j, "noise"), "seek_jitter_pct", 0, "noise.") / 100 * (v2 ? 3 : 1);
  m.cache_bytes = num(obj(j, "cache"), "bytes", 0, "cache.");
  m.head_switch_ms = num(j, "head_switch_ms", 0, "");
  m.overhead_ms = num(j, "command_overhead_ms", 0, "");
  m.interface_mb_s = num(j, "interface_mb_s", 150, "");
  parse_controller(j, m);
  const std::string layout = j.value("layout", "cylinder");
  if (layout != "cylinder" && layout != "surface_serpentine")
    throw Bad{"layout: \"cylinder\" or \"surface_serpentine\""};
  m.serpentine = layout == "surface_serpentine";
  m.band_cylinders = static_cast<std::uint32_t>(num(j, "band_cylinders", 0, ""));
  if (m.serpentine && m.band_cylinders == 0) throw Bad{"band_cylinders: needed by surface_serpentine"};
}

void parse_actuators(const json& j, Model& m) {
  if (!j.contains("actuators") || j["actuators"].is_null()) return;
  const json& a = j["actuators"];
  if (a.is_number_integer()) {
    if (a.get<std::int64_t>() < 1) throw Bad{"actuators: a count of at least 1"};
    m.actuator_count = a.get<unsigned>();
    return;
  }
  if (!a.is_array() || a.empty()) throw Bad{"actuators: a count or a list of {first_lba, lba_count}"};
  for (std::size_t i = 0; i < a.size(); ++i) {
    const std::string where = "actuators[" + std::to_string(i) + "].";
    m.actuator_ranges.emplace_back(static_cast<std::uint64_t>(need(a[i], "first_lba", where)),
                                   static_cast<std::uint64_t>(need(a[i], "lba_count", where)));
  }
}

}  // namespace

ds::Expected<Model> parse(const json& j) {
  try {
    if (!j.is_object()) throw Bad{"a model is a JSON object"};
    const std::string format = j.value("format", "");
    if (format != "drivescope-disk-model/1" && format != "drivescope-disk-model/2")
      throw Bad{"format: unknown \"" + format + "\""};
    Model m;
    m.name = j.value("name", "");
    m.sector_bytes = static_cast<std::uint32_t>(num(j, "logical_sector_bytes", 512, ""));
    m.rpm = need(j, "rpm", "");
    m.rpm_actual = num(j, "rpm_actual", m.rpm, "");
    m.surfaces = static_cast<unsigned>(need(j, "surfaces", ""));
    m.platters = static_cast<unsigned>(need(j, "platters", ""));
    if (m.surfaces == 0 || m.platters == 0 || m.rpm_actual <= 0) throw Bad{"rpm, surfaces, platters: must be positive"};
    if (!j.contains("zones") || !j["zones"].is_array() || j["zones"].empty()) throw Bad{"zones: a non-empty list"};
    for (std::size_t i = 0; i < j["zones"].size(); ++i)
      m.zones.push_back(parse_zone(j["zones"][i], m.surfaces, "zones[" + std::to_string(i) + "]."));
    if (j.contains("capacity_sectors") && !j["capacity_sectors"].is_null())
      m.capacity_sectors = static_cast<std::uint64_t>(need(j, "capacity_sectors", ""));
    m.track_skew = opt(j, "track_skew_sectors", "");
    m.cylinder_skew = opt(j, "cylinder_skew_sectors", "");
    parse_seek(j, m);
    parse_faults(j, m);
    parse_host(j, m);
    parse_drive(j, m);
    parse_actuators(j, m);
    return m;
  } catch (const Bad& b) {
    return ds::make_error(b.what);
  } catch (const json::exception& e) {
    return ds::make_error(std::string("model JSON: ") + e.what());
  }
}

}  // namespace truth::detail
