// The "zoned" model key: host-aware and host-managed zones (ZBC / ZAC). Checked through the drive's
// public interfaces: REPORT ZONES (SCSI ZBC IN, ATA ZAC MANAGEMENT IN) decoded by the probe's
// decoder, INQUIRY / VPD / IDENTIFY, and writes through the I/O engine and SCSI WRITE(16).
#include <doctest/doctest.h>

#include <array>
#include <vector>

#include "drivescope/commands.hpp"
#include "drivescope/wire.hpp"
#include "probe/identify.hpp"
#include "probe/scsi_decode.hpp"
#include "probe/zones.hpp"
#include "sim/model.hpp"
#include "sim_test_util.hpp"

namespace {

using ds::sim::DiskModel;
using ds::sim::ZonedModel;

std::string hs14_path() { return std::string(DS_TEST_DATA) + "/zoned/hs14-hm.json"; }

DiskModel hs14() {
  auto m = ds::sim::load_model_file(hs14_path());
  REQUIRE_MESSAGE(m.ok(), (m.ok() ? "" : m.error().message));
  return *m;
}

// The Hs14-shaped model cut to a small drive with 1 MiB zones: zones can be filled in a test.
DiskModel small(ZonedModel kind, ds::sim::Transport t) {
  DiskModel m = hs14();
  m.capacity_sectors = 64 * 2048 + 1024;  // 64 zones of 1 MiB and a last one of half that
  m.zoned = {kind, 1 << 20, 4};
  m.transport = t;
  if (t == ds::sim::Transport::ata) m.queue.protocol = ds::sim::QueueProtocol::ncq;
  return m;
}

ds::probe::ZoneReport scsi_zones(ds::Device& dev, std::uint64_t start, std::size_t bytes = 4096) {
  std::vector<std::uint8_t> buf(bytes);
  auto r = ds::scsi::report_zones(dev, start, buf);
  REQUIRE_MESSAGE(r.ok(), r.message);
  auto z = ds::probe::decode_report_zones(buf, ds::probe::ZoneByteOrder::kZbcBigEndian);
  REQUIRE_MESSAGE(z.ok(), (z.ok() ? "" : z.error().message));
  return *z;
}

ds::probe::ZoneReport zac_zones(ds::Device& dev, std::uint64_t start) {
  std::vector<std::uint8_t> buf(4096);
  auto r = ds::ata::report_zones_ext(dev, start, buf);
  REQUIRE_MESSAGE(r.ok(), r.message);
  auto z = ds::probe::decode_report_zones(buf, ds::probe::ZoneByteOrder::kZacLittleEndian);
  REQUIRE_MESSAGE(z.ok(), (z.ok() ? "" : z.error().message));
  return *z;
}

int io_write(ds::IoEngine& io, std::uint64_t lba, std::uint32_t sectors) {
  ds::IoRequest r{lba * 512, sectors * 512u, true, lba};
  REQUIRE(io.submit({&r, 1}).value() == 1);
  ds::IoCompletion c;
  REQUIRE(io.reap({&c, 1}, 1, std::chrono::milliseconds(0)).value() == 1);
  return c.result < 0 ? c.result : 0;  // -errno, or 0 when written
}

// SCSI WRITE(16) of `blocks` at lba through the command interface.
ds::CommandResult write16(ds::Device& dev, std::uint64_t lba, std::uint32_t blocks) {
  std::vector<std::uint8_t> data(std::size_t{blocks} * 512);
  std::array<std::uint8_t, 16> cdb{0x8A};
  ds::wire::put_be64(&cdb[2], lba);
  ds::wire::put_be32(&cdb[10], blocks);
  ds::ScsiRequest r;
  r.cdb = cdb;
  r.data = data;
  r.direction = ds::DataDirection::to_device;
  return dev.scsi(r);
}

// Sense key / ASC / ASCQ of a fixed-format sense.
std::array<int, 3> sense_of(const ds::CommandResult& r) {
  REQUIRE(r.sense.size() >= 14);
  return {r.sense[2] & 0x0F, r.sense[12], r.sense[13]};
}

ds::scsi::StandardInquiry inquiry(ds::Device& dev) {
  std::array<std::uint8_t, 96> b{};
  REQUIRE(ds::scsi::inquiry(dev, b).ok());
  auto q = ds::scsi::decode_standard_inquiry(b);
  REQUIRE(q.ok());
  return *q;
}

}  // namespace

