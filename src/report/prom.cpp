#include "report/prom.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "report/envelope.hpp"
#include "report/json_read.hpp"
#include "tests/result_keys.hpp"

namespace ds::report {

using nlohmann::json;
namespace K = measure::key;

namespace {

// Length of the UTF-8 sequence starting at s[i], or 0 when it is not one.
std::size_t utf8_length(std::string_view s, std::size_t i) {
  const auto b = static_cast<unsigned char>(s[i]);
  std::size_t n = b >= 0xF0 && b <= 0xF4 ? 4 : b >= 0xE0 ? 3 : b >= 0xC2 && b <= 0xDF ? 2 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k)
    if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return 0;
  return n;
}

const json& at(const json& j, const char* key) {
  static const json null;
  if (!j.is_object()) return null;
  auto it = j.find(key);
  return it == j.end() ? null : *it;
}

std::optional<bool> flag(const json& j, const char* key) {
  const json& v = at(j, key);
  return v.is_boolean() ? std::optional<bool>(v.get<bool>()) : std::nullopt;
}

// Builds the metric list; a metric only appears when one of its samples is known.
class Metrics {
 public:
  Metrics(std::string device, std::string command) : device_(std::move(device)), command_(std::move(command)) {}

  void add(const std::string& name, const std::string& help, std::optional<double> v,
           std::vector<std::pair<std::string, std::string>> extra = {}) {
    if (!v || !std::isfinite(*v)) return;
    PromMetric* m = nullptr;
    for (auto& x : out_)
      if (x.name == name) m = &x;
    if (m == nullptr) m = &out_.emplace_back(PromMetric{name, help, "gauge", {}});
    extra.insert(extra.begin(), {"device", device_});
    extra.emplace_back("command", command_);
    m->samples.push_back({std::move(extra), *v});
  }
  void add_bool(const std::string& name, const std::string& help, std::optional<bool> v) {
    add(name, help, v ? std::optional<double>(*v ? 1.0 : 0.0) : std::nullopt);
  }
  std::vector<PromMetric> take() { return std::move(out_); }

