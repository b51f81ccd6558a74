// What the README, docs/*.md and the man page say of the binary, held to the binary (issue 32:
// each place where a new user found them disagreeing). Each case reads the document's own words
// and runs the binary they describe.
#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_run.hpp"
#include "help_text.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string read_doc(const std::string& rel) {
  std::ifstream f(std::string(DS_SOURCE_DIR) + "/" + rel);
  REQUIRE_MESSAGE(f, rel);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// A document's text as a reader sees it: roff's \- as -, and lines joined into one.
std::string plain(std::string s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size() && s[i + 1] == '-') continue;
    out += s[i] == '\n' ? ' ' : s[i];
  }
  return out;
}

// The man page's words as man prints them, on one line: a font macro's arguments run together
// (".IR NAME \-charts/" is "NAME-charts/"), other macros dropped, \- and \(dq as - and ".
std::string roff_text(const std::string& page) {
  std::istringstream in(page);
  std::string out;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(".\\\"", 0) == 0) continue;  // a comment
    if (!line.empty() && line[0] == '.') {
      const auto sp = line.find(' ');
      const std::string macro = line.substr(1, sp == std::string::npos ? std::string::npos : sp - 1);
      const std::string rest = sp == std::string::npos ? "" : line.substr(sp + 1);
      if (macro.size() > 2 || macro == "TP" || macro == "RS" || macro == "RE" || macro == "br" || macro == "nf" ||
          macro == "fi" || macro == "PP")
        line.clear();
      else if (macro == "SH" || macro == "SS" || macro == "B" || macro == "I")
        line = rest;
      else {  // .BR .IR .RB ...: the arguments, quotes removed, with nothing between them
        line.clear();
        bool quoted = false;
        for (char ch : rest) {
          if (ch == '"') quoted = !quoted;
          else if (ch != ' ' || quoted) line += ch;
        }
      }
      for (std::size_t q; (q = line.find('"')) != std::string::npos && (macro == "B" || macro == "I");) line.erase(q, 1);
    }
    if (!line.empty()) out += line + " ";
  }
  std::string t;
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (out.compare(i, 2, "\\-") == 0) { t += '-'; ++i; }
    else if (out.compare(i, 4, "\\(dq") == 0) { t += '"'; i += 3; }
    else t += out[i];
  }
  return t;
}

fs::path scratch(const std::string& name) {
  fs::path d = fs::temp_directory_path() / ("ds-docs-" + std::to_string(::getpid())) / name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

std::string sh_quote(const std::string& s) { return "'" + s + "'"; }

// roff's \- as -, the lines kept.
std::string unroff_lines(const std::string& s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i)
    if (!(s[i] == '\\' && i + 1 < s.size() && s[i + 1] == '-')) out += s[i];
  return out;
}

// A shell command line of its own (an environment, a directory), stdout and stderr together.
clitest::Run shell(const std::string& cmd) {
  clitest::Run r;
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  REQUIRE(p != nullptr);
  char buf[4096];
  for (std::size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) r.out.append(buf, n);
  const int st = pclose(p);
  r.rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128;
  return r;
}

}  // namespace

TEST_CASE("docs: every default bench budget the docs state is the binary's") {
  const std::string help = clitest::run("bench --help", true).out;
  std::smatch m;
  // "--budget FLOAT:..." then its description on the next line: "total drive time ... (default 120)".
  REQUIRE(std::regex_search(help, m, std::regex(R"(--budget[^\n]*\n[^\n]*\(default ([0-9]+)\))")));
  const std::string binary = m[1];
  // The ways the docs say it: "the default 120 s budget", "120 s of drive time by default",
  // "the default budget is 120 s", "(default 120 s" in the man page.
  const std::regex said(R"((default ([0-9]+) s budget)|(([0-9]+) s of drive time by default)|)"
                        R"((default budget is ([0-9]+) s)|(total drive time \(default ([0-9]+) s))");
  std::vector<std::string> docs{"README.md", "docs/drivescope.1"};
  for (const auto& e : fs::directory_iterator(std::string(DS_SOURCE_DIR) + "/docs"))
    if (e.path().extension() == ".md") docs.push_back("docs/" + e.path().filename().string());
  int found = 0;
  for (const auto& d : docs) {
    const std::string text = plain(read_doc(d));
    for (std::sregex_iterator it(text.begin(), text.end(), said), end; it != end; ++it) {
      std::string n;
      for (int g : {2, 4, 6, 8})
        if ((*it)[g].matched) n = (*it)[g];
      CAPTURE(d);
      CAPTURE(it->str());
      CHECK(n == binary);
      ++found;
    }
  }
  // The README's own (the commands table, the accuracy line) and the man page's at least.
  CHECK(found >= 4);
}

