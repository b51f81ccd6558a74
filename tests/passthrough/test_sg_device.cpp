// SgDevice::open on things that are not SCSI devices. (A real /dev/sg or /dev/sd is exercised by
// the VM end-to-end tests; this machine may have none.)
#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include <unistd.h>

#include "passthrough/sg_device.hpp"

using namespace ds;

TEST_CASE("a missing path is a clear error") {
  auto d = SgDevice::open("/nonexistent/drivescope-sg-test", false);
  REQUIRE_FALSE(d.ok());
  CHECK(d.error().message.find("/nonexistent/drivescope-sg-test") != std::string::npos);
  CHECK(d.error().message.find("No such file") != std::string::npos);
}

TEST_CASE("a regular file is not a SCSI device") {
  const std::string path = "/tmp/drivescope-sg-test-" + std::to_string(::getpid());
  { std::ofstream(path) << "not a disk"; }
  auto d = SgDevice::open(path, false);
  std::remove(path.c_str());
  REQUIRE_FALSE(d.ok());
  CHECK(d.error().message.find("not a SCSI device") != std::string::npos);
}

TEST_CASE("a character device without SG_IO is refused") {
  auto d = SgDevice::open("/dev/null", false);
  REQUIRE_FALSE(d.ok());
  CHECK(d.error().message.find("not a SCSI device") != std::string::npos);
}

TEST_CASE("a directory is not a device") {
  auto d = SgDevice::open("/tmp", false);
  REQUIRE_FALSE(d.ok());
  CHECK(d.error().message.find("not a device node") != std::string::npos);
}
