// Built-in models shaped after the drives of the seed reviews, from datasheet-level figures.
// Figures and their sources are listed per preset in docs/simulator.md; zone tables are not
// published by vendors, so each preset's zones are generated: equal-width bands of cylinders
// whose sectors per track fall linearly from the outer to the inner diameter (constant linear
// density), sized from the outer and inner media rates, with enough cylinders for the capacity.
#include <algorithm>
#include <cmath>
#include <functional>

#include "sim/model.hpp"
#include "sim/sim.hpp"

namespace ds::sim {

namespace {

struct Shape {
  double outer_mb_s, inner_mb_s;  // media rates (before skews) at the outer and inner diameter
  int zones;
};

// Zones for `capacity` sectors on `surfaces` heads with the given outer/inner media rates.
void make_zones(DiskModel& m, std::uint64_t capacity, const Shape& s) {
  const double bytes_per_rev = 60.0 / m.rpm * 1e6;
  const double spt_out = s.outer_mb_s * bytes_per_rev / m.logical_sector_bytes;
  const double spt_in = s.inner_mb_s * bytes_per_rev / m.logical_sector_bytes;
  std::vector<std::uint32_t> spt(s.zones);
  double sum = 0;
  for (int i = 0; i < s.zones; ++i) {
    const double f = s.zones == 1 ? 0.0 : static_cast<double>(i) / (s.zones - 1);
    spt[i] = static_cast<std::uint32_t>(std::lround(spt_out + (spt_in - spt_out) * f));
    sum += spt[i];
  }
  const auto cyl = static_cast<std::uint32_t>(std::ceil(static_cast<double>(capacity) / (m.surfaces * sum)));
  m.zones.clear();
  for (int i = 0; i < s.zones; ++i) m.zones.push_back(Zone{cyl, spt[i], std::nullopt, std::nullopt});
  m.capacity_sectors = capacity;
}

DiskModel base(std::string name, Transport t, std::string vendor, std::string model_str,
               std::string serial, std::string fw) {
  DiskModel m;
  m.name = std::move(name);
  m.transport = t;
  m.identity = {std::move(vendor), std::move(model_str), std::move(serial), std::move(fw)};
  m.noise = {1, 1.0};
  return m;
}

void seek(DiskModel& m, double t2t, double avg, double full) { m.seek = {t2t, avg, full, {}}; }

DiskModel raptor() {
  auto m = base("WD Raptor WD740GD (74 GB, 10000 rpm, SATA, TCQ)", Transport::ata, "ATA",
                "WDC WD740GD-00FLA1", "WD-WMAKE1234567", "27.08D27");
  m.rpm = 10000;
  m.surfaces = 4;
  m.platters = 2;
  make_zones(m, 145'226'112, {79.0, 49.0, 16});
  seek(m, 0.6, 4.5, 10.2);
  m.head_switch_ms = 0.5;
  m.write_settle_ms = 0.3;
  m.command_overhead_ms = 0.15;
  m.interface_mb_s = 150;
  m.cache = {8u << 20, 16, 512, true};
  m.queue = {QueueProtocol::tcq, 32, QueuePolicy::sptf};
  m.aam = {true, 254, 1.0, 1.0};  // seed 000: AAM changed nothing on the Raptor
  return m;
}

DiskModel deskstar_7k400() {
  auto m = base("Hitachi Deskstar 7K400 (400 GB, 7200 rpm, SATA, NCQ served in order)", Transport::ata,
                "ATA", "HDS724040KLSA80", "KRFS06RAG9TYYD", "KFAOA20C");
  m.rpm = 7200;
  m.surfaces = 10;
  m.platters = 5;
  make_zones(m, 781'422'768, {64.0, 33.0, 24});
  seek(m, 1.1, 8.5, 15.1);
  m.head_switch_ms = 1.0;
  m.write_settle_ms = 0.4;
  m.command_overhead_ms = 0.2;
  m.interface_mb_s = 150;
  m.cache = {8u << 20, 16, 512, true};
  // NCQ advertised, but seed 000's Ipeak queuing test saw no reordering on this drive.
  m.queue = {QueueProtocol::ncq, 32, QueuePolicy::fifo};
  m.aam = {true, 254, 1.2, 1.0};
  return m;
}

DiskModel maxline3() {
  auto m = base("Maxtor MaXLine III 7L250S0 (250 GB, 7200 rpm, SATA, NCQ)", Transport::ata, "ATA",
                "Maxtor 7L250S0", "L60Q2ABC", "BACE1G10");
  m.rpm = 7200;
  m.surfaces = 6;  // seed 000: three 83.3 GB platters
  m.platters = 3;
  make_zones(m, 490'234'752, {68.0, 36.0, 20});
  seek(m, 0.8, 9.0, 17.0);
  m.head_switch_ms = 0.8;
  m.write_settle_ms = 0.3;
  m.command_overhead_ms = 0.3;
  m.interface_mb_s = 150;
  m.cache = {16u << 20, 16, 1024, true};
  m.queue = {QueueProtocol::ncq, 32, QueuePolicy::sptf};
  m.aam = {true, 254, 1.5, 1.0};  // the "AAM slows seeks" preset
  return m;
}

DiskModel wd1200jd() {
  auto m = base("WD Caviar SE WD1200JD (120 GB, 7200 rpm, SATA, no queuing)", Transport::ata, "ATA",
                "WDC WD1200JD-00HBB0", "WD-WCANM1234567", "08.02D08");
  m.rpm = 7200;
  m.surfaces = 4;  // seed 000: 60 GB platters
  m.platters = 2;
  make_zones(m, 234'441'648, {61.0, 34.0, 16});
  seek(m, 2.0, 8.9, 21.0);
  m.head_switch_ms = 0.9;
  m.write_settle_ms = 0.5;
  m.command_overhead_ms = 0.25;
  m.interface_mb_s = 100;  // seed 000: its cache reads barely reach the P-ATA 100 limit (bridged)
  m.cache = {8u << 20, 16, 512, true};
  m.queue = {QueueProtocol::none, 1, QueuePolicy::fifo};
  m.aam = {true, 254, 1.3, 0.9};  // seed 000: enabling AAM lowered its sequential rate
  return m;
}

DiskModel barracuda_7200_7() {
  auto m = base("Seagate Barracuda 7200.7 ST3200822AS (200 GB, 7200 rpm, SATA, no NCQ)", Transport::ata,
                "ATA", "ST3200822AS", "3LJ0ABCD", "3.01");
  m.rpm = 7200;
  m.surfaces = 4;  // 100 GB platters
  m.platters = 2;
  make_zones(m, 390'721'968, {72.0, 40.0, 20});
  seek(m, 1.0, 8.5, 17.0);
  m.head_switch_ms = 1.0;
  m.write_settle_ms = 0.4;
  m.command_overhead_ms = 0.2;
  m.interface_mb_s = 100;  // seed 000: bridged SATA, cache reads at about P-ATA 100 rates
  m.cache = {8u << 20, 16, 512, true};
  m.queue = {QueueProtocol::none, 1, QueuePolicy::fifo};
  m.aam = {true, 254, 1.25, 1.0};
  // seed 000: a spot above 50 ms near the end of the disk raised the full-span mean to ~21 ms.
  m.defects.push_back({330'000'000, 60'000'000, 42.0});
  return m;
}

DiskModel cheetah_15k3() {
  auto m = base("Seagate Cheetah 15K.3 ST373453LW (73 GB, 15000 rpm, Ultra320 SCSI, TCQ)", Transport::scsi,
                "SEAGATE", "ST373453LW", "3HW0ABCD", "0002");
  m.rpm = 15000;
  m.surfaces = 8;
  m.platters = 4;
  make_zones(m, 143'374'744, {78.0, 52.3, 20});  // seed 002: outer/inner ratio 1.49
  seek(m, 0.2, 3.6, 7.4);
  m.head_switch_ms = 0.3;
  m.write_settle_ms = 0.3;
  m.command_overhead_ms = 0.1;
  m.interface_mb_s = 320;
  m.cache = {8u << 20, 16, 512, false};
  m.queue = {QueueProtocol::tcq, 128, QueuePolicy::sptf};  // seed 002: deepest TCQ of the three
  return m;
}

DiskModel mas3735() {
  auto m = base("Fujitsu MAS3735NP (73 GB, 15000 rpm, Ultra320 SCSI, TCQ)", Transport::scsi, "FUJITSU",
                "MAS3735NP", "UPA0P3A00ABC", "0102");
  m.rpm = 15000;
  m.surfaces = 8;
  m.platters = 4;
  make_zones(m, 143'552'000, {81.0, 66.4, 16});  // seed 002: outer/inner ratio 1.22
  seek(m, 0.3, 3.3, 8.0);
  m.head_switch_ms = 0.3;
  m.write_settle_ms = 0.3;
  m.command_overhead_ms = 0.1;
  m.interface_mb_s = 320;
  m.cache = {8u << 20, 16, 512, false};
  m.queue = {QueueProtocol::tcq, 64, QueuePolicy::sptf};
  return m;
}

DiskModel atlas_15k() {
  auto m = base("Maxtor Atlas 15K 8E073L0 (73 GB, 15000 rpm, Ultra320 SCSI, TCQ)", Transport::scsi, "MAXTOR",
                "8E073L0", "E20ABCDE", "DT60");
  m.rpm = 15000;
  m.surfaces = 8;
  m.platters = 4;
  make_zones(m, 143'666'192, {77.0, 53.0, 18});
  seek(m, 0.4, 3.4, 8.0);  // seed 002: 3.4 ms for the 73 GB model (3.2 for 18/36 GB)
  m.head_switch_ms = 0.3;
  m.write_settle_ms = 0.3;
  m.command_overhead_ms = 0.08;
  m.interface_mb_s = 320;
  m.cache = {8u << 20, 16, 512, false};
  m.queue = {QueueProtocol::tcq, 64, QueuePolicy::sptf};
  return m;
}

DiskModel modern_8tb() {
  auto m = base("Generic 8 TB 7200 rpm SATA 6 Gb/s drive (NCQ, 256 MB cache, 512e)", Transport::ata, "ATA",
                "SIM8000NM0001", "ZA1ABCDE", "SN05");
  m.rpm = 7200;
  m.surfaces = 12;
  m.platters = 6;
  m.physical_sector_bytes = 4096;
  make_zones(m, 15'628'053'168, {260.0, 125.0, 30});
  seek(m, 0.5, 8.5, 16.0);
  m.head_switch_ms = 0.5;
  m.write_settle_ms = 0.2;
  m.command_overhead_ms = 0.05;
  m.interface_mb_s = 600;
  m.cache = {256u << 20, 64, 2048, true};
  m.queue = {QueueProtocol::ncq, 32, QueuePolicy::sptf};
  m.aam = {false, 254, 1.0, 1.0};  // AAM is obsolete in ACS-3 drives
  return m;
}

struct Entry {
  const char* name;
  std::vector<const char*> aliases;
  std::function<DiskModel()> make;
};

const std::vector<Entry>& table() {
  static const std::vector<Entry> t = {
      {"raptor", {"wd740gd"}, raptor},
      {"7k400", {"deskstar7k400", "ncq-fifo"}, deskstar_7k400},
      {"maxline3", {"7l250s0", "aam-quiet"}, maxline3},
      {"wd1200jd", {"caviar-se", "aam-slow-media"}, wd1200jd},
      {"7200.7", {"st3200822as", "barracuda7200.7", "defect"}, barracuda_7200_7},
      {"cheetah15k3", {"st373453"}, cheetah_15k3},
      {"mas3735", {"fujitsu-mas"}, mas3735},
      {"atlas15k", {"8e073l0"}, atlas_15k},
      {"modern8tb", {"8tb"}, modern_8tb},
  };
  return t;
}

const Entry* find(std::string_view name) {
  for (const auto& e : table()) {
    if (name == e.name) return &e;
    for (const char* a : e.aliases)
      if (name == a) return &e;
  }
  return nullptr;
}

}  // namespace

std::vector<std::string> preset_names() {
  std::vector<std::string> v;
  for (const auto& e : table()) v.emplace_back(e.name);
  return v;
}

std::vector<std::string> preset_aliases() {
  std::vector<std::string> v;
  for (const auto& e : table()) {
    v.emplace_back(e.name);
    for (const char* a : e.aliases) v.emplace_back(a);
  }
  return v;
}

Expected<DiskModel> preset(std::string_view name) {
  const Entry* e = find(name);
  if (!e) {
    std::string known;
    for (const auto& n : preset_names()) known += (known.empty() ? "" : ", ") + n;
    return make_error("no simulated drive preset named \"" + std::string(name) + "\" (known: " + known + ")");
  }
  return e->make();
}

std::string preset_summary(std::string_view name) {
  const Entry* e = find(name);
  return e ? e->make().name : std::string();
}

}  // namespace ds::sim
