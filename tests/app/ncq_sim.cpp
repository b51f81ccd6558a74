// `ncq` on simulated drives (claimed from the simulated IDENTIFY/INQUIRY, host depth = the I/O
// engine's queue, effectiveness from the queue test) and the plain sentences for the cases only a
// real host shows (NCQ switched off in sysfs, an emulator with no mechanics).
#include <doctest/doctest.h>

#include <array>
#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

#include "app/ncq.hpp"
#include "app/target.hpp"

namespace {

ds::app::NcqResult ncq_on(const std::string& spec) {
  auto t = ds::app::open_target(spec, {.want_io = true});
  REQUIRE_MESSAGE(t.ok(), spec);
  ds::app::NcqOptions o;
  o.queue.budget_s = 8;
  auto r = ds::app::run_ncq(*t, o);
  REQUIRE_MESSAGE(r.ok(), spec);
  return std::move(*r);
}

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("ncq: a drive that claims NCQ but serves FIFO is claimed, enabled, not effective") {
  auto r = ncq_on("sim:ncq-fifo");
  INFO(r.sentence);
  CHECK(r.claim.claimed);
  CHECK(r.claim.protocol == "NCQ");
  CHECK(r.claim.depth == 32u);
  CHECK(r.host.enabled == true);
  CHECK(r.host.depth == 256u);
  CHECK(has(r.host.source, "I/O engine"));
  REQUIRE(r.effective.has_value());
  CHECK_FALSE(*r.effective);
  CHECK(r.summary == "claimed, enabled, not effective");
  CHECK(has(r.sentence, "NCQ claimed (depth 32) and enabled by the host (depth 256), but the drive serves reads in arrival order"));
}

TEST_CASE("ncq: reordering drives are claimed, enabled, effective") {
  for (const char* spec : {"sim:raptor", "sim:modern8tb", "sim:cheetah15k3"}) {
    auto r = ncq_on(spec);
    INFO(spec << ": " << r.sentence);
    CHECK(r.claim.claimed);
    CHECK(r.summary == "claimed, enabled, effective");
    REQUIRE(r.queue);
    CHECK(r.queue->verdict.iops_gain >= 2.0);
    CHECK(has(r.sentence, "reorders queued reads"));
  }
}

TEST_CASE("ncq: a drive without queuing is not claimed and not effective") {
  for (const char* spec : {"sim:wd1200jd", "sim:7200.7"}) {
    auto r = ncq_on(spec);
    INFO(spec << ": " << r.sentence);
    CHECK(r.claim.known);
    CHECK_FALSE(r.claim.claimed);
    CHECK(r.summary == "not claimed, enabled, not effective");
  }
}

TEST_CASE("ncq: SCSI drives claim through INQUIRY CmdQue, with no depth") {
  auto t = ds::app::open_target("sim:cheetah15k3", {.want_io = true});
  REQUIRE(t.ok());
  ds::app::NcqOptions o;
  o.measure = false;
  auto r = ds::app::run_ncq(*t, o);
  REQUIRE(r.ok());
  if (r->claim.protocol == "command queuing") {  // a SCSI-transport preset
    CHECK(r->claim.claimed);
    CHECK_FALSE(r->claim.depth.has_value());
    CHECK(has(r->claim.source, "CmdQue"));
  } else {
    CHECK(r->claim.protocol == "TCQ");
  }
  CHECK(r->summary == "claimed, enabled, effectiveness not measured");
  CHECK_FALSE(r->queue.has_value());
}

TEST_CASE("ncq sentences: host depth 1 is claimed, not enabled; no mechanics is inconclusive") {
  ds::app::NcqClaim c;
  c.known = c.claimed = true;
  c.protocol = "NCQ";
  c.depth = 32;
  ds::app::NcqHost h;
  h.enabled = false;
  h.depth = 1;
  ds::measure::QueueResult q;
  q.verdict.reorders = false;
  CHECK(ds::app::ncq_summary(c, h, q) == "claimed, not enabled, not effective");
  CHECK(has(ds::app::ncq_sentence(c, h, q), "NCQ claimed (depth 32), but not enabled by the host (queue depth 1)"));
  h.enabled = true;
  h.depth = 32;
  q.verdict.reorders.reset();
  q.verdict.no_positioning_cost = true;
  CHECK(ds::app::ncq_summary(c, h, q) == "claimed, enabled, effectiveness inconclusive");
  CHECK(ds::app::ncq_sentence(c, h, q) ==
        "NCQ claimed (depth 32) and enabled by the host (depth 32); effectiveness inconclusive: no "
        "positioning cost to save on this device");
  c.claimed = false;
  c.depth.reset();
  h.enabled = false;
  h.depth = 1;
  CHECK(ds::app::ncq_summary(c, h, std::nullopt) == "not claimed, not enabled, effectiveness not measured");
}

TEST_CASE("ncq claim from IDENTIFY: NCQ wins over TCQ, depth from word 75") {
  ds::probe::AtaIdentity id;
  auto c = ds::app::claim_from_identify(id);
  CHECK_FALSE(c.claimed);
  id.tcq.supported = true;
  id.tcq_depth = 32;
  c = ds::app::claim_from_identify(id);
  CHECK(c.claimed);
  CHECK(c.protocol == "TCQ");
  id.ncq.supported = true;
  id.ncq_depth = 31;
  c = ds::app::claim_from_identify(id);
  CHECK(c.protocol == "NCQ");
  CHECK(c.depth == 31u);
}

TEST_CASE("drivescope ncq --json on a simulated drive") {
  const std::string cmd = std::string(DS_BINARY) + " ncq sim:ncq-fifo --json --budget 6 2>/dev/null";
  FILE* p = popen(cmd.c_str(), "r");
  REQUIRE(p);
  std::string out;
  std::array<char, 4096> buf{};
  while (auto n = fread(buf.data(), 1, buf.size(), p)) out.append(buf.data(), n);
  const int rc = pclose(p);
  CHECK(WEXITSTATUS(rc) == 0);
  auto j = nlohmann::json::parse(out, nullptr, false);
  REQUIRE_FALSE(j.is_discarded());
  CHECK(j["ncq"]["summary"] == "claimed, enabled, not effective");
  CHECK(j["ncq"]["claimed"]["depth"] == 32);
  CHECK(j["identify"]["ncq"]["supported"] == true);
  CHECK(j["tests"]["queue"]["reorders"] == false);
  CHECK(j["tests"]["queue"]["depths"].size() == 6);
  // A bad option is a usage error, not a crash.
  FILE* q = popen((std::string(DS_BINARY) + " ncq sim:raptor --max-depth 999 2>&1").c_str(), "r");
  REQUIRE(q);
  while (fread(buf.data(), 1, buf.size(), q)) {}
  CHECK(WEXITSTATUS(pclose(q)) == 2);
}
