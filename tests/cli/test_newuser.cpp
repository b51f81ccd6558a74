// What a new user runs into (issue 15, "found trying it as a new user would"): each case ran
// against the binary before its fix and failed there. Exit codes and messages are the contract
// of docs/cli.md.
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <string>

#include "cli_run.hpp"

namespace fs = std::filesystem;

namespace {

using clitest::Run;
Run run_all(const std::string& args) { return clitest::run(args, true); }

bool has(const std::string& hay, const std::string& needle) { return hay.find(needle) != std::string::npos; }

}  // namespace

TEST_CASE("--budget out of range is refused with exit 2 and the allowed range, in every command") {
  const char* commands[] = {"bench sim:raptor --tests cache", "ab sim:maxline3 --feature aam=quiet,fast",
                            "ncq sim:raptor"};
  for (const char* cmd : commands) {
    for (const char* budget : {"0", "-1", "nan", "1e12", "inf", "abc"}) {
      CAPTURE(cmd);
      CAPTURE(budget);
      Run r = run_all(std::string(cmd) + " --json --budget=" + budget);
      CHECK(r.rc == 2);
      CHECK(has(r.out, "budget"));
      CHECK(has(r.out, "604800"));
    }
  }
  // A budget inside the range still runs.
  CHECK(run_all("bench sim:raptor --tests cache --json --budget 1").rc == 0);
}

TEST_CASE("--span under one sector is refused (exit 2); ab takes the same forms as bench") {
  for (const char* span : {"1", "511", "0.1KB"}) {
    CAPTURE(span);
    Run b = run_all(std::string("bench sim:raptor --tests cache --json --span ") + span);
    CHECK(b.rc == 2);
    CHECK(has(b.out, "less than one sector"));
    Run a = run_all(std::string("ab sim:maxline3 --feature aam=quiet,fast --rounds 2 --budget 0.2 --json --span ") + span);
    CHECK(a.rc == 2);
    CHECK(has(a.out, "less than one sector"));
  }
  // The forms bench always took now work for ab too, and the span reaches the tests.
  Run a = run_all("ab sim:maxline3 --feature aam=quiet,fast --rounds 2 --budget 0.2 --json --span 10%");
  CHECK(a.rc == 0);
  Run b = run_all("ab sim:maxline3 --feature aam=quiet,fast --rounds 2 --budget 0.2 --json --span 1GB");
  CHECK(b.rc == 0);
  CHECK(run_all("ab sim:maxline3 --feature aam=quiet,fast --rounds 2 --json --span 12parsecs").rc == 2);
}

TEST_CASE("ab with a feature the target lacks is refused before the run (exit 1, saying why)") {
  // The simulated raptor's IDENTIFY clears word 83 bit 3 (no APM); a simulated drive has no
  // Linux I/O scheduler.
  Run apm = run_all("ab sim:raptor --feature apm=128,254 --rounds 2 --budget 0.2");
  CHECK(apm.rc == 1);
  CHECK(has(apm.out, "APM"));
  CHECK_FALSE(has(apm.out, "round"));  // no table, no rounds: nothing ran
  Run sched = run_all("ab sim:raptor --feature scheduler=none,mq-deadline --rounds 2 --budget 0.2");
  CHECK(sched.rc == 1);
  CHECK(has(sched.out, "not a block device"));
  CHECK_FALSE(has(sched.out, "round"));
}

TEST_CASE("feature set on a simulated drive says the change lives only in this process") {
  Run r = run_all("aam sim:maxline3 quiet");
  CHECK(r.rc == 0);
  CHECK(has(r.out, "only in this process"));
  Run j = run_all("apm sim:maxline3 get --json");  // a get changes nothing: no such note
  CHECK_FALSE(has(j.out, "only in this process"));
  // The man page no longer promises that `drivescope restore` undoes a `set`.
  std::FILE* f = std::fopen(DS_SOURCE_DIR "/docs/drivescope.1", "r");
  REQUIRE(f != nullptr);
  std::string man;
  for (int c; (c = std::fgetc(f)) != EOF;) man += static_cast<char>(c);
  std::fclose(f);
  CHECK_FALSE(has(man, "can be undone with"));
}

