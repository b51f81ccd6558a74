// SgDevice against the sg_pt stand-in (sg_pt_mock.hpp), without a SCSI device or QEMU: how each
// way a command can end (good, CHECK CONDITION with sense, another status, transport error,
// timeout, a device that vanished, a short transfer) becomes a CommandResult, what goes down to
// sg_pt (CDB, buffers, timeout), and how open() treats what it finds.
#include <doctest/doctest.h>
#include <scsi/sg_pt.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <string>

#include "passthrough/sg_device.hpp"
#include "sg_pt_mock.hpp"

using namespace ds;
using namespace std::chrono_literals;

namespace {

// A character device that exists (stat must see one); the stand-in does the rest.
constexpr const char* kPath = "/dev/null";

std::unique_ptr<SgDevice> open_mock() {
  sgmock::reset();
  auto d = SgDevice::open(kPath, false);
  REQUIRE_MESSAGE(d.ok(), (d.ok() ? "" : d.error().message));
  return std::move(*d);
}

constexpr std::array<std::uint8_t, 6> kTestUnitReady{0x00, 0, 0, 0, 0, 0};
constexpr std::array<std::uint8_t, 6> kInquiry{0x12, 0, 0, 0, 36, 0};

CommandResult inquiry(SgDevice& d, std::span<std::uint8_t> buf, Millis timeout = kDefaultCommandTimeout) {
  return d.scsi({kInquiry, DataDirection::from_device, buf, timeout});
}

}  // namespace

TEST_CASE("sg_pt mock: a good command passes its CDB, buffer and timeout down and its data up") {
  auto d = open_mock();
  sgmock::script().category = SCSI_PT_RESULT_GOOD;
  sgmock::script().data_in = {0x00, 0x00, 0x05, 0x02, 31, 'A', 'T', 'A'};
  std::array<std::uint8_t, 36> buf{};
  const auto r = inquiry(*d, buf, 1500ms);
  CHECK(r.outcome == Outcome::good);
  CHECK(r.ok());
  CHECK(r.sense.empty());
  CHECK(r.residual == 0);
  CHECK(sgmock::script().cdb == std::vector<std::uint8_t>(kInquiry.begin(), kInquiry.end()));
  CHECK(sgmock::script().data_in_len == 36);
  CHECK(sgmock::script().timeout_secs == 2);  // 1.5 s rounded up to whole seconds
  CHECK(buf[2] == 0x05);
  CHECK(buf[5] == 'A');
  CHECK(sgmock::script().live_objects == 0);  // the sg_pt object is released
}

TEST_CASE("sg_pt mock: data-out is handed over as given; no direction, no buffer") {
  auto d = open_mock();
  std::array<std::uint8_t, 4> out{1, 2, 3, 4};
  const std::array<std::uint8_t, 6> cdb{0x15, 0x10, 0, 0, 4, 0};  // MODE SELECT(6)
  CHECK(d->scsi({cdb, DataDirection::to_device, out}).outcome == Outcome::good);
  CHECK(sgmock::script().data_out == std::vector<std::uint8_t>{1, 2, 3, 4});
  sgmock::reset();
  CHECK(d->scsi({kTestUnitReady}).outcome == Outcome::good);
  CHECK(sgmock::script().data_in_len == -1);
  CHECK(sgmock::script().data_out_len == -1);
}

TEST_CASE("sg_pt mock: CHECK CONDITION keeps the sense data and explains it") {
  auto d = open_mock();
  sgmock::script().category = SCSI_PT_RESULT_SENSE;
  sgmock::script().status = 0x02;
  // Fixed format, ILLEGAL REQUEST, INVALID FIELD IN CDB (24h/00h).
  sgmock::script().sense = {0x70, 0, 0x05, 0, 0, 0, 0, 10, 0, 0, 0, 0, 0x24, 0x00, 0, 0, 0, 0};
  std::array<std::uint8_t, 36> buf{};
  const auto r = inquiry(*d, buf);
  CHECK(r.outcome == Outcome::check_condition);
  CHECK_FALSE(r.ok());
  CHECK(r.scsi_status == 0x02);
  CHECK(r.sense == sgmock::script().sense);
  CHECK(sgmock::script().sense_len >= 252);  // room for SPC-4's largest sense
  CHECK(r.message.find("Illegal") != std::string::npos);
}

