// The readers of results (src/report) name a result key only through src/tests/result_keys.hpp:
// no file there reads one with a literal ("avg_seek_ms"), which would go on reading a key the
// writer renamed (tests/measure/result_keys_test.cpp checks the list against the writers and the
// schema). Keys of other documents that happen to share a result key's name are listed below,
// each with whose key it is; a listed pair no longer found fails too, so the list only shrinks.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tests/result_keys.hpp"

namespace {

namespace K = ds::measure::key;

struct OtherDocumentKey {
  const char* file;  // under src/report
  const char* key;
  const char* whose;
};

constexpr OtherDocumentKey kOtherDocuments[] = {
    {"prom.cpp", "depth", "identify.ncq.depth and ncq.claimed.depth (the queue depth the drive claims)"},
    {"prom.cpp", "queue_depth", "host.queue_depth and ncq.enabled.queue_depth (the host's)"},
    {"prom.cpp", "reorders", "ncq.effective.reorders (ncq --json)"},
    {"prom.cpp", "measured", "ncq.effective.measured (ncq --json: whether the queue test ran)"},
    {"charts.cpp", "measured", "replay's measured CDF (replay --json: the trace's own service times)"},
    {"html.cpp", "depth", "identify.ncq.depth and identify.tcq.depth"},
    {"html.cpp", "confidence", "ab.confidence (ab --json)"},
    {"html.cpp", "tests", "ab.tests: the names of the tests an A/B ran"},
    {"scan_report.cpp", "bytes", "user_capacity.bytes (the smartctl-style identity)"},
    {"scan_report.cpp", "reason", "scan.reason and a drive's bench.reason (why a drive was not benched)"},
    {"charts.cpp", "figure", "ab.figures[].figure (ab --json: the figure an A/B compared)"},
    {"compare.cpp", "figure", "ab.figures[].figure (ab --json: the figure an A/B compared)"},
    {"html.cpp", "figure", "ab.figures[].figure (ab --json: the figure an A/B compared)"},
};

std::set<std::string> result_key_names() {
  std::set<std::string> out{K::kDocumentKey};
  for (const auto& o : K::kResultObjects)
    for (auto k : o.keys) out.emplace(k);
  return out;
}

// The text without // and /* */ comments (literals in comments are prose, not reads).
std::string without_comments(const std::string& s) {
  static const std::regex comment(R"(//[^\n]*|/\*[\s\S]*?\*/)");
  return std::regex_replace(s, comment, "");
}

// Literal keys read: j["key"] (not j["key"] = ..., which writes another document: the identity
// reports), and "key" as an argument of a JSON accessor (contains, value, at, and the readers'
// helpers: json_number, num, arr, sub, str, flag, scaled, seconds, test, number). Not find: the
// readers find keys by name only inside those helpers, and compare.cpp searches figure names.
std::vector<std::string> literal_reads(const std::string& text) {
  static const std::regex subscript(R"re(\[\s*"([a-z0-9_]+)"\s*\](?!\s*=[^=]))re");
  static const std::regex call(
      R"re(\b(?:contains|value|at|json_number|num|arr|sub|str|flag|scaled|seconds|test|number)\s*\((?:[^();"]*,\s*)?"([a-z0-9_]+)")re");
  std::vector<std::string> out;
  for (const auto* re : {&subscript, &call})
    for (std::sregex_iterator it(text.begin(), text.end(), *re), end; it != end; ++it) out.push_back((*it)[1]);
  return out;
}

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

TEST_CASE("result keys: src/report reads no result key by a literal") {
  const auto names = result_key_names();
  std::set<std::pair<std::string, std::string>> allowed, used;
  for (const auto& a : kOtherDocuments) allowed.emplace(a.file, a.key);
  const std::filesystem::path dir = std::filesystem::path(DS_SOURCE_DIR) / "src" / "report";
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    const auto ext = e.path().extension();
    if (ext != ".cpp" && ext != ".hpp") continue;
    ++files;
    const std::string file = e.path().filename().string();
    for (const auto& key : literal_reads(without_comments(read_file(e.path())))) {
      if (!names.count(key)) continue;
      if (allowed.count({file, key})) {
        used.emplace(file, key);
        continue;
      }
      CHECK_MESSAGE(false, "src/report/" << file << " reads the result key \"" << key
                                         << "\" as a literal: use ds::measure::key (tests/result_keys.hpp)");
    }
  }
  CHECK(files > 10);
  for (const auto& a : allowed) CHECK_MESSAGE(used.count(a), a.first << ": \"" << a.second << "\" is no longer read: drop it from kOtherDocuments");
}

TEST_CASE("result keys: the literal scan sees the reads it is meant to catch") {
  const auto names = result_key_names();
  auto caught = [&](const std::string& code) {
    for (const auto& k : literal_reads(without_comments(code)))
      if (names.count(k)) return true;
    return false;
  };
  CHECK(caught(R"(auto v = num(a, "avg_seek_ms");)"));
  CHECK(caught(R"(const json& t = sub(doc, "tests");)"));
  CHECK(caught(R"(if (qt.contains("reorders") && qt["reorders"].is_boolean()))"));
  CHECK(caught(R"(m.add("x", help, seconds(read, "mean_ms"), {{"stat", "mean"}});)"));
  CHECK_FALSE(caught(R"(auto v = num(a, K::access::avg_seek_ms);)"));
  CHECK_FALSE(caught(R"(// the old "avg_seek_ms" key)"));
  CHECK_FALSE(caught(R"(ChartSource c{name, "transfer", title, "", ""};)"));
  CHECK_FALSE(caught(R"(j["read_ahead"] = feature_json(id.read_look_ahead);)"));
  CHECK(caught(R"(if (j["read_ahead"] == nullptr) return;)"));
}
