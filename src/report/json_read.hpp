// Reading result documents that may come from other versions or be damaged: a missing,
// non-numeric or non-finite field is "absent", never an exception.
#pragma once
#include <nlohmann/json.hpp>

#include <cmath>
#include <initializer_list>
#include <optional>

namespace ds::report {

inline std::optional<double> json_finite(const nlohmann::json& v) {
  if (!v.is_number()) return std::nullopt;
  const double d = v.get<double>();
  return std::isfinite(d) ? std::optional<double>(d) : std::nullopt;
}

inline std::optional<double> json_number(const nlohmann::json& j, const char* key) {
  if (!j.is_object()) return std::nullopt;
  auto it = j.find(key);
  return it == j.end() ? std::nullopt : json_finite(*it);
}

// The array under key, or nullptr (absent, or not an array); an empty array is returned.
inline const nlohmann::json* json_array(const nlohmann::json& j, const char* key) {
  if (!j.is_object()) return nullptr;
  auto it = j.find(key);
  return it != j.end() && it->is_array() ? &*it : nullptr;
}

// The value at a path of nested objects ({"tests", "access", "rpm"}), or nullptr.
inline const nlohmann::json* json_at(const nlohmann::json& j, std::initializer_list<const char*> path) {
  const nlohmann::json* p = &j;
  for (const char* k : path) {
    if (!p->is_object()) return nullptr;
    auto it = p->find(k);
    if (it == p->end()) return nullptr;
    p = &*it;
  }
  return p;
}

// The value at a path, or a null value when any step is absent: for reading a block of a document
// that may lack it (a test that did not run). nlohmann's const operator[] on a missing key is
// undefined behaviour, not a null.
inline const nlohmann::json& json_section(const nlohmann::json& j, std::initializer_list<const char*> path) {
  static const nlohmann::json kAbsent;
  const nlohmann::json* p = json_at(j, path);
  return p ? *p : kAbsent;
}

inline std::optional<double> json_number_at(const nlohmann::json& j, std::initializer_list<const char*> path) {
  const nlohmann::json* p = json_at(j, path);
  return p ? json_finite(*p) : std::nullopt;
}

// True only where the path holds the boolean true.
inline bool json_true_at(const nlohmann::json& j, std::initializer_list<const char*> path) {
  const nlohmann::json* p = json_at(j, path);
  return p && p->is_boolean() && p->get<bool>();
}

}  // namespace ds::report
