// The /2 variant of a disk model: the same drive with the imperfections of a real one, drawn
// deterministically from a seed (docs/accuracy.md lists the keys and their ranges).
#pragma once
#include <cstdint>

#include <nlohmann/json.hpp>

namespace accuracy {

// Model JSON (format /1 or /2) → the same drive as format /2 with plausible imperfections.
// Deterministic: the same model and seed give the same variant.
nlohmann::json make_variant(const nlohmann::json& model, std::uint64_t seed);

}  // namespace accuracy
