// NVMe Identify Controller / Namespace and the SMART / Health log: structures written byte by
// byte at the NVM Express Base Specification 2.0's offsets (Figures 275, 207; NVM Command Set 1.0
// Figure 97), not through libnvme's structs, so a layout the decoder got wrong fails here.
#include <doctest/doctest.h>

#include <array>
#include <cstring>
#include <vector>

#include <nlohmann/json.hpp>

#include "probe/nvme_identify.hpp"
#include "report/nvme_report.hpp"

using namespace ds::probe;

namespace {

void put(std::vector<std::uint8_t>& b, std::size_t off, const char* s, std::size_t width) {
  std::memset(&b[off], ' ', width);
  std::memcpy(&b[off], s, std::strlen(s));
}
void le(std::vector<std::uint8_t>& b, std::size_t off, std::uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) b[off + i] = i < 8 ? static_cast<std::uint8_t>(v >> (8 * i)) : 0;
}

std::vector<std::uint8_t> controller_bytes() {
  std::vector<std::uint8_t> b(4096, 0);
  le(b, 0, 0x1b36, 2);             // VID (QEMU's)
  le(b, 2, 0x1af4, 2);             // SSVID
  put(b, 4, "NVME0001", 20);       // SN
  put(b, 24, "QEMU NVMe Ctrl", 40);  // MN
  put(b, 64, "8.0.0", 8);          // FR
  b[73] = 0x00; b[74] = 0x54; b[75] = 0x52;  // IEEE OUI 525400, least significant byte first
  b[77] = 7;                       // MDTS
  le(b, 78, 0, 2);                 // CNTLID
  le(b, 80, 0x00010400, 4);        // VER 1.4.0
  b[111] = 1;                      // CNTRLTYPE: I/O controller
  le(b, 256, 0x0a, 2);             // OACS: format NVM, namespace management
  b[263] = 1;                      // NPSS: two power states
  le(b, 266, 343, 2);              // WCTEMP 343 K
  le(b, 268, 373, 2);              // CCTEMP 373 K
  le(b, 280, 1073741824, 8);       // TNVMCAP 1 GiB
  b[512] = 0x66; b[513] = 0x44;    // SQES, CQES
  le(b, 516, 256, 4);              // NN
  le(b, 520, 0x15d, 2);            // ONCS bits 0, 2, 3, 4, 6, 8
  b[525] = 0x07;                   // VWC present, flush behaviour 11b
  std::memcpy(&b[768], "nqn.2019-08.org.qemu:NVME0001", 29);  // SUBNQN
  le(b, 2048, 2500, 2);            // PSD0 MP: 25.00 W
  le(b, 2052, 16, 4);              // PSD0 ENLAT
  le(b, 2056, 4, 4);               // PSD0 EXLAT
  le(b, 2080, 900, 2);             // PSD1 MP
  b[2083] = 0x03;                  // PSD1 flags: MXPS (0.0001 W) and non-operational
  return b;
}

std::vector<std::uint8_t> namespace_bytes() {
  std::vector<std::uint8_t> b(4096, 0);
  le(b, 0, 2097152, 8);            // NSZE
  le(b, 8, 2097152, 8);            // NCAP
  le(b, 16, 1000, 8);              // NUSE
  b[24] = 0x01;                    // NSFEAT: thin provisioning
  b[25] = 1;                       // NLBAF: 2 formats
  b[26] = 0x01;                    // FLBAS: format 1
  for (int i = 0; i < 16; ++i) b[104 + i] = static_cast<std::uint8_t>(i + 1);  // NGUID
  b[128 + 2] = 9;                  // LBAF0: 512 bytes
  b[128 + 3] = 2;                  //        relative performance "good"
  le(b, 132, 8, 2);                // LBAF1: 8 bytes metadata
  b[132 + 2] = 12;                 //        4096 bytes
  return b;
}

