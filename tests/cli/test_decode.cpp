// `drivescope decode`: captured pages from files, as a user runs it. The real captures of
// tests/data/identify and tests/data/scsi are checked against identify's own JSON and against the
// decode sg3_utils printed for the same bytes; the hand-built pages of tests/data/pages against the
// values their comments state.
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

#include "cli_run.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

using clitest::Run;
Run run(const std::string& args) { return clitest::run(args, false); }
Run run_err(const std::string& args) { return clitest::run(args, true); }

std::string data(const std::string& rel) { return std::string(DS_TEST_DATA) + "/" + rel; }

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

fs::path temp_file(const std::string& name, const std::string& bytes) {
  fs::path d = fs::temp_directory_path() / ("ds_decode_" + std::to_string(::getpid()));
  fs::create_directories(d);
  std::ofstream(d / name, std::ios::binary) << bytes;
  return d / name;
}

json decode_json(const std::string& args) {
  auto r = run("decode --json " + args);
  INFO("decode --json " << args);
  REQUIRE(r.rc == 0);
  return json::parse(r.out);
}

// The value after "label:" on the first line of an sg3_utils decode that holds it.
std::string sg3_value(const std::string& text, const std::string& label) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    const auto at = line.find(label + ":");
    if (at == std::string::npos) continue;
    std::string v = line.substr(at + label.size() + 1);
    v.erase(0, v.find_first_not_of(' '));
    v.erase(v.find_last_not_of(' ') + 1);  // sg3_utils pads fixed-width fields with blanks
    return v;
  }
  return {};
}

}  // namespace

TEST_CASE("decode --identify: every real capture gives identify --from-file's JSON, from every form") {
  int drives = 0;
  for (auto& e : fs::directory_iterator(data("identify"))) {
    if (!e.is_directory()) continue;
    ++drives;
    CAPTURE(e.path().filename().string());
    auto ref = run("identify --json --from-file " + (e.path() / "identify.bin").string());
    REQUIRE(ref.rc == 0);
    const json want = json::parse(ref.out)["identify"];
    // The same block as sg3_utils inhex text (16 bytes a line), as hdparm words, raw and on stdin.
    const std::string bin = slurp((e.path() / "identify.bin").string());
    std::string inhex = "# IDENTIFY DEVICE data\n";
    for (std::size_t i = 0; i < bin.size(); ++i) {
      char b[4];
      std::snprintf(b, sizeof b, "%02x", static_cast<unsigned char>(bin[i]));
      inhex += b;
      inhex += (i % 16 == 15) ? '\n' : ' ';
    }
    const auto inhex_file = temp_file("identify.inhex", inhex);
    for (const std::string& args :
         {(e.path() / "identify.bin").string(), (e.path() / "identify.hex").string(), inhex_file.string(),
          std::string("- < ") + (e.path() / "identify.bin").string()}) {
      CAPTURE(args);
      const json got = decode_json("--identify " + args);
      CHECK(got["identify"] == want);
      CHECK(got["target"]["kind"] == "dump");
      CHECK(got["target"]["decoded_as"] == "identify");
    }
  }
  CHECK(drives == 13);
}

TEST_CASE("decode --identify and identify --from-file read what `hdparm --Istdout DEV` writes, device line and all") {
  // hdparm --Istdout /dev/sda prints "\n/dev/sda:\n" before the words (seen in the QEMU guest,
  // tests/vm/guest-json.sh); before, both commands refused the file: "'/dev/sda:' is not hex".
  const auto dir = data("identify/FUJITSU_MHY2120BH--0084000D");
  const auto with_header = temp_file("istdout.txt", "\n/dev/sda:\n" + slurp(dir + "/identify.hex"));
  const json want = decode_json("--identify " + dir + "/identify.hex")["identify"];
  const json got = decode_json("--identify " + with_header.string());
  CHECK(got["identify"] == want);
  CHECK(got["target"]["format"] == "hdparm-hex");
  auto r = run("identify --json --from-file " + with_header.string());
  REQUIRE(r.rc == 0);
  CHECK(json::parse(r.out)["identify"] == want);
  // Only before the words: a line ending in ':' among them is still an error.
  std::string words = slurp(dir + "/identify.hex");
  words.insert(words.find('\n') + 1, "/dev/sdb:\n");
  CHECK(run("decode --identify " + temp_file("mid.txt", words).string()).rc == 1);
}

