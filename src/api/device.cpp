// The device interface's own code (include/drivescope/device.hpp): names of outcomes and target
// kinds, and the "no passthrough here" defaults of a Device. Every backend links this, and only this,
// of the interface.
#include "drivescope/device.hpp"

namespace ds {

std::string_view to_string(Outcome o) {
  switch (o) {
    case Outcome::good: return "good";
    case Outcome::check_condition: return "check condition";
    case Outcome::scsi_status: return "SCSI status";
    case Outcome::transport_error: return "transport error";
    case Outcome::os_error: return "OS error";
    case Outcome::refused: return "refused";
    case Outcome::unsupported: return "unsupported";
  }
  return "?";
}

std::string_view to_string(TargetKind k) {
  switch (k) {
    case TargetKind::ata: return "ata";
    case TargetKind::scsi: return "scsi";
    case TargetKind::sim: return "sim";
    case TargetKind::file: return "file";
    case TargetKind::dump: return "dump";
  }
  return "?";
}

static CommandResult not_supported(std::string_view what, const DeviceInfo& info) {
  CommandResult r;
  r.outcome = Outcome::unsupported;
  r.message = std::string(info.name) + ": no " + std::string(what) + " passthrough on this device";
  return r;
}

CommandResult Device::scsi(const ScsiRequest&) { return not_supported("SCSI", info()); }
CommandResult Device::ata(const AtaRequest&) { return not_supported("ATA", info()); }

}  // namespace ds
