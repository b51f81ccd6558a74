// `drivescope model` when a bench test fails or a document lacks blocks: the draft names the
// failure as the reason of each default it leaves, lists the failed tests, and reads no missing
// key (nlohmann's const operator[] on a missing key is undefined behaviour: the ASan stage of
// 280bc09 crashed on it when transfer had failed).
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <utility>

#include <unistd.h>

#include "app/bench.hpp"
#include "app/twin.hpp"
#include "app/twin_stages.hpp"
#include "sim/model.hpp"
#include "sim/sim.hpp"

using namespace ds;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

json raptor_bench(std::vector<std::string> tests, double budget_s) {
  app::BenchRequest b;
  b.target = "sim:raptor";
  b.tests = std::move(tests);
  b.tests_given = true;
  b.budget_s = budget_s;
  auto r = app::run_bench(b, {});
  REQUIRE(static_cast<bool>(r));
  return r->json;
}

// A twin of sim:raptor written to a file of its own in the temp folder (named after `what`).
app::ModelRequest raptor_model(const char* what, double budget_s) {
  app::ModelRequest req;
  req.target = "sim:raptor";
  req.output = (fs::temp_directory_path() / (std::string("ds-twin-") + what + "-" + std::to_string(::getpid()) + ".json")).string();
  req.budget_s = budget_s;
  return req;
}

// An entry of a "failed_tests" list begins with `prefix`.
bool lists(const json& failed, const std::string& prefix) {
  for (const auto& f : failed)
    if (f.is_string() && f.get<std::string>().rfind(prefix, 0) == 0) return true;
  return false;
}

std::string source_of(const json& model, const char* key) {
  const auto& s = model["provenance"]["sources"];
  return s.contains(key) ? s[key].get<std::string>() : std::string();
}

}  // namespace

TEST_CASE("twin draft: a failed transfer test leaves defaults that name the failure, and a valid model") {
  json doc = raptor_bench({"access", "transfer", "cache", "queue"}, 20);
  REQUIRE(doc["tests"].contains("transfer"));
  doc["tests"].erase("transfer");
  doc["tests"]["errors"]["transfer"] = "transfer: the drive-time budget ran out before the first rate sample";
  const app::TwinDraft d = app::twin_from_bench(doc);
  CHECK(d.rotating);
  REQUIRE(d.failed_tests.size() == 1);
  CHECK(d.failed_tests[0].rfind("transfer: ", 0) == 0);
  INFO("surfaces: " << source_of(d.model, "surfaces"));
  CHECK(source_of(d.model, "surfaces").rfind("default: the transfer test failed (transfer: the drive-time budget", 0) == 0);
  // The zones: one at the cache test's read-ahead pace where that told the media's, the failure
  // named beside it; else the default naming the failure.
  const std::string zones = source_of(d.model, "zones");
  INFO("zones: " << zones);
  const bool from_pace = doc["tests"]["cache"].value("read_ahead_mb_s", json()).is_number();
  CHECK(zones.rfind(from_pace ? "measured: one zone at the cache test's read-ahead pace" : "default: the transfer test failed", 0) == 0);
  CHECK(zones.find("the transfer test failed (transfer: the drive-time budget") != std::string::npos);
  // The access test ran: its keys are measured, not defaults.
  CHECK(source_of(d.model, "seek.track_to_track_ms").rfind("measured", 0) == 0);
  CHECK(d.model["provenance"]["failed_tests"] == json(d.failed_tests));
  CHECK(static_cast<bool>(sim::parse_model(d.model.dump())));
}

TEST_CASE("twin draft: documents without tests, identify or any test block give a non-rotating draft, no crash") {
  for (const json& doc : {json::object(), json{{"tests", json::object()}}, json{{"tests", 3}, {"identify", "x"}},
                          json{{"tests", {{"positioning", {{"mechanical", true}}}}}}}) {
    INFO(doc.dump());
    const app::TwinDraft d = app::twin_from_bench(doc);
    CHECK(d.failed_tests.empty());
    if (d.rotating) CHECK(d.model.contains("zones"));
    else CHECK_FALSE(d.why_not_rotating.empty());
  }
}

TEST_CASE("twin: a budget too small for the access test gives a model whose seek defaults say so") {
  const app::ModelRequest req = raptor_model("starved", 0.1);
  const fs::path out = req.output;
  auto r = app::run_model(req, {});
  REQUIRE_MESSAGE(static_cast<bool>(r), (r ? "" : r.error().message));
  REQUIRE(lists(r->json["twin"]["failed_tests"], "access: "));
  const json& m = r->json["model"];
  for (const char* key : {"seek.track_to_track_ms", "seek.full_stroke_ms"})
    CHECK(source_of(m, key).rfind("default: the access test failed (", 0) == 0);
  CHECK(r->text.find("failed: access: ") != std::string::npos);
  // The file written is the model reported, and it opens.
  CHECK(static_cast<bool>(sim::parse_model(m.dump())));
  CHECK(fs::exists(out));
  fs::remove(out);
}

