// Safety promises checked through the drivescope binary (docs/safety.md): a write test on a file
// needs --write, a read-only bench leaves the target's bytes alone, a file that is not a file or
// block device is refused, and a bench on a simulated drive with injected faults (medium error,
// stopped answering, vanished) ends with exit code 5, a clear error and the results gathered so
// far in the JSON, promptly in wall time.
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "sim/faults.hpp"
#include "sim/sim.hpp"
#include "app_test_util.hpp"

namespace fs = std::filesystem;

namespace {

struct Run {
  int rc = -1;
  std::string out;  // stdout
  std::string err;  // stderr
  double wall_s = 0;
};

fs::path scratch() {
  fs::path d = fs::temp_directory_path() / ("ds_safety_" + std::to_string(::getpid()));
  fs::create_directories(d);
  return d;
}

using apptest::slurp;

Run run(const std::string& args) {
  const fs::path errf = scratch() / "stderr.txt";
  const std::string cmd = std::string(DS_BINARY) + " " + args + " 2>" + errf.string();
  Run r;
  const auto t0 = std::chrono::steady_clock::now();
  FILE* p = popen(cmd.c_str(), "r");
  REQUIRE(p != nullptr);
  std::array<char, 4096> buf{};
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  const int st = pclose(p);
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128;
  r.err = slurp(errf);
  return r;
}

nlohmann::json parse(const Run& r) {
  auto j = nlohmann::json::parse(r.out, nullptr, false);
  REQUIRE_FALSE(j.is_discarded());
  return j;
}

// A file of `mib` MiB with a pattern that is not all zeros (a write test would change it).
fs::path pattern_file(const std::string& name, unsigned mib) {
  const fs::path p = scratch() / name;
  std::ofstream out(p, std::ios::binary);
  std::string block(1 << 20, '\0');
  for (unsigned i = 0; i < mib; ++i) {
    for (std::size_t k = 0; k < block.size(); ++k) block[k] = static_cast<char>((k * 131 + i * 7) & 0xFF);
    out << block;
  }
  return p;
}

// A disk-model file: the Cheetah 9LP model of tests/data with the given faults.
std::string base_model_path() {
  return std::string(DS_TEST_DATA) + "/disk-models/seagate_st39102lw_cheetah9lp.json";
}
ds::Expected<ds::sim::DiskModel> base_model() { return ds::sim::load_model_file(base_model_path()); }
fs::path faulty_model(const std::string& name, const ds::sim::FaultSpec& f) {
  auto m = base_model();
  REQUIRE(m.ok());
  m->faults = f;
  const fs::path p = scratch() / (name + ".json");
  std::ofstream(p) << ds::sim::model_to_json(*m);
  return p;
}

}  // namespace

TEST_CASE("safety: a read-only bench of a file leaves every byte as it was, and writes nothing") {
  const fs::path f = pattern_file("ro.bin", 32);
  const std::string before = slurp(f);
  const auto mtime = fs::last_write_time(f);
  auto r = run("bench --json --quiet --tests blocksize,access --budget 2 file:" + f.string());
  CHECK(r.rc == 0);
  auto j = parse(r);
  CHECK(j["settings"]["write"] == false);
  CHECK(j["tests"].contains("blocksize"));
  CHECK(slurp(f) == before);
  CHECK(fs::last_write_time(f) == mtime);
}

TEST_CASE("safety: a write bench of a file needs --write (and then runs)") {
  const fs::path f = pattern_file("rw.bin", 32);
  const std::string before = slurp(f);
  // Without --write the write half is not run: the file is unchanged.
  auto ro = run("bench --json --quiet --tests blocksize --budget 2 " + f.string());
  CHECK(ro.rc == 0);
  CHECK(parse(ro)["settings"]["write"] == false);
  CHECK(slurp(f) == before);
  // --destructive alone does not enable writes either.
  auto d = run("bench --json --quiet --tests blocksize --budget 2 --destructive " + f.string());
  CHECK(slurp(f) == before);
  // With --write: a regular file needs nothing more, and it is written.
  auto rw = run("bench --json --quiet --tests blocksize --budget 2 --write " + f.string());
  CHECK(rw.rc == 0);
  CHECK(parse(rw)["settings"]["write"] == true);
  CHECK(slurp(f) != before);
}