TEST_CASE("what identify --raw prints, as text or JSON, reads back with --from-file and decode --identify") {
  // Issue 15: `--raw` output could not be read back by `--from-file` (the text's word table sat
  // among lines with '±' in them: "a raw IDENTIFY dump must be exactly 512 bytes, this binary
  // file has 4426"); the --json document's raw_words neither.
  int drives = 0;
  for (auto& e : fs::directory_iterator(data("identify"))) {
    if (!e.is_directory()) continue;
    ++drives;
    const std::string bin = (e.path() / "identify.bin").string();
    CAPTURE(bin);
    auto ref = run("identify --json --from-file " + bin);
    REQUIRE(ref.rc == 0);
    const json want = json::parse(ref.out)["identify"];
    const std::string dir = temp_file("x", "").parent_path().string();
    const std::string txt = dir + "/raw.txt", js = dir + "/raw.json";
    REQUIRE(std::system((std::string(DS_BINARY) + " identify --raw --from-file " + bin + " > " + txt).c_str()) == 0);
    REQUIRE(std::system((std::string(DS_BINARY) + " identify --raw --json --from-file " + bin + " > " + js).c_str()) == 0);
    for (const auto& form : {std::pair{txt, "drivescope-raw"}, std::pair{js, "drivescope-json"}}) {
      const std::string file = form.first, format = form.second;  // not a binding: CAPTURE is a lambda (clang 14)
      CAPTURE(file);
      auto back = run("identify --json --from-file " + file);
      REQUIRE(back.rc == 0);
      const json got = json::parse(back.out);
      CHECK(got["identify"] == want);
      CHECK(got["target"]["format"] == format);
      CHECK(decode_json("--identify " + file)["identify"] == want);
    }
  }
  CHECK(drives == 13);
  // A live drive's too (the simulator's): the serial comes back.
  const auto live = temp_file("live.txt", run("identify sim:raptor --raw").out);
  CHECK(decode_json("--identify " + live.string())["identify"]["serial"] == "WD-WMAKE1234567");
}

TEST_CASE("decode --sense: fixed and descriptor sense as sg_decode_sense reads them") {
  for (const std::string name : {"fixed_sense", "descriptor_sense"}) {
    CAPTURE(name);
    const std::string sg3 = slurp(data("scsi/" + name + ".sg_decode_sense.txt"));
    const json j = decode_json("--sense " + data("scsi/" + name + ".hex"));
    // sg_decode_sense's first line: "<Fixed|Descriptor> format, current; Sense key: <text>".
    CHECK(j["sense"]["sense_key_text"] == sg3_value(sg3, "Sense key"));
    CHECK(j["sense"]["asc_text"] == sg3_value(sg3, "Additional sense"));
    CHECK(j["sense"]["descriptor_format"] == (sg3.rfind("Descriptor", 0) == 0));
    auto text = run("decode --sense - < " + data("scsi/" + name + ".hex"));
    REQUIRE(text.rc == 0);
    CHECK(text.out.find(sg3_value(sg3, "Additional sense")) != std::string::npos);
  }
}

