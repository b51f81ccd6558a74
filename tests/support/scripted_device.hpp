// ScriptedDevice: a Device for tests that plays a script (libnvme's test/ioctl mock idea). The
// test lists the commands it expects, in order, each with the canned answer; the code under test
// runs against the device; then the test checks that every scripted step was consumed and that
// nothing unexpected or different arrived (problems() is empty).
//
//   ds::test::ScriptedDevice dev;
//   dev.expect_scsi({0x12, 0, 0, 0, 0x24, 0}).data_in = inquiry_bytes;
//   ds::scsi::inquiry(dev, buf);
//   CHECK(dev.finished());   // all consumed, no problems
#pragma once
#include <algorithm>
#include <cstdint>
#include <deque>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "drivescope/device.hpp"

namespace ds::test {

struct ScriptedStep {
  enum class Kind { scsi, ata } kind = Kind::scsi;
  // What must arrive. For scsi: the exact CDB bytes (and direction / data length when set).
  std::vector<std::uint8_t> cdb;
  std::optional<DataDirection> direction;
  // For ata: the exact input registers, and protocol / lba48 when set.
  AtaRegisters regs;
  std::optional<AtaProtocol> protocol;
  std::optional<bool> lba48;
  std::optional<std::size_t> data_length;  // the request's buffer size
  // What is answered: bytes copied into the caller's buffer, then this result.
  std::vector<std::uint8_t> data_in;
  CommandResult result;
  // Filled when played: the data the caller sent (data-out commands).
  std::vector<std::uint8_t> data_out;
};

inline std::string hex_bytes(std::span<const std::uint8_t> b) {
  std::string s;
  for (std::size_t i = 0; i < b.size(); ++i) s += fmt::format("{}{:02x}", i ? " " : "", b[i]);
  return s;
}

class ScriptedDevice final : public Device {
 public:
  explicit ScriptedDevice(std::string name = "scripted", TargetKind kind = TargetKind::scsi) {
    info_.name = std::move(name);
    info_.kind = kind;
    info_.scsi_capable = true;
    info_.ata_capable = kind == TargetKind::ata;
  }

  const DeviceInfo& info() const override { return info_; }

  // The returned reference stays valid (std::deque never moves its elements on push_back).
  ScriptedStep& expect_scsi(std::vector<std::uint8_t> cdb) {
    ScriptedStep& s = steps_.emplace_back();
    s.kind = ScriptedStep::Kind::scsi;
    s.cdb = std::move(cdb);
    return s;
  }
  ScriptedStep& expect_ata(const AtaRegisters& regs) {
    ScriptedStep& s = steps_.emplace_back();
    s.kind = ScriptedStep::Kind::ata;
    s.regs = regs;
    return s;
  }

  CommandResult scsi(const ScsiRequest& req) override {
    ++calls_;
    cdbs_.emplace_back(req.cdb.begin(), req.cdb.end());
    ScriptedStep* s = next("SCSI " + hex_bytes(req.cdb));
    if (!s) return unexpected();
    if (s->kind != ScriptedStep::Kind::scsi) {
      problems_.push_back(fmt::format("step {}: expected an ATA command, got SCSI CDB {}", pos_, hex_bytes(req.cdb)));
      return unexpected();
    }
    if (!std::equal(s->cdb.begin(), s->cdb.end(), req.cdb.begin(), req.cdb.end()))
      problems_.push_back(fmt::format("step {}: expected CDB {}, got {}", pos_, hex_bytes(s->cdb), hex_bytes(req.cdb)));
    if (s->direction && *s->direction != req.direction)
      problems_.push_back(fmt::format("step {}: data direction differs", pos_));
    return play(*s, req.data, req.direction == DataDirection::to_device);
  }

