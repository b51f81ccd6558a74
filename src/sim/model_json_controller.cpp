// The "controller" block of a disk-model file: DiskSim's controller overheads, write-behind
// level and bulk sector time, and its bus, reconnection and read-ahead rules (docs/disk-model.md,
// "Controller keys" and "The bus, reconnection and read-ahead rules"). Errors name the field, as
// everywhere in the parser (model_json.cpp).
#include <cmath>
#include <string>

#include "sim/model_json_reader.hpp"

namespace ds::sim {

namespace {

// controller.bus, controller.read_reconnect and controller.prefetch (DiskSim's bus, reconnection
// and read-ahead rules, docs/disk-model.md).
void parse_bus_keys(Reader& r, const json& c, const std::string& pre, ControllerSpec& out) {
  if (const json* b = r.object(c, pre, "bus", false)) {
    const std::string bp = pre + ".bus";
    BusSpec s;
    s.read_block_ms = r.number(*b, bp, "read_block_ms", true, 0, false).value_or(0);
    s.write_block_ms = r.number(*b, bp, "write_block_ms", true, 0, false).value_or(0);
    out.bus = s;
  }
  if (const json* w = r.object(c, pre, "read_reconnect", false)) {
    const std::string wp = pre + ".read_reconnect";
    ReconnectSpec s;
    s.high_water = r.number(*w, wp, "high_water", true, 0, false).value_or(0);
    if (!r.err && s.high_water > 1) r.fail(wp + ".high_water", "must be at most 1");
    s.by_request_size = r.boolean(*w, wp, "by_request_size", false).value_or(true);
    s.first_reselect_ms = r.number(*w, wp, "first_reselect_ms", false, 0, false).value_or(0);
    s.data_prep_ms = r.number(*w, wp, "data_prep_ms", false, 0, false).value_or(0);
    s.disconnect_ms[0] = r.number(*w, wp, "disconnect_after_read_ms", false, 0, false).value_or(0);
    s.disconnect_ms[1] = r.number(*w, wp, "disconnect_after_write_ms", false, 0, false).value_or(0);
    if (!r.err && !out.bus) r.fail(wp, "needs controller.bus (a reconnection is a bus phase)");
    out.read_reconnect = s;
  }
  if (const json* w = r.object(c, pre, "write_reconnect", false)) {
    const std::string wp = pre + ".write_reconnect";
    WriteReconnectSpec s;
    s.disconnect_ms = r.number(*w, wp, "disconnect_ms", false, 0, false).value_or(0);
    s.reselect_ms = r.number(*w, wp, "reselect_ms", false, 0, false).value_or(0);
    s.data_prep_ms = r.number(*w, wp, "data_prep_ms", false, 0, false).value_or(0);
    s.min_seek_ms = r.number(*w, wp, "min_seek_ms", false, 0, false).value_or(0);
    if (const json* x = r.object(*w, wp, "extra_disconnect", false)) {
      const std::string xp = wp + ".extra_disconnect";
      ExtraDisconnectSpec e;
      e.command_ms = r.number(*x, xp, "command_ms", true, 0, false).value_or(0);
      e.seek_delta_ms = r.number(*x, xp, "seek_delta_ms", false, 0, false).value_or(0);
      e.disconnect_ms = r.number(*x, xp, "disconnect_ms", false, 0, false).value_or(0);
      e.inter_disconnect_ms = r.number(*x, xp, "inter_disconnect_ms", false, 0, false).value_or(0);
      e.second_disconnect_ms = r.number(*x, xp, "second_disconnect_ms", false, 0, false).value_or(0);
      e.reselect_ms = r.number(*x, xp, "reselect_ms", false, 0, false).value_or(0);
      s.extra = e;
    }
    if (!r.err && !out.bus) r.fail(wp, "needs controller.bus (a reconnection is a bus phase)");
    out.write_reconnect = s;
  }
  if (const json* f = r.object(c, pre, "prefetch", false)) {
    const std::string fp = pre + ".prefetch";
    PrefetchSpec s;
    s.continuous_read = static_cast<int>(r.integer(*f, fp, "continuous_read", true, false, 4).value_or(3));
    if (const json* v = r.member(*f, fp, "over_requested", false)) {
      if (!v->is_number_integer() || v->get<std::int64_t>() < -1 || v->get<std::int64_t>() > 1)
        r.fail(fp + ".over_requested", "must be -1, 0 or 1");
      else s.over_requested = static_cast<int>(v->get<std::int64_t>());
    }
    s.on_idle_hit = r.boolean(*f, fp, "on_idle_hit", false).value_or(true);
    s.after_sequential_reads =
        static_cast<std::uint32_t>(r.integer(*f, fp, "after_sequential_reads", false, false, 1000).value_or(0));
    out.prefetch = s;
  }
}

void write_bus_keys(const ControllerSpec& c, json& o) {
  if (c.bus) o["bus"] = {{"read_block_ms", c.bus->read_block_ms}, {"write_block_ms", c.bus->write_block_ms}};
  if (const auto& w = c.read_reconnect)
    o["read_reconnect"] = {{"high_water", w->high_water},
                           {"by_request_size", w->by_request_size},
                           {"first_reselect_ms", w->first_reselect_ms},
                           {"data_prep_ms", w->data_prep_ms},
                           {"disconnect_after_read_ms", w->disconnect_ms[0]},
                           {"disconnect_after_write_ms", w->disconnect_ms[1]}};
  if (const auto& w = c.write_reconnect) {
    o["write_reconnect"] = {{"disconnect_ms", w->disconnect_ms},
                            {"reselect_ms", w->reselect_ms},
                            {"data_prep_ms", w->data_prep_ms},
                            {"min_seek_ms", w->min_seek_ms}};
    if (const auto& e = w->extra)
      o["write_reconnect"]["extra_disconnect"] = {{"command_ms", e->command_ms},
                                                  {"seek_delta_ms", e->seek_delta_ms},
                                                  {"disconnect_ms", e->disconnect_ms},
                                                  {"inter_disconnect_ms", e->inter_disconnect_ms},
                                                  {"second_disconnect_ms", e->second_disconnect_ms},
                                                  {"reselect_ms", e->reselect_ms}};
  }
  if (const auto& f = c.prefetch)
    o["prefetch"] = {{"continuous_read", f->continuous_read},
                     {"over_requested", f->over_requested},
                     {"on_idle_hit", f->on_idle_hit}};
  if (c.prefetch && c.prefetch->after_sequential_reads > 0)
    o["prefetch"]["after_sequential_reads"] = c.prefetch->after_sequential_reads;
}

}  // namespace

// The optional "controller" object (docs/disk-model.md, "Controller keys").
void parse_controller(Reader& r, const json& doc, DiskModel& m) {
  const json* c = r.object(doc, "", "controller", false);
  if (!c) return;
  const std::string pre = "controller";
  if (const json* o = r.object(*c, pre, "overheads_ms", false)) {
    const std::string op = pre + ".overheads_ms";
    OverheadTable t;
    auto pair = [&](std::string_view key, double* out) {
      const std::string k(key);
      out[0] = r.number(*o, op, k + "_after_read", true, 0, false).value_or(0);
      out[1] = r.number(*o, op, k + "_after_write", true, 0, false).value_or(0);
    };
    pair("read_hit", t.read_hit);
    pair("read_miss", t.read_miss);
    pair("write_hit", t.write_hit);
    pair("write_miss", t.write_miss);
    t.read_completion = r.number(*o, op, "read_completion", false, 0, false).value_or(0);
    t.write_completion = r.number(*o, op, "write_completion", false, 0, false).value_or(0);
    m.controller.overheads = t;
  }
  if (auto v = r.integer(*c, pre, "write_behind_level", false, false, 2)) m.controller.write_behind_level = static_cast<int>(*v);
  if (auto v = r.number(*c, pre, "bulk_sector_ms", false, 0, true)) m.controller.bulk_sector_ms = *v;
  if (const json* v = r.member(*c, pre, "write_settle_ms", false)) {
    if (!v->is_number() || !std::isfinite(v->get<double>())) r.fail(pre + ".write_settle_ms", "must be a number");
    else m.controller.write_settle_ms = v->get<double>();
  }
  parse_bus_keys(r, *c, pre, m.controller);
}

void write_controller(const ControllerSpec& c, json& j) {
  if (!c.any()) return;
  json& o = j["controller"];
  if (c.overheads) {
    const OverheadTable& t = *c.overheads;
    json ov;
    auto pair = [&](const std::string& key, const double* v) {
      ov[key + "_after_read"] = v[0];
      ov[key + "_after_write"] = v[1];
    };
    pair("read_hit", t.read_hit);
    pair("read_miss", t.read_miss);
    pair("write_hit", t.write_hit);
    pair("write_miss", t.write_miss);
    ov["read_completion"] = t.read_completion;
    ov["write_completion"] = t.write_completion;
    o["overheads_ms"] = ov;
  }
  if (c.write_behind_level) o["write_behind_level"] = *c.write_behind_level;
  if (c.bulk_sector_ms) o["bulk_sector_ms"] = *c.bulk_sector_ms;
  if (c.write_settle_ms) o["write_settle_ms"] = *c.write_settle_ms;
  write_bus_keys(c, o);
}

}  // namespace ds::sim
