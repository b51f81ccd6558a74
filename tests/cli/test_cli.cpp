// End-to-end tests of the drivescope binary: what a user types, what comes out, the exit code.
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "cli_run.hpp"
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

namespace fs = std::filesystem;

namespace {

using clitest::Run;
Run run(const std::string& args) { return clitest::run(args, false); }

std::string data(const std::string& rel) { return std::string(DS_TEST_DATA) + "/" + rel; }

fs::path temp_file(const std::string& name, const std::string& bytes) {
  fs::path d = fs::temp_directory_path() / ("ds_cli_" + std::to_string(::getpid()));
  fs::create_directories(d);
  std::ofstream(d / name, std::ios::binary) << bytes;
  return d / name;
}

}  // namespace

TEST_CASE("identify --from-file decodes every real drive in all three forms, as JSON") {
  int drives = 0;
  for (auto& e : fs::directory_iterator(data("identify"))) {
    if (!e.is_directory()) continue;
    ++drives;
    std::string model;
    for (const char* f : {"identify.hex", "identify.bin", "blob.bin"}) {
      auto r = run("identify --json --from-file " + (e.path() / f).string());
      CAPTURE(e.path().filename().string());
      CAPTURE(f);
      REQUIRE(r.rc == 0);
      auto j = nlohmann::json::parse(r.out);
      CHECK(j["target"]["kind"] == "dump");
      CHECK(j["identify"]["checksum"] == "valid");
      if (model.empty()) model = j["identify"]["model"];
      CHECK(j["identify"]["model"] == model);  // the three forms agree
    }
  }
  CHECK(drives == 13);
}

TEST_CASE("malformed dumps: clear error, non-zero exit, never a crash") {
  std::string good;
  {
    std::ifstream in(data("identify/ST320410A--3.39/identify.bin"), std::ios::binary);
    good.assign(std::istreambuf_iterator<char>(in), {});
  }
  REQUIRE(good.size() == 512);
  std::string badsum = good;
  badsum[20] ^= 0x5a;
  const std::pair<const char*, std::string> cases[] = {
      {"empty.bin", ""},
      {"truncated.bin", good.substr(0, 300)},
      {"long.bin", good + "x"},
      {"badsum.bin", badsum},
      {"garbage.hex", "zz 12 qq\nnot hex at all\n"},
      {"short.hex", "0040 3fff c837 0010\n"},
  };
  for (const auto& c : cases) {  // (no structured binding: clang 14 cannot CAPTURE one)
    const char* const name = c.first;
    auto p = temp_file(name, c.second);
    auto r = run("identify --from-file " + p.string());
    CAPTURE(name);
    CHECK(r.rc == 1);
  }
  // The bad checksum can be overridden on purpose: the block is decoded. The flipped byte (the
  // serial's first, 46h → 1Ch) is not printable ASCII, so the decode is flagged implausible (3).
  auto over = run("identify --allow-bad-checksum --from-file " + temp_file("badsum.bin", badsum).string());
  CHECK(over.rc == 3);
  CHECK(over.out.find("ST320410A") != std::string::npos);
  CHECK(run("identify --from-file /nonexistent/file").rc == 1);
}

TEST_CASE("usage errors exit 2") {
  CHECK(run("").rc == 2);
  CHECK(run("identify").rc == 2);
  CHECK(run("no-such-command").rc == 2);
  CHECK(run("identify --from-file x sim:raptor").rc == 2);
}

TEST_CASE("identify on simulated drives gives the documented keys") {
  for (const char* preset : {"raptor", "7k400", "cheetah15k3"}) {
    auto r = run(std::string("identify --json sim:") + preset);
    CAPTURE(preset);
    REQUIRE(r.rc == 0);
    auto j = nlohmann::json::parse(r.out);
    CHECK(j["target"]["kind"] == "sim");
    const auto& id = j["identify"];
    for (const char* k : {"model", "serial", "firmware", "capacity_sectors", "logical_sector_bytes",
                          "rotation_rate_rpm", "write_cache", "read_ahead"})
      CHECK_MESSAGE(id.contains(k), k);
    CHECK(id["capacity_sectors"].get<std::uint64_t>() > 0);
  }
  auto r = run("identify --json sim:7k400");
  auto j = nlohmann::json::parse(r.out);
  CHECK(j["identify"]["ncq"]["supported"] == true);
  CHECK(j["identify"]["ncq"]["depth"] == 32);
  CHECK(j["identify"]["rotation_rate_rpm"] == 7200);
}