TEST_CASE("sg_pt mock: another SCSI status (BUSY) is named") {
  auto d = open_mock();
  sgmock::script().category = SCSI_PT_RESULT_STATUS;
  sgmock::script().status = 0x08;
  const auto r = d->scsi({kTestUnitReady});
  CHECK(r.outcome == Outcome::scsi_status);
  CHECK(r.scsi_status == 0x08);
  CHECK(r.message.find("Busy") != std::string::npos);
}

TEST_CASE("sg_pt mock: a transport error carries sg_pt's code and text") {
  auto d = open_mock();
  sgmock::script().category = SCSI_PT_RESULT_TRANSPORT_ERR;
  sgmock::script().transport_err = 0x07;
  sgmock::script().transport_text = "Host_status=0x07 [DID_ERROR]\n";
  const auto r = d->scsi({kTestUnitReady});
  CHECK(r.outcome == Outcome::transport_error);
  CHECK(r.host_status == 0x07);
  CHECK(r.message.find("DID_ERROR") != std::string::npos);
  CHECK(r.message.back() != '\n');
}

TEST_CASE("sg_pt mock: a timeout is ETIMEDOUT, saying after how long") {
  auto d = open_mock();
  sgmock::script().do_rc = SCSI_PT_DO_TIMEOUT;
  const auto r = d->scsi({kTestUnitReady, DataDirection::none, {}, 3000ms});
  CHECK(r.outcome == Outcome::os_error);
  CHECK(r.os_errno == ETIMEDOUT);
  CHECK(r.message.find("timed out after 3 s") != std::string::npos);
}

TEST_CASE("sg_pt mock: a device that vanished is an OS error with its errno, twice over") {
  auto d = open_mock();
  sgmock::script().do_rc = -ENODEV;  // the ioctl itself failed
  auto r = d->scsi({kTestUnitReady});
  CHECK(r.outcome == Outcome::os_error);
  CHECK(r.os_errno == ENODEV);
  CHECK(r.message.find("/dev/null") != std::string::npos);
  sgmock::script().do_rc = 0;  // or sg_pt reports it as the result
  sgmock::script().category = SCSI_PT_RESULT_OS_ERR;
  sgmock::script().os_err = ENXIO;
  r = d->scsi({kTestUnitReady});
  CHECK(r.outcome == Outcome::os_error);
  CHECK(r.os_errno == ENXIO);
}

TEST_CASE("sg_pt mock: a short transfer reports the residual count") {
  auto d = open_mock();
  sgmock::script().resid = 20;
  std::array<std::uint8_t, 36> buf{};
  const auto r = inquiry(*d, buf);
  CHECK(r.outcome == Outcome::good);
  CHECK(r.residual == 20);
}

TEST_CASE("sg_pt mock: requests sg_pt would reject never reach it") {
  auto d = open_mock();
  const std::array<std::uint8_t, 17> too_long{};
  CHECK(d->scsi({too_long}).os_errno == EINVAL);
  CHECK(d->scsi({kInquiry, DataDirection::from_device, {}}).os_errno == EINVAL);
  CHECK(sgmock::script().commands == 0);
  sgmock::script().do_rc = SCSI_PT_DO_NOT_SUPPORTED;
  CHECK(d->scsi({kTestUnitReady}).outcome == Outcome::unsupported);
  sgmock::script().do_rc = 0;
  sgmock::script().construct_fails = true;
  CHECK(d->scsi({kTestUnitReady}).os_errno == ENOMEM);
}

TEST_CASE("sg_pt mock: open refuses NVMe and devices without SG_IO, and closes what it opened") {
  sgmock::reset();
  sgmock::script().pt_kind = 3;
  auto d = SgDevice::open(kPath, false);
  REQUIRE_FALSE(d.ok());
  CHECK(d.error().message.find("NVMe") != std::string::npos);
  CHECK(sgmock::script().closed);
  sgmock::reset();
  sgmock::script().sg_version = 0;
  d = SgDevice::open(kPath, false);
  REQUIRE_FALSE(d.ok());
  CHECK(d.error().message.find("not a SCSI device") != std::string::npos);
  CHECK(sgmock::script().closed);
  sgmock::reset();
  sgmock::script().open_errno = EACCES;
  d = SgDevice::open(kPath, true);
  REQUIRE_FALSE(d.ok());
  CHECK(d.error().code == EACCES);
  // And a device that opens is closed with the object.
  auto ok = open_mock();
  CHECK(ok->info().scsi_capable);
  ok.reset();
  CHECK(sgmock::script().closed);
}
