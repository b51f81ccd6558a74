// The result keys (src/tests/result_keys.hpp) against the writers and the schema:
//  - every key bench_to_json writes is listed, in the object where it sits;
//  - every listed key is written (by a full result: every test run, and every key that only some
//    runs write forced in), so a reader, which names keys only through the list, reads nothing the
//    writer does not write;
//  - docs/schema/drivescope-output.schema.json describes every written key and no other under
//    "tests".
// A key renamed in one place and not the other fails here; tests/report/result_keys_read_test.cpp
// checks that src/report names no result key as a literal.
#include <doctest/doctest.h>

#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "report/measure_report.hpp"
#include "sim/sim.hpp"
#include "tests/bench.hpp"
#include "tests/result_keys.hpp"

namespace {

using nlohmann::json;
namespace K = ds::measure::key;

bool is_map_place(const std::string& place) {
  for (auto m : K::kMapPlaces)
    if (place == m) return true;
  return false;
}

// Every key of a written document as its place from "tests" and its name: "/access/read/mean_ms";
// the items of an array are "*". A map's entries (tests.errors) are its data, not keys.
void written_keys(const json& j, const std::string& at, std::set<std::string>& out) {
  if (j.is_object()) {
    if (is_map_place(at)) return;
    for (auto it = j.begin(); it != j.end(); ++it) {
      const std::string place = at + "/" + it.key();
      out.insert(place);
      written_keys(*it, place, out);
    }
  } else if (j.is_array()) {
    for (const auto& item : j) written_keys(item, at + "/*", out);
  }
}

std::set<std::string> listed_keys() {
  std::set<std::string> out;
  for (const auto& o : K::kResultObjects)
    for (auto place : o.places)
      for (auto k : o.keys) out.insert(std::string(place) + "/" + std::string(k));
  return out;
}

// A bench of every test with writes allowed, and then what only some drives or runs give forced
// in: a slow region and a spike, an anomalous point with its track size, a zone's track size, a
// skipped pattern cell, a failed test, a withheld figure in each test that has them. (A key a
// writer adds under a condition goes here too.)
ds::measure::BenchResult full_result() {
  auto t = ds::sim::open("sim:modern8tb", {.writable = true});
  REQUIRE(t.ok());
  ds::measure::BenchOptions o;
  o.tests = {"access", "transfer", "cache", "blocksize", "queue", "patterns", "actuators", "rmw"};
  o.allow_write = true;
  o.budget_s = 60;  // enough for access to time its writes after the reads (40 s was, before the
                    // preset was /2: its every seek jitters, and the rotation takes longer to lock)
  auto r = ds::measure::run_bench(*t->io, o);
  REQUIRE(r.ok());
  REQUIRE(r->errors.empty());
  REQUIRE((r->access && r->transfer && r->cache && r->blocksize && r->queue && r->patterns && r->actuators && r->rmw));
  REQUIRE(r->access->write);
  r->access->slow_regions.push_back({1000, 2000, 25.0, 16});
  r->access->slow_spikes.push_back({5000, 40.0});
  r->access->outliers = 1;
  REQUIRE_FALSE(r->transfer->points.empty());
  REQUIRE_FALSE(r->transfer->zones.empty());
  r->transfer->points.front().anomalous = true;
  r->transfer->points.front().sectors_per_track = 1000;
  r->transfer->zones.front().sectors_per_track = 1000;
  REQUIRE_FALSE(r->patterns->cells.size() < 2);
  r->patterns->cells.front().skipped = true;
  r->patterns->cells.front().skip_reason = ds::measure::WithheldReason::cell_io_failed;
  REQUIRE_FALSE(r->blocksize->rows.empty());
  r->blocksize->rows.front().write_mb_s = 1.0;
  r->errors.emplace_back("queue", ds::make_error("forced by the test"));
  using ds::measure::WithheldReason;
  r->access->withheld.push_back(
      {K::access::full_stroke_ms, WithheldReason::stroke_under_average, {{"stroke_ms", 1.5}}});
  r->transfer->withheld.push_back({K::transfer::layout, WithheldReason::layout_no_period});
  r->cache->withheld.push_back({K::cache::read_ahead, WithheldReason::read_ahead_no_time});
  r->actuators->withheld.push_back(
      {K::actuators::independent, WithheldReason::gain_one_round, {{"measured_gain", 1.2}}});
  r->rmw->withheld.push_back({K::rmw::physical_bytes_estimate, WithheldReason::sizes_unordered});
  r->patterns->withheld.push_back({K::patterns::workstation_rating, WithheldReason::cells_skipped, {{"skipped", 1}}});
  r->queue->verdict.reorders.reset();
  r->queue->verdict.undecided =
      ds::measure::Withheld{K::queue::reorders, WithheldReason::queue_too_shallow, {{"deepest", 2}}};
  return std::move(*r);
}

const json& full_document() {
  static const json doc = ds::report::bench_to_json(full_result());
  return doc;
}

// ---- the schema ----

const json& output_schema() {
  static const json s = [] {
    std::ifstream in(std::string(DS_SOURCE_DIR) + "/docs/schema/drivescope-output.schema.json");
    REQUIRE(in.good());
    return json::parse(in);
  }();
  return s;
}

// Follows "$ref": "#/..." inside the output schema.
const json& resolve(const json& node) {
  if (!node.is_object() || !node.contains("$ref")) return node;
  const std::string ref = node["$ref"].get<std::string>();
  REQUIRE_MESSAGE(ref.rfind("#/", 0) == 0, "a reference out of the output schema: " << ref);
  return resolve(output_schema().at(json::json_pointer(ref.substr(1))));
}

// The schemas that apply to a node: itself and the branches it combines (allOf, anyOf, ...).
void branches(const json& node, std::vector<const json*>& out) {
  const json& n = resolve(node);
  if (!n.is_object()) return;
  out.push_back(&n);
  for (const char* k : {"allOf", "anyOf", "oneOf"})
    if (n.contains(k))
      for (const auto& b : n[k]) branches(b, out);
  for (const char* k : {"then", "else"})
    if (n.contains(k)) branches(n[k], out);
}

// What the schema says of one step down: a named property, or "*", the items of an array.
std::vector<const json*> step(const std::vector<const json*>& nodes, const std::string& name) {
  std::vector<const json*> out;
  for (const json* n : nodes) {
    std::vector<const json*> bs;
    branches(*n, bs);
    for (const json* b : bs) {
      if (name == "*" && b->contains("items")) branches((*b)["items"], out);
      if (name != "*" && b->contains("properties") && (*b)["properties"].contains(name))
        branches((*b)["properties"][name], out);
    }
  }
  return out;
}

bool described(const std::string& place) {
  std::vector<const json*> nodes;
  branches(output_schema().at("properties").at("tests"), nodes);
  std::size_t from = 1;
  while (from <= place.size()) {
    const std::size_t to = std::min(place.find('/', from), place.size());
    nodes = step(nodes, place.substr(from, to - from));
    if (nodes.empty()) return false;
    from = to + 1;
  }
  return true;
}

// Every property the schema names under "tests", as places.
void schema_places(const json& node, const std::string& at, std::set<std::string>& out, int depth = 0) {
  REQUIRE(depth < 32);
  std::vector<const json*> bs;
  branches(node, bs);
  for (const json* b : bs) {
    if (b->contains("properties"))
      for (auto it = (*b)["properties"].begin(); it != (*b)["properties"].end(); ++it) {
        const std::string place = at + "/" + it.key();
        out.insert(place);
        if (!is_map_place(place)) schema_places(*it, place, out, depth + 1);
      }
    if (b->contains("items")) schema_places((*b)["items"], at + "/*", out, depth + 1);
  }
}

}  // namespace

