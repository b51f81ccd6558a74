#include "report/scan_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "report/envelope.hpp"
#include "report/list_report.hpp"
#include "report/text_out.hpp"
#include "tests/result_keys.hpp"

namespace ds::report {

using nlohmann::json;
namespace K = measure::key;

namespace {

constexpr std::size_t kColumns = 11;
using Row = std::array<std::string, kColumns>;

std::string str(const json& j, const char* key, const char* none = "-") {
  if (!j.is_object() || !j.contains(key)) return none;
  const json& v = j[key];
  return v.is_string() && !v.get<std::string>().empty() ? v.get<std::string>() : none;
}

std::string number(const json& j, const char* key, const char* fmt_spec) {
  if (!j.is_object() || !j.contains(key) || !j[key].is_number()) return "-";
  return fmt::format(fmt::runtime(fmt_spec), j[key].get<double>());
}

std::string smart_text(const json& smart) {
  if (!smart.is_object() || !smart.value("available", false)) return "-";
  if (!smart.contains("passed") || !smart["passed"].is_boolean()) return "unknown";
  return smart["passed"].get<bool>() ? "PASSED" : "FAILED";
}

Row row(const json& doc) {
  const json& scan = doc.value("scan", json::object());
  const json& identify = doc.value("identify", json());
  const json id = identify.is_object() ? smartctl_identity(identify) : json::object();
  std::string size = "-";
  if (id.contains("user_capacity")) size = human_size(id["user_capacity"].value("bytes", std::uint64_t{0}));
  // A drive without passthrough: what sysfs knows (identify's "source": "sysfs" block).
  else if (identify.is_object() && identify.contains("capacity_sectors") && identify.contains("logical_sector_bytes"))
    size = human_size(identify["capacity_sectors"].get<std::uint64_t>() * identify["logical_sector_bytes"].get<std::uint64_t>());
  const json& tests = doc.value(K::kDocumentKey, json());
  const json& access = tests.is_object() ? tests.value(K::tests::access, json()) : json();
  const json& transfer = tests.is_object() ? tests.value(K::tests::transfer, json()) : json();
  std::string status = str(scan, "status");
  const json& bench = scan.value("bench", json());
  if (status == "ok" && bench.is_object()) status = "bench " + str(bench, "status");
  // The identity strings are the drive's, shown through printable().
  return Row{str(doc.value("target", json()), "name"), printable(str(id, "model_name")), printable(str(id, "serial_number")),
             printable(str(id, "firmware_version")), size, smart_text(scan.value("smart", json())),
             str(scan, "power_mode"), status,
             number(access.is_object() ? access.value(K::access::read, json()) : json(), K::latency::mean_ms, "{:.2f} ms"),
             number(transfer, K::transfer::outer_mb_s, "{:.1f} MB/s"),
             number(transfer, K::transfer::inner_mb_s, "{:.1f} MB/s")};
}

// Why a drive was skipped or failed (the scan's, else its bench's), or "".
std::string reason(const json& doc) {
  const json& scan = doc.value("scan", json::object());
  if (scan.contains("reason") && scan["reason"].is_string()) return scan["reason"];
  const json& bench = scan.value("bench", json());
  if (bench.is_object() && bench.contains("reason") && bench["reason"].is_string())
    return "bench: " + bench["reason"].get<std::string>();
  return "";
}

}  // namespace

std::string scan_table(const std::vector<json>& docs) {
  if (docs.empty()) return "No drives found.\n";
  std::vector<Row> rows{Row{"DEVICE", "MODEL", "SERIAL", "FIRMWARE", "SIZE", "SMART", "POWER", "STATUS",
                            "ACCESS", "OUTER", "INNER"}};
  bool benched = false;
  for (const auto& d : docs) {
    rows.push_back(row(d));
    benched = benched || d.contains(K::kDocumentKey);
  }
  const std::size_t shown = benched ? kColumns : kColumns - 3;
  std::array<std::size_t, kColumns> width{};
  for (const auto& r : rows)
    for (std::size_t c = 0; c < shown; ++c) width[c] = std::max(width[c], r[c].size());
  std::string out;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    std::string line;
    for (std::size_t c = 0; c < shown; ++c)
      line += c + 1 == shown ? rows[i][c] : fmt::format("{:<{}}  ", rows[i][c], width[c]);
    out += line + "\n";
    if (i > 0)
      if (auto why = reason(docs[i - 1]); !why.empty()) out += "    " + why + "\n";
  }
  return out;
}

}  // namespace ds::report
