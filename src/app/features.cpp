#include "app/features.hpp"

#include <fmt/format.h>

namespace ds::app {

FeatureControl feature_control(Target& t, std::filesystem::path root) {
  return FeatureControl(t.device.get(), t.block_name, std::move(root));
}

namespace {

nlohmann::json reading_json(FeatureId f, const FeatureReading& r) {
  nlohmann::json j{{"reported", r.reported}, {"supported", r.supported}, {"source", r.source}};
  j["value"] = r.value ? value_to_json(f, *r.value) : nlohmann::json(nullptr);
  if (!r.note.empty()) j["note"] = r.note;
  return j;
}

std::string reading_text(FeatureId f, const FeatureReading& r) {
  if (!r.reported) return "not reported" + (r.note.empty() ? std::string() : " (" + r.note + ")");
  if (!r.supported) return "not supported";
  return r.value ? describe_value(f, *r.value) : "unknown";
}

}  // namespace

Expected<Report> feature_command(Target& t, FeatureId f, std::string_view action,
                                 std::string_view value, const std::filesystem::path& root) {
  FeatureControl fc = feature_control(t, root);
  Report rep;
  rep.json["drivescope"] = {{"version", version()}};
  rep.json["target"] = {{"name", t.spec}, {"kind", std::string(to_string(t.kind))}};
  const std::string name(to_string(f));
  std::string act = action.empty() ? "get" : control::lower_dashes(action);

  // A wrong action or value is a mistake on the command line, like the ones CLI11 finds: exit 2.
  if (act == "get" && !value.empty())
    return usage_error(fmt::format("{} get: unexpected extra argument '{}'", name, value));
  if (act == "get") {
    auto r = fc.read(f);
    if (!r) return r.error();
    rep.json["feature"] = {{"name", name}, {"action", "get"}, {"state", reading_json(f, *r)}};
    rep.text = fmt::format("{}: {}\n", name, reading_text(f, *r));
    if (!r->reported) rep.exit_code = kExitPartial;
    return rep;
  }
  std::string val_text = act == "set" ? std::string(value) : act;
  if (act == "set" && value.empty()) return usage_error(fmt::format("{} set: give a value", name));
  if (act != "set" && !value.empty())
    return usage_error(fmt::format("{} {}: unexpected extra argument '{}'", name, act, value));
  auto v = parse_feature_value(f, val_text);
  if (!v) return usage_error(v.error().message);
  auto s = fc.set(f, *v);
  if (!s) return s.error();
  rep.json["feature"] = {{"name", name},
                         {"action", "set"},
                         {"requested", value_to_json(f, s->requested)},
                         {"before", reading_json(f, s->before)},
                         {"after", reading_json(f, s->after)},
                         {"verification", std::string(to_string(s->verification))},
                         {"message", s->message}};
  rep.text = fmt::format("{}: set to {}: {}\n", name, describe_value(f, *v), s->message);
  // `set` keeps no restore state: the change stays until the drive is reset or set back (only
  // ab and ncq, which change a setting for a measurement, put it back themselves).
  if (t.kind == TargetKind::sim) {
    const std::string note = "simulated drive: the change lives only in this process and is gone when it ends";
    rep.json["feature"]["note"] = note;
    rep.text += "note: " + note + "\n";
  }
  if (s->verification == Verification::not_reported) {
    rep.warnings.push_back(s->message);
  } else if (s->verification == Verification::mismatch) {
    rep.warnings.push_back(s->message);
    rep.exit_code = kExitFailure;
  }
  return rep;
}

}  // namespace ds::app
