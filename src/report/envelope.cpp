#include "report/envelope.hpp"

#include <cstdint>
#include <string_view>

namespace ds::report {

using nlohmann::json;

namespace {

const json* field(const json& j, const char* key) {
  if (!j.is_object()) return nullptr;
  auto it = j.find(key);
  return it == j.end() || it->is_null() ? nullptr : &*it;
}

bool nonempty_string(const json* v) { return v && v->is_string() && !v->get<std::string>().empty(); }
bool whole(const json* v) { return v && v->is_number_integer(); }

// drivescope writes the 64-bit World Wide Name as 16 hex digits (IDENTIFY words 108-111); smartctl
// splits it as NAA (4 bits), IEEE OUI (24 bits) and the vendor's id (36 bits).
json wwn_parts(const std::string& hex) {
  if (hex.size() != 16) return nullptr;
  std::uint64_t v = 0;
  for (char c : hex) {
    int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
    if (d < 0) return nullptr;
    v = v << 4 | static_cast<std::uint64_t>(d);
  }
  return {{"naa", v >> 60}, {"oui", (v >> 36) & 0xFFFFFF}, {"id", v & 0xFFFFFFFFFull}};
}

void put_capacity(json& out, const json* blocks, const json* bytes) {
  if (whole(blocks) && whole(bytes)) out["user_capacity"] = {{"blocks", *blocks}, {"bytes", *bytes}};
}

}  // namespace

json smartctl_identity(const json& id) {
  json out = json::object();
  const json* model = field(id, "model");
  if (nonempty_string(model)) {
    // SCSI: smartctl names the device by vendor and product together.
    const json* vendor = field(id, "vendor");
    out["model_name"] = nonempty_string(vendor) ? vendor->get<std::string>() + " " + model->get<std::string>()
                                                : model->get<std::string>();
  }
  // smartctl's model_family: the drive database's family name, where it names one.
  if (const json* db = field(id, "drivedb"); db && db->is_object())
    if (const json* v = field(*db, "family"); nonempty_string(v)) out["model_family"] = *v;
  if (const json* v = field(id, "serial"); nonempty_string(v)) out["serial_number"] = *v;
  if (const json* v = field(id, "firmware"); nonempty_string(v)) out["firmware_version"] = *v;
  put_capacity(out, field(id, "capacity_sectors"), field(id, "capacity_bytes"));
  if (const json* v = field(id, "logical_sector_bytes"); whole(v)) out["logical_block_size"] = *v;
  if (const json* v = field(id, "physical_sector_bytes"); whole(v)) out["physical_block_size"] = *v;
  // Nominal media rotation rate 1 means "solid state"; smartctl writes rotation_rate 0 for it.
  if (const json* v = field(id, "rotation_rate_rpm"); whole(v))
    out["rotation_rate"] = v->get<std::int64_t>() == 1 ? 0 : v->get<std::int64_t>();
  if (const json* trim = field(id, "trim"); trim && trim->is_object()) {
    const json* sup = field(*trim, "supported");
    if (sup && sup->is_boolean()) {
      json t{{"supported", *sup}};
      const json* det = field(*trim, "deterministic_read");
      const json* zero = field(*trim, "read_zeroes");
      if (sup->get<bool>() && det && det->is_boolean()) t["deterministic"] = *det;
      if (sup->get<bool>() && zero && zero->is_boolean()) t["zeroed"] = *zero;
      out["trim"] = t;
    }
  }
  if (const json* v = field(id, "wwn"); v && v->is_string()) {
    if (json w = wwn_parts(v->get<std::string>()); !w.is_null()) out["wwn"] = w;
  }
  return out;
}

json smartctl_identity_from_list(const json& d) {
  json out = json::object();
  const json* model = field(d, "model");
  if (nonempty_string(model)) {
    // libata's vendor "ATA" says nothing (list_report.cpp leaves it out of its table too).
    const json* vendor = field(d, "vendor");
    const bool say_vendor = nonempty_string(vendor) && vendor->get<std::string>() != "ATA";
    out["model_name"] = say_vendor ? vendor->get<std::string>() + " " + model->get<std::string>()
                                   : model->get<std::string>();
  }
  if (const json* v = field(d, "serial"); nonempty_string(v)) out["serial_number"] = *v;
  if (const json* v = field(d, "revision"); nonempty_string(v)) out["firmware_version"] = *v;
  const json* bytes = field(d, "size_bytes");
  const json* lbs = field(d, "logical_sector_bytes");
  if (whole(bytes) && whole(lbs) && lbs->get<std::int64_t>() > 0) {
    const json blocks = bytes->get<std::uint64_t>() / lbs->get<std::uint64_t>();
    put_capacity(out, &blocks, bytes);
  }
  if (whole(lbs)) out["logical_block_size"] = *lbs;
  if (const json* v = field(d, "physical_sector_bytes"); whole(v)) out["physical_block_size"] = *v;
  return out;
}

void add_envelope(json& doc, const Invocation& inv) {
  if (!doc.is_object()) doc = json::object();
  doc["json_format_version"] = {kJsonFormatMajor, kJsonFormatMinor};
  json& ds = doc["drivescope"];
  if (!ds.is_object()) ds = json::object();
  ds["version"] = inv.version;
  ds["argv"] = inv.argv;
  ds["exit_status"] = inv.exit_status;
  json msgs = json::array();
  for (const auto& m : inv.messages) msgs.push_back({{"string", m.string}, {"severity", m.severity}});
  ds["messages"] = msgs;
  if (const json* id = field(doc, "identify"); id && id->is_object()) {
    // drivescope's own keys win: a document that already has one (scan) keeps it.
    const json keys = smartctl_identity(*id);
    for (auto it = keys.begin(); it != keys.end(); ++it)
      if (!doc.contains(it.key())) doc[it.key()] = it.value();
  }
}

}  // namespace ds::report
