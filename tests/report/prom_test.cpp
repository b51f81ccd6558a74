// The Prometheus exposition formatter (report/prom.hpp): escaping, layout, base units.
#include <doctest/doctest.h>

#include <set>
#include <string>

#include "report/prom.hpp"

using nlohmann::json;
using namespace ds::report;

TEST_CASE("prom label values: backslash, quote and line feed escaped; control bytes and bad UTF-8 made safe") {
  CHECK(prom_escape_label("plain 1.0") == "plain 1.0");
  CHECK(prom_escape_label("a\\b") == "a\\\\b");
  CHECK(prom_escape_label("say \"hi\"") == "say \\\"hi\\\"");
  CHECK(prom_escape_label("two\nlines") == "two\\nlines");
  CHECK(prom_escape_label(std::string("tab\there\x01\0", 10)) == "tab here  ");  // NUL too
  CHECK(prom_escape_label("caf\xc3\xa9") == "caf\xc3\xa9");          // valid UTF-8 kept
  CHECK(prom_escape_label("bad\xff\xc3") == "bad??");                  // not UTF-8: '?'
  CHECK(prom_escape_label("\xe2\x82") == "??");                        // truncated sequence
  CHECK(prom_escape_help("a\\b\nc \"q\"") == "a\\\\b\\nc \"q\"");     // HELP keeps quotes
}

TEST_CASE("prom values: shortest decimal, and the format's spellings of NaN and infinity") {
  CHECK(prom_value(0.0085) == "0.0085");
  CHECK(prom_value(1) == "1");
  CHECK(prom_value(200049647616.0) == "200049647616");
  CHECK(prom_value(std::nan("")) == "NaN");
  CHECK(prom_value(1.0 / 0.0) == "+Inf");
  CHECK(prom_value(-1.0 / 0.0) == "-Inf");
}

TEST_CASE("prom text: HELP and TYPE once per metric, then its samples; empty metrics left out") {
  std::vector<PromMetric> ms{
      {"m_seconds", "a help", "gauge", {{{{"device", "sda"}, {"kind", "x\"y"}}, 0.5}, {{{"device", "sdb"}}, 2}}},
      {"m_empty", "none", "gauge", {}}};
  CHECK(format_prom(ms) ==
        "# HELP m_seconds a help\n# TYPE m_seconds gauge\n"
        "m_seconds{device=\"sda\",kind=\"x\\\"y\"} 0.5\nm_seconds{device=\"sdb\"} 2\n");
}

TEST_CASE("prom device label: /dev/sda is sda; other targets keep their name") {
  CHECK(prom_device_label("/dev/sda") == "sda");
  CHECK(prom_device_label("/dev/disk/by-id/x") == "disk/by-id/x");
  CHECK(prom_device_label("sim:7200.7") == "sim:7200.7");
}

namespace {

const PromSample* find(const std::vector<PromMetric>& ms, const std::string& name, const std::string& label = "",
                       const std::string& value = "") {
  for (const auto& m : ms)
    if (m.name == name)
      for (const auto& s : m.samples) {
        if (label.empty()) return &s;
        for (const auto& l : s.labels)
          if (l.first == label && l.second == value) return &s;
      }
  return nullptr;
}

}  // namespace

TEST_CASE("prom metrics of a document: identity as labels, figures in base units, unknowns absent") {
  const json doc{
      {"target", {{"kind", "ata"}, {"name", "/dev/sdb"}}},
      {"host", {{"queue_depth", 1}}},
      {"identify",
       {{"model", "Maxtor 7L250S0"}, {"serial", "L5\"0"}, {"firmware", "BANC1G10"}, {"capacity_bytes", 251000193024},
        {"logical_sector_bytes", 512}, {"physical_sector_bytes", 512}, {"rotation_rate_rpm", nullptr},
        {"ncq", {{"supported", true}, {"depth", 32}}},
        {"aam", {{"supported", true}, {"enabled", true}, {"current_level", 128}}},
        {"apm", {{"supported", false}, {"enabled", false}, {"level", nullptr}}},
        {"smart", {{"status_good", true}, {"temperature_c", 35.0}, {"power_on_hours", 2}}}}},
      {"tests",
       {{"access", {{"read", {{"mean_ms", 14.5}, {"p50_ms", 14.0}, {"p99_ms", 25.0}}}, {"slow_regions", json::array({1, 2})},
                    {"track_to_track_ms", nullptr}}},
        {"transfer", {{"outer_mb_s", 65.5}, {"inner_mb_s", 33.0}}},
        {"queue", {{"reorders", false}}}}}};
  const auto ms = prom_metrics(doc, 3, "bench");
  const auto* info = find(ms, "drivescope_device_info");
  REQUIRE(info != nullptr);
  CHECK(info->value == 1);
  CHECK(info->labels == std::vector<std::pair<std::string, std::string>>{
                            {"device", "sdb"}, {"model_name", "Maxtor 7L250S0"}, {"serial_number", "L5\"0"},
                            {"firmware_version", "BANC1G10"}, {"model_family", ""}, {"command", "bench"}});
  // With a drive database entry, its family is the label.
  json with_family = doc;
  with_family["identify"]["drivedb"] = {{"found", true}, {"family", "Maxtor DiamondMax 10"}};
  const auto fam = prom_metrics(with_family, 0, "bench");
  CHECK(find(fam, "drivescope_device_info")->labels[4] ==
        std::pair<std::string, std::string>{"model_family", "Maxtor DiamondMax 10"});
  CHECK(find(ms, "drivescope_exit_status")->value == 3);
  CHECK(find(ms, "drivescope_device_capacity_bytes")->value == 251000193024.0);
  CHECK(find(ms, "drivescope_access_time_seconds", "stat", "mean")->value == doctest::Approx(0.0145));
  CHECK(find(ms, "drivescope_access_time_seconds", "stat", "p99")->value == doctest::Approx(0.025));
  CHECK(find(ms, "drivescope_transfer_rate_bytes_per_second", "zone", "outer")->value == doctest::Approx(65.5e6));
  CHECK(find(ms, "drivescope_slow_regions")->value == 2);
  CHECK(find(ms, "drivescope_power_on_seconds")->value == 7200);
  // NCQ claimed, but the host's queue depth is 1 (not enabled) and the drive does not reorder.
  CHECK(find(ms, "drivescope_ncq_claimed")->value == 1);
  CHECK(find(ms, "drivescope_ncq_enabled")->value == 0);
  CHECK(find(ms, "drivescope_ncq_effective")->value == 0);
  CHECK(find(ms, "drivescope_aam_level")->value == 128);
  // Unknown is absent, not 0: no rotation rate, no APM level, no track-to-track, no cache test.
  CHECK(find(ms, "drivescope_device_rotation_rate_rpm") == nullptr);
  CHECK(find(ms, "drivescope_apm_level") == nullptr);
  CHECK(find(ms, "drivescope_apm_enabled") == nullptr);
  CHECK(find(ms, "drivescope_seek_time_seconds", "kind", "track_to_track") == nullptr);
  CHECK(find(ms, "drivescope_cache_burst_rate_bytes_per_second") == nullptr);
  // The serial's quote is escaped in the text.
  CHECK(format_prom(ms).find("serial_number=\"L5\\\"0\"") != std::string::npos);
}