TEST_CASE("decode --vpd and --inquiry: sg3_utils' example pages, with identify's keys") {
  const json bl = decode_json("--vpd " + data("scsi/vpd_bl.hex"));
  const std::string sg3 = slurp(data("scsi/vpd_bl.sg_vpd.txt"));
  const auto& b = bl["identify"]["scsi"]["block_limits"];
  CHECK(std::to_string(b["max_transfer_length_blocks"].get<std::uint64_t>()) + " blocks" ==
        sg3_value(sg3, "Maximum transfer length"));
  CHECK(std::to_string(b["max_unmap_lba_count"].get<std::uint64_t>()) == sg3_value(sg3, "Maximum unmap LBA count"));
  CHECK_FALSE(bl["identify"].contains("capacity_sectors"));  // not in the capture: no key

  const json id = decode_json("--vpd " + data("scsi/vpd_dev_id.hex"));
  const auto& ids = id["identify"]["scsi"]["device_id"];
  REQUIRE(ids.size() >= 2);
  CHECK(ids[0]["value"] == "0x5000c5003011cb2b");  // sg_vpd: "Addressed logical unit ... 0x5000c5003011cb2b"
  CHECK(slurp(data("scsi/vpd_dev_id.sg_vpd.txt")).find(ids[0]["value"].get<std::string>()) != std::string::npos);

  const json atai = decode_json("--vpd " + data("scsi/vpd_atai.hex"));
  CHECK(atai["identify"]["scsi"]["ata_information"]["ata_model"] ==
        sg3_value(slurp(data("scsi/vpd_atai.sg_vpd.txt")), "model"));

  // Several pages back to back (sg_vpd --all): each decoded by its own code, the others listed.
  const json all = decode_json("--vpd " + data("scsi/vpd_sdeb.hex"));
  CHECK(all["identify"]["scsi"]["vpd_pages"].size() == 12);
  CHECK(all["identify"].contains("serial"));
  CHECK(all["identify"]["scsi"].contains("block_limits"));
  CHECK(all["identify"]["scsi"].contains("block_characteristics"));
  CHECK_FALSE(all["target"]["undecoded_vpd_pages"].empty());

  const json q = decode_json("--inquiry " + data("scsi/inq_standard.hex"));
  const std::string inq = slurp(data("scsi/inq_standard.sg_inq.txt"));
  CHECK(q["identify"]["vendor"] == sg3_value(inq, "Vendor identification"));
  CHECK(q["identify"]["scsi"]["inquiry"]["cmd_que"] == (inq.find("CmdQue=1") != std::string::npos));
  CHECK(q["identify"]["scsi"]["inquiry"]["version_name"] == "SPC-5");
}

TEST_CASE("decode: the hand-built pages of a dual-actuator and a zoned drive") {
  const std::uint64_t half = 13672382464ull;  // the value tests/data/pages/README.md states
  for (const std::string& args : {"--ata-log 0x47 " + data("pages/ata_log47_dual.hex"),
                                  "--ata-log 71 " + data("pages/ata_log47_dual.hex"),
                                  "--vpd " + data("pages/vpd_b9_dual.hex")}) {
    CAPTURE(args);
    const json j = decode_json(args);
    const auto& r = j["identify"]["concurrent_positioning_ranges"];
    REQUIRE(r["count"] == 2);
    CHECK(r["ranges"][0]["lowest_lba"] == 0);
    CHECK(r["ranges"][1]["lowest_lba"] == half);
    CHECK(r["ranges"][1]["lba_count"] == half);
    CHECK(r["ranges"][1]["storage_elements"] == 1);
    CHECK(r["problems"].empty());
  }
  auto text = run("decode --ata-log 0x47 " + data("pages/ata_log47_dual.hex"));
  REQUIRE(text.rc == 0);
  CHECK(text.out.find("several actuators") != std::string::npos);

  const json b1 = decode_json("--vpd " + data("pages/vpd_b1_hostaware.hex"));
  CHECK(b1["identify"]["zoned"] == "host aware");
  CHECK(b1["identify"]["rotation_rate_rpm"] == 7200);

  json zbc = decode_json("--zones zbc " + data("pages/report_zones_zbc.hex"));
  json zac = decode_json("--zones zac " + data("pages/report_zones_zac.hex"));
  const auto& z = zbc["identify"]["zones"];
  CHECK(z["zones_listed"] == 4);
  CHECK(z["max_lba"] == 2097151);
  REQUIRE(z["types"].size() == 2);
  CHECK(z["types"][0]["type"] == "conventional");
  CHECK(z["types"][0]["zones"] == 2);
  CHECK(z["types"][1]["type"] == "sequential write required");
  CHECK(z["sizes"][0]["length_blocks"] == 524288);
  // The two byte orders of one reply: everything but the source alike.
  zbc["identify"]["zones"].erase("source");
  zac["identify"]["zones"].erase("source");
  CHECK(zbc["identify"]["zones"] == zac["identify"]["zones"]);
}