TEST_CASE("mistakes on the command line: unknown command, --timeout out of range, --html into a missing directory") {
  Run r = run_all("frobnicate");
  CHECK(r.rc == 2);
  CHECK(has(r.out, "unknown command frobnicate"));
  // The same kind of mistake, the same exit code: ab's own checks of its options exit 2 like
  // CLI11's do (they used to exit 1).
  CHECK(run_all("ab sim:maxline3 --feature aam=quiet,fast --rounds 1").rc == 2);
  CHECK(run_all("ab sim:maxline3 --feature aam=quiet,fast --tests warp").rc == 2);
  CHECK(run_all("ab sim:maxline3 --feature warp=1,2").rc == 2);
  for (const char* t : {"0", "-1", "nan", "1e300"}) {
    CAPTURE(t);
    Run x = run_all(std::string("report ") + DS_TEST_DATA + "/../../README.md --html /tmp/x.html --timeout=" + t);
    CHECK(x.rc == 2);
    CHECK(x.out.size() < 400);  // a readable message, not the largest double in full
  }
  const fs::path base = fs::temp_directory_path() / ("ds-newuser-" + std::to_string(::getpid()));
  fs::remove_all(base);
  const fs::path results = base.string() + "-results.json";
  const std::string bench = std::string(DS_BINARY) + " bench sim:raptor --tests cache --json --budget 1 > " +
                            results.string() + " 2>/dev/null";
  REQUIRE(std::system(bench.c_str()) == 0);
  Run h = run_all("report " + results.string() + " --html " + (base / "sub" / "r.html").string());
  CHECK(h.rc == 1);
  CHECK(has(h.out, "does not exist"));
  CHECK_FALSE(fs::exists(base));
  fs::remove(results);
}

namespace {

std::string read_bytes(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  REQUIRE(f != nullptr);
  std::string s;
  for (int c; (c = std::fgetc(f)) != EOF;) s += static_cast<char>(c);
  std::fclose(f);
  return s;
}

fs::path write_temp(const std::string& name, const std::string& bytes) {
  const fs::path d = fs::temp_directory_path() / ("ds-newuser-id-" + std::to_string(::getpid()));
  fs::create_directories(d);
  std::FILE* f = std::fopen((d / name).c_str(), "wb");
  REQUIRE(f != nullptr);
  std::fwrite(bytes.data(), 1, bytes.size(), f);
  std::fclose(f);
  return d / name;
}

// Word 255: A5h signature, then the byte that makes the 512-byte sum 0 mod 256.
void fix_checksum(std::string& b) {
  b[510] = static_cast<char>(0xA5);
  unsigned sum = 0;
  for (int i = 0; i < 511; ++i) sum += static_cast<unsigned char>(b[i]);
  b[511] = static_cast<char>((256 - sum % 256) % 256);
}

void set_word(std::string& b, int w, unsigned v) {
  b[2 * w] = static_cast<char>(v & 0xFF);
  b[2 * w + 1] = static_cast<char>(v >> 8);
}

}  // namespace

TEST_CASE("identify --from-file: implausible data is flagged (exit 3), an empty block refused") {
  // 512 bytes from a fixed-seed generator, without the checksum signature.
  std::string random(512, '\0');
  std::uint32_t x = 12345;
  for (auto& c : random) c = static_cast<char>((x = x * 1664525u + 1013904223u) >> 24);
  random[510] = 0;
  Run r = run_all("identify --from-file " + write_temp("random.bin", random).string());
  CHECK(r.rc == 3);
  CHECK(has(r.out, "implausible"));

  Run zero = run_all("identify --from-file " + write_temp("zero.bin", std::string(512, '\0')).string());
  CHECK(zero.rc == 1);
  CHECK(has(zero.out, "all zero"));

  const std::string good = read_bytes(std::string(DS_TEST_DATA) + "/identify/ST320410A--3.39/identify.bin");
  REQUIRE(good.size() == 512);
  std::string atapi = good;
  set_word(atapi, 0, 0x85C0);  // bits 15:14 = 10b: a PACKET device
  fix_checksum(atapi);
  Run a = run_all("identify --json --from-file " + write_temp("atapi.bin", atapi).string());
  CHECK(a.rc == 3);
  CHECK(has(a.out, "ATAPI"));
  std::string lba = good;
  set_word(lba, 60, 0xFFFF);
  set_word(lba, 61, 0xFFFF);  // 2^32 − 1 sectors in a 28-bit field
  fix_checksum(lba);
  Run l = run_all("identify --from-file " + write_temp("lba28.bin", lba).string());
  CHECK(l.rc == 3);
  CHECK(has(l.out, "28-bit"));
}

TEST_CASE("identify --from-file: every real dump decodes clean (no implausibility)") {
  int drives = 0;
  for (auto& e : fs::directory_iterator(std::string(DS_TEST_DATA) + "/identify")) {
    if (!e.is_directory()) continue;
    ++drives;
    CAPTURE(e.path().filename().string());
    Run r = run_all("identify --json --from-file " + (e.path() / "identify.bin").string());
    CHECK(r.rc == 0);
    CHECK_FALSE(has(r.out, "implausible"));
  }
  CHECK(drives > 0);
}

