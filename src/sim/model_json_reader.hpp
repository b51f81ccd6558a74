// The field reader every part of the model-file parser shares (model_json.cpp and the files that
// hold one block of the format each: model_json_layout.cpp, model_json_controller.cpp), and the
// entry points of those blocks. Internal to src/sim.
#pragma once
#include <cmath>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "drivescope/expected.hpp"
#include "sim/model.hpp"

namespace ds::sim {

using nlohmann::json;

// Reads fields of one JSON object, remembering the first error (with its full field path).
class Reader {
 public:
  std::optional<Error> err;

  void fail(const std::string& path, const std::string& what) {
    if (!err) err = make_error(path + ": " + what);
  }
  static std::string join(const std::string& prefix, std::string_view key) {
    return prefix.empty() ? std::string(key) : prefix + "." + std::string(key);
  }
  // The member, or nullptr (and an error when required).
  const json* member(const json& obj, const std::string& prefix, std::string_view key,
                     bool required) {
    auto it = obj.find(std::string(key));
    if (it == obj.end() || (it->is_null() && required)) {
      if (required) fail(join(prefix, key), "missing");
      return nullptr;
    }
    if (it->is_null()) return nullptr;
    return &*it;
  }
  std::optional<double> number(const json& obj, const std::string& prefix, std::string_view key,
                               bool required, double min, bool min_exclusive) {
    const json* v = member(obj, prefix, key, required);
    if (!v) return std::nullopt;
    const auto path = join(prefix, key);
    if (!v->is_number()) {
      fail(path, "must be a number");
      return std::nullopt;
    }
    const double d = v->get<double>();
    if (!std::isfinite(d) || d < min || (min_exclusive && d == min)) {
      fail(path, min_exclusive ? "must be a positive number" : "must be a non-negative number");
      return std::nullopt;
    }
    return d;
  }
  std::optional<std::uint64_t> integer(const json& obj, const std::string& prefix,
                                       std::string_view key, bool required, bool positive,
                                       std::uint64_t max = std::numeric_limits<std::uint64_t>::max()) {
    const json* v = member(obj, prefix, key, required);
    if (!v) return std::nullopt;
    const auto path = join(prefix, key);
    const char* what = positive ? "must be a positive integer" : "must be a non-negative integer";
    std::uint64_t u = 0;
    if (v->is_number_unsigned()) {
      u = v->get<std::uint64_t>();
    } else if (v->is_number_integer()) {
      fail(path, what);  // negative
      return std::nullopt;
    } else if (v->is_number_float()) {
      const double d = v->get<double>();
      if (!(d >= 0) || d != std::floor(d) || d > 9.0e18) {
        fail(path, what);
        return std::nullopt;
      }
      u = static_cast<std::uint64_t>(d);
    } else {
      fail(path, what);
      return std::nullopt;
    }
    if (positive && u == 0) {
      fail(path, what);
      return std::nullopt;
    }
    if (u > max) {
      fail(path, "must be at most " + std::to_string(max));
      return std::nullopt;
    }
    return u;
  }
  std::optional<std::string> string(const json& obj, const std::string& prefix,
                                    std::string_view key, bool required) {
    const json* v = member(obj, prefix, key, required);
    if (!v) return std::nullopt;
    if (!v->is_string()) {
      fail(join(prefix, key), "must be a string");
      return std::nullopt;
    }
    return v->get<std::string>();
  }
  std::optional<bool> boolean(const json& obj, const std::string& prefix, std::string_view key,
                              bool required) {
    const json* v = member(obj, prefix, key, required);
    if (!v) return std::nullopt;
    if (!v->is_boolean()) {
      fail(join(prefix, key), "must be true or false");
      return std::nullopt;
    }
    return v->get<bool>();
  }
  const json* object(const json& obj, const std::string& prefix, std::string_view key,
                     bool required) {
    const json* v = member(obj, prefix, key, required);
    if (v && !v->is_object()) {
      fail(join(prefix, key), "must be an object");
      return nullptr;
    }
    return v;
  }
};

// The optional "controller" object (model_json_controller.cpp; docs/disk-model.md, "Controller
// keys"): parsed into m.controller, written back only where the model has one.
void parse_controller(Reader& r, const json& doc, DiskModel& m);
void write_controller(const ControllerSpec& c, json& j);

}  // namespace ds::sim
