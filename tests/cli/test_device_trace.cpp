// -d TYPE and --trace on the command line, on simulated drives: the ATA model answers natively
// (ATA taskfiles in the trace), through its SATL with -d sat (ATA PASS-THROUGH CDBs), or as the
// SCSI disk libata would show with -d scsi; a -d that cannot apply is a usage error (exit 2).
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <string>

#include "cli_split.hpp"

using clitest::lines_of;
using clitest::run_split;

namespace {

bool has(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

}  // namespace

TEST_CASE("--trace: every command on stderr, the report on stdout untouched") {
  const auto plain = run_split("identify sim:raptor --json=c");
  const auto traced = run_split("identify sim:raptor --json=c --trace");
  REQUIRE(plain.rc == 0);
  REQUIRE(traced.rc == 0);
  CHECK_FALSE(has(plain.err, "trace #"));
  const auto a = nlohmann::json::parse(plain.out);
  const auto b = nlohmann::json::parse(traced.out);
  CHECK(a["identify"] == b["identify"]);
  const auto lines = lines_of(traced.err);
  REQUIRE(lines.size() >= 2);
  // The simulated drive's native interface: IDENTIFY DEVICE as a taskfile, command ECh, 512 bytes in.
  CHECK(lines[0].rfind("trace #1 ATA cmd ec ", 0) == 0);
  CHECK(has(lines[0], "[IDENTIFY DEVICE]"));
  CHECK(has(lines[0], "in 512 bytes: good"));
  CHECK(has(lines[0], " ms"));
  int numbered = 0;
  for (const auto& l : lines)
    if (l.rfind("trace #", 0) == 0) CHECK(l.rfind("trace #" + std::to_string(++numbered) + " ", 0) == 0);
  CHECK(numbered >= 2);
}

TEST_CASE("-d sat --trace: IDENTIFY DEVICE goes as an ATA PASS-THROUGH(16) CDB, and decodes the same") {
  const auto native = run_split("identify sim:raptor --json=c");
  const auto sat = run_split("identify sim:raptor --json=c -d sat --trace");
  REQUIRE(sat.rc == 0);
  CHECK(nlohmann::json::parse(native.out)["identify"]["model"] == nlohmann::json::parse(sat.out)["identify"]["model"]);
  const auto first = lines_of(sat.err).at(0);
  // 85h, PROTOCOL 4 (PIO data-in) << 1, T_DIR/BYTE_BLOCK/T_LENGTH 0Eh, ..., command ECh at byte 14.
  CHECK(first.rfind("trace #1 CDB 85 08 0e 00 00 00 01 00 00 00 00 00 00 00 ec 00 ", 0) == 0);
  CHECK(has(first, "[ATA PASS-THROUGH(16): IDENTIFY DEVICE] in 512 bytes: good"));
  // SMART RETURN STATUS asks for the registers (CK_COND): the SATL answers CHECK CONDITION,
  // RECOVERED ERROR / ATA PASS THROUGH INFORMATION AVAILABLE, and the trace decodes the sense.
  CHECK(has(sat.err, "sense key 1h asc 00h ascq 1dh"));
  CHECK(has(sat.err, "\n  sense 72 "));
}

TEST_CASE("-d scsi on a simulated ATA drive: the SCSI view (INQUIRY says ATA), no ATA command sent") {
  const auto r = run_split("identify sim:raptor -d scsi --trace");
  REQUIRE(r.rc == 0);
  CHECK(has(r.out, "Vendor:"));
  CHECK(has(r.out, "ATA"));
  CHECK(has(r.err, "[INQUIRY]"));
  CHECK_FALSE(has(r.err, "ATA cmd"));
  CHECK_FALSE(has(r.err, "PASS-THROUGH"));
}

TEST_CASE("-d that cannot apply, or is no type at all: exit 2 with a message saying why") {
  for (const char* args : {"identify sim:cheetah15k3 -d sat", "identify sim:cheetah15k3 -d ata",
                           "ncq sim:atlas15k -d ata --no-measure", "aam sim:cheetah15k3 -d sat",
                           "identify sim:raptor -d bogus", "bench file:/dev/null -d scsi --budget 1"}) {
    CAPTURE(args);
    const auto r = run_split(args);
    CHECK(r.rc == 2);
    CHECK(has(r.err, "-d") + has(r.err, "--device-type") >= 1);
  }
  // The same SCSI model with the type it has works.
  CHECK(run_split("identify sim:cheetah15k3 -d scsi").rc == 0);
}

TEST_CASE("-d and --trace reach the other commands that open a target") {
  const auto ncq = run_split("ncq sim:raptor --no-measure -d sat --trace");
  CHECK(ncq.rc == 0);
  CHECK(has(ncq.err, "CDB 85 "));
  const auto aam = run_split("aam sim:maxline3 get -d sat --trace");
  CHECK(aam.rc == 0);
  CHECK(has(aam.err, "IDENTIFY DEVICE"));
  const auto scan = run_split("scan sim:raptor -d sat --trace --json");
  CHECK(scan.rc == 0);
  CHECK(has(scan.err, "CHECK POWER MODE"));
  const auto bench = run_split("bench sim:raptor --tests access --budget 0.5 -d sat --trace --quiet");
  CHECK(bench.rc == 0);
  CHECK(has(bench.err, "CDB 85 "));
}