TEST_CASE("result keys: the writers write exactly the listed keys, each where its object sits") {
  std::set<std::string> written;
  written_keys(full_document(), "", written);
  const auto listed = listed_keys();
  for (const auto& w : written) {
    INFO("written key " << w);
    CHECK_MESSAGE(listed.count(w), "written but not listed in src/tests/result_keys.hpp");
  }
  for (const auto& l : listed) {
    INFO("listed key " << l);
    CHECK_MESSAGE(written.count(l), "listed but not written by the full result (force it in full_result())");
  }
}

TEST_CASE("result keys: no key is listed twice in one object, and every object has a place") {
  for (const auto& o : K::kResultObjects) {
    INFO("object " << o.name);
    CHECK_FALSE(o.places.empty());
    std::set<std::string_view> seen;
    for (auto k : o.keys) CHECK_MESSAGE(seen.insert(k).second, "key " << k << " twice");
  }
}

TEST_CASE("result keys: the schema describes every written key and no other") {
  std::set<std::string> written;
  written_keys(full_document(), "", written);
  for (const auto& w : written) {
    INFO("written key " << w);
    CHECK_MESSAGE(described(w), "not described under properties.tests of docs/schema/drivescope-output.schema.json");
  }
  std::set<std::string> in_schema;
  schema_places(output_schema().at("properties").at("tests"), "", in_schema);
  for (const auto& s : in_schema) {
    INFO("schema property tests" << s);
    CHECK_MESSAGE(written.count(s), "described in the schema but never written");
  }
}

TEST_CASE("result keys: the checks above fail on a renamed key") {
  // The same walk over a document whose writer spelled one key differently: the renamed key is
  // neither listed nor described, and the listed one is missing.
  json doc = full_document();
  doc["access"]["avg_seek_time_ms"] = doc["access"][K::access::avg_seek_ms];
  doc["access"].erase(K::access::avg_seek_ms);
  std::set<std::string> written;
  written_keys(doc, "", written);
  const auto listed = listed_keys();
  CHECK_FALSE(listed.count("/access/avg_seek_time_ms"));
  CHECK(listed.count("/access/avg_seek_ms"));
  CHECK_FALSE(written.count("/access/avg_seek_ms"));
  CHECK_FALSE(described("/access/avg_seek_time_ms"));
  CHECK(described("/access/avg_seek_ms"));
}