// Ctrl-C during the workloads that follow the bench: the run ends there, the model holds what the
// stages before made, is marked partial and names the stage cut (before, the workloads ignored
// the stop request and the run ended as if complete, exit 0).
TEST_CASE("twin: Ctrl-C during the seek workload writes a partial model that says where it stopped") {
  app::ModelRequest req = raptor_model("cut", 20);
  const fs::path out = req.output;
  // The simulated drive is deterministic: a first run counts how often the stop flag is read
  // (once a request, and between tests), a second stops 50 reads before the end, which is inside
  // the queued workload (the last stage on the drive, app::kQueuedReads reads), a third 50 reads
  // before that one, inside the seek workload (hundreds of reads).
  std::size_t calls = 0;
  req.stop = [&] { return ++calls, false; };
  auto whole = app::run_model(req, {});
  REQUIRE(static_cast<bool>(whole));
  CHECK(whole->exit_code == 0);
  const std::size_t total = calls;
  REQUIRE(total > 500 + app::kQueuedReads);
  // (No structured binding: clang's C++20 forbids doctest's CAPTURE to capture one.)
  for (const auto& where : {std::pair<std::size_t, const char*>{50, "queued workload: interrupted"},
                            {50 + app::kQueuedReads, "seek workload: interrupted"}}) {
    const char* stage = where.second;
    CAPTURE(stage);
    calls = 0;
    const std::size_t stop_at = total - where.first;
    req.stop = [&] { return ++calls > stop_at; };
    auto cut = app::run_model(req, {});
    REQUIRE_MESSAGE(static_cast<bool>(cut), (cut ? "" : cut.error().message));
    CHECK(cut->exit_code == app::kExitInterrupted);
    const json& twin = cut->json["twin"];
    CHECK(twin["partial"] == true);
    CHECK(lists(twin["failed_tests"], stage));
    CHECK(cut->json["model"]["provenance"]["partial"] == true);
    // The stages before it ran: the cache fit moved or kept its figures, the bench's are there.
    CHECK(cut->json["model"]["zones"].size() >= 1);
    CHECK(static_cast<bool>(sim::parse_model(cut->json["model"].dump())));
    CHECK(fs::exists(out));
    fs::remove(out);
  }
}

TEST_CASE("twin draft: a drive that reads ahead only after a read continued another gets that trigger, one that reads ahead after any read none") {
  auto text = sim::preset_json("raptor");
  REQUIRE(static_cast<bool>(text));
  json m = json::parse(*text);
  m["controller"]["prefetch"] = {{"continuous_read", 3}, {"after_sequential_reads", 1}};
  const fs::path file = fs::temp_directory_path() / ("ds-twin-trigger-" + std::to_string(::getpid()) + ".json");
  std::ofstream(file) << m.dump();
  for (const bool stream_only : {true, false}) {
    app::BenchRequest b;
    b.target = stream_only ? "sim:" + file.string() : std::string("sim:raptor");
    b.tests = {"cache"};
    b.tests_given = true;
    b.budget_s = 40;  // the cache test's share of it (about 2.3 s) reaches the read-ahead probe
    auto r = app::run_bench(b, {});
    REQUIRE(static_cast<bool>(r));
    CAPTURE(stream_only);
    REQUIRE(r->json["tests"]["cache"]["read_ahead"] == true);
    const app::TwinDraft d = app::twin_from_bench(r->json);
    if (stream_only) {
      CHECK(r->json["tests"]["cache"]["read_ahead_after_sequential_reads"] == 1);
      CHECK(d.model.value("/controller/prefetch/after_sequential_reads"_json_pointer, 0) == 1);
      CHECK(source_of(d.model, "controller.prefetch.after_sequential_reads").rfind("measured", 0) == 0);
    } else {
      CHECK(r->json["tests"]["cache"]["read_ahead_after_sequential_reads"] == 0);
      CHECK_FALSE(d.model.contains("/controller/prefetch"_json_pointer));
    }
    CHECK(static_cast<bool>(sim::parse_model(d.model.dump())));
  }
  fs::remove(file);
}

