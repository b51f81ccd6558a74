// Writing result documents: a value the drive or the test did not give is null, never 0 or "".
#pragma once
#include <nlohmann/json.hpp>

#include <cmath>
#include <optional>

namespace ds::report {

// Figures are written to a stated number of decimals: three for rates and times in ms, four where
// a tenth of a microsecond matters (latencies, rotation).
inline double r3(double v) { return std::round(v * 1000) / 1000; }
inline double r4(double v) { return std::round(v * 10000) / 10000; }

template <class T>
nlohmann::json json_opt(const std::optional<T>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

}  // namespace ds::report