TEST_CASE("docs: the README's --json promise: every command but the ones it names, and usage errors too") {
  const std::string readme = plain(read_doc("README.md"));
  std::smatch m;
  REQUIRE(std::regex_search(readme, m, std::regex(R"(Every command that prints results takes `--json` \(all but `([a-z-]+)`)")));
  const std::string exception = m[1];
  const std::string top = clitest::run("--help", true).out;
  const auto subs = clitest::subcommands_in(top);
  REQUIRE(subs.size() >= 10);
  for (const auto& sub : subs) {
    std::vector<std::string> forms{sub};
    for (const auto& nested : clitest::subcommands_in(clitest::run(sub + " --help", true).out))
      forms.push_back(sub + " " + nested);  // sim list, sim show
    for (const auto& f : forms) {
      if (f == "sim") continue;  // a group: its commands take it
      CAPTURE(f);
      const bool takes = clitest::options_in(clitest::run(f + " --help", true).out).count("--json") > 0;
      CHECK(takes == (f != exception));
    }
  }
  CHECK(readme.find("a usage error included") != std::string::npos);
  // Usage errors of every kind CLI11 and the commands find: one document on stdout, exit 2.
  for (const std::string args : {"bench sim:raptor --budget 0 --json", "bench --json", "nosuchcommand --json",
                                 "identify --json", "bench sim:raptor --nosuchoption --json",
                                 "ncq sim:raptor --max-depth 0 --json"}) {
    CAPTURE(args);
    auto r = clitest::run(args, false);
    CHECK(r.rc == 2);
    json doc = json::parse(r.out, nullptr, false);
    REQUIRE_FALSE(doc.is_discarded());
    CHECK(doc["error"].is_string());
    CHECK(doc["drivescope"]["exit_status"] == 2);
    CHECK(doc["json_format_version"].is_array());
  }
  auto compact = clitest::run("bench sim:raptor --budget 0 --json=c", false);
  CHECK(compact.rc == 2);
  CHECK(std::count(compact.out.begin(), compact.out.end(), '\n') == 1);
  // Without --json a usage error prints nothing on stdout.
  CHECK(clitest::run("bench sim:raptor --budget 0", false).out.empty());
}

TEST_CASE("docs: a run that finds a leftover state file refuses to start and names drivescope restore") {
  const std::string safety = plain(read_doc("docs/safety.md"));
  REQUIRE(safety.find("a run that finds such a leftover refuses to start and names the exact command") !=
          std::string::npos);
  const fs::path dir = scratch("state");
  // What ab writes before its first change, left behind by a run that died (no such process).
  json state{{"format", "drivescope-restore-state/1"}, {"target", "sim:raptor"}, {"kind", "sim"},
             {"device_path", ""}, {"block_name", ""}, {"pid", 999999999}, {"status", "active"},
             {"settings", json::array({{{"feature", "write-cache"},
                                        {"original", {{"enabled", true}, {"text", "enabled"}}},
                                        {"status", "pending"}, {"message", ""}}})}};
  const fs::path file = dir / "state-sim_raptor.json";
  std::ofstream(file) << state.dump(2);
  const std::string env = "DRIVESCOPE_STATE_DIR=" + sh_quote(dir.string()) + " " + DS_BINARY + " ";
  const std::string bench = "bench sim:raptor --tests cache --budget 1";
  auto refused = shell(env + bench);
  CHECK(refused.rc == 1);
  CHECK(refused.out.find("did not put them back") != std::string::npos);
  CHECK(refused.out.find("drivescope restore sim:raptor --state-dir") != std::string::npos);
  // ab refuses the same way (its own check, before it changes anything).
  auto ab = shell(env + "ab sim:raptor --feature aam=quiet,fast --tests cache --rounds 2 --budget 1");
  CHECK(ab.rc == 1);
  CHECK(ab.out.find("drivescope restore") != std::string::npos);
  // Once put back (restore marks the file or removes it) the bench runs.
  state["status"] = "restored";
  std::ofstream(file) << state.dump(2);
  CHECK(shell(env + bench).rc == 0);
  fs::remove_all(dir);
}

TEST_CASE("docs: the man page names the chart directory the binary makes beside --html FILE") {
  const std::string man = roff_text(read_doc("docs/drivescope.1"));
  std::smatch m;
  REQUIRE(std::regex_search(man, m, std::regex(R"(\(--html ([a-z0-9]+)\.html: ([a-z0-9]+-charts)/\))")));
  const std::string stem = m[1], charts = m[2];
  CHECK(man.find("chart files go to NAME-charts/") != std::string::npos);
  const fs::path dir = scratch("charts");
  const fs::path doc = dir / "in.json";
  auto b = clitest::run("bench sim:raptor --tests transfer --budget 2 --json > " + sh_quote(doc.string()), false);
  REQUIRE(b.rc == 0);
  const fs::path html = dir / (stem + ".html");
  // Exit 0, or 3 where gnuplot is missing (the chart data and scripts are written all the same).
  auto r = clitest::run("report " + sh_quote(doc.string()) + " --html " + sh_quote(html.string()), true);
  CHECK((r.rc == 0 || r.rc == 3));
  CHECK(fs::is_directory(dir / charts));
  CHECK_FALSE(fs::exists(dir / (stem + ".html-charts")));
  fs::remove_all(dir);
}

