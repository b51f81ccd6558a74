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
Run run_all(const std::string& args) { return clitest::run(args, true); }
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
    for (const std::string& cmd : {"identify ", "bench --budget 1 --tests cache ", "ncq --no-measure ", "smr ",
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
  for (const auto& [path, says] : cases) {
    for (const std::string& cmd : {"identify sim:raptor", "bench sim:raptor --budget 1 --tests cache --quiet",
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