 private:
  std::string device_, command_;
  std::vector<PromMetric> out_;
};

std::optional<double> scaled(const json& j, const char* key, double factor) {
  auto v = json_number(j, key);
  return v ? std::optional<double>(*v * factor) : std::nullopt;
}

// Milliseconds to seconds by division: 6.1879 / 1000 prints as 0.0061879, where * 1e-3 gives
// 0.0061879000000000005.
std::optional<double> seconds(const json& j, const char* key_ms) {
  auto v = json_number(j, key_ms);
  return v ? std::optional<double>(*v / 1000) : std::nullopt;
}

void identity_metrics(Metrics& m, const json& doc) {
  const json& id = at(doc, "identify");
  const json smart = smartctl_identity(id);
  std::vector<std::pair<std::string, std::string>> labels;
  // model_family: the drive database's family (smartctl's key, smartctl_exporter's label of the
  // same name), "" when the table has no entry for the drive or was not read.
  for (const char* k : {"model_name", "serial_number", "firmware_version", "model_family"})
    labels.emplace_back(k, smart.contains(k) ? smart[k].get<std::string>() : "");
  m.add("drivescope_device_info", "identity of the drive; the value is always 1", 1.0, std::move(labels));
  m.add("drivescope_device_capacity_bytes", "user capacity in bytes", json_number(id, "capacity_bytes"));
  m.add("drivescope_device_block_size_bytes", "logical and physical sector size in bytes",
        json_number(id, "logical_sector_bytes"), {{"blocks_type", "logical"}});
  m.add("drivescope_device_block_size_bytes", "logical and physical sector size in bytes",
        json_number(id, "physical_sector_bytes"), {{"blocks_type", "physical"}});
  // IDENTIFY's nominal rate; 1 means solid state, written 0 as smartctl does.
  if (auto rpm = json_number(id, "rotation_rate_rpm"))
    m.add("drivescope_device_rotation_rate_rpm", "nominal rotation rate the drive claims, rpm (0: solid state)",
          *rpm == 1 ? 0.0 : *rpm);

  // NCQ in three layers (docs/cli.md, `ncq`): claimed by the drive, enabled by the host (Linux
  // queue depth above 1), effective (the queue test saw the drive reorder).
  const json& ncq = at(id, "ncq");
  m.add_bool("drivescope_ncq_claimed", "the drive claims NCQ (IDENTIFY word 76 bit 8), 0/1", flag(ncq, "supported"));
  m.add("drivescope_ncq_claimed_depth", "queue depth the drive claims", json_number(ncq, "depth"));
  const json& host = at(doc, "host");
  if (auto claimed = flag(ncq, "supported"); claimed && host.is_object()) {
    auto qd = json_number(host, "queue_depth");
    if (qd) m.add_bool("drivescope_ncq_enabled", "NCQ claimed and enabled by the host (queue depth above 1), 0/1",
                       *claimed && *qd > 1);
  }
  const json& queue = at(at(doc, K::kDocumentKey), K::tests::queue);
  m.add_bool("drivescope_ncq_effective", "the queue test saw the drive reorder queued reads, 0/1",
             flag(queue, K::queue::reorders));

  const json& aam = at(id, "aam");
  m.add_bool("drivescope_aam_enabled", "Automatic Acoustic Management enabled, 0/1",
             flag(aam, "supported").value_or(false) ? flag(aam, "enabled") : std::nullopt);
  m.add("drivescope_aam_level", "AAM level (128 quiet ... 254 fast)", json_number(aam, "current_level"));
  const json& apm = at(id, "apm");
  m.add_bool("drivescope_apm_enabled", "Advanced Power Management enabled, 0/1",
             flag(apm, "supported").value_or(false) ? flag(apm, "enabled") : std::nullopt);
  m.add("drivescope_apm_level", "APM level (1 most saving ... 254 fastest)", json_number(apm, "level"));
  for (const char* f : {"write_cache", "read_ahead"}) {
    const json& s = at(id, f);
    m.add_bool(fmt::format("drivescope_{}_enabled", f), fmt::format("{} enabled, 0/1", f), flag(s, "enabled"));
  }
  const json& smart_block = at(id, "smart");
  m.add_bool("drivescope_smart_status_passed", "SMART overall health passed, 0/1", flag(smart_block, "status_good"));
  m.add("drivescope_temperature_celsius", "drive temperature from SMART, degrees Celsius",
        json_number(smart_block, "temperature_c"));
  m.add("drivescope_power_on_seconds", "power-on time from SMART, seconds",
        scaled(smart_block, "power_on_hours", 3600));
  // An NVMe drive's SMART / Health log (identify.nvme.health) gives the same three: it passes while
  // no Critical Warning bit is set, as scan says and smartctl -H does.
  const json& health = at(at(id, "nvme"), "health");
  if (auto cw = json_number(health, "critical_warning"))
    m.add_bool("drivescope_smart_status_passed", "SMART overall health passed, 0/1", *cw == 0);
  m.add("drivescope_temperature_celsius", "drive temperature from SMART, degrees Celsius",
        json_number(health, "temperature_c"));
  m.add("drivescope_power_on_seconds", "power-on time from SMART, seconds", scaled(health, "power_on_hours", 3600));
}

void bench_metrics(Metrics& m, const json& doc) {
  const json& tests = at(doc, K::kDocumentKey);
  namespace A = K::access;
  const json& access = at(tests, K::tests::access);
  const json& read = at(access, A::read);
  const std::string at_help = "random read access time (seek + rotational latency + overhead), seconds";
  m.add("drivescope_access_time_seconds", at_help, seconds(read, K::latency::mean_ms), {{"stat", "mean"}});
  m.add("drivescope_access_time_seconds", at_help, seconds(read, K::latency::p50_ms), {{"stat", "p50"}});
  m.add("drivescope_access_time_seconds", at_help, seconds(read, K::latency::p99_ms), {{"stat", "p99"}});
  const std::string seek_help = "seek time by kind, seconds";
  m.add("drivescope_seek_time_seconds", seek_help, seconds(access, A::avg_seek_ms), {{"kind", "average"}});
  m.add("drivescope_seek_time_seconds", seek_help, seconds(access, A::track_to_track_ms), {{"kind", "track_to_track"}});
  m.add("drivescope_seek_time_seconds", seek_help, seconds(access, A::full_stroke_ms), {{"kind", "full_stroke"}});
  m.add("drivescope_measured_rotation_rate_rpm", "rotation rate measured from access times, rpm",
        json_number(access, A::rpm_estimate));
  const json& slow = at(access, A::slow_regions);
  if (slow.is_array())
    m.add("drivescope_slow_regions", "regions whose reads were far slower than the rest", static_cast<double>(slow.size()));
  namespace T = K::transfer;
  const json& transfer = at(tests, K::tests::transfer);
  const std::string rate_help = "sequential read rate at the outer and inner zones, bytes per second";
  m.add("drivescope_transfer_rate_bytes_per_second", rate_help, scaled(transfer, T::outer_mb_s, 1e6), {{"zone", "outer"}});
  m.add("drivescope_transfer_rate_bytes_per_second", rate_help, scaled(transfer, T::inner_mb_s, 1e6), {{"zone", "inner"}});
  m.add("drivescope_transfer_outer_inner_ratio", "outer zone rate over inner zone rate",
        json_number(transfer, T::outer_inner_ratio));
  const json& cache = at(tests, K::tests::cache);
  m.add("drivescope_cache_burst_rate_bytes_per_second", "read rate from the drive's cache, bytes per second",
        scaled(cache, K::cache::burst_mb_s, 1e6));
  m.add("drivescope_cache_size_bytes", "cache size estimate, bytes", json_number(cache, K::cache::size_bytes_estimate));
  m.add("drivescope_bench_drive_time_seconds", "drive time the bench used, seconds",
        json_number(tests, K::tests::drive_time_s));
}

}  // namespace