TEST_CASE("zoned: the key loads, round-trips and its errors name the field") {
  const DiskModel m = hs14();
  CHECK(m.zoned.model == ZonedModel::host_managed);
  CHECK(m.zoned.zone_bytes == 268435456u);
  CHECK(m.zoned.conventional_zones == 524u);
  auto again = ds::sim::parse_model(ds::sim::model_to_json(m));
  REQUIRE(again.ok());
  CHECK(ds::sim::model_to_json(*again) == ds::sim::model_to_json(m));

  auto j = nlohmann::json::parse(ds::sim::model_to_json(m));
  const auto refused = [&](const char* key, nlohmann::json v, const std::string& field) {
    auto k = j;
    if (std::string(key).empty()) k["zoned"] = v;
    else k["zoned"][key] = v;
    auto r = ds::sim::parse_model(k.dump());
    REQUIRE_FALSE(r.ok());
    CHECK_MESSAGE(r.error().message.starts_with(field), r.error().message);
  };
  refused("model", "drive-managed", "zoned.model");
  refused("model", 1, "zoned.model");
  refused("zone_bytes", 1000, "zoned.zone_bytes");           // not whole sectors
  refused("zone_bytes", 512 * 3, "zoned.zone_bytes");        // not whole 4 KiB physical sectors
  refused("zone_bytes", 0, "zoned.zone_bytes");
  refused("zone_bytes", 4096, "zoned.zone_bytes");           // far more than 16 Mi zones
  refused("zone_bytes", 1ull << 50, "zoned.zone_bytes");     // larger than the drive
  refused("conventional_zones", 52157, "zoned.conventional_zones");
  refused("", "host-managed", "zoned");
  auto both = j;
  both["smr"] = {{"media_cache_bytes", 1 << 20}, {"band_bytes", 1 << 20}};
  auto r = ds::sim::parse_model(both.dump());
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message.starts_with("zoned"));
}

TEST_CASE("zoned: a host-managed SCSI drive says what it is and reports its zones (ZBC)") {
  auto t = simtest::open_model(hs14());
  CHECK(inquiry(*t.device).device_type == 0x14);
  std::array<std::uint8_t, 64> b1{}, b6{}, p0{};
  REQUIRE(ds::scsi::inquiry_vpd(*t.device, 0x00, p0).ok());
  CHECK(std::vector<std::uint8_t>(p0.begin() + 4, p0.begin() + 4 + p0[3]) ==
        std::vector<std::uint8_t>{0x00, 0x80, 0xB1, 0xB6});
  REQUIRE(ds::scsi::inquiry_vpd(*t.device, 0xB1, b1).ok());
  CHECK(((b1[8] >> 4) & 3) == 0);  // ZONED: host managed says so by its device type only
  REQUIRE(ds::scsi::inquiry_vpd(*t.device, 0xB6, b6).ok());
  CHECK((b6[4] & 1) == 1);  // URSWRZ

  const auto z = scsi_zones(*t.device, 0);
  CHECK(z.zones_listed == 52156);
  CHECK(z.max_lba == 52156ull * 524288 - 1);
  CHECK(z.same == 3);  // one length, two types
  REQUIRE(z.zones.size() == 63);  // what 4 KiB holds
  CHECK(z.truncated);
  CHECK(z.problems.empty());
  REQUIRE(z.types.size() == 1);
  CHECK(z.types[0].type == 1);
  CHECK(z.zones[62].start_lba == 62ull * 524288);

  // From the first sequential zone on: all sequential write required, empty, pointer at the start.
  const std::uint64_t seq0 = 524ull * 524288;
  const auto s = scsi_zones(*t.device, seq0 + 5);  // an LBA inside the zone: listed from its start
  CHECK(s.zones_listed == 52156 - 524);
  CHECK(s.same == 1);
  REQUIRE_FALSE(s.zones.empty());
  CHECK(s.zones[0].start_lba == seq0);
  CHECK(s.zones[0].type == 2);
  CHECK(s.zones[0].condition == 1);
  CHECK(s.zones[0].write_pointer == seq0);
  CHECK(s.zones[0].length == 524288);

  // Beyond the capacity: LBA OUT OF RANGE.
  std::vector<std::uint8_t> buf(4096);
  auto bad = ds::scsi::report_zones(*t.device, 52156ull * 524288, buf);
  CHECK_FALSE(bad.ok());
  CHECK(sense_of(bad) == std::array<int, 3>{5, 0x21, 0x00});
}

