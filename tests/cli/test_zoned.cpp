// Zoned simulated drives (model key "zoned") through the CLI: `identify` shows the REPORT ZONES
// summary (ZBC on SCSI, ZAC REPORT ZONES EXT on ATA) and `smr` gives the host-aware /
// host-managed verdict from what the drive reports.
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_run.hpp"

namespace {

std::string hs14() { return std::string(DS_TEST_DATA) + "/zoned/hs14-hm.json"; }

// The Hs14-shaped model as an ATA drive of the given zoned model, in a file of its own.
class AtaVariant {
 public:
  explicit AtaVariant(const std::string& kind) {
    std::ifstream in(hs14());
    auto j = nlohmann::json::parse(in);
    j["transport"] = "ata";
    j["identity"]["vendor"] = "ATA";
    j["queue"]["protocol"] = "ncq";
    j["zoned"]["model"] = kind;
    path_ = (std::filesystem::temp_directory_path() /
             ("ds-zoned-" + kind + "-" + std::to_string(::getpid()) + ".json")).string();
    std::ofstream(path_) << j.dump();
  }
  ~AtaVariant() { std::filesystem::remove(path_); }
  std::string spec() const { return "sim:" + path_; }

 private:
  std::string path_;
};

nlohmann::json run_json(const std::string& args) {
  auto r = clitest::run(args + " --json=c", false);
  CHECK(r.rc == 0);
  auto j = nlohmann::json::parse(r.out, nullptr, false);
  REQUIRE_FALSE(j.is_discarded());
  return j;
}

}  // namespace

TEST_CASE("zoned: identify and smr on the host-managed SCSI model") {
  const auto id = run_json("identify sim:" + hs14());
  const auto& z = id["identify"]["zones"];
  REQUIRE(z.is_object());
  CHECK(z["source"] == "ZBC REPORT ZONES");
  CHECK(z["zones_listed"] == 52156);
  CHECK(z["max_lba"] == 52156ull * 524288 - 1);
  CHECK(z["types"][0]["type"] == "conventional");
  CHECK(z["problems"].empty());
  // The whole list, not the 63 zones of the first 4 KiB: 524 conventional zones, then sequential
  // write required ones (the model's notes), read in replies of 64 KiB.
  CHECK(z["zones_decoded"] == 52156);
  CHECK(z["truncated"] == false);
  REQUIRE(z["types"].size() == 2);
  CHECK(z["types"][0]["zones"] == 524);
  CHECK(z["types"][1]["type"] == "sequential write required");
  CHECK(z["types"][1]["zones"] == 52156 - 524);
  CHECK(z["types"][1]["first_lba"] == 524ull * 524288);

  const auto text = clitest::run("identify sim:" + hs14(), false);
  CHECK(text.out.find("Zones (ZBC REPORT ZONES)") != std::string::npos);

  const auto s = run_json("smr sim:" + hs14() + " --quiet");
  CHECK(s["smr"]["verdict"] == "host-managed");
  CHECK(s["smr"]["hints"]["host_managed"] == true);
  bool zones_named = false;
  for (const auto& e : s["smr"]["evidence"]) zones_named |= e.get<std::string>().find("52156 zones") != std::string::npos;
  CHECK(zones_named);
  // --write: the probe's random writes would be refused; the verdict stands, with a warning.
  const auto w = run_json("smr sim:" + hs14() + " --write --budget 3 --idle 0 --quiet");
  CHECK(w["smr"]["verdict"] == "host-managed");
  CHECK(w["smr"]["probe"].is_null());
  CHECK(w["warnings"].size() == 1);
}

TEST_CASE("zoned: identify and smr on host-aware and host-managed ATA models") {
  const AtaVariant ha("host-aware");
  auto id = run_json("identify " + ha.spec());
  CHECK(id["identify"]["zoned"] == "host aware");
  CHECK(id["identify"]["host_managed"] == false);
  REQUIRE(id["identify"]["zones"].is_object());
  CHECK(id["identify"]["zones"]["source"] == "ZAC REPORT ZONES EXT");
  CHECK(id["identify"]["zones"]["zones_listed"] == 52156);
  CHECK(id["identify"]["zones"]["zones_decoded"] == 52156);  // all of it, through ZAC too
  CHECK(id["identify"]["zones"]["truncated"] == false);
  CHECK(run_json("smr " + ha.spec() + " --quiet")["smr"]["verdict"] == "host-aware");

  const AtaVariant hm("host-managed");
  id = run_json("identify " + hm.spec());
  CHECK(id["identify"]["zoned"] == "not reported");
  CHECK(id["identify"]["host_managed"] == true);
  REQUIRE(id["identify"]["zones"].is_object());
  CHECK(id["identify"]["zones"]["zones_listed"] == 52156);
  CHECK(run_json("smr " + hm.spec() + " --quiet")["smr"]["verdict"] == "host-managed");

  // A drive that is not zoned: no zones read, and nothing claimed.
  id = run_json("identify sim:modern8tb");
  CHECK(id["identify"]["zones"].is_null());
  CHECK(id["identify"]["host_managed"] == false);
}