std::string prom_escape_label(std::string_view v) {
  std::string out;
  out.reserve(v.size());
  for (std::size_t i = 0; i < v.size();) {
    const char c = v[i];
    const auto b = static_cast<unsigned char>(c);
    if (c == '\\') out += "\\\\";
    else if (c == '"') out += "\\\"";
    else if (c == '\n') out += "\\n";
    else if (b < 0x20 || b == 0x7F) out += ' ';
    else if (b < 0x80) out += c;
    else if (std::size_t n = utf8_length(v, i); n > 0) {
      out.append(v.substr(i, n));
      i += n;
      continue;
    } else {
      out += '?';
    }
    ++i;
  }
  return out;
}

std::string prom_escape_help(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '\\') out += "\\\\";
    else if (c == '\n') out += "\\n";
    else out += c;
  }
  return out;
}

std::string prom_value(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  return fmt::format("{}", v);
}

std::string format_prom(const std::vector<PromMetric>& metrics) {
  std::string out;
  for (const auto& m : metrics) {
    if (m.samples.empty()) continue;
    out += fmt::format("# HELP {} {}\n# TYPE {} {}\n", m.name, prom_escape_help(m.help), m.name, m.type);
    for (const auto& s : m.samples) {
      out += m.name;
      if (!s.labels.empty()) {
        out += '{';
        for (std::size_t i = 0; i < s.labels.size(); ++i)
          out += fmt::format("{}{}=\"{}\"", i ? "," : "", s.labels[i].first, prom_escape_label(s.labels[i].second));
        out += '}';
      }
      out += ' ' + prom_value(s.value) + '\n';
    }
  }
  return out;
}

std::string prom_device_label(std::string_view name) {
  if (name.rfind("/dev/", 0) == 0) return std::string(name.substr(5));
  return std::string(name);
}

// The `ncq` command's own three layers (its document carries them whole, and no identity), under
// names of their own: its "claimed" is NCQ or legacy TCQ (label protocol), where identify's
// drivescope_ncq_claimed is NCQ alone, and one name must mean one thing across a host's files.
void ncq_metrics(Metrics& m, const json& ncq) {
  const json& claimed = at(ncq, "claimed");
  const json& proto = at(claimed, "protocol");
  const std::string p = proto.is_string() ? proto.get<std::string>() : "none";
  auto num = [](std::optional<bool> b) { return b ? std::optional<double>(*b ? 1.0 : 0.0) : std::nullopt; };
  m.add("drivescope_queue_claimed", "the drive claims command queuing (NCQ or legacy TCQ, label protocol), 0/1",
        num(flag(claimed, "supported")), {{"protocol", p}});
  m.add("drivescope_queue_claimed_depth", "queue depth the drive claims", json_number(claimed, "depth"),
        {{"protocol", p}});
  const json& enabled = at(ncq, "enabled");
  m.add_bool("drivescope_queue_enabled", "queuing enabled by the host (its queue depth above 1), 0/1",
             flag(enabled, "enabled"));
  m.add("drivescope_queue_host_depth", "the host's queue depth for the device", json_number(enabled, "queue_depth"));
  const json& eff = at(ncq, "effective");
  if (auto measured = flag(eff, "measured"); measured && *measured)
    m.add_bool("drivescope_queue_effective", "the queue test saw the drive reorder queued reads, 0/1",
               flag(eff, "reorders"));
}

std::vector<PromMetric> prom_metrics(const json& doc, int exit_status, std::string_view command) {
  const json& name = at(at(doc, "target"), "name");
  const std::string device = prom_device_label(name.is_string() ? name.get<std::string>() : "unknown");
  Metrics m(device, std::string(command));
  m.add("drivescope_exit_status", "exit status of the drivescope run that wrote this file (0 ok, 3 partial)",
        static_cast<double>(exit_status));
  if (at(doc, "ncq").is_object()) {
    ncq_metrics(m, at(doc, "ncq"));
    return m.take();
  }
  if (at(doc, "identify").is_object()) identity_metrics(m, doc);
  if (at(doc, K::kDocumentKey).is_object()) bench_metrics(m, doc);
  // scan: a drive left in standby has no identity series; this one says why they are missing.
  if (const json& mode = at(at(doc, "scan"), "power_mode"); mode.is_string())
    m.add_bool("drivescope_device_standby", "the drive was in standby and left asleep (scan), 0/1",
               mode.get<std::string>() == "standby");
  return m.take();
}

std::vector<PromMetric> merge_prom(std::vector<std::vector<PromMetric>> parts) {
  std::vector<PromMetric> out;
  for (auto& part : parts)
    for (auto& metric : part) {
      auto it = std::find_if(out.begin(), out.end(), [&](const PromMetric& x) { return x.name == metric.name; });
      if (it == out.end()) {
        out.push_back(std::move(metric));
        continue;
      }
      for (auto& sample : metric.samples) it->samples.push_back(std::move(sample));
    }
  return out;
}

}  // namespace ds::report