TEST_CASE("zoned: host-managed write pointers: taken at the pointer, refused elsewhere") {
  auto t = simtest::open_model(small(ZonedModel::host_managed, ds::sim::Transport::scsi), true);
  const std::uint64_t z4 = 4 * 2048, z5 = 5 * 2048;  // the first two sequential zones
  // Conventional zones take writes anywhere, and one may span two of them.
  CHECK(io_write(*t.io, 100, 8) == 0);
  CHECK(io_write(*t.io, 2048 - 8, 16) == 0);
  // A sequential zone: at the pointer, then on from where it moved.
  CHECK(io_write(*t.io, z4, 8) == 0);
  CHECK(io_write(*t.io, z4 + 8, 8) == 0);
  CHECK(io_write(*t.io, z4, 8) == -EIO);       // behind the pointer
  CHECK(io_write(*t.io, z4 + 64, 8) == -EIO);  // ahead of it
  CHECK(io_write(*t.io, z5 - 8, 16) == -EIO);  // across a boundary
  CHECK(io_write(*t.io, z4 - 8, 16) == -EIO);  // from a conventional zone into a sequential one
  auto z = scsi_zones(*t.device, z4);
  CHECK(z.zones[0].write_pointer == z4 + 16);
  CHECK(z.zones[0].condition == 2);  // implicitly opened
  CHECK(z.zones[1].write_pointer == z5);
  CHECK(z.zones[1].condition == 1);

  // SCSI WRITE(16): the sense ZBC gives.
  CHECK(sense_of(write16(*t.device, z4, 8)) == std::array<int, 3>{5, 0x21, 0x04});
  CHECK(sense_of(write16(*t.device, z5 - 8, 16)) == std::array<int, 3>{5, 0x21, 0x05});
  CHECK(write16(*t.device, z4 + 16, 8).ok());
  // Fill the zone to its end: full.
  CHECK(write16(*t.device, z4 + 24, 2048 - 24).ok());
  z = scsi_zones(*t.device, z4);
  CHECK(z.zones[0].condition == 0xE);
  CHECK(sense_of(write16(*t.device, z4 + 2040, 8)) == std::array<int, 3>{5, 0x21, 0x04});
  // The last zone is shorter; SAME says so (alike but for the last one's length).
  z = scsi_zones(*t.device, 63 * 2048);
  REQUIRE(z.zones.size() == 2);
  CHECK(z.zones[0].length == 2048);
  CHECK(z.zones[1].length == 1024);
  CHECK(z.same == 2);

  // RESET WRITE POINTER (ZBC OUT, service action 04h) empties the zone.
  std::array<std::uint8_t, 16> cdb{0x94, 0x04};
  ds::wire::put_be64(&cdb[2], z4);
  ds::ScsiRequest rq;
  rq.cdb = cdb;
  rq.direction = ds::DataDirection::none;
  CHECK(t.device->scsi(rq).ok());
  z = scsi_zones(*t.device, z4);
  CHECK(z.zones[0].condition == 1);
  CHECK(z.zones[0].write_pointer == z4);
  CHECK(io_write(*t.io, z4, 8) == 0);

  // Opened read-only, the command interface refuses writes (DATA PROTECT) and keeps the pointers.
  auto ro = simtest::open_model(small(ZonedModel::host_managed, ds::sim::Transport::scsi), false);
  CHECK(sense_of(write16(*ro.device, z4, 8))[0] == 7);
  CHECK(scsi_zones(*ro.device, z4).zones[0].condition == 1);
}

