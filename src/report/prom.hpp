// Prometheus text exposition format (version 0.0.4) for node_exporter's textfile collector, from
// a drivescope document (identify or bench). Follows smartctl_exporter's conventions: one
// `drivescope_device_info{device=..., model_name=..., serial_number=..., firmware_version=...} 1`
// carries the identity as labels; every other series has only `device`, `command` (and a kind
// label where one metric has several kinds) and a value in base units: seconds, bytes, bytes per second,
// ratios; booleans as 0/1. A figure the document does not know is left out, never written as 0.
// Pure functions: writing the file is app/prom_file.hpp's job.
#pragma once
#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ds::report {

struct PromSample {
  std::vector<std::pair<std::string, std::string>> labels;  // name, value (escaped when written)
  double value = 0;
};

struct PromMetric {
  std::string name;  // drivescope_..., with its unit as suffix
  std::string help;
  std::string type = "gauge";
  std::vector<PromSample> samples;
};

// A label value as the exposition format wants it: backslash, double quote and line feed
// escaped (\\, \", \n); other control bytes become spaces and bytes that are not UTF-8 become
// '?' (a drive's model string is not always text).
std::string prom_escape_label(std::string_view value);
// HELP text: backslash and line feed escaped.
std::string prom_escape_help(std::string_view text);
// A sample value: shortest round-trip decimal; NaN and infinities as the format spells them.
std::string prom_value(double v);

// # HELP, # TYPE and the samples of each metric with at least one sample, in order.
std::string format_prom(const std::vector<PromMetric>& metrics);

// The `device` label of a target: /dev/sda -> "sda" (as node_exporter and smartctl_exporter
// name devices); a simulated drive or file keeps its target name ("sim:7200.7").
std::string prom_device_label(std::string_view target_name);

// The metrics of one document of `identify` or `bench` (its `target`, `identify`, `tests`), and
// the run's exit status. Every sample has the labels `device`, then its own, then `command`
// (identify, bench): node_exporter refuses a scrape in which two textfiles hold the same series,
// and the identify and bench files of one drive both carry its identity and exit status.
std::vector<PromMetric> prom_metrics(const nlohmann::json& doc, int exit_status, std::string_view command);

// The metrics of several documents (scan: one per drive) as one file: the samples of a metric
// are gathered under its one HELP/TYPE header, which the exposition format requires (a second
// header for the same name makes promtool and the collector refuse the file).
std::vector<PromMetric> merge_prom(std::vector<std::vector<PromMetric>> parts);

}  // namespace ds::report
