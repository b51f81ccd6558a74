// Writing result documents: a value the drive or the test did not give is null, never 0 or "".
#pragma once
#include <nlohmann/json.hpp>

#include <optional>

namespace ds::report {

template <class T>
nlohmann::json json_opt(const std::optional<T>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

}  // namespace ds::report
