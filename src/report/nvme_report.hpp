// NVMe Identify Controller / Namespace and the SMART / Health log (probe/nvme_identify.hpp) as
// identify's JSON (identify.nvme, docs/schema) and text.
#pragma once
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "probe/nvme_identify.hpp"

namespace ds::report {

// What one identify of an NVMe node gathered: the controller always; the namespace when the node
// is one; the health log when the controller answered it (else `health_error` says why).
struct NvmeIdentity {
  probe::NvmeController controller;
  std::optional<probe::NvmeNamespace> ns;
  std::string ns_note;  // why there is no namespace (a controller node, a failed command)
  std::optional<probe::NvmeHealth> health;
  std::string health_error;
};

// identify.*: model, serial, firmware, capacity_sectors, capacity_bytes, logical_sector_bytes
// (from the namespace, so smartctl's identity keys follow), solid_state true, transport "nvme",
// and identify.nvme {controller, namespace, health}.
nlohmann::json nvme_identity_to_json(const NvmeIdentity& id);
std::string nvme_identity_to_text(const NvmeIdentity& id);

}  // namespace ds::report
