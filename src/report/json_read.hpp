// Reading result documents that may come from other versions or be damaged: a missing,
// non-numeric or non-finite field is "absent", never an exception.
#pragma once
#include <nlohmann/json.hpp>

#include <cmath>
#include <optional>

namespace ds::report {

inline std::optional<double> json_number(const nlohmann::json& j, const char* key) {
  if (!j.is_object()) return std::nullopt;
  auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return std::nullopt;
  double v = it->get<double>();
  return std::isfinite(v) ? std::optional<double>(v) : std::nullopt;
}

}  // namespace ds::report