TEST_CASE("safety: write tests on something that is neither a file nor a block device are refused") {
  auto r = run("bench --json --quiet --tests blocksize --write --destructive /dev/zero");
  CHECK(r.rc == 1);
  CHECK(parse(r).contains("error"));
}

TEST_CASE("safety: bench on a drive that vanishes mid-run: exit 5, a clear error, earlier results kept") {
  ds::sim::FaultSpec f;
  f.vanish_at_ns = 8'000'000'000;  // 8 s of drive time: transfer is done, access is not
  const fs::path m = faulty_model("vanish", f);
  auto r = run("bench --json --quiet --tests transfer,access --budget 30 sim:" + m.string());
  CHECK(r.rc == 5);
  auto j = parse(r);
  REQUIRE(j["tests"].contains("errors"));
  const std::string err = j["tests"]["errors"].dump();
  CAPTURE(err);
  CHECK(err.find("gone") != std::string::npos);
  // What finished before the device went away is in the JSON.
  CHECK(j["tests"].contains("transfer"));
  CHECK(j["tests"]["transfer"]["points"].size() > 0);
  CHECK(r.wall_s < 60);

  // Without --json the error goes to stderr.
  auto t = run("bench --quiet --tests transfer,access --budget 30 sim:" + m.string());
  CHECK(t.rc == 5);
  CHECK(t.err.find("gone") != std::string::npos);
}

TEST_CASE("safety: bench on a drive that stops answering: exit 5, a timeout error, quickly in wall time") {
  ds::sim::FaultSpec f;
  f.stop_after_ios = 400;
  const fs::path m = faulty_model("hang", f);
  auto r = run("bench --json --quiet --tests access,cache --budget 30 sim:" + m.string());
  CHECK(r.rc == 5);
  auto j = parse(r);
  REQUIRE(j["tests"].contains("errors"));
  const std::string err = j["tests"]["errors"].dump();
  CAPTURE(err);
  CHECK(err.find("stopped answering") != std::string::npos);
  // The run ends there: the test after it and the positioning check are not run (on a real drive
  // each would wait out another 30 s), and each says why.
  REQUIRE(j["tests"]["errors"].contains("cache"));
  CHECK(j["tests"]["errors"]["cache"] == "not run: the device stopped answering during access");
  CHECK(j["tests"]["errors"]["positioning"] == "not run: the device stopped answering during access");
  // The reap timeout is 30 s of drive (virtual) time per wait: it must not cost wall time.
  CHECK(r.wall_s < 60);
}

TEST_CASE("safety: bench over medium errors: exit 5 and the failing LBA named") {
  ds::sim::FaultSpec f;
  auto m0 = base_model();
  REQUIRE(m0.ok());
  // Every sector bad: wherever the random reads of `access` land, the first one fails.
  f.medium_errors.push_back({0, m0->capacity()});
  const fs::path m = faulty_model("medium", f);
  auto r = run("bench --json --quiet --tests access --budget 10 sim:" + m.string());
  CHECK(r.rc == 5);
  auto j = parse(r);
  REQUIRE(j["tests"].contains("errors"));
  const std::string err = j["tests"]["errors"].dump();
  CAPTURE(err);
  CHECK(err.find("I/O failed at LBA") != std::string::npos);
  CHECK(err.find("errno 5") != std::string::npos);  // EIO
}

