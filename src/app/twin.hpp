// `drivescope model TARGET -o MODEL.json`: a drive's twin. The drive is measured read-only by the
// bench's modules (access, transfer, cache, queue), their figures are written out as a
// drivescope-disk-model/2 file the simulator opens, and the twin is then calibrated: the same
// modules measure the twin, and each model figure whose measurement disagrees with the drive's is
// moved by the difference, so that the twin measures as the drive did (not merely as the
// datasheet-like figures say: a random-LBA mean seek is not the cylinder-uniform average the
// model's seek key holds, and only the twin's own measurement tells one from the other).
//
// Each value of the model carries its source in provenance.sources: "measured: …", "claimed by …"
// or "default: not observable …". A twin never invents a figure silently. See docs/twin.md.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/identify.hpp"
#include "tests/common.hpp"

namespace ds::app {

// Stage 1 (pure): the drive's bench document (run_bench's JSON, tests access, transfer, cache and
// queue) as a model document.
struct TwinDraft {
  nlohmann::json model;              // format drivescope-disk-model/2, with "provenance"
  bool rotating = false;             // the access test saw mechanical positioning
  std::string why_not_rotating;      // when not rotating: what the timing showed
  std::vector<std::string> unobserved;  // model keys left at a default, each with its reason
  std::vector<std::string> failed_tests;  // "test: why" for each bench test that failed
  bool track_sizes = false;  // the zones have the transfer test's track sizes (else one zone at a pace)
};
TwinDraft twin_from_bench(const nlohmann::json& bench_doc);

// The least a twin's cache segment holds, in bytes: one block and the model's read-ahead after it
// (0 where the model reads nothing ahead). The simulator's read-ahead keeps the last segment's
// worth of what it read, so a segment no larger than the read-ahead lets it push out the very
// block just asked for, and even the access test's one-block re-reads, hits on the drive, miss on
// the twin (which calibration then took for a command overhead of a revolution). Every stage that
// sizes the segments keeps to it.
double segment_floor_bytes(const nlohmann::json& model);
// The model with its cache's bytes raised, where needed, so that each segment holds that much.
nlohmann::json with_segment_floor(nlohmann::json model);

// Stage 2 (pure): one calibration step. `drive` and `twin` are bench documents of the drive and of
// the model `model`; returns the model with every calibrated figure moved by the drive − twin
// difference of its measurement, and what it moved in `moves` (one line each).
nlohmann::json twin_calibrate(const nlohmann::json& model, const nlohmann::json& drive,
                              const nlohmann::json& twin, std::vector<std::string>& moves);

struct ModelRequest {
  std::string target;
  std::string output;                 // MODEL.json (required)
  std::optional<double> budget_s;     // drive time; default 180 s
  std::uint64_t seed = 1;
  bool allow_flat = false;            // a target with no mechanics still gets a (flat) model
  unsigned calibration_rounds = 3;    // stage 2 repeated at most this often (sim time only)
  DeviceChoice device;
  std::function<bool()> stop;         // Ctrl-C: keep what was measured (exit 4, partial model)
};

Expected<Report> run_model(const ModelRequest& req, const measure::ProgressFn& progress);

}  // namespace ds::app
