// The smartctl-shaped envelope and identity keys of every JSON document (report/envelope.hpp).
#include <doctest/doctest.h>

#include "report/envelope.hpp"

using nlohmann::json;
using ds::report::smartctl_identity;

TEST_CASE("smartctl identity keys: names and shapes as smartctl -i -j writes them") {
  const json id{{"model", "WDC WD30EZRZ-00GXCB0"}, {"serial", "WD-WCC7K6XP1R5D"}, {"firmware", "80.00A80"},
                {"capacity_sectors", 5860533168ull}, {"capacity_bytes", 3000592982016ull},
                {"logical_sector_bytes", 512}, {"physical_sector_bytes", 4096},
                {"rotation_rate_rpm", 5400}, {"wwn", "50014ee263a08d72"},
                {"trim", {{"supported", false}, {"deterministic_read", false}, {"read_zeroes", false}}}};
  const json s = smartctl_identity(id);
  CHECK(s["model_name"] == "WDC WD30EZRZ-00GXCB0");
  CHECK(s["serial_number"] == "WD-WCC7K6XP1R5D");
  CHECK(s["firmware_version"] == "80.00A80");
  CHECK(s["user_capacity"]["blocks"] == 5860533168ull);
  CHECK(s["user_capacity"]["bytes"] == 3000592982016ull);
  CHECK(s["logical_block_size"] == 512);
  CHECK(s["physical_block_size"] == 4096);
  CHECK(s["rotation_rate"] == 5400);
  // smartctl prints this WWN as "LU WWN Device Id: 5 0014ee 263a08d72": NAA, OUI, id.
  CHECK(s["wwn"]["naa"] == 5);
  CHECK(s["wwn"]["oui"] == 0x0014ee);
  CHECK(s["wwn"]["id"] == 0x263a08d72ull);
  // Without TRIM there is nothing deterministic or zeroed to say (smartctl leaves them out too).
  CHECK(s["trim"] == json{{"supported", false}});
}

TEST_CASE("smartctl identity keys: solid state is rotation_rate 0; unknowns are left out") {
  const json ssd{{"model", "X"}, {"rotation_rate_rpm", 1},
                 {"trim", {{"supported", true}, {"deterministic_read", true}, {"read_zeroes", false}}}};
  const json s = smartctl_identity(ssd);
  CHECK(s["rotation_rate"] == 0);
  CHECK(s["trim"] == json{{"supported", true}, {"deterministic", true}, {"zeroed", false}});
  const json unknown{{"model", ""}, {"serial", nullptr}, {"rotation_rate_rpm", nullptr}, {"wwn", nullptr},
                     {"capacity_sectors", nullptr}, {"capacity_bytes", 1000}};
  CHECK(smartctl_identity(unknown) == json::object());
  // A damaged WWN is no WWN.
  CHECK_FALSE(smartctl_identity(json{{"wwn", "50014ee263a08dzz"}}).contains("wwn"));
  CHECK_FALSE(smartctl_identity(json{{"wwn", "5001"}}).contains("wwn"));
}

TEST_CASE("smartctl identity keys: SCSI names the device by vendor and product") {
  const json s = smartctl_identity(json{{"vendor", "SEAGATE"}, {"model", "ST373453LW"}});
  CHECK(s["model_name"] == "SEAGATE ST373453LW");
}

TEST_CASE("smartctl identity keys of a list entry: libata's vendor ATA is no vendor") {
  const json d{{"vendor", "ATA"}, {"model", "ST3200822AS"}, {"serial", "3LJ0"}, {"revision", "3.01"},
               {"size_bytes", 4096000}, {"logical_sector_bytes", 4096}, {"physical_sector_bytes", 4096}};
  const json s = ds::report::smartctl_identity_from_list(d);
  CHECK(s["model_name"] == "ST3200822AS");
  CHECK(s["firmware_version"] == "3.01");
  CHECK(s["user_capacity"]["blocks"] == 1000);
  CHECK(s["user_capacity"]["bytes"] == 4096000);
  CHECK(ds::report::smartctl_identity_from_list(json{{"vendor", "HGST"}, {"model", "M"}})["model_name"] == "HGST M");
}

TEST_CASE("envelope: format version, the drivescope block, identity keys beside identify") {
  json doc{{"drivescope", {{"version", "old"}, {"extra", 1}}},
           {"identify", {{"model", "M"}, {"serial", "S"}}},
           {"serial_number", "already there"}};
  ds::report::Invocation inv{.version = "9.9", .argv = {"drivescope", "identify", "x"}, .exit_status = 3,
                             .messages = {{"no passthrough", "warning"}}};
  ds::report::add_envelope(doc, inv);
  CHECK(doc["json_format_version"] == json{ds::report::kJsonFormatMajor, ds::report::kJsonFormatMinor});
  CHECK(doc["drivescope"]["version"] == "9.9");
  CHECK(doc["drivescope"]["extra"] == 1);
  CHECK(doc["drivescope"]["argv"] == json{"drivescope", "identify", "x"});
  CHECK(doc["drivescope"]["exit_status"] == 3);
  CHECK(doc["drivescope"]["messages"] == json::array({{{"string", "no passthrough"}, {"severity", "warning"}}}));
  CHECK(doc["model_name"] == "M");
  CHECK(doc["serial_number"] == "already there");
  json bare = json::array();  // not an object: replaced, never an exception
  ds::report::add_envelope(bare, inv);
  CHECK(bare["drivescope"]["messages"].is_array());
}