std::vector<std::uint8_t> health_bytes() {
  std::vector<std::uint8_t> b(512, 0);
  b[0] = 0x05;                     // spare below threshold, reliability degraded
  le(b, 1, 313, 2);                // 313 K
  b[3] = 100; b[4] = 10; b[5] = 3;
  le(b, 32, 1234, 16);             // data units read
  le(b, 48, 99, 16);
  le(b, 112, 17, 16);              // power cycles
  le(b, 128, 4321, 16);            // power-on hours
  le(b, 144, 2, 16);               // unsafe shutdowns
  le(b, 160, 1, 16);               // media errors
  b[160 + 8] = 1;                  // ... and 2^64 more: a counter past 64 bits
  le(b, 192, 5, 4);                // warning composite temperature time
  return b;
}

}  // namespace

TEST_CASE("nvme: Identify Controller fields at the specification's offsets") {
  auto b = controller_bytes();
  auto c = decode_nvme_controller(b);
  REQUIRE(c);
  CHECK(c->pci_vendor_id == 0x1b36);
  CHECK(c->pci_subsystem_vendor_id == 0x1af4);
  CHECK(c->serial == "NVME0001");
  CHECK(c->model == "QEMU NVMe Ctrl");
  CHECK(c->firmware == "8.0.0");
  CHECK(c->ieee_oui == 0x525400);
  CHECK(c->mdts == 7);
  CHECK(c->version == "1.4.0");
  CHECK(c->controller_type == 1);
  CHECK(c->admin_commands == std::vector<std::string>{"format_nvm", "namespace_management"});
  CHECK(c->nvm_commands == std::vector<std::string>{"compare", "dataset_management", "write_zeroes",
                                                    "save_select_features", "timestamp", "copy"});
  CHECK(c->namespaces == 256);
  CHECK(c->volatile_write_cache);
  REQUIRE(c->warning_temp_c);
  CHECK(*c->warning_temp_c == doctest::Approx(69.85));
  CHECK(*c->critical_temp_c == doctest::Approx(99.85));
  CHECK(c->total_capacity_bytes.lo == 1073741824);
  CHECK(c->total_capacity_bytes.fits64());
  CHECK(c->sqes == 0x66);
  CHECK(c->subnqn == "nqn.2019-08.org.qemu:NVME0001");
  REQUIRE(c->power_states.size() == 2);
  CHECK(c->power_states[0].max_power_w == doctest::Approx(25.0));
  CHECK(c->power_states[0].entry_latency_us == 16);
  CHECK(c->power_states[0].exit_latency_us == 4);
  CHECK_FALSE(c->power_states[0].non_operational);
  CHECK(c->power_states[1].max_power_w == doctest::Approx(0.09));
  CHECK(c->power_states[1].non_operational);
}

TEST_CASE("nvme: Identify Namespace sizes, the format in use and its block size") {
  auto b = namespace_bytes();
  auto n = decode_nvme_namespace(b, 1);
  REQUIRE(n);
  CHECK(n->nsid == 1);
  CHECK(n->size_blocks == 2097152);
  CHECK(n->utilization_blocks == 1000);
  CHECK(n->thin_provisioning);
  CHECK(n->format_index == 1);
  REQUIRE(n->formats.size() == 2);
  CHECK(n->formats[0].data_bytes == 512);
  CHECK(n->formats[0].relative_performance == 2);
  CHECK_FALSE(n->formats[0].in_use);
  CHECK(n->formats[1].data_bytes == 4096);
  CHECK(n->formats[1].metadata_bytes == 8);
  CHECK(n->formats[1].in_use);
  CHECK(n->logical_block_bytes == 4096);
  CHECK(n->capacity_bytes() == 2097152ull * 4096);
  CHECK(n->nguid == "0102030405060708090a0b0c0d0e0f10");
  CHECK(n->eui64.empty());
  // FLBAS bits 6:5 extend the index past 16 formats (NVM Command Set 1.0, Figure 97).
  b[25] = 20;
  b[26] = 0x21;  // index 0x11 = 17
  b[128 + 17 * 4 + 2] = 9;
  auto m = decode_nvme_namespace(b, 1);
  REQUIRE(m);
  CHECK(m->format_index == 17);
  CHECK(m->logical_block_bytes == 512);
}