TEST_CASE("decode: the same bytes raw and as inhex decode alike") {
  // inhex -> raw bytes by hand, then decode both.
  std::string raw;
  std::istringstream in(slurp(data("pages/vpd_b9_dual.hex")));
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream w(line);
    for (std::string tok; w >> tok;) raw.push_back(static_cast<char>(std::stoi(tok, nullptr, 16)));
  }
  const auto f = temp_file("b9.bin", raw);
  const json a = decode_json("--vpd " + f.string());
  const json b = decode_json("--vpd " + data("pages/vpd_b9_dual.hex"));
  CHECK(a["target"]["format"] == "raw");
  CHECK(b["target"]["format"] == "inhex");
  CHECK(a["identify"] == b["identify"]);
}

TEST_CASE("decode: bad input is a clear error and exit 1; a wrong command line exit 2") {
  const auto empty = temp_file("empty", "");
  const auto text = temp_file("text", "this is not hex\n");
  const auto trunc = temp_file("trunc.hex", "00 b9 00 7c 00 00 00 00\n");
  struct Case { std::string args; const char* needle; };
  const std::vector<Case> bad = {
      {"--sense " + empty.string(), "empty"},
      {"--vpd " + text.string(), "not hex"},
      {"--vpd " + trunc.string(), "truncated"},
      {"--ata-log 0x10 " + data("pages/ata_log47_dual.hex"), "not one drivescope decodes"},
      {"--ata-log 0x47 " + data("pages/vpd_b9_dual.hex"), "512-byte pages"},
      {"--identify " + data("pages/vpd_b9_dual.hex"), "512 bytes"},
      {"--inquiry " + trunc.string(), "too short"},
      {"--sense /nonexistent/file", "cannot open"},
      {"--zones zbc " + trunc.string(), "too short"},
  };
  for (const auto& c : bad) {
    CAPTURE(c.args);
    auto r = run_err("decode " + c.args);
    CHECK(r.rc == 1);
    CHECK_MESSAGE(r.out.find(c.needle) != std::string::npos, r.out);
  }
  CHECK(run("decode " + data("pages/vpd_b9_dual.hex")).rc == 2);  // what are the bytes?
  CHECK(run("decode --vpd --sense " + data("pages/vpd_b9_dual.hex")).rc == 2);
  CHECK(run("decode --ata-log 0x1ff " + data("pages/ata_log47_dual.hex")).rc == 2);
  CHECK(run("decode --ata-log foo " + data("pages/ata_log47_dual.hex")).rc == 2);
  CHECK(run("decode --zones xyz " + data("pages/report_zones_zbc.hex")).rc == 2);
  CHECK(run("decode --vpd").rc == 2);
}

TEST_CASE("decode: random bytes for every kind end in exit 0 or 1, never a crash") {
  std::mt19937 rng(14);
  const std::vector<std::string> kinds = {"--identify", "--ata-log 0x00", "--ata-log 0x30", "--ata-log 0x47",
                                          "--inquiry",  "--vpd",          "--sense",        "--zones zbc",
                                          "--zones zac"};
  for (int round = 0; round < 3; ++round) {
    std::string bytes(round == 0 ? 512 : 37 + 300 * round, '\0');
    for (auto& c : bytes) c = static_cast<char>(rng());
    if (round == 2) bytes[1] = static_cast<char>(0xB9);  // a VPD page code it knows
    const auto f = temp_file("random" + std::to_string(round), bytes);
    for (const auto& k : kinds) {
      CAPTURE(k);
      CAPTURE(round);
      const int rc = run("decode --json " + k + " " + f.string()).rc;
      CHECK((rc == 0 || rc == 1 || rc == 3));
    }
  }
}
