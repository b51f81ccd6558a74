// `--prom FILE`: the Prometheus metrics of a document (report/prom.hpp) written for
// node_exporter's textfile collector, atomically: a temporary file in the same directory, then
// rename(2), so the collector never reads half a file.
#pragma once
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "drivescope/expected.hpp"

namespace ds::app {

// Whether `path` can be written as a --prom file, checked before a run: its directory exists and
// is writable, and the path is not a directory. A bench of two minutes must not end by failing
// to write its file. Returns the path, or why not (the same words write_prom_file would use).
Expected<std::string> check_prom_path(const std::string& path);

// Writes the metrics of doc (an identify or bench document) and the run's exit status to path;
// returns the path, or why it could not.
// command ("identify", "bench") is the `command` label of every series (report/prom.hpp).
Expected<std::string> write_prom_file(const std::string& path, const nlohmann::json& doc, int exit_status,
                                      const std::string& command);

// One file for several documents (scan: one per drive, each with its run's exit status).
struct PromDoc {
  const nlohmann::json* doc;
  int exit_status;
};
Expected<std::string> write_prom_file(const std::string& path, const std::vector<PromDoc>& docs,
                                      const std::string& command);

// The same text, for a test or a caller that writes it elsewhere.
std::string prom_text(const nlohmann::json& doc, int exit_status, const std::string& command);

}  // namespace ds::app
