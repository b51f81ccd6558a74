// Hostile input through the binary (issue 31): names the kernel refuses, files that are not files,
// traces with absurd times, empty sizes, bytes from a device meant for a terminal. Each case had
// an abort, a hang, a replaced file or a silent exit 0 before; each now gets a clear refusal.
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include "cli_run.hpp"
#include "cli_split.hpp"

namespace fs = std::filesystem;

namespace {

using clitest::Run;
using clitest::run_split;
bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// A scratch directory of this process, removed at the end of each case.
struct Scratch {
  fs::path dir = fs::temp_directory_path() / ("ds_hostile_" + std::to_string(::getpid()));
  Scratch() { fs::create_directories(dir); }
  ~Scratch() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  fs::path file(const std::string& name, const std::string& bytes) const {
    std::ofstream(dir / name, std::ios::binary) << bytes;
    return dir / name;
  }
};

// The binary under timeout(1), stderr with stdout: a hang fails the case (exit 124) instead of
// hanging the suite.
Run run_bounded(const std::string& args) { return clitest::run(args, true, "timeout 20 "); }

// The shell's quoting of a path (they hold no single quote here).
std::string q(const fs::path& p) { return "'" + p.string() + "'"; }

}  // namespace

TEST_CASE("a name too long for the kernel, or a symlink to itself: a clear error, exit 1, no abort") {
  // Before: fs::is_regular_file threw filesystem_error out of main (std::terminate, exit 134).
  Scratch s;
  const std::string long_name = "/dev/" + std::string(300, 'A');
  fs::create_symlink("selfloop", s.dir / "selfloop");
  const std::string loop = q(s.dir / "selfloop");
  const std::string trace = " " + q(s.file("one.trace", "R Miss 0 8 100 0\n"));
  for (const std::string& target : {long_name, loop, "file:" + long_name, "file:" + loop}) {
    for (const std::string cmd : {"identify ", "bench --budget 1 --tests cache ", "ncq --no-measure ", "smr ",
                                   "scan ", "aam ", "ab --feature aam=quiet,fast --rounds 2 --budget 0.2 ",
                                   "replay ", "write-cache "}) {
      const std::string args = cmd + target + (cmd == "replay " ? trace : "");
      CAPTURE(args);
      const auto r = run_split(args);
      CHECK(r.rc == 1);
      CHECK_FALSE(has(r.err, "terminate"));
      CHECK((has(r.err, "File name too long") || has(r.err, "Too many levels of symbolic links")));
    }
  }
}

TEST_CASE("targets that are not there, or are directories, are refused: no exit 0") {
  // Before: smr and ncq --no-measure open no I/O, so a file: target was never looked at.
  for (const char* args : {"smr file:/nonexistent", "smr file:/tmp", "ncq file:/nonexistent --no-measure",
                           "ncq file:/tmp --no-measure", "identify file:/nonexistent", "identify /tmp",
                           "smr /nonexistent"}) {
    CAPTURE(args);
    const auto r = run_split(args);
    CHECK(r.rc == 1);
    CHECK((has(r.err, "no such file or device") || has(r.err, "is a directory")));
  }
}

TEST_CASE("scan: a failed target outranks a partial one in the exit code") {
  // Before: the exit codes were ranked by value, so partial (3) hid a failed drive (1).
  Scratch s;
  // The raptor preset with a blank model: IDENTIFY data that is implausible, a partial answer.
  std::ifstream in(std::string(DS_SOURCE_DIR) + "/models/raptor.json");
  auto model = nlohmann::json::parse(in);
  model["identity"]["model"] = "";
  const std::string partial_drive = "sim:" + s.file("blank.json", model.dump()).string();
  const auto partial = run_split("scan " + partial_drive);
  REQUIRE(partial.rc == 3);
  const auto both = run_split("scan --json=c sim:no-such-preset " + partial_drive);
  CHECK(both.rc == 1);
  CHECK(has(both.out, "\"failed\""));
  CHECK(run_split("scan " + partial_drive + " sim:no-such-preset").rc == 1);  // either order
}

