// The /2 variant of a disk model: the same drive with the imperfections of a real one, drawn
// deterministically from a seed (docs/accuracy.md lists the keys and their ranges).
#pragma once
#include <cstdint>

#include <nlohmann/json.hpp>

namespace accuracy {

// Model JSON (format /1 or /2) → the same drive as format /2 with plausible imperfections.
// Deterministic: the same model and seed give the same variant. `layout`: also zero-latency reads
// and surface-serpentine bands (variant "v2x", on about half the seeds each; the other draws as in
// "v2"), not yet in the judged set: track to track falls short of its criterion on them.
nlohmann::json make_variant(const nlohmann::json& model, std::uint64_t seed, bool layout = false);

}  // namespace accuracy