TEST_CASE("nvme: SMART / Health log, with a counter past 64 bits kept exact") {
  auto b = health_bytes();
  auto h = decode_nvme_health(b);
  REQUIRE(h);
  CHECK(h->critical_warnings == std::vector<std::string>{"spare_below_threshold", "reliability_degraded"});
  REQUIRE(h->temperature_c);
  CHECK(*h->temperature_c == doctest::Approx(39.85));
  CHECK(h->available_spare_percent == 100);
  CHECK(h->spare_threshold_percent == 10);
  CHECK(h->percentage_used == 3);
  CHECK(h->data_units_read.lo == 1234);
  CHECK(h->power_cycles.lo == 17);
  CHECK(h->power_on_hours.lo == 4321);
  CHECK(h->unsafe_shutdowns.lo == 2);
  CHECK_FALSE(h->media_errors.fits64());
  CHECK(h->media_errors.decimal() == "18446744073709551617");
  CHECK(h->warning_temp_minutes == 5);
}

TEST_CASE("nvme: a structure of the wrong size is an error that says so, never a read past it") {
  std::vector<std::uint8_t> shorter(4095, 0), longer(4097, 0), empty;
  for (const auto* v : {&shorter, &longer, &empty}) {
    auto c = decode_nvme_controller(*v);
    REQUIRE_FALSE(c);
    CHECK(c.error().message.find("bytes, not the 4096") != std::string::npos);
    CHECK_FALSE(decode_nvme_namespace(*v, 1));
  }
  std::vector<std::uint8_t> log(511, 0);
  CHECK_FALSE(decode_nvme_health(log));
}

TEST_CASE("nvme: control bytes in the ASCII fields never reach the terminal") {
  auto b = controller_bytes();
  b[24] = 0x1b;  // ESC at the start of the model
  auto c = decode_nvme_controller(b);
  REQUIRE(c);
  CHECK(c->model.find('\x1b') == std::string::npos);
  CHECK(c->model[0] == '?');
}

TEST_CASE("nvme: identify's JSON carries the namespace's capacity under smartctl's keys") {
  ds::report::NvmeIdentity id;
  auto cb = controller_bytes();
  auto nb = namespace_bytes();
  auto hb = health_bytes();
  id.controller = *decode_nvme_controller(cb);
  id.ns = *decode_nvme_namespace(nb, 1);
  id.health = *decode_nvme_health(hb);
  auto j = ds::report::nvme_identity_to_json(id);
  CHECK(j["model"] == "QEMU NVMe Ctrl");
  CHECK(j["capacity_sectors"] == 2097152);
  CHECK(j["capacity_bytes"] == 2097152ull * 4096);
  CHECK(j["logical_sector_bytes"] == 4096);
  CHECK(j["nvme"]["health"]["media_errors"] == "18446744073709551617");
  CHECK(j["nvme"]["health"]["power_on_hours"] == 4321);
  CHECK(j["nvme"]["controller"]["ieee_oui"] == "525400");
  const std::string text = ds::report::nvme_identity_to_text(id);
  CHECK(text.find("4096 bytes data, 8 metadata, relative performance 0  (in use)") != std::string::npos);
  // Without a namespace (a controller node) the capacity keys are absent and the note says why.
  id.ns.reset();
  id.ns_note = "a controller node";
  auto k = ds::report::nvme_identity_to_json(id);
  CHECK_FALSE(k.contains("capacity_bytes"));
  CHECK(k["nvme"]["namespace"].is_null());
  CHECK(k["nvme"]["namespace_note"] == "a controller node");
}