TEST_CASE("--span '' and --offset '' are refused, not read as the whole drive and 0") {
  for (const char* args : {"bench sim:raptor --tests cache --budget 1 --span ''",
                           "bench sim:raptor --tests cache --budget 1 --offset ''",
                           "bench sim:raptor --tests cache --budget 1 --span=",
                           "bench sim:raptor --tests cache --budget 1 --span 12XB",
                           "bench sim:raptor --tests cache --budget 1 --offset 1.5.5GB",
                           "ab sim:maxline3 --feature aam=quiet,fast --rounds 2 --budget 0.2 --span ''"}) {
    CAPTURE(args);
    const auto r = run_split(std::string(args) + " --json");
    CHECK(r.rc == 2);
    CHECK(has(r.err, "expected a size"));
    CHECK_FALSE(has(r.out, "\"tests\":"));
  }
}

TEST_CASE("--prom writes only an absent path or a regular file: a FIFO, a symlink, a device are kept") {
  // Before: the temporary file was renamed over whatever was there (as root, /dev/null too).
  Scratch s;
  const auto fifo = s.dir / "fifo.prom";
  REQUIRE(::mkfifo(fifo.c_str(), 0644) == 0);
  const auto aim = s.file("aim", "kept\n");
  const auto link = s.dir / "link.prom";
  fs::create_symlink(aim, link);
  std::vector<std::pair<fs::path, std::string>> cases{{fifo, "is a FIFO"}, {link, "is a symbolic link"}};
  // A device node of our own (a copy of /dev/null's numbers), never the system's.
  const auto dev = s.dir / "null.prom";
  if (::mknod(dev.c_str(), S_IFCHR | 0666, makedev(1, 3)) == 0) cases.push_back({dev, "is a character device"});
  else MESSAGE("not root: the character-device case is left out (mknod: " << std::strerror(errno) << ")");
  // A named pair, not a structured binding: clang 14 (Debian 12's, the sanitizer stage's) cannot
  // capture a binding in the lambda that CAPTURE makes.
  for (const auto& one : cases) {
    const fs::path& path = one.first;
    const std::string& says = one.second;
    for (const std::string cmd : {"identify sim:raptor", "bench sim:raptor --budget 1 --tests cache --quiet",
                                   "ncq sim:raptor --no-measure", "scan sim:raptor"}) {
      CAPTURE(cmd);
      CAPTURE(path);
      const auto r = run_split(cmd + " --prom " + q(path));
      CHECK(r.rc == 2);
      CHECK(has(r.err, says));
    }
  }
  struct stat st {};
  CHECK((::lstat(fifo.c_str(), &st) == 0 && S_ISFIFO(st.st_mode)));
  CHECK((::lstat(link.c_str(), &st) == 0 && S_ISLNK(st.st_mode)));
  std::ifstream in(aim);
  std::string kept;
  std::getline(in, kept);
  CHECK(kept == "kept");
  if (cases.size() == 3) CHECK((::lstat(dev.c_str(), &st) == 0 && S_ISCHR(st.st_mode)));
  // An absent path and a regular file are written.
  const auto fresh = s.dir / "fresh.prom";
  CHECK(run_split("identify sim:raptor --prom " + q(fresh)).rc == 0);
  CHECK(fs::is_regular_file(fresh));
  CHECK(run_split("identify sim:raptor --prom " + q(fresh)).rc == 0);
}

