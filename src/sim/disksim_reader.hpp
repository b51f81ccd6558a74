// The importer's reading of one DiskSim block (sim/disksim_import.cpp and
// sim/disksim_layout.cpp): parameters by name, errors that say where, and what was not read
// reported by name. Internal to the importer.
#pragma once
#include <cmath>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <string_view>

#include "drivescope/expected.hpp"
#include "sim/disksim_import.hpp"
#include "sim/disksim_params.hpp"

namespace ds::sim::disksim::detail {

// Whether `name` is a parameter of DiskSim 4.0's validated drives (the rest are "unknown").
bool known(std::string_view name);

// One block's parameters, read by name; what was read is remembered so that the rest can be
// reported. Errors name the file and line of the value (or of the block, for a missing one).
class Params {
 public:
  Params(const Block& b, std::string label) : b_(b), label_(std::move(label)) {}

  const Param* get(std::string_view name) {
    const Param* p = b_.find(name);
    if (p) used_.insert(p->name);
    return p;
  }
  Expected<const Value*> need(std::string_view name) {
    const Param* p = get(name);
    if (!p)
      return make_error(b_.file + ":" + std::to_string(b_.line) + ": " + label_ + " has no `" + std::string(name) + "`");
    return &p->value;
  }
  Expected<double> number(std::string_view name) {
    auto v = need(name);
    if (!v) return v.error();
    return as_number(**v, name);
  }
  // An optional number: `fallback` when the parameter is absent.
  Expected<double> number_or(std::string_view name, double fallback) {
    if (!b_.find(name)) return fallback;
    return number(name);
  }
  Expected<double> whole(std::string_view name, double min, double max) {
    auto n = number(name);
    if (!n) return n;
    if (*n != std::floor(*n) || *n < min || *n > max) {
      const Value& v = b_.find(name)->value;
      return make_error(v.where() + ": `" + std::string(name) + "` must be a whole number from " + fmt(min) + " to " +
                        fmt(max) + ", not " + v.word);
    }
    return n;
  }
  Expected<const Block*> block(std::string_view name) {
    auto v = need(name);
    if (!v) return v.error();
    if ((*v)->kind != Value::Kind::block)
      return make_error((*v)->where() + ": `" + std::string(name) + "` must be a block (`TYPE { ... }` or `source FILE`)");
    return (*v)->block.get();
  }
  static Expected<double> as_number(const Value& v, std::string_view name) {
    if (v.kind != Value::Kind::number || !std::isfinite(v.number))
      return make_error(v.where() + ": `" + std::string(name) + "` must be a number" +
                        (v.kind == Value::Kind::word ? ", not `" + v.word + "`" : ""));
    return v.number;
  }
  // The names not read, sorted into the two lists of the result.
  void report(ImportResult& r) const {
    for (const auto& p : b_.params) {
      if (used_.count(p.name)) continue;
      const std::string what = label_ + ": " + p.name;
      (known(p.name) ? r.not_represented : r.unknown).push_back(what);
    }
  }
  const Block& raw() const { return b_; }

 private:
  static std::string fmt(double x) {
    std::ostringstream s;
    s << x;
    return s.str();
  }
  const Block& b_;
  std::string label_;
  std::set<std::string> used_;
};

// DiskSim's layout_g1 zones into the model's zones, capacity aside, with the spares, track
// sparing and zone angles format /2 can say (sim/disksim_layout.cpp).
std::optional<Error> layout_zones(Params& layout, DiskModel& m, ImportResult& r);

}  // namespace ds::sim::disksim::detail
