#include "report/list_report.hpp"

#include "report/envelope.hpp"
#include "report/json_write.hpp"
#include "report/text_out.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>

namespace ds::report {

using nlohmann::json;

std::string human_size(std::uint64_t bytes) {
  static constexpr std::array<const char*, 6> units{"B", "kB", "MB", "GB", "TB", "PB"};
  double v = static_cast<double>(bytes);
  std::size_t u = 0;
  while (v >= 1000.0 && u + 1 < units.size()) {
    v /= 1000.0;
    ++u;
  }
  return u == 0 ? fmt::format("{} B", bytes) : fmt::format("{:.1f} {}", v, units[u]);
}

namespace {

// libata reports "ATA" as the vendor of every disk; it says nothing, so it is left out.
std::string model_text(const sysfs::DriveFacts& f) {
  std::string m = f.model;
  if (!f.vendor.empty() && f.vendor != "ATA") m = f.vendor + (m.empty() ? "" : " " + m);
  return m.empty() ? "-" : printable(m);  // sysfs shows the INQUIRY bytes as the drive sent them
}

}  // namespace

json drives_to_json(const std::vector<sysfs::DriveFacts>& drives) {
  json arr = json::array();
  for (const auto& f : drives) {
    json j;
    j["device"] = f.dev_path;
    j["name"] = f.name;
    j["transport"] = sysfs::to_string(f.transport);
    j["host_driver"] = f.host_driver;
    j["vendor"] = f.vendor;
    j["model"] = f.model;
    j["revision"] = f.revision;
    j["serial"] = f.serial;
    j["size_bytes"] = f.size_bytes();
    j["size_sectors"] = f.size_sectors;
    j["logical_sector_bytes"] = f.logical_block_bytes;
    j["physical_sector_bytes"] = f.physical_block_bytes;
    j["rotational"] = json_opt(f.rotational);
    j["removable"] = f.removable;
    j["read_only"] = f.read_only;
    j["scheduler"] = f.scheduler;
    j["schedulers"] = f.schedulers;
    j["queue_depth"] = json_opt(f.queue_depth);
    j["queue_depth_writable"] = f.queue_depth_writable;
    j["nr_requests"] = json_opt(f.nr_requests);
    j["zoned"] = f.zoned.empty() ? json(nullptr) : json(f.zoned);
    j["nr_zones"] = json_opt(f.nr_zones);
    json ranges = json::array();
    for (const auto& r : f.access_ranges)
      ranges.push_back({{"sector", r.sector}, {"nr_sectors", r.nr_sectors}});
    j["independent_access_ranges"] = ranges;
    j["sata_link_speed"] = json_opt(f.sata_link_speed);
    j["ncq_prio_enable"] = json_opt(f.ncq_prio_enable);
    j["sg"] = f.sg_name.empty() ? json(nullptr) : json("/dev/" + f.sg_name);
    j["mounted"] = f.mounted();
    j["swap"] = f.in_swap();
    j["held"] = f.held();
    j["in_use"] = f.in_use();
    j["in_use_text"] = f.in_use_summary();
    j["mountpoints"] = f.mountpoints;
    j["holders"] = f.holders;
    json parts = json::array();
    for (const auto& p : f.partitions) {
      parts.push_back({{"name", p.name},
                       {"size_bytes", p.size_sectors * 512},
                       {"mountpoints", p.mountpoints},
                       {"swap", p.swap},
                       {"holders", p.holders}});
    }
    j["partitions"] = parts;
    // smartctl's names for the same facts, for scripts written against `smartctl -i -j`.
    j.update(smartctl_identity_from_list(j));
    arr.push_back(std::move(j));
  }
  return arr;
}

std::string drive_layout_text(const sysfs::DriveFacts& f) {
  std::string out;
  if (!f.zoned.empty() && f.zoned != "none")
    out += fmt::format("  Zoned (queue/zoned): {}{}\n", f.zoned,
                       f.nr_zones ? fmt::format(", {} zones", *f.nr_zones) : std::string());
  if (!f.access_ranges.empty()) {
    out += fmt::format("  Independent access ranges: {}\n", f.access_ranges.size());
    for (std::size_t i = 0; i < f.access_ranges.size(); ++i)
      out += fmt::format("    {}: {} sectors from sector {} (512-byte units)\n", i,
                         f.access_ranges[i].nr_sectors, f.access_ranges[i].sector);
  }
  return out;
}

std::string drives_to_table(const std::vector<sysfs::DriveFacts>& drives) {
  if (drives.empty()) return "No drives found.\n";
  using Row = std::array<std::string, 8>;
  std::vector<Row> rows;
  rows.push_back({"DEVICE", "TRANSPORT", "MODEL", "SIZE", "ROT", "SCHED", "QD", "IN USE"});
  for (const auto& f : drives) {
    rows.push_back({f.dev_path, std::string(sysfs::to_string(f.transport)), model_text(f),
                    human_size(f.size_bytes()),
                    f.rotational ? (*f.rotational ? "yes" : "no") : "?",
                    f.scheduler.empty() ? "-" : f.scheduler,
                    f.queue_depth ? std::to_string(*f.queue_depth) : "-",
                    f.in_use() ? f.in_use_summary() : "no"});
  }
  std::array<std::size_t, 8> width{};
  for (const auto& r : rows)
    for (std::size_t i = 0; i < r.size(); ++i) width[i] = std::max(width[i], r[i].size());
  std::string out;
  for (const auto& r : rows) {
    std::string line;
    for (std::size_t i = 0; i < r.size(); ++i) {
      // Sizes and depths read best right-aligned; the last column is not padded.
      const bool right = i == 3 || i == 6;
      if (i + 1 == r.size()) line += r[i];
      else if (right) line += fmt::format("{:>{}}  ", r[i], width[i]);
      else line += fmt::format("{:<{}}  ", r[i], width[i]);
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

}  // namespace ds::report