TEST_CASE("a target that is neither device, file nor sim is refused") {
  CHECK(run("identify sim:no-such-preset").rc == 1);
  CHECK(run("identify /nonexistent/device").rc == 1);
}

TEST_CASE("list runs on this machine and gives a JSON array") {
  auto r = run("list --json");
  REQUIRE(r.rc == 0);
  auto j = nlohmann::json::parse(r.out);
  CHECK(j["drives"].is_array());
}

TEST_CASE("cli: sim list names every preset; sim show prints a model file that opens as sim:PATH") {
  Run l = run("sim list --json");
  REQUIRE(l.rc == 0);
  auto doc = nlohmann::json::parse(l.out, nullptr, false);
  REQUIRE(doc.is_object());
  REQUIRE(doc["presets"].is_array());
  CHECK(doc["presets"].size() >= 9);
  bool raptor = false;
  for (const auto& p : doc["presets"]) {
    CHECK(p["rpm"].get<double>() > 0);
    CHECK(p["capacity_bytes"].get<std::uint64_t>() > 0);
    raptor |= p["name"] == "raptor";
  }
  CHECK(raptor);
  Run t = run("sim list");
  CHECK(t.rc == 0);
  CHECK(t.out.find("7200.7") != std::string::npos);

  Run s = run("sim show wd740gd");  // an alias
  REQUIRE(s.rc == 0);
  const fs::path p = temp_file("mine.json", s.out);
  Run b = run("identify sim:" + p.string() + " --json");
  CHECK(b.rc == 0);
  CHECK(b.out.find("WD740GD") != std::string::npos);
  Run bad = run("sim show no-such-drive");
  CHECK(bad.rc == 1);
  fs::remove_all(p.parent_path());
}

TEST_CASE("replay: a DiskSim trace on its simulated drive, as JSON, with the demerit") {
  std::ifstream in(data("disksim-traces/hp_c2247a.trace"));
  std::string head, line;
  for (int i = 0; i < 300 && std::getline(in, line); ++i) head += line + "\n";
  const auto trace = temp_file("head.trace", head);
  const std::string model = "sim:" + data("disk-models/hp_c2247a.json");
  auto r = run("replay " + model + " " + trace.string() + " --write --json");
  REQUIRE(r.rc == 0);
  auto j = nlohmann::json::parse(r.out);
  REQUIRE(j["replay"]["requests"].size() == 300);
  const auto& q = j["replay"]["requests"][0];
  CHECK(q["lba"] == 564347);
  CHECK(q["blocks"] == 2);
  CHECK(q["write"] == false);
  CHECK(q["service_ms"].get<double>() > 0);
  CHECK(q["measured_ms"].get<double>() == doctest::Approx(14.09537));
  CHECK(j["replay"]["format"] == "disksim-validate");
  CHECK(j["replay"]["demerit_ms"].is_number());
  CHECK(j["replay"]["summary"]["p99_ms"].get<double>() >= j["replay"]["summary"]["p50_ms"].get<double>());
  CHECK(j["replay"]["summary"]["cdf"].size() == 101);
  CHECK(j["replay"]["measured"]["count"] == 300);
  // The same trace without --write: refused before any I/O (it holds writes).
  CHECK(run("replay " + model + " " + trace.string()).rc == 1);
}

TEST_CASE("replay: an fio iolog has no measured times; bad traces and options are refused") {
  const auto iolog = temp_file("v2.iolog", "fio version 2 iolog\n/dev/x add\n/dev/x read 0 4096\n/dev/x read 1048576 4096\n");
  auto r = run("replay sim:raptor " + iolog.string() + " --json");
  REQUIRE(r.rc == 0);
  auto j = nlohmann::json::parse(r.out);
  CHECK(j["replay"]["requests"].size() == 2);
  CHECK(j["replay"]["demerit_ms"].is_null());
  CHECK(j["replay"]["requests"][1]["lba"] == 2048);
  const auto bad = temp_file("bad.trace", "R Hit 1 2 3 4\nR Hit x 2 3 4\n");
  CHECK(run("replay sim:raptor " + bad.string()).rc == 1);
  CHECK(run("replay sim:raptor " + iolog.string() + " --format csv").rc == 2);
  CHECK(run("replay sim:raptor /nonexistent/trace").rc == 1);
}