// Found in session 8 (each failed on the binary before its fix).

TEST_CASE("bench --tests: an unknown, empty or repeated name is a usage error (exit 2) before any I/O") {
  // Before: an unknown name exited 1 (ab's --tests said 2), --tests "" and "access,,cache" ran the
  // default set or skipped the empty name without a word, and "access,access" counted access's
  // share of the budget twice.
  struct Case {
    const char* tests;
    const char* says;
  } cases[] = {{"nope", "unknown test 'nope' (known: transfer, access, cache, blocksize, queue, patterns, actuators, rmw)"},
               {"''", "no test given"},
               {"access,,cache", "an empty test name"},
               {"access,", "an empty test name"},
               {"access,access", "'access' is named twice"}};
  for (const auto& c : cases) {
    CAPTURE(c.tests);
    Run r = run_all(std::string("bench sim:raptor --budget 1 --json --tests ") + c.tests);
    CHECK(r.rc == 2);
    CHECK(has(r.out, c.says));
    CHECK_FALSE(has(r.out, "\"tests\":"));  // refused before the run: no results
  }
  CHECK(run_all("bench sim:raptor --budget 1 --json --tests cache").rc == 0);
}

TEST_CASE("--seed takes a decimal whole number: -1 and 0x10 refused, 010 is ten") {
  // Before: CLI11 read --seed with strtoull, so -1 became 18446744073709551615 and 010 was 8.
  for (const char* cmd : {"bench sim:raptor --tests cache --budget 1", "ncq sim:raptor --budget 1", "smr sim:raptor",
                          "scan sim:raptor", "replay sim:raptor /dev/null",
                          "ab sim:maxline3 --feature aam=quiet,fast --rounds 2 --budget 0.2"}) {
    for (const char* seed : {"-1", "0x10", "1.5", "ten", "99999999999999999999"}) {
      CAPTURE(cmd);
      CAPTURE(seed);
      Run r = run_all(std::string(cmd) + " --seed " + seed);
      CHECK(r.rc == 2);
      CHECK(has(r.out, "is not a seed"));
    }
  }
  Run r = clitest::run("bench sim:raptor --tests cache --budget 0.5 --seed 010 --json", false);
  REQUIRE(r.rc == 0);
  CHECK(nlohmann::json::parse(r.out)["settings"]["seed"] == 10);
}

TEST_CASE("feature commands: a wrong action or value is a usage error (exit 2), get takes no value") {
  // Before: these exited 1 (the code of a device that failed), and `aam get 5` ignored the 5.
  for (const char* args : {"aam sim:raptor set 300", "aam sim:raptor set", "aam sim:raptor frob", "aam sim:raptor get 5",
                           "aam sim:raptor quiet 5", "apm sim:raptor set 0", "write-cache sim:raptor maybe",
                           "read-ahead sim:raptor get on"}) {
    CAPTURE(args);
    Run r = clitest::run(std::string(args) + " --json", false);
    CHECK(r.rc == 2);
    const auto j = nlohmann::json::parse(r.out, nullptr, false);
    REQUIRE(j.is_object());
    CHECK(j["drivescope"]["exit_status"] == 2);
    CHECK(j.contains("error"));
  }
  CHECK(run_all("aam sim:raptor get").rc == 0);
}

TEST_CASE("--prom FILE that cannot be written is refused before the run (exit 2), not after it") {
  // Before: identify, bench and scan ran to the end, printed their results and only then failed
  // to write the file (exit 1): on a real drive, a bench of two minutes lost for a typo.
  const fs::path dir = fs::temp_directory_path() / ("ds-prom-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  for (const std::string cmd : {"identify sim:raptor", "bench sim:raptor --tests cache --budget 1", "scan sim:raptor",
                                "ncq sim:raptor --budget 1"}) {
    for (const std::string& path : {(dir / "missing" / "x.prom").string(), dir.string()}) {
      CAPTURE(cmd);
      CAPTURE(path);
      Run r = run_all(cmd + " --prom " + path);
      CHECK(r.rc == 2);
      CHECK(has(r.out, "--prom"));
      CHECK(std::count(r.out.begin(), r.out.end(), '\n') <= 2);  // CLI11's two lines: nothing was run
    }
    Run ok = run_all(cmd + " --prom " + (dir / "ok.prom").string());
    CHECK(ok.rc == 0);
    CHECK(fs::exists(dir / "ok.prom"));
    fs::remove(dir / "ok.prom");
  }
  fs::remove_all(dir);
}