TEST_CASE("twin draft: a segment holds a block and the read-ahead after it, and a one-block re-read hits on the twin") {
  // The HP C2490A's full model: the cache test sees 64 KiB segments and a read-ahead of at least
  // 64 KiB. A segment of exactly that let the twin's read-ahead push out the block just read, so
  // the twin's one-block re-reads cost a revolution where the drive's are hits.
  app::BenchRequest b;
  b.target = std::string("sim:") + DS_TEST_DATA + "/disk-models-disksim/hp_c2490a.json";
  b.tests = {"access", "cache"};
  b.tests_given = true;
  b.budget_s = 30;
  auto r = app::run_bench(b, {});
  REQUIRE(static_cast<bool>(r));
  const json& dc = r->json["tests"]["cache"];
  REQUIRE(dc["read_ahead"] == true);
  const app::TwinDraft d = app::twin_from_bench(r->json);
  const json& cache = d.model["cache"];
  const double lbs = d.model["logical_sector_bytes"].get<double>();
  CAPTURE(cache.dump());
  CHECK(cache["bytes"].get<double>() / cache["segments"].get<double>() >=
        lbs * (1 + cache["read_ahead_sectors"].get<double>()));
  CHECK(app::segment_floor_bytes(d.model) == lbs * (1 + cache["read_ahead_sectors"].get<double>()));
  // Measured as the drive was, the twin's re-reads of one block are hits as the drive's were.
  const fs::path file = fs::temp_directory_path() / ("ds-twin-segment-" + std::to_string(::getpid()) + ".json");
  std::ofstream(file) << d.model.dump();
  b.target = "sim:" + file.string();
  b.tests = {"access"};
  auto t = app::run_bench(b, {});
  REQUIRE(static_cast<bool>(t));
  const double drive_o = r->json["tests"]["access"]["command_overhead_ms"].get<double>();
  const double twin_o = t->json["tests"]["access"]["command_overhead_ms"].get<double>();
  CHECK(twin_o < drive_o + 1.0);  // a miss would cost the better part of a 9.4 ms revolution
  fs::remove(file);
}

TEST_CASE("twin draft: re-reads served from the buffer with no size told give a cache of at least the largest") {
  // Through a QEMU guest the size probe's rounds may not pass the hit line (the guest's kernel
  // splits a re-read into several commands) while single re-reads of 512 KiB did: the drive has a
  // cache of at least that, not none. Seen on sim:wd1200jd served to a guest (docs/twin.md).
  json doc = raptor_bench({"cache"}, 40);
  json& c = doc["tests"]["cache"];
  REQUIRE(c["largest_hit_bytes"].get<double>() > 0);
  c["size_bytes_estimate"] = nullptr;
  c["size_at_least"] = false;
  const app::TwinDraft d = app::twin_from_bench(doc);
  CHECK(d.model["cache"]["bytes"].get<double>() >= c["largest_hit_bytes"].get<double>());
  CHECK(source_of(d.model, "cache.bytes").find("largest re-read") != std::string::npos);
  // Without a hit either, the draft says the cache test told no cache.
  c["largest_hit_bytes"] = 0;
  const app::TwinDraft none = app::twin_from_bench(doc);
  CHECK(none.model["cache"]["bytes"] == 0);
  CHECK(source_of(none.model, "cache.bytes").find("told no cache") != std::string::npos);
}

// A slow region's extra time is what its random reads take over what a random read usually takes
// at that place. The access map's reads come each from the one before, so a place near either end
// of the span usually costs more (a longer mean seek) than the middle: the draft's earlier extra,
// the region's own mean (the reads that placed its edges, short moves) less the median bin,
// gave the 7200.7's inner-end region 35.8 ms for the preset's 42.
TEST_CASE("twin draft: a slow region's extra time is over what a random read usually takes there") {
  // Bins whose usual mean follows the mean distance from a uniform place: 8 + 6 (x² + (1 − x)²)/2;
  // the last three slow by 30 ms; the region's own mean_ms is a different kind of read.
  json map = json::array();
  const double cap = 1000000, bin = cap / 20;
  for (int i = 0; i < 20; ++i) {
    const double x = (i + 0.5) / 20, usual = 8 + 6 * (x * x + (1 - x) * (1 - x)) / 2;
    const bool slow = i >= 17;
    map.push_back({{"first_lba", i * bin}, {"last_lba", (i + 1) * bin - 1}, {"mean_ms", usual + (slow ? 30 : 0)},
                   {"samples", 20}, {"slow", slow}});
  }
  json doc = {{"tests",
               {{"positioning", {{"mechanical", true}}},
                {"access", {{"map", map},
                            {"slow_regions", json::array({{{"first_lba", 17 * bin}, {"last_lba", cap - 1}, {"mean_ms", 20.0}}})}}}}},
              {"target", {{"capacity_bytes", cap * 512}}}};
  const app::TwinDraft d = app::twin_from_bench(doc);
  REQUIRE(d.model["defects"].size() == 1);
  CHECK(d.model["defects"][0]["extra_ms"].get<double>() == doctest::Approx(30).epsilon(0.01));
}

TEST_CASE("twin draft: the 7200.7's inner slow region gets its extra time within 5 %, over three seeds") {
  auto preset = sim::open("sim:7200.7", {});
  REQUIRE(static_cast<bool>(preset));
  REQUIRE(preset->model.defects.size() == 1);
  const double truth = preset->model.defects[0].extra_ms;
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    CAPTURE(seed);
    app::BenchRequest b;
    b.target = "sim:7200.7";
    b.tests = {"access"};
    b.tests_given = true;
    b.seed = seed;
    b.budget_s = 60;
    auto r = app::run_bench(b, {});
    REQUIRE(static_cast<bool>(r));
    const app::TwinDraft d = app::twin_from_bench(r->json);
    REQUIRE(d.model["defects"].size() == 1);
    CHECK(d.model["defects"][0]["extra_ms"].get<double>() == doctest::Approx(truth).epsilon(0.05));
  }
}
