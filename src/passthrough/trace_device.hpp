// --trace (like `smartctl -r ioctl`): a decorator that lets every command through to the device it
// wraps and hands a record of it (what was sent, how it ended, how long it took) to a sink. The
// records are values with the names and the sense already decoded, so that the CLI, which alone
// prints, needs nothing from this layer but the struct. Wrapped only when --trace is given: an
// untraced target has no decorator at all, so tracing costs nothing when off.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "drivescope/device.hpp"

namespace ds {

struct TracedSense {
  std::uint8_t key = 0, asc = 0, ascq = 0;
  std::string text;  // "Illegal Request: Invalid command operation code", or why it could not be decoded
};

struct CommandTrace {
  unsigned number = 0;  // 1, 2, ... per traced device
  bool ata = false;     // an ata() call (a taskfile, e.g. the simulated drive's native interface); else a CDB
  std::vector<std::uint8_t> cdb;  // scsi(): the CDB as sent
  AtaRegisters regs;              // ata(): the input registers
  bool lba48 = false;
  std::string name;               // "INQUIRY", "ATA PASS-THROUGH(16): IDENTIFY DEVICE", "SMART"; "" if unknown
  DataDirection direction = DataDirection::none;
  std::size_t length = 0;         // bytes of the data buffer
  Outcome outcome = Outcome::good;
  std::uint8_t scsi_status = 0;
  std::vector<std::uint8_t> sense;
  std::optional<TracedSense> sense_decoded;  // when there was sense data
  std::optional<AtaOutput> ata_out;          // output registers, when known
  Nanos duration{0};              // the device's own figure (the simulator's drive time), else wall time
  std::int32_t residual = 0;
  std::string message;            // the result's explanation, for anything but good
};

using TraceSink = std::function<void(const CommandTrace&)>;

// The record of one command: pure, for the decorator and for tests.
CommandTrace trace_scsi(const ScsiRequest& req, const CommandResult& r);
CommandTrace trace_ata(const AtaRequest& req, const CommandResult& r);

class TracingDevice final : public Device {
 public:
  TracingDevice(std::unique_ptr<Device> inner, TraceSink sink) : inner_(std::move(inner)), sink_(std::move(sink)) {}
  const DeviceInfo& info() const override { return inner_->info(); }
  CommandResult scsi(const ScsiRequest& req) override;
  CommandResult ata(const AtaRequest& req) override;

 private:
  std::unique_ptr<Device> inner_;
  TraceSink sink_;
  unsigned count_ = 0;
};

}  // namespace ds