TEST_CASE("--version after a command says where it goes (exit 2), not 'target is required'") {
  // Before: `drivescope bench --version` said "target is required", `identify sim:raptor
  // --version` "The following argument was not expected".
  for (const char* args : {"bench --version", "identify sim:raptor --version", "scan --version --json"}) {
    CAPTURE(args);
    Run r = run_all(args);
    CHECK(r.rc == 2);
    CHECK(has(r.out, "--version comes before any command"));
  }
  CHECK(run_all("--version").rc == 0);
}

TEST_CASE("bench --help's --tests names every test bench knows") {
  // The issue found the help naming 4 of 6 tests. The known list is the binary's own, from the
  // refusal of an unknown name.
  Run bad = run_all("bench sim:raptor --tests nope");
  const auto at = bad.out.find("(known: ");
  REQUIRE(at != std::string::npos);
  std::string known = bad.out.substr(at + 8, bad.out.find(')', at) - at - 8);
  Run help = run_all("bench --help");
  const auto line_at = help.out.find("--tests");
  REQUIRE(line_at != std::string::npos);
  const std::string line = help.out.substr(line_at, help.out.find('\n', line_at) - line_at);
  int names = 0;
  for (std::size_t s = 0; s <= known.size();) {
    const auto e = std::min(known.find(", ", s), known.size());
    const std::string name = known.substr(s, e - s);
    CAPTURE(name);
    CHECK(has(line, name));
    ++names;
    s = e + 2;
  }
  CHECK(names >= 8);  // access, transfer, cache, blocksize, queue, patterns, actuators, rmw at least
}

TEST_CASE("ab: a figure its test gives but the run did not measure is listed with why, not dropped") {
  // Before: at the default budget full stroke and track-to-track were missing from the table
  // and the JSON without a word.
  Run r = clitest::run("ab sim:maxline3 --feature aam=quiet,fast --rounds 2 --budget 1 --json", false);
  REQUIRE(r.rc == 0);
  const auto ab = nlohmann::json::parse(r.out)["ab"];
  std::set<std::string> compared, listed;
  for (const auto& c : ab["results"]) compared.insert(c["figure"].get<std::string>());
  for (const auto& n : ab["not_compared"]) {
    CHECK(n["test"] == "access");
    CHECK_FALSE(n["reason"].get<std::string>().empty());
    listed.insert(n["figure"].get<std::string>());
  }
  CHECK(listed.count("track_to_track_ms"));
  // Every figure of the access test is either compared or listed, never both.
  for (const char* f : {"read.mean_ms", "read.p50_ms", "read.p99_ms", "avg_seek_ms", "full_stroke_ms",
                        "track_to_track_ms", "rotation_ms"}) {
    CAPTURE(f);
    CHECK(compared.count(f) + listed.count(f) == 1);
  }
  Run text = run_all("ab sim:maxline3 --feature aam=quiet,fast --rounds 2 --budget 1");
  CHECK(has(text.out, "track_to_track_ms          not compared: "));
}

TEST_CASE("bench's zone table: each zone's sectors per track agree with its own MB/s") {
  // Issue 15 found the table's spt column disagreeing with its MB/s column. A zone streams at
  // spt sectors a revolution, less the track and cylinder switches: the same fraction of the
  // media rate in every zone of a drive whose switch times do not change (each preset's), and
  // below 1.
  for (const char* preset : {"raptor", "modern8tb"}) {
    CAPTURE(preset);
    Run r = clitest::run(std::string("bench sim:") + preset + " --tests transfer --json", false);
    REQUIRE(r.rc == 0);
    const auto t = nlohmann::json::parse(r.out)["tests"]["transfer"];
    const double rot_ms = t["rotation_ms"].is_object() ? t["rotation_ms"]["value"].get<double>()
                                                       : t["rotation_ms"].get<double>();
    double lo = 2, hi = 0;
    int zones = 0;
    for (const auto& z : t["zones"]) {
      if (!z["sectors_per_track"].is_number() || z["sectors_per_track"] == 0) continue;
      const double media = z["sectors_per_track"].get<double>() * 512 / (rot_ms * 1e3);  // MB/s
      const double f = z["mb_s"].get<double>() / media;
      lo = std::min(lo, f), hi = std::max(hi, f);
      ++zones;
    }
    CHECK(zones >= 10);
    CHECK(hi < 1.0);
    CHECK(lo > 0.8);
    CHECK(hi / lo < 1.02);
  }
}
