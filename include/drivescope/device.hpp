// The command-level device interface: what every backend (Linux SG via sg_pt, SAT over SCSI, the
// simulated drive) implements, and what every probe and measurement module talks to.
// Modelled on smartmontools' dev_interface (one abstraction, SAT as a wrapper around a SCSI
// device) and sg3_utils' sg_pt result categories.
#pragma once
#include <array>
#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ds {

using Millis = std::chrono::milliseconds;
using Nanos = std::chrono::nanoseconds;

inline constexpr Millis kDefaultCommandTimeout{20'000};

enum class DataDirection : std::uint8_t { none, from_device, to_device };

// How a command ended. Follows sg_pt's categories (good / status / sense / transport / OS) and
// adds the two ways a command never reaches the device at all.
enum class Outcome : std::uint8_t {
  good,             // status GOOD, no error
  check_condition,  // CHECK CONDITION with sense data (kept in CommandResult::sense)
  scsi_status,      // another SCSI status (BUSY, RESERVATION CONFLICT, TASK SET FULL, ...)
  transport_error,  // the HBA / driver reported an error (host_status / driver_status)
  os_error,         // the OS call failed (errno in os_errno; ETIMEDOUT for a timeout)
  refused,          // not sent: the command is not on the passthrough allowlist
  unsupported,      // not sent: this device has no such interface (e.g. ATA on a SCSI disk)
};
std::string_view to_string(Outcome o);

// ATA taskfile registers, 48-bit capable. For 28-bit commands only the low bits count.
struct AtaRegisters {
  std::uint16_t features = 0;
  std::uint16_t count = 0;
  std::uint64_t lba = 0;  // 48 bits
  std::uint8_t device = 0;
  std::uint8_t command = 0;  // command on input
};

// ATA registers as returned by the drive (ATA Status Return sense descriptor, SAT 12.2.2.6, or
// the fixed-format equivalent; the simulated drive fills them directly).
struct AtaOutput {
  std::uint8_t error = 0;
  std::uint8_t status = 0;
  std::uint8_t device = 0;
  std::uint16_t count = 0;
  std::uint64_t lba = 0;
  bool extended = false;  // the upper bytes of count/lba are valid
  bool aborted() const { return (status & 0x01) && (error & 0x04); }
  bool error_bit() const { return status & 0x01; }
};

enum class AtaProtocol : std::uint8_t { non_data, pio_in, pio_out, dma_in, dma_out };

struct AtaRequest {
  AtaRegisters in;
  AtaProtocol protocol = AtaProtocol::non_data;
  bool lba48 = false;              // use the extended (48-bit) register set
  std::span<std::uint8_t> data{};  // multiple of 512 bytes for data commands
  Millis timeout = kDefaultCommandTimeout;
};

struct ScsiRequest {
  std::span<const std::uint8_t> cdb;
  DataDirection direction = DataDirection::none;
  std::span<std::uint8_t> data{};
  Millis timeout = kDefaultCommandTimeout;
};

struct CommandResult {
  Outcome outcome = Outcome::good;
  int os_errno = 0;
  std::uint8_t scsi_status = 0;
  int host_status = 0;    // transport detail when outcome == transport_error
  int driver_status = 0;
  std::vector<std::uint8_t> sense;  // always kept when the device returned any
  std::optional<AtaOutput> ata;     // for ATA commands: the output registers when known
  Nanos duration{0};
  std::int32_t residual = 0;        // bytes requested but not transferred
  std::string message;              // human explanation for anything but good

  bool ok() const { return outcome == Outcome::good && !(ata && ata->error_bit()); }
};

// What kind of thing a target is (JSON: target.kind).
enum class TargetKind : std::uint8_t { ata, scsi, sim, file, dump };
std::string_view to_string(TargetKind k);

struct DeviceInfo {
  std::string name;          // what the user typed, e.g. /dev/sda or sim:raptor
  TargetKind kind = TargetKind::scsi;
  bool ata_capable = false;  // ata() can succeed (native ATA, or SAT answered)
  bool scsi_capable = false;
};

class Device {
 public:
  virtual ~Device() = default;
  virtual const DeviceInfo& info() const = 0;
  // Default implementations answer Outcome::unsupported.
  virtual CommandResult scsi(const ScsiRequest& req);
  virtual CommandResult ata(const AtaRequest& req);
};

}  // namespace ds