TEST_CASE("safety: replay into a medium error: exit 5, the LBA and trace line named, earlier requests kept") {
  ds::sim::FaultSpec f;
  f.medium_errors.push_back({300000, 16});
  const fs::path m = faulty_model("medium-replay", f);
  const fs::path trace = scratch() / "into-bad.iolog";
  std::ofstream(trace) << "fio version 2 iolog\n/dev/x add\n/dev/x open\n"
                       << "/dev/x read 0 4096\n/dev/x read 51200000 4096\n/dev/x read "
                       << 300008ull * 512 << " 4096\n/dev/x read 8192 4096\n/dev/x close\n";
  auto r = run("replay --json sim:" + m.string() + " " + trace.string());
  CHECK(r.rc == 5);
  auto j = parse(r);
  REQUIRE(j.contains("replay"));
  CHECK(j["replay"]["complete"] == false);
  CHECK(j["replay"]["planned_requests"] == 4);
  CHECK(j["replay"]["requests"].size() == 2);
  CHECK(j["replay"]["summary"]["count"] == 2);
  const std::string err = j["replay"]["error"].get<std::string>();
  CAPTURE(err);
  CHECK(err.find("I/O failed at LBA 300008") != std::string::npos);
  CHECK(err.find("trace line 6") != std::string::npos);
  CHECK(r.err.find("stopped after 2 of 4 requests") != std::string::npos);
  // The same trace on the healthy model runs to its end.
  auto ok = run("replay --json sim:" + base_model_path() + " " + trace.string());
  CHECK(ok.rc == 0);
  auto jo = parse(ok);
  CHECK(jo["replay"]["complete"] == true);
  CHECK(jo["replay"]["error"].is_null());
  CHECK(jo["replay"]["requests"].size() == 4);
}

TEST_CASE("safety: blocksize on a drive where every read fails: exit 5, the error, no table") {
  ds::sim::FaultSpec f;
  auto m0 = base_model();
  REQUIRE(m0.ok());
  f.medium_errors.push_back({0, m0->capacity()});
  const fs::path m = faulty_model("medium-bs", f);
  auto r = run("bench --json --quiet --tests blocksize --budget 10 sim:" + m.string());
  CHECK(r.rc == 5);
  auto j = parse(r);
  REQUIRE(j["tests"].contains("errors"));
  REQUIRE(j["tests"]["errors"].contains("blocksize"));
  const std::string err = j["tests"]["errors"]["blocksize"].get<std::string>();
  CAPTURE(err);
  CHECK(err.find("I/O failed at LBA") != std::string::npos);
  CHECK(err.find("errno 5") != std::string::npos);  // EIO
  CHECK_FALSE(j["tests"].contains("blocksize"));     // no rows of zeros standing for a result

  auto t = run("bench --quiet --tests blocksize --budget 10 sim:" + m.string());
  CHECK(t.rc == 5);
  CHECK(t.err.find("I/O failed at LBA") != std::string::npos);
}

TEST_CASE("safety: blocksize on a drive that vanishes mid-sweep: exit 5, the sizes measured before kept") {
  ds::sim::FaultSpec f;
  // The sweep gets ~5 s of drive time for 12 sizes (512 B … 1 MiB) with --budget 30: at 2 s some
  // sizes are done and some are not.
  f.vanish_at_ns = 2'000'000'000;
  const fs::path m = faulty_model("vanish-bs", f);
  auto r = run("bench --json --quiet --tests blocksize --budget 30 sim:" + m.string());
  CHECK(r.rc == 5);
  auto j = parse(r);
  REQUIRE(j["tests"].contains("errors"));
  const std::string err = j["tests"]["errors"].dump();
  CAPTURE(err);
  CHECK(err.find("errno 19") != std::string::npos);  // ENODEV: in-flight reads of a vanished drive
  REQUIRE(j["tests"].contains("blocksize"));
  const auto& rows = j["tests"]["blocksize"]["rows"];
  CHECK(rows.size() > 0);
  CHECK(rows.size() < 12);
  for (const auto& row : rows) CHECK(row["read_mb_s"].get<double>() > 0);
  CHECK(r.wall_s < 60);
}