TEST_CASE("docs: identify --from-file - reads stdin, as the man page says and decode - does") {
  const std::string man = roff_text(read_doc("docs/drivescope.1"));
  CHECK(man.find("--from-file - reads it from stdin") != std::string::npos);
  CHECK(clitest::run("identify --help", true).out.find("- reads stdin") != std::string::npos);
  const std::string dump = std::string(DS_TEST_DATA) + "/identify/ST320410A--3.39/identify.hex";
  auto from_file = clitest::run("identify --from-file " + sh_quote(dump), false);
  REQUIRE(from_file.rc == 0);
  auto from_stdin = clitest::run("identify --from-file - < " + sh_quote(dump), false);
  CHECK(from_stdin.rc == 0);
  // The same decode; only the name differs (the path, or "stdin").
  auto strip_name = [&](std::string s, const std::string& name) {
    for (auto at = s.find(name); at != std::string::npos; at = s.find(name)) s.erase(at, name.size());
    return s;
  };
  CHECK(strip_name(from_stdin.out, "stdin") == strip_name(from_file.out, dump));
  auto j = json::parse(clitest::run("identify --from-file - --json < " + sh_quote(dump), false).out, nullptr, false);
  REQUIRE_FALSE(j.is_discarded());
  CHECK(j["target"]["name"] == "stdin");
  CHECK(clitest::run("identify --from-file - < /dev/null", false).rc == 1);  // empty: an error, no crash
}

TEST_CASE("docs: each feature command's --help lists every action it takes") {
  for (const std::string cmd : {"aam", "apm", "write-cache", "read-ahead"}) {
    CAPTURE(cmd);
    const std::string help = clitest::run(cmd + " --help", true).out;
    std::smatch m;
    REQUIRE(std::regex_search(help, m, std::regex(R"(\n\s+action\s+[A-Z]*\s*(get[^\n]*))")));
    const std::string actions = m[1];
    CHECK(actions.find("set") != std::string::npos);
    // `set` with a value the command takes is no usage error (exit 2). The simulated Raptor has
    // no APM, so that one is refused by the drive (exit 1), after the command line was taken.
    const std::string value = cmd == "aam" ? "200" : cmd == "apm" ? "128" : "off";
    const int set_rc = clitest::run(cmd + " sim:raptor set " + value, true).rc;
    CHECK(set_rc == (cmd == "apm" ? 1 : 0));
    CHECK(clitest::run(cmd + " sim:raptor set", true).rc == 2);  // (and a usage error is one)
    // Every word the line lists as an action (not a placeholder in capitals) is taken.
    std::istringstream words(actions);
    for (std::string w; words >> w;) {
      if (w == "|" || w == "set" || w.find_first_of("ABCDEFGHIJKLMNOPQRSTUVWXYZ(.|") != std::string::npos) continue;
      CAPTURE(w);
      const int rc = clitest::run(cmd + " sim:raptor " + w, true).rc;
      CHECK((rc == 0 || (cmd == "apm" && rc != 2)));  // the Raptor reports no APM: 1 or 3, never a usage error
    }
  }
}

TEST_CASE("docs: the man page's examples name files that are there, and the replay one runs") {
  const std::string man = read_doc("docs/drivescope.1");
  const auto at = man.find(".SH EXAMPLES");
  REQUIRE(at != std::string::npos);
  std::string examples = man.substr(at, man.find(".SH ", at + 1) - at);
  // Continued lines ("\\" at the end) as one.
  for (auto cont = examples.find("\\\\\n"); cont != std::string::npos; cont = examples.find("\\\\\n"))
    examples.replace(cont, 3, " ");
  std::istringstream in(unroff_lines(examples));
  std::string replay;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("drivescope replay", 0) == 0) replay = line;
    if (line.rfind('#', 0) == 0) continue;  // a comment says where, it names no file
    std::istringstream w(line);
    for (std::string word; w >> word;) {
      if (word.rfind("sim:", 0) == 0) word = word.substr(4);
      // A file of the source tree (tests/data/...): it must be there.
      if (word.rfind("tests/", 0) == 0) {
        CAPTURE(word);
        CHECK(fs::exists(fs::path(DS_SOURCE_DIR) / word));
      }
    }
  }
  REQUIRE_FALSE(replay.empty());
  // It says where its files are, and runs from a source tree as written.
  CHECK(examples.find("tests/data") != std::string::npos);
  auto r = shell("cd " + sh_quote(DS_SOURCE_DIR) + " && " + DS_BINARY + replay.substr(std::string("drivescope").size()));
  CHECK_MESSAGE(r.rc == 0, r.out.substr(0, 400));
}