TEST_CASE("zoned: a host-aware ATA drive: IDENTIFY word 69, REPORT ZONES EXT, writes anywhere") {
  auto t = simtest::open_model(small(ZonedModel::host_aware, ds::sim::Transport::ata), true);
  std::array<std::uint8_t, 512> id{};
  REQUIRE(ds::ata::identify_device(*t.device, id).ok());
  auto d = ds::probe::decode_identify(id);
  REQUIRE(d.ok());
  CHECK(d->zoned == 1);
  CHECK(inquiry(*t.device).device_type == 0x00);
  std::array<std::uint8_t, 64> b1{};
  REQUIRE(ds::scsi::inquiry_vpd(*t.device, 0xB1, b1).ok());
  CHECK(((b1[8] >> 4) & 3) == 1);  // ZONED host aware, as a SATL reports it

  auto z = zac_zones(*t.device, 0);
  CHECK(z.zones_listed == 65);
  CHECK(z.max_lba == 64ull * 2048 + 1023);
  REQUIRE(z.zones.size() == 63);
  CHECK(z.zones[3].type == 1);
  CHECK(z.zones[4].type == 3);  // sequential write preferred
  CHECK(z.zones[4].condition == 1);
  CHECK(z.problems.empty());

  const std::uint64_t z4 = 4 * 2048;
  CHECK(io_write(*t.io, z4, 8) == 0);
  CHECK(io_write(*t.io, z4 + 8, 8) == 0);
  z = zac_zones(*t.device, z4);
  CHECK(z.zones[0].write_pointer == z4 + 16);
  CHECK_FALSE(z.zones[0].non_sequential);
  CHECK(io_write(*t.io, z4 + 100, 8) == 0);  // host aware: taken, the zone marked non-sequential
  z = zac_zones(*t.device, z4);
  CHECK(z.zones[0].non_sequential);
  CHECK(z.zones[0].write_pointer == z4 + 108);

  // The same reply through SCSI (a SATL's translation) is the big-endian form of the same zones.
  const auto s = scsi_zones(*t.device, z4);
  CHECK(s.zones[0].write_pointer == z4 + 108);
  CHECK(s.zones_listed == z.zones_listed);
}

TEST_CASE("zoned: a host-managed ATA drive shows device type 14h through SAT, word 69 stays 0") {
  auto t = simtest::open_model(small(ZonedModel::host_managed, ds::sim::Transport::ata), true);
  std::array<std::uint8_t, 512> id{};
  REQUIRE(ds::ata::identify_device(*t.device, id).ok());
  auto d = ds::probe::decode_identify(id);
  REQUIRE(d.ok());
  CHECK(d->zoned == 0);
  CHECK(inquiry(*t.device).device_type == 0x14);
  const auto z = zac_zones(*t.device, 4 * 2048);
  CHECK(z.zones[0].type == 2);
  CHECK(io_write(*t.io, 4 * 2048 + 8, 8) == -EIO);
}

TEST_CASE("zoned: a model without the key answers none of it, as before") {
  auto m = hs14();
  m.zoned = {};
  auto t = simtest::open_model(m, true);
  CHECK(inquiry(*t.device).device_type == 0x00);
  std::vector<std::uint8_t> buf(4096);
  auto r = ds::scsi::report_zones(*t.device, 0, buf);
  CHECK(sense_of(r) == std::array<int, 3>{5, 0x20, 0x00});  // INVALID COMMAND OPERATION CODE
  CHECK(sense_of(write16(*t.device, 0, 8)) == std::array<int, 3>{5, 0x20, 0x00});
  m.transport = ds::sim::Transport::ata;
  auto a = simtest::open_model(m, true);
  CHECK_FALSE(ds::ata::report_zones_ext(*a.device, 0, buf).ok());
  CHECK(io_write(*t.io, 12345, 8) == 0);
}
