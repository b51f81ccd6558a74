// SIGINT in the middle of a long `bench` of the drivescope binary: exit 4 promises the results
// measured so far, so the run must stop soon after the signal and print one JSON document with
// the tests that finished (before the fix, the default action killed the process and every
// result was lost).
#include <doctest/doctest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "app_test_util.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// The exit status, or −signal; kills the child and returns −SIGKILL after `limit`.
int wait_at_most(pid_t pid, std::chrono::seconds limit) {
  const auto end = std::chrono::steady_clock::now() + limit;
  int st = 0;
  while (::waitpid(pid, &st, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > end) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &st, 0);
      return -SIGKILL;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return WIFEXITED(st) ? WEXITSTATUS(st) : -WTERMSIG(st);
}

}  // namespace

TEST_CASE("bench: SIGINT mid-run prints the tests finished so far and exits 4") {
  const fs::path out = fs::temp_directory_path() / ("ds-benchsig-" + std::to_string(::getpid()) + ".json");
  // The simulated drive runs in virtual time, so a run's wall time depends on this machine's
  // speed and load: time one whole run first, then interrupt the same run a third of the way in.
  const std::vector<std::string> args{DS_BINARY, "bench", "sim:modern8tb", "--tests",
                                      "transfer,access,cache,blocksize,queue,patterns",
                                      "--budget", "604800", "--json", "--quiet"};
  const auto t0 = std::chrono::steady_clock::now();
  const pid_t whole = apptest::spawn_to(args, out);
  REQUIRE(whole > 0);
  REQUIRE(wait_at_most(whole, std::chrono::seconds(120)) == 0);
  const auto full = std::chrono::steady_clock::now() - t0;
  MESSAGE("uninterrupted run: " << std::chrono::duration<double>(full).count() << " s");

  const pid_t pid = apptest::spawn_to(args, out);
  REQUIRE(pid > 0);
  std::this_thread::sleep_for(full / 3);
  const auto sent = std::chrono::steady_clock::now();
  REQUIRE(::kill(pid, SIGINT) == 0);
  const int rc = wait_at_most(pid, std::chrono::seconds(60));
  const auto after = std::chrono::steady_clock::now() - sent;
  CHECK(rc == 4);
  CHECK(after < full);  // it stops at its next request, not at the end of the run
  std::ifstream in(out);
  std::stringstream ss;
  ss << in.rdbuf();
  const json j = json::parse(ss.str(), nullptr, false);
  REQUIRE_FALSE(j.is_discarded());
  CHECK(j.value("interrupted", false));
  REQUIRE(j.contains("tests"));
  const json& t = j["tests"];
  INFO("tests: " << t.dump().substr(0, 400));
  // Cut short: a test was stopped (under errors) or never started.
  bool missing = false;
  for (const char* name : {"transfer", "access", "cache", "blocksize", "queue", "patterns"})
    missing = missing || !t.contains(name);
  CHECK((t.contains("errors") || missing));
  // What finished is there with its figures.
  if (t.contains("transfer") && !(t.contains("errors") && t["errors"].contains("transfer")))
    CHECK(t["transfer"]["zones"].size() > 0);
  fs::remove(out);
}
