// The smr verdict from what the drive reports and what the probe measured (app/smr.hpp): pure
// cases, no drive.
#include <doctest/doctest.h>

#include "app/smr.hpp"

using ds::app::SmrResult;

namespace {

SmrResult with_hints(std::uint8_t zoned, bool host_managed = false, bool trim = false, std::uint32_t rpm = 7200) {
  SmrResult r;
  r.hints.known = true;
  r.hints.source = "IDENTIFY DEVICE";
  r.hints.zoned = zoned;
  r.hints.host_managed = host_managed;
  r.hints.trim = trim;
  r.hints.rpm = rpm;
  return r;
}

bool mentions(const SmrResult& r, const std::string& what) {
  for (const auto& e : r.evidence)
    if (e.find(what) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST_CASE("smr verdict: what the drive reports, without a probe") {
  auto none = with_hints(0);
  ds::app::decide_smr(none);
  CHECK(none.verdict == "unknown");  // never cmr from reads alone
  CHECK(mentions(none, "--write"));

  auto dm = with_hints(2);
  ds::app::decide_smr(dm);
  CHECK(dm.verdict == "dm-smr");
  auto ha = with_hints(1);
  ds::app::decide_smr(ha);
  CHECK(ha.verdict == "host-aware");
  auto hm = with_hints(0, true);
  ds::app::decide_smr(hm);
  CHECK(hm.verdict == "host-managed");

  auto trim = with_hints(0, false, true, 5400);
  ds::app::decide_smr(trim);
  CHECK(trim.verdict == "unknown");
  CHECK(mentions(trim, "TRIM/unmap on a rotating drive"));
  auto ssd = with_hints(0, false, true, 1);
  ds::app::decide_smr(ssd);
  CHECK_FALSE(mentions(ssd, "TRIM/unmap on a rotating drive"));
}

TEST_CASE("smr verdict: the probe's cliff wins, its cmr needs a drive that reports nothing") {
  ds::measure::SmrProbeResult cliff;
  cliff.verdict = "dm-smr";
  cliff.cliff = true;
  cliff.cache_bytes_estimate = 25'000'000'000ull;
  cliff.after_cliff_mb_s = 0.05;
  cliff.cleans_when_idle = true;
  auto r = with_hints(0);
  r.probe = cliff;
  ds::app::decide_smr(r);
  CHECK(r.verdict == "dm-smr");
  CHECK(r.sentence.find("25.0 GB") != std::string::npos);
  CHECK(r.sentence.find("cleaning goes on while idle") != std::string::npos);

  ds::measure::SmrProbeResult flat;
  flat.verdict = "cmr";
  flat.evidence = {"no sign of SMR: 4 MB of random 4 KiB writes ran at about the random-access rate"};
  auto c = with_hints(0);
  c.probe = flat;
  ds::app::decide_smr(c);
  CHECK(c.verdict == "cmr");
  CHECK(c.sentence.rfind("no sign of SMR", 0) == 0);
  // A drive that says it is device managed stays dm-smr even when the probe saw no cliff.
  auto said = with_hints(2);
  said.probe = flat;
  ds::app::decide_smr(said);
  CHECK(said.verdict == "dm-smr");
}

TEST_CASE("smr verdict: smartmontools' drive database where the drive reports nothing") {
  auto listed_smr = with_hints(0);
  listed_smr.hints.drivedb_family = "Seagate BarraCuda 3.5 (SMR)";
  listed_smr.hints.drivedb_smr = true;
  ds::app::decide_smr(listed_smr);
  CHECK(listed_smr.verdict == "dm-smr");
  CHECK(listed_smr.sentence.find("drive database lists its family") != std::string::npos);
  CHECK(mentions(listed_smr, "shingled (SMR) recording"));

  auto listed_cmr = with_hints(0);
  listed_cmr.hints.drivedb_family = "Toshiba P300 (CMR)";
  listed_cmr.hints.drivedb_smr = false;
  ds::app::decide_smr(listed_cmr);
  CHECK(listed_cmr.verdict == "cmr");

  // The drive's own word outranks the table: a host-aware drive stays host-aware.
  auto ha = with_hints(1);
  ha.hints.drivedb_family = "Acme (CMR)";
  ha.hints.drivedb_smr = false;
  ds::app::decide_smr(ha);
  CHECK(ha.verdict == "host-aware");

  // A probe that saw the cliff wins over a (CMR) listing; one that could not tell is not
  // overruled by it either.
  ds::measure::SmrProbeResult cliff;
  cliff.verdict = "dm-smr";
  cliff.cliff = true;
  cliff.cache_bytes_estimate = 20'000'000'000ull;
  cliff.after_cliff_mb_s = 0.1;
  auto probed = with_hints(0);
  probed.hints.drivedb_smr = false;
  probed.probe = cliff;
  ds::app::decide_smr(probed);
  CHECK(probed.verdict == "dm-smr");
  ds::measure::SmrProbeResult unsure;
  unsure.verdict = "unknown";
  auto doubt = with_hints(0);
  doubt.hints.drivedb_smr = false;
  doubt.probe = unsure;
  ds::app::decide_smr(doubt);
  CHECK(doubt.verdict == "unknown");

  // A family that says neither, and a drive not listed, add evidence but no verdict.
  auto plain = with_hints(0);
  plain.hints.drivedb_family = "Western Digital Raptor";
  ds::app::decide_smr(plain);
  CHECK(plain.verdict == "unknown");
  CHECK(mentions(plain, "does not say SMR or CMR"));
  auto unlisted = with_hints(0);
  unlisted.hints.drivedb_note = "the drive matches no entry of smartmontools' drive database";
  ds::app::decide_smr(unlisted);
  CHECK(mentions(unlisted, "matches no entry"));
}