TEST_CASE("prom metrics of an NVMe drive: health from its SMART / Health log, unknowns absent") {
  json doc{{"target", {{"kind", "nvme"}, {"name", "/dev/nvme0n1"}}},
           {"identify",
            {{"model", "QEMU NVMe Ctrl"}, {"serial", "NVME0001"}, {"firmware", "8.0"}, {"capacity_bytes", 1073741824},
             {"logical_sector_bytes", 512},
             {"nvme",
              {{"controller", json::object()},
               {"namespace", json::object()},
               {"health", {{"critical_warning", 0}, {"temperature_c", 50.0}, {"power_on_hours", 3}}}}}}}};
  auto ms = prom_metrics(doc, 0, "identify");
  REQUIRE(find(ms, "drivescope_smart_status_passed") != nullptr);
  CHECK(find(ms, "drivescope_smart_status_passed")->value == 1);
  CHECK(find(ms, "drivescope_temperature_celsius")->value == 50);
  CHECK(find(ms, "drivescope_power_on_seconds")->value == 10800);
  // A Critical Warning bit set fails it; a log that was not read (null) leaves all three absent.
  doc["identify"]["nvme"]["health"]["critical_warning"] = 4;
  CHECK(find(prom_metrics(doc, 0, "identify"), "drivescope_smart_status_passed")->value == 0);
  doc["identify"]["nvme"]["health"] = nullptr;
  ms = prom_metrics(doc, 0, "identify");
  CHECK(find(ms, "drivescope_smart_status_passed") == nullptr);
  CHECK(find(ms, "drivescope_temperature_celsius") == nullptr);
  CHECK(find(ms, "drivescope_power_on_seconds") == nullptr);
}

TEST_CASE("prom of several documents (scan): one header per metric, every drive's samples under it") {
  auto doc = [](const char* dev, const char* model, const char* mode) {
    return json{{"target", {{"kind", "ata"}, {"name", dev}}},
                {"identify", {{"model", model}, {"serial", "S"}, {"firmware", "F"}, {"capacity_bytes", 1000}}},
                {"scan", {{"power_mode", mode}}}};
  };
  const json a = doc("/dev/sda", "A", "active_or_idle"), b = doc("/dev/sdb", "B", "idle");
  const json asleep = {{"target", {{"kind", "ata"}, {"name", "/dev/sdc"}}}, {"scan", {{"power_mode", "standby"}}}};
  auto merged = merge_prom({prom_metrics(a, 0, "scan"), prom_metrics(b, 3, "scan"), prom_metrics(asleep, 0, "scan")});
  std::set<std::string> names;
  for (const auto& m : merged) {
    CAPTURE(m.name);
    CHECK(names.insert(m.name).second);  // each name once
  }
  auto find = [&](const std::string& name) -> const PromMetric& {
    for (const auto& m : merged)
      if (m.name == name) return m;
    FAIL("no metric " << name);
    return merged.front();
  };
  CHECK(find("drivescope_device_info").samples.size() == 2);  // the sleeping drive has no identity
  const auto& exit = find("drivescope_exit_status");
  REQUIRE(exit.samples.size() == 3);
  CHECK(exit.samples[1].labels.front().second == "sdb");
  CHECK(exit.samples[1].value == 3);
  const auto& standby = find("drivescope_device_standby");
  REQUIRE(standby.samples.size() == 3);
  CHECK(standby.samples[0].value == 0);
  CHECK(standby.samples[2].value == 1);
  const std::string text = format_prom(merged);
  std::size_t headers = 0;
  for (std::size_t i = 0; (i = text.find("# TYPE drivescope_device_info ", i)) != std::string::npos; ++i) ++headers;
  CHECK(headers == 1);
}