  CommandResult ata(const AtaRequest& req) override {
    ++calls_;
    ScriptedStep* s = next(fmt::format("ATA command {:#04x}", req.in.command));
    if (!s) return unexpected();
    if (s->kind != ScriptedStep::Kind::ata) {
      problems_.push_back(fmt::format("step {}: expected SCSI CDB {}, got ATA command {:#04x}", pos_,
                                      hex_bytes(s->cdb), req.in.command));
      return unexpected();
    }
    const auto& a = s->regs;
    const auto& b = req.in;
    if (a.command != b.command || a.features != b.features || a.count != b.count || a.lba != b.lba ||
        a.device != b.device)
      problems_.push_back(fmt::format(
          "step {}: expected ATA cmd {:#04x} feat {:#x} count {:#x} lba {:#x} dev {:#x}, got cmd {:#04x} feat "
          "{:#x} count {:#x} lba {:#x} dev {:#x}", pos_, a.command, a.features, a.count, a.lba, a.device,
          b.command, b.features, b.count, b.lba, b.device));
    if (s->protocol && *s->protocol != req.protocol)
      problems_.push_back(fmt::format("step {}: ATA protocol differs", pos_));
    if (s->lba48 && *s->lba48 != req.lba48) problems_.push_back(fmt::format("step {}: lba48 differs", pos_));
    const bool out = req.protocol == AtaProtocol::pio_out || req.protocol == AtaProtocol::dma_out;
    return play(*s, req.data, out);
  }

  std::size_t calls() const { return calls_; }
  std::size_t remaining() const { return steps_.size() - pos_; }
  const std::vector<std::string>& problems() const { return problems_; }
  const std::vector<std::vector<std::uint8_t>>& cdbs() const { return cdbs_; }
  const ScriptedStep& step(std::size_t i) const { return steps_.at(i); }
  // Every step consumed, nothing unexpected, every command as scripted.
  bool finished() const { return remaining() == 0 && problems_.empty(); }
  std::string report() const {
    std::string r = fmt::format("{} of {} steps consumed", pos_, steps_.size());
    for (const auto& p : problems_) r += "; " + p;
    return r;
  }

 private:
  ScriptedStep* next(const std::string& what) {
    if (pos_ >= steps_.size()) {
      problems_.push_back("unexpected command after the script ended: " + what);
      return nullptr;
    }
    return &steps_[pos_++];
  }

  CommandResult play(ScriptedStep& s, std::span<std::uint8_t> data, bool data_out) {
    if (s.data_length && *s.data_length != data.size())
      problems_.push_back(fmt::format("step {}: buffer of {} bytes, expected {}", pos_, data.size(), *s.data_length));
    if (data_out) {
      s.data_out.assign(data.begin(), data.end());
    } else {
      const std::size_t n = std::min(data.size(), s.data_in.size());
      std::copy_n(s.data_in.begin(), n, data.begin());
      CommandResult r = s.result;
      if (r.residual == 0 && s.data_in.size() < data.size()) r.residual = static_cast<std::int32_t>(data.size() - n);
      return r;
    }
    return s.result;
  }

  static CommandResult unexpected() {
    CommandResult r;
    r.outcome = Outcome::os_error;
    r.os_errno = 71;  // EPROTO: the script did not expect this
    r.message = "scripted device: command not in the script";
    return r;
  }

  DeviceInfo info_;
  std::deque<ScriptedStep> steps_;
  std::size_t pos_ = 0;
  std::size_t calls_ = 0;
  std::vector<std::string> problems_;
  std::vector<std::vector<std::uint8_t>> cdbs_;
};

// Sense data a SATL returns with CK_COND or on an ATA error: descriptor format (72h) with the ATA
// Status Return descriptor (SAT-3 12.2.2.6), written out byte by byte independently of the decoder.
inline std::vector<std::uint8_t> ata_status_sense(std::uint8_t status, std::uint8_t error, std::uint8_t sense_key = 0x01,
                                                  std::uint8_t asc = 0x00, std::uint8_t ascq = 0x1D,
                                                  std::uint16_t count = 0, std::uint64_t lba = 0,
                                                  std::uint8_t device = 0, bool extend = false) {
  auto b = [](std::uint64_t v, unsigned sh) { return static_cast<std::uint8_t>(v >> sh); };
  return {0x72, sense_key, asc, ascq, 0, 0, 0, 14,
          0x09, 0x0C, static_cast<std::uint8_t>(extend ? 1 : 0), error,
          b(count, 8), b(count, 0), b(lba, 24), b(lba, 0), b(lba, 32), b(lba, 8), b(lba, 40), b(lba, 16),
          device, status};
}

inline CommandResult check_condition(std::vector<std::uint8_t> sense) {
  CommandResult r;
  r.outcome = Outcome::check_condition;
  r.scsi_status = 0x02;
  r.sense = std::move(sense);
  return r;
}

}  // namespace ds::test
