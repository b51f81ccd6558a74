#include "control/features.hpp"

#include <array>
#include <charconv>

#include <fmt/format.h>

#include "drivescope/commands.hpp"
#include "probe/identify.hpp"
#include "probe/scsi_decode.hpp"
#include "probe/sysfs.hpp"

namespace ds::control {

std::string lower_dashes(std::string_view s) {
  std::string o(s);
  for (auto& c : o) {
    if (c == '_') c = '-';
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return o;
}

namespace {

std::optional<unsigned> parse_uint(std::string_view s) {
  unsigned v = 0;
  if (s.empty()) return std::nullopt;
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    s.remove_prefix(2);
    base = 16;
  }
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

// Human names for the sentences the user reads.
std::string_view display_name(FeatureId f) {
  switch (f) {
    case FeatureId::aam: return "AAM";
    case FeatureId::apm: return "APM";
    case FeatureId::write_cache: return "the write cache";
    case FeatureId::read_ahead: return "read look-ahead";
    case FeatureId::scheduler: return "the I/O scheduler";
    case FeatureId::queue_depth: return "the host queue depth";
  }
  return "?";
}

Expected<probe::AtaIdentity> read_identity(Device& dev) {
  std::array<std::uint8_t, 512> buf{};
  auto r = ata::identify_device(dev, buf);
  if (!r.ok())
    return make_error("IDENTIFY DEVICE failed: " + (r.message.empty() ? std::string(to_string(r.outcome)) : r.message));
  // A bad checksum here is not ours to judge: the read-back only needs the feature words.
  return probe::decode_identify(buf, {.allow_bad_checksum = true});
}

// SET FEATURES subcommand and count for a value (ACS-3 table "SET FEATURES subcommands";
// AAM 42h/C2h from ATA8-ACS, obsolete in ACS-3 but what the drives of the seeds implement).
struct SfCommand {
  std::uint8_t sub = 0;
  std::uint8_t count = 0;
  std::string what;
};

SfCommand sf_command(FeatureId f, const FeatureValue& v) {
  switch (f) {
    case FeatureId::aam:
      if (v.enabled) return {ata::kSfEnableAam, static_cast<std::uint8_t>(v.level.value_or(254)),
                             fmt::format("enable AAM, level {}", v.level.value_or(254))};
      return {ata::kSfDisableAam, 0, "disable AAM"};
    case FeatureId::apm:
      if (v.enabled) return {ata::kSfEnableApm, static_cast<std::uint8_t>(v.level.value_or(254)),
                             fmt::format("enable APM, level {}", v.level.value_or(254))};
      return {ata::kSfDisableApm, 0, "disable APM"};
    case FeatureId::write_cache:
      return v.enabled ? SfCommand{ata::kSfEnableWriteCache, 0, "enable write cache"}
                       : SfCommand{ata::kSfDisableWriteCache, 0, "disable write cache"};
    case FeatureId::read_ahead:
      return v.enabled ? SfCommand{ata::kSfEnableLookAhead, 0, "enable read look-ahead"}
                       : SfCommand{ata::kSfDisableLookAhead, 0, "disable read look-ahead"};
    default: return {};
  }
}

FeatureReading from_identity(FeatureId f, const probe::AtaIdentity& id) {
  FeatureReading r;
  r.reported = true;
  auto simple = [&](const probe::Feature& feat, const char* src) {
    r.source = src;
    r.supported = feat.supported;
    if (feat.supported && feat.enabled) r.value = FeatureValue{.enabled = *feat.enabled};
    else if (feat.supported) { r.reported = false; r.note = "IDENTIFY's enabled word is not valid"; }
  };
  switch (f) {
    case FeatureId::write_cache: simple(id.write_cache, "IDENTIFY w82/w85 bit 5"); break;
    case FeatureId::read_ahead: simple(id.read_look_ahead, "IDENTIFY w82/w85 bit 6"); break;
    case FeatureId::aam:
      simple(id.aam, "IDENTIFY w83/w86 bit 9, w94");
      if (!id.aam.supported) {
        r.reported = false;
        r.note = "IDENTIFY does not report AAM (word 83 bit 9 clear)";
      } else if (r.value && r.value->enabled) {
        r.value->level = id.aam_current_level.value_or(0);
      }
      break;
    case FeatureId::apm:
      simple(id.apm, "IDENTIFY w83/w86 bit 3, w91");
      if (!id.apm.supported) {
        r.reported = false;
        r.note = "IDENTIFY does not report APM (word 83 bit 3 clear)";
      } else if (r.value && r.value->enabled) {
        r.value->level = id.apm_level.value_or(0);
      }
      break;
    default: break;
  }
  return r;
}

}  // namespace

std::string_view to_string(FeatureId f) {
  switch (f) {
    case FeatureId::aam: return "aam";
    case FeatureId::apm: return "apm";
    case FeatureId::write_cache: return "write-cache";
    case FeatureId::read_ahead: return "read-ahead";
    case FeatureId::scheduler: return "scheduler";
    case FeatureId::queue_depth: return "queue-depth";
  }
  return "?";
}

std::optional<FeatureId> parse_feature_id(std::string_view name) {
  const std::string n = lower_dashes(name);
  if (n == "aam") return FeatureId::aam;
  if (n == "apm") return FeatureId::apm;
  if (n == "write-cache" || n == "wcache") return FeatureId::write_cache;
  if (n == "read-ahead" || n == "look-ahead" || n == "read-look-ahead") return FeatureId::read_ahead;
  if (n == "scheduler") return FeatureId::scheduler;
  if (n == "queue-depth") return FeatureId::queue_depth;
  return std::nullopt;
}

bool is_ata_feature(FeatureId f) {
  return f == FeatureId::aam || f == FeatureId::apm || f == FeatureId::write_cache ||
         f == FeatureId::read_ahead;
}

std::string_view to_string(Verification v) {
  switch (v) {
    case Verification::verified: return "verified";
    case Verification::not_reported: return "not_reported";
    case Verification::mismatch: return "mismatch";
  }
  return "?";
}

Expected<FeatureValue> parse_feature_value(FeatureId f, std::string_view text) {
  const std::string t = lower_dashes(text);
  if (t.empty()) return make_error(fmt::format("{}: empty value", to_string(f)));
  switch (f) {
    case FeatureId::aam: {
      // ATA8-ACS: 80h minimum acoustic emanation .. FEh maximum performance; 81h-FDh between.
      if (t == "quiet") return FeatureValue{true, 128u, {}};
      if (t == "fast") return FeatureValue{true, 254u, {}};
      if (t == "off" || t == "disable") return FeatureValue{false, std::nullopt, {}};
      auto n = parse_uint(t);
      if (!n || *n < 128 || *n > 254)
        return make_error(fmt::format("aam: '{}' is not quiet, fast, off or a level 128..254", text));
      return FeatureValue{true, *n, {}};
    }
    case FeatureId::apm: {
      // ATA8-ACS: 01h-FEh are levels (01h-7Fh permit spin-down); FFh is reserved, "off" disables.
      if (t == "off" || t == "disable" || t == "255") return FeatureValue{false, std::nullopt, {}};
      auto n = parse_uint(t);
      if (!n || *n < 1 || *n > 254)
        return make_error(fmt::format("apm: '{}' is not off or a level 1..254", text));
      return FeatureValue{true, *n, {}};
    }
    case FeatureId::write_cache:
    case FeatureId::read_ahead:
      if (t == "on" || t == "1" || t == "enable" || t == "enabled") return FeatureValue{true, {}, {}};
      if (t == "off" || t == "0" || t == "disable" || t == "disabled") return FeatureValue{false, {}, {}};
      return make_error(fmt::format("{}: '{}' is not on or off", to_string(f), text));
    case FeatureId::scheduler:
      for (char c : t)
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_'))
          return make_error(fmt::format("scheduler: '{}' is not a scheduler name", text));
      return FeatureValue{true, {}, std::string(text)};
    case FeatureId::queue_depth: {
      auto n = parse_uint(t);
      if (!n || *n < 1 || *n > 65535)
        return make_error(fmt::format("queue-depth: '{}' is not a depth 1..65535", text));
      return FeatureValue{true, *n, {}};
    }
  }
  return make_error("unknown feature");
}

std::string describe_value(FeatureId f, const FeatureValue& v) {
  switch (f) {
    case FeatureId::aam:
      if (!v.enabled) return "off";
      if (v.level == 128u) return "128 (quiet)";
      if (v.level == 254u) return "254 (fast)";
      return v.level ? std::to_string(*v.level) : "on";
    case FeatureId::apm:
      if (!v.enabled) return "off";
      return v.level ? std::to_string(*v.level) : "on";
    case FeatureId::write_cache:
    case FeatureId::read_ahead: return v.enabled ? "on" : "off";
    case FeatureId::scheduler: return v.name;
    case FeatureId::queue_depth: return v.level ? std::to_string(*v.level) : "?";
  }
  return "?";
}

nlohmann::json value_to_json(FeatureId f, const FeatureValue& v) {
  nlohmann::json j{{"enabled", v.enabled}};
  if (v.level) j["level"] = *v.level;
  if (f == FeatureId::scheduler) j["name"] = v.name;
  j["text"] = describe_value(f, v);
  return j;
}

Expected<FeatureValue> value_from_json(FeatureId f, const nlohmann::json& j) {
  if (!j.is_object() || !j.contains("enabled") || !j["enabled"].is_boolean())
    return make_error(fmt::format("{}: saved value has no 'enabled'", to_string(f)));
  FeatureValue v;
  v.enabled = j["enabled"].get<bool>();
  if (j.contains("level")) {
    if (!j["level"].is_number_unsigned()) return make_error(fmt::format("{}: bad saved level", to_string(f)));
    v.level = j["level"].get<unsigned>();
  }
  if (f == FeatureId::scheduler) {
    if (!j.contains("name") || !j["name"].is_string()) return make_error("scheduler: saved value has no name");
    v.name = j["name"].get<std::string>();
    auto ok = parse_feature_value(f, v.name);
    if (!ok) return ok.error();
  }
  if (f == FeatureId::queue_depth && !v.level) return make_error("queue-depth: saved value has no level");
  return v;
}

FeatureControl::FeatureControl(Device* dev, std::string block_name, std::filesystem::path root)
    : dev_(dev), block_(std::move(block_name)), root_(std::move(root)) {}

bool FeatureControl::ata() const { return dev_ && dev_->info().ata_capable; }

Expected<FeatureReading> FeatureControl::read(FeatureId f) {
  if (f == FeatureId::scheduler || f == FeatureId::queue_depth) return read_sysfs(f);
  if (ata()) return read_ata(f);
  if (dev_ && dev_->info().scsi_capable) return read_scsi(f);
  return make_error(fmt::format("{}: this target has no command passthrough", to_string(f)));
}

Expected<FeatureReading> FeatureControl::read_ata(FeatureId f) {
  auto id = read_identity(*dev_);
  if (!id) return id.error();
  return from_identity(f, *id);
}

Expected<FeatureReading> FeatureControl::read_scsi(FeatureId f) {
  if (f == FeatureId::aam || f == FeatureId::apm)
    return make_error(fmt::format("{} is an ATA feature and this is a SCSI device", display_name(f)));
  // SBC-3 6.4.5 Caching mode page: WCE (write cache enable), DRA (disable read-ahead).
  std::array<std::uint8_t, 252> buf{};
  auto r = scsi::mode_sense10(*dev_, 0x08, 0, buf);
  bool ten = true;
  if (!r.ok()) {
    r = scsi::mode_sense6(*dev_, 0x08, 0, std::span(buf).first(252));
    ten = false;
  }
  if (!r.ok()) return make_error("MODE SENSE (Caching page) failed: " + r.message);
  auto page = scsi::decode_mode_sense_caching(buf, ten);
  if (!page) return make_error("Caching mode page: " + page.error().message);
  FeatureReading out;
  out.reported = out.supported = true;
  out.source = "MODE SENSE Caching page (SBC-3 6.4.5)";
  out.value = FeatureValue{.enabled = f == FeatureId::write_cache ? page->wce : !page->dra};
  return out;
}

Expected<FeatureReading> FeatureControl::read_sysfs(FeatureId f) {
  if (block_.empty())
    return make_error(fmt::format("{} is a Linux block-layer setting; this target is not a block device",
                                  display_name(f)));
  auto facts = sysfs::facts_for_device(block_, root_);
  if (!facts) return facts.error();
  FeatureReading out;
  out.source = "sysfs";
  if (f == FeatureId::scheduler) {
    out.reported = out.supported = !facts->scheduler.empty();
    if (out.reported) out.value = FeatureValue{true, {}, facts->scheduler};
    else out.note = "no queue/scheduler attribute";
  } else {
    out.reported = out.supported = facts->queue_depth.has_value();
    if (out.reported) out.value = FeatureValue{true, *facts->queue_depth, {}};
    else out.note = "no device/queue_depth attribute";
  }
  return out;
}

Expected<SetResult> FeatureControl::set(FeatureId f, const FeatureValue& v) {
  SetResult res;
  res.feature = f;
  res.requested = v;
  auto before = read(f);
  if (!before) return before.error();
  res.before = *before;

  if (f == FeatureId::scheduler) {
    auto prev = sysfs::set_scheduler(block_, v.name, root_);
    if (!prev) return prev.error();
  } else if (f == FeatureId::queue_depth) {
    auto prev = sysfs::set_queue_depth(block_, v.level.value_or(0), root_);
    if (!prev) return prev.error();
  } else if (ata()) {
    const auto cmd = sf_command(f, v);
    auto r = ata::set_features(*dev_, cmd.sub, cmd.count);
    if (!r.ok())
      return make_error(fmt::format("SET FEATURES ({}) was rejected: {}", cmd.what,
                                    r.message.empty() ? std::string(to_string(r.outcome)) : r.message));
  } else {
    return make_error(fmt::format(
        "changing {} on a SCSI device needs MODE SELECT, which this version does not send", display_name(f)));
  }

  auto after = read(f);
  if (!after) return make_error("the change was sent, but reading it back failed: " + after.error().message);
  res.after = *after;
  const std::string how = is_ata_feature(f) ? "SET FEATURES" : "the change";
  if (!after->reported || !after->value) {
    res.verification = Verification::not_reported;
    if (f == FeatureId::aam)
      res.message = "the drive accepted SET FEATURES but IDENTIFY does not report AAM, so the new level cannot be verified";
    else if (f == FeatureId::apm)
      res.message = "the drive accepted SET FEATURES but IDENTIFY does not report APM, so the new level cannot be verified";
    else
      res.message = fmt::format("the drive accepted {} but does not report {}, so the new state cannot be verified",
                                how, display_name(f));
  } else if (*after->value == v || (f == FeatureId::queue_depth && after->value->level == v.level)) {
    res.verification = Verification::verified;
    res.message = fmt::format("{} is now {} (read back from {})", display_name(f), describe_value(f, v),
                              after->source);
  } else {
    res.verification = Verification::mismatch;
    res.message = fmt::format("{} accepted, but {} reads back {} instead of {}", how, after->source,
                              describe_value(f, *after->value), describe_value(f, v));
    if (f == FeatureId::aam || f == FeatureId::apm)
      res.message += " (drives may round a level to one they implement)";
  }
  return res;
}

}  // namespace ds::control