TEST_CASE("replay: a trace's pauses and service times are bounded; a directory or FIFO is no trace") {
  Scratch s;
  const auto img = s.file("small.img", std::string(1 << 20, '\0'));
  // The first line's NEXT_US is the pause before the second request (DiskSim validate).
  const auto huge = s.file("huge.trace", "R Miss 0 8 100 1e30\nR Miss 8 8 100 0\n");
  const auto hour = s.file("hour.trace", "R Miss 0 8 100 3600000001\nR Miss 8 8 100 0\n");
  const auto slow = s.file("slow.trace", "R Miss 0 8 100 0\nR Miss 8 8 1e30 0\n");
  // Line 1 of an iolog is its header.
  const auto fio = s.file("fio.trace", "fio version 3 iolog\n0 x read 0 4096\n3600000001 x read 4096 4096\n");
  // `timeout`: before, file: slept for ever on the first trace.
  for (const std::string& target : {"file:" + img.string(), std::string("sim:raptor")}) {
    struct Case {
      fs::path trace;
      const char *says, *line;
    };
    for (const Case& c : {Case{huge, "too long to count", "line 2:"}, Case{hour, "3600.000001 s", "line 2:"},
                          Case{slow, "service time", "line 2:"}, Case{fio, "3600.000001 s", "line 3:"}}) {
      const auto& [trace, says, line] = c;
      CAPTURE(target);
      CAPTURE(c.trace);  // the member, not the binding (clang 14 cannot capture a binding)
      const auto r = run_bounded("replay " + target + " " + q(trace) + " --json");
      CHECK(r.rc == 1);
      CHECK(has(r.out, says));
      CHECK(has(r.out, line));
    }
  }
  const auto just = s.file("just.trace", "R Miss 0 8 100 3599000000\nR Miss 8 8 100 0\n");
  CHECK(run_split("replay sim:raptor " + q(just)).rc == 0);  // an hour less a second: virtual, at once
  const auto dir = run_split("replay sim:raptor /tmp");
  CHECK(dir.rc == 1);
  CHECK(has(dir.err, "is a directory"));
  CHECK_FALSE(has(dir.err, "1 GiB"));
  const auto fifo = s.dir / "trace.fifo";
  REQUIRE(::mkfifo(fifo.c_str(), 0644) == 0);
  const auto f = run_bounded("replay sim:raptor " + q(fifo));  // before: blocked in open(2) for a writer
  CHECK(f.rc == 1);
  CHECK(has(f.out, "not a regular file"));
}

TEST_CASE("decode: random bytes as INQUIRY are implausible (exit 3); a device's ESC never reaches the terminal") {
  Scratch s;
  std::mt19937 rng(31);
  std::string noise(1 << 20, '\0');
  for (auto& c : noise) c = static_cast<char>(rng());
  const auto f = s.file("noise.bin", noise);
  const auto r = run_split("decode --inquiry " + q(f));
  CHECK(r.rc == 3);
  CHECK(has(r.err, "INQUIRY data implausible"));
  CHECK(has(r.err, "not INQUIRY data"));
  // VPD 83h with one SCSI name string designator (type 8, code set 3 UTF-8) holding ESC [31m.
  std::string name = "naa.\x1b[31mEVIL\x7f\xc2\x9b" "2J";
  name.resize((name.size() + 4) / 4 * 4, '\0');  // null-terminated, padded to 4 (SPC-4 7.8.6.11)
  std::string page = {'\0', '\x83', '\0', static_cast<char>(4 + name.size()), '\x03', '\x08', '\0',
                      static_cast<char>(name.size())};
  page += name;
  const auto vpd = s.file("vpd83.bin", page);
  const auto text = run_split("decode --vpd " + q(vpd));
  REQUIRE(text.rc == 0);
  CHECK_FALSE(has(text.out, "\x1b"));
  CHECK_FALSE(has(text.out, "\x7f"));
  CHECK_FALSE(has(text.out, "\xc2\x9b"));  // C1 CSI, as UTF-8
  CHECK(has(text.out, "naa.\\x1b[31mEVIL\\x7f\\xc2\\x9b2J"));
  const auto doc = nlohmann::json::parse(run_split("decode --json --vpd " + q(vpd)).out);
  CHECK(doc.dump().find("\\u001b[31mEVIL") != std::string::npos);  // JSON keeps it, escaped
}
