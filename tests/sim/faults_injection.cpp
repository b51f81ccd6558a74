// Injected faults in the simulated drive (src/sim/faults.hpp): medium errors, a drive that stops
// answering, a drive that vanishes. What the engine and the command interface report, and that a
// hung drive costs virtual, not wall, time.
#include <doctest/doctest.h>

#include <cerrno>
#include <chrono>
#include <vector>

#include <nlohmann/json.hpp>

#include "drivescope/commands.hpp"
#include "sim/drive.hpp"
#include "sim/faults.hpp"
#include "sim/sim.hpp"

namespace {

using ds::sim::FaultSpec;

ds::sim::SimTarget open_with(const FaultSpec& f, const char* spec = "sim:raptor") {
  ds::sim::SimOptions o;
  o.faults = f;
  auto t = ds::sim::open(spec, o);
  REQUIRE(t.ok());
  return std::move(*t);
}

// Read `blocks` sectors at lba through the engine at QD1; the completion's result.
std::int32_t read_one(ds::IoEngine& io, std::uint64_t lba, std::uint32_t blocks = 1) {
  ds::IoRequest r;
  r.offset_bytes = lba * io.info().logical_block_bytes;
  r.length_bytes = blocks * io.info().logical_block_bytes;
  auto s = io.submit({&r, 1});
  REQUIRE(s.ok());
  REQUIRE(*s == 1);
  ds::IoCompletion c;
  auto n = io.reap({&c, 1}, 1, std::chrono::milliseconds(30'000));
  REQUIRE(n.ok());
  REQUIRE(*n == 1);
  return c.result;
}

ds::CommandResult read_verify(ds::Device& d, std::uint64_t lba, std::uint16_t count) {
  ds::AtaRequest r;
  r.in.command = ds::ata::kReadVerifySectorsExt;
  r.in.lba = lba;
  r.in.count = count;
  r.lba48 = true;
  return d.ata(r);
}

}  // namespace

TEST_CASE("faults: the model's \"faults\" object is parsed, checked and written back") {
  const auto j = nlohmann::json::parse(R"({"medium_errors": [{"first_lba": 100, "sectors": 8}],
      "stop_answering_after_ios": 50, "stop_answering_at_ms": 1500.5,
      "vanish_after_ios": 70, "vanish_at_ms": 2000})");
  auto f = ds::sim::parse_faults(j, 1000);
  REQUIRE(f.ok());
  REQUIRE(f->medium_errors.size() == 1);
  CHECK(f->medium_errors[0].first_lba == 100);
  CHECK(f->medium_errors[0].sectors == 8);
  CHECK(*f->stop_after_ios == 50);
  CHECK(*f->stop_at_ns == 1'500'500'000);
  CHECK(*f->vanish_after_ios == 70);
  CHECK(*f->vanish_at_ns == 2'000'000'000);
  auto back = ds::sim::parse_faults(ds::sim::faults_to_json(*f), 1000);
  REQUIRE(back.ok());
  CHECK(*back->stop_at_ns == *f->stop_at_ns);

  struct Bad { const char* json; const char* says; };
  for (const Bad& b : {Bad{R"({"medium_error": []})", "faults.medium_error: unknown key"},
                       Bad{R"({"medium_errors": [{"first_lba": 995, "sectors": 8}]})", "beyond the capacity"},
                       Bad{R"({"medium_errors": [{"first_lba": 18446744073709551615, "sectors": 2}]})", "beyond"},
                       Bad{R"({"medium_errors": [{"sectors": 2}]})", "first_lba: missing"},
                       Bad{R"({"medium_errors": [{"first_lba": 1, "sectors": 0}]})", "must be positive"},
                       Bad{R"({"vanish_after_ios": -1})", "non-negative"},
                       Bad{R"({"vanish_at_ms": "soon"})", "milliseconds"},
                       Bad{R"({"stop_answering_at_ms": 1e300})", "between"},
                       Bad{R"([1])", "must be an object"}}) {
    CAPTURE(b.json);
    auto r = ds::sim::parse_faults(nlohmann::json::parse(b.json), 1000);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().message.find(b.says) != std::string::npos);
  }
}

TEST_CASE("faults: a disk-model file carries faults; a misspelt fault is refused") {
  auto base = ds::sim::open("sim:raptor");
  REQUIRE(base.ok());
  auto m = base->model;
  m.faults.medium_errors.push_back({5000, 16});
  const std::string text = ds::sim::model_to_json(m);
  auto parsed = ds::sim::parse_model(text);
  REQUIRE(parsed.ok());
  REQUIRE(parsed->faults.medium_errors.size() == 1);
  CHECK(parsed->faults.medium_errors[0].first_lba == 5000);

  auto j = nlohmann::json::parse(text);
  j["faults"] = {{"vanish_afterios", 3}};
  auto bad = ds::sim::parse_model(j.dump());
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message.find("vanish_afterios") != std::string::npos);
}

TEST_CASE("faults: medium errors fail reads touching the region, and only those") {
  FaultSpec f;
  f.medium_errors.push_back({10'000, 8});
  auto t = open_with(f);
  CHECK(read_one(*t.io, 9'000) == 512);
  CHECK(read_one(*t.io, 10'000) == -EIO);
  CHECK(read_one(*t.io, 10'007) == -EIO);
  CHECK(read_one(*t.io, 9'996, 8) == -EIO);   // ends inside the region
  CHECK(read_one(*t.io, 9'992, 8) == 4096);   // ends just before it
  CHECK(read_one(*t.io, 10'008) == 512);      // just after it
  // The drive goes on answering after a medium error.
  CHECK(read_one(*t.io, 20'000, 8) == 4096);

  // ATA READ VERIFY: ERR with UNC and the first bad LBA in the LBA registers (ACS-3 6.3.9).
  auto bad = read_verify(*t.device, 9'990, 16);
  CHECK_FALSE(bad.ok());
  REQUIRE(bad.ata.has_value());
  CHECK(bad.ata->error_bit());
  CHECK((bad.ata->error & 0x40) != 0);
  CHECK(bad.ata->lba == 10'000);
  CHECK_FALSE(bad.ata->aborted());
  REQUIRE(bad.sense.size() >= 22);
  CHECK((bad.sense[1] & 0x0F) == 0x03);  // MEDIUM ERROR
  CHECK(read_verify(*t.device, 9'000, 16).ok());
}

TEST_CASE("faults: a SCSI READ over a medium error ends with MEDIUM ERROR / UNRECOVERED READ ERROR") {
  FaultSpec f;
  f.medium_errors.push_back({2'000, 4});
  auto t = open_with(f, "sim:cheetah15k3");
  REQUIRE(t.model.transport == ds::sim::Transport::scsi);
  std::vector<std::uint8_t> buf(8 * 512);
  const std::uint8_t cdb[10] = {ds::scsi::kRead10, 0, 0, 0, 0x07, 0xCE, 0, 0, 8, 0};  // LBA 1998, 8 blocks
  ds::ScsiRequest r;
  r.cdb = cdb;
  r.direction = ds::DataDirection::from_device;
  r.data = buf;
  auto res = t.device->scsi(r);
  CHECK(res.outcome == ds::Outcome::check_condition);
  REQUIRE(res.sense.size() >= 18);
  CHECK((res.sense[2] & 0x0F) == 0x03);
  CHECK(res.sense[12] == 0x11);
  CHECK(res.sense[13] == 0x00);
  CHECK((res.sense[0] & 0x80) != 0);  // VALID: INFORMATION is the failing LBA
  CHECK(((res.sense[3] << 24) | (res.sense[4] << 16) | (res.sense[5] << 8) | res.sense[6]) == 2'000);
  const std::uint8_t ok_cdb[10] = {ds::scsi::kRead10, 0, 0, 0, 0x10, 0x00, 0, 0, 8, 0};
  r.cdb = ok_cdb;
  CHECK(t.device->scsi(r).ok());
}

TEST_CASE("faults: a drive that stops answering after N I/Os times out the reap, promptly in wall time") {
  FaultSpec f;
  f.stop_after_ios = 5;
  auto t = open_with(f);
  for (int i = 0; i < 5; ++i) CHECK(read_one(*t.io, 1000 + 64 * i) == 512);
  ds::IoRequest r;
  r.offset_bytes = 512 * 5000;
  r.length_bytes = 512;
  auto s = t.io->submit({&r, 1});
  REQUIRE(s.ok());
  CHECK(*s == 1);  // accepted: a hung drive still takes commands into its queue
  const auto wall0 = std::chrono::steady_clock::now();
  const std::int64_t v0 = t.io->now_ns();
  ds::IoCompletion c;
  auto n = t.io->reap({&c, 1}, 1, std::chrono::milliseconds(30'000));
  const auto wall = std::chrono::steady_clock::now() - wall0;
  REQUIRE_FALSE(n.ok());
  CHECK(n.error().code == ETIMEDOUT);
  CHECK(n.error().message.find("stopped answering") != std::string::npos);
  CHECK(t.io->now_ns() - v0 >= 30'000'000'000LL);  // the 30 s passed on the virtual clock
  CHECK(wall < std::chrono::seconds(1));            // ... not on the wall clock
  CHECK(t.io->in_flight() == 1);

  // Commands: no answer within their timeout.
  ds::AtaRequest id;
  std::vector<std::uint8_t> buf(512);
  id.in.command = ds::ata::kIdentifyDevice;
  id.protocol = ds::AtaProtocol::pio_in;
  id.data = buf;
  id.timeout = ds::Millis(7'000);
  const std::int64_t v1 = t.io->now_ns();
  auto res = t.device->ata(id);
  CHECK(res.outcome == ds::Outcome::os_error);
  CHECK(res.os_errno == ETIMEDOUT);
  CHECK(t.io->now_ns() - v1 == 7'000'000'000LL);
}

TEST_CASE("faults: a drive that stops answering at a virtual time completes what finished before") {
  FaultSpec f;
  f.stop_at_ns = 200'000'000;  // 200 ms
  auto t = open_with(f);
  int ok = 0;
  std::optional<ds::Error> err;
  for (int i = 0; i < 1000 && !err; ++i) {
    ds::IoRequest r;
    r.offset_bytes = 512ull * (static_cast<std::uint64_t>(i) * 7919 * 1000 % t.drive->capacity());
    r.length_bytes = 512;
    REQUIRE(t.io->submit({&r, 1}).ok());
    ds::IoCompletion c;
    auto n = t.io->reap({&c, 1}, 1, std::chrono::milliseconds(1'000));
    if (!n) {
      err = n.error();
    } else {
      REQUIRE(*n == 1);
      CHECK(c.complete_ns < 200'000'000);
      ++ok;
    }
  }
  REQUIRE(err.has_value());
  CHECK(err->code == ETIMEDOUT);
  CHECK(ok > 5);  // random reads of a few ms each before the drive stopped
}

TEST_CASE("faults: a drive that vanishes fails in-flight I/O, later submits and every command with ENODEV") {
  FaultSpec f;
  f.vanish_after_ios = 3;
  auto t = open_with(f);
  std::vector<ds::IoRequest> reqs(6);
  for (std::size_t i = 0; i < reqs.size(); ++i) {
    reqs[i].offset_bytes = 512 * (1000 + 100 * i);
    reqs[i].length_bytes = 512;
    reqs[i].tag = i;
  }
  auto s = t.io->submit(reqs);
  REQUIRE(s.ok());
  REQUIRE(*s == 6);
  std::vector<ds::IoCompletion> c(6);
  std::size_t got = 0;
  while (got < 6) {
    auto n = t.io->reap(std::span(c).subspan(got), 1, std::chrono::milliseconds(30'000));
    REQUIRE(n.ok());
    REQUIRE(*n > 0);
    got += *n;
  }
  int good = 0, gone = 0;
  for (const auto& x : c) {
    if (x.result == 512) ++good;
    else if (x.result == -ENODEV) ++gone;
  }
  CHECK(good == 3);
  CHECK(gone == 3);

  auto again = t.io->submit({reqs.data(), 1});
  REQUIRE_FALSE(again.ok());
  CHECK(again.error().code == ENODEV);
  CHECK(again.error().message.find("gone") != std::string::npos);

  ds::AtaRequest a;
  a.in.command = ds::ata::kCheckPowerMode;
  auto r = t.device->ata(a);
  CHECK(r.outcome == ds::Outcome::os_error);
  CHECK(r.os_errno == ENODEV);
  const std::uint8_t tur[6] = {0, 0, 0, 0, 0, 0};
  ds::ScsiRequest sr;
  sr.cdb = tur;
  CHECK(t.device->scsi(sr).os_errno == ENODEV);
}

TEST_CASE("faults: a drive that vanishes at a virtual time") {
  FaultSpec f;
  f.vanish_at_ns = 50'000'000;
  auto t = open_with(f);
  CHECK(read_one(*t.io, 100) == 512);
  t.io->idle(std::chrono::milliseconds(60));
  ds::IoRequest r;
  r.length_bytes = 512;
  auto s = t.io->submit({&r, 1});
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().code == ENODEV);
}

TEST_CASE("faults: none configured, nothing changes") {
  auto a = ds::sim::open("sim:raptor");
  auto b = open_with(FaultSpec{});
  REQUIRE(a.ok());
  for (int i = 0; i < 20; ++i) {
    const std::uint64_t lba = 1000 + 37'000ull * i;
    const std::int64_t ta = a->io->now_ns(), tb = b.io->now_ns();
    CHECK(read_one(*a->io, lba) == read_one(*b.io, lba));
    CHECK(a->io->now_ns() - ta == b.io->now_ns() - tb);
  }
}
