// DiskSim 4.0 parameters -> drivescope-disk-model/1 or /2 (sim/disksim_import.hpp); the layout's
// rules are in sim/disksim_layout.cpp. The rules are named as in docs/disk-model.md, "Importing
// DiskSim's parameters", the table of names.
#include "sim/disksim_import.hpp"

#include "sim/disksim_reader.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace ds::sim::disksim {

namespace {

// Every parameter name of a disk spec, its dm_disk model, layout, zones, mechanics and bus that
// DiskSim 4.0's validated drives use: the ones the importer does not map are "not represented";
// a name outside this list is "unknown" (a newer DiskSim, or a typo the user should see).
constexpr std::array kKnownNames = {
    "Access time type", "Add. write settling delay", "Allow almost read hits", "Allow read hits on write data",
    "Allow sneaky full read hits", "Allow sneaky intermediate read hits", "Allow sneaky partial read hits",
    "Allow write prebuffering", "Average seek time", "Avg sectors per cylinder", "Block count", "Blocks per track",
    "Buffer continuous read", "Bulk sector transfer time", "Calc sector by sector", "Combine seq writes",
    "Data preparation overhead", "Disconnect write if seek", "Empty space at zone front", "Enable caching in buffer",
    "Extra write disconnect", "Extradisc 2nd disconnect overhead", "Extradisc command overhead",
    "Extradisc disconnect overhead", "Extradisc inter-disconnect delay", "Extradisc seek delta", "Fast write level",
    "First cylinder number", "First reselect overhead", "First ten seek times", "Full seek curve",
    "Full strobe seek time", "HPL seek equation values", "Head switch time", "High (read) water mark",
    "Hold bus entire read xfer", "Hold bus entire write xfer", "Immed transfer partial hit", "Immediate buffer read",
    "Immediate buffer write", "LBN-to-PBN mapping scheme", "Last cylinder number", "Layout Model",
    "Low (write) water mark", "Max queue length", "Maximum number of write segments", "Maximum read-ahead (blks)",
    "Mechanical Model", "Minimum read-ahead (blks)", "Minimum seek delay", "Model", "Never disconnect",
    "Number of buffer segments", "Number of cylinders", "Number of data surfaces", "Number of spares",
    "Offset of first block", "Other reselect overhead", "Per-request overhead time", "Percent error in rpms",
    "Preseeking level", "Print stats", "Rangesize for sparing", "Read any free blocks", "Read completion overhead",
    "Read directly to buffer", "Read disconnect afterread", "Read disconnect afterwrite", "Read hit over. after read",
    "Read hit over. after write", "Read miss over. after read", "Read miss over. after write",
    "Read-ahead on idle hit", "Read-ahead over requested", "Rotation speed (in rpms)", "Scheduler", "Seek type",
    "Segment size (in blks)", "Set watermark by reqsize", "Single cylinder seek time", "Skew for cylinder switch",
    "Skew for track switch", "Sparing scheme used", "Stop prefetch in sector", "Time scale for overheads",
    "Use separate write segment", "Write completion overhead", "Write disconnect overhead",
    "Write hit over. after read", "Write hit over. after write", "Write hit stop prefetch",
    "Write miss over. after read", "Write miss over. after write", "Zones", "defects", "slips",
    // the bus
    "type", "Arbitration type", "Arbitration time", "Read block transfer time", "Write block transfer time"};

}  // namespace

namespace detail {
bool known(std::string_view n) {
  return std::find(kKnownNames.begin(), kKnownNames.end(), n) != kKnownNames.end();
}
}  // namespace detail

namespace {

using detail::Params;

// To `decimals` places, dividing last so that 0.953 comes out as the double nearest 0.953.
double round_to(double x, int decimals) {
  const double k = std::pow(10.0, decimals);
  return std::round(x * k) / k;
}

// Rule: the seek scalars are computed from the curve, linear between points, flat past the last
// one; average = mean over uniformly random (from, to) pairs of the C mapped cylinders, same
// cylinder included (distance 0 costs 0); each rounded to 0.001 ms as the committed files are.
double curve_at(const std::vector<std::pair<double, double>>& c, double d) {
  if (d <= 0 || c.empty()) return 0;
  if (d <= c.front().first) return c.front().second * d / c.front().first;
  for (std::size_t i = 1; i < c.size(); ++i)
    if (d <= c[i].first) {
      const auto [a, x] = c[i - 1];
      const auto [b, y] = c[i];
      return x + (y - x) * (d - a) / (b - a);
    }
  return c.back().second;
}

void seek_scalars(SeekSpec& s, std::uint32_t cylinders) {
  const double n = cylinders;
  double sum = 0;
  for (std::uint32_t d = 1; d < cylinders; ++d) sum += 2.0 * (n - d) * curve_at(s.curve, d);
  s.track_to_track_ms = round_to(curve_at(s.curve, 1), 3);
  s.average_ms = round_to(cylinders ? sum / (n * n) : 0, 3);
  s.full_stroke_ms = round_to(curve_at(s.curve, std::max<double>(1, n - 1)), 3);
}

// DiskSim's HPL seek (dm_mech_g1's "hpl" / "hplplus10"): below v1 cylinders v2 + v3·sqrt(d),
// from v1 on v4 + v5·d; v6 (if not -1) the single-cylinder time; "hplplus10" replaces
// distances 1..10 by its "First ten seek times". The model needs a curve: the equation sampled
// at fixed distances, both sides of the knee and at the full stroke, values to 0.0001 ms.
std::vector<std::pair<double, double>> hpl_curve(const std::array<double, 6>& v, const std::vector<double>& first10,
                                                 std::uint32_t cylinders) {
  auto at = [&](double d) {
    if (d == 1 && v[5] != -1) return v[5];
    return d < v[0] ? v[1] + v[2] * std::sqrt(d) : v[3] + v[4] * d;
  };
  std::set<double> ds;
  const double last = std::max<double>(1, double(cylinders) - 1);
  for (double d = 1; d <= 10; ++d) ds.insert(d);
  for (double d : {12, 15, 20, 30, 50, 75, 100, 150, 200, 250, 300, 400, 500, 750}) ds.insert(d);
  for (double d = 1000; d < last; d += 250) ds.insert(d);
  if (v[0] > 1) ds.insert(v[0] - 1);
  ds.insert(v[0]);
  std::vector<std::pair<double, double>> c;
  for (double d : ds) {
    if (d > last) break;
    const double ms = d <= first10.size() ? first10[std::size_t(d) - 1] : round_to(at(d), 4);
    c.emplace_back(d, ms);
  }
  if (c.empty() || c.back().first != last) c.emplace_back(last, round_to(at(last), 4));
  return c;
}

// The drive's vendor and model from its spec name ("HP_C2247A_validate" -> HP, C2247A): DiskSim
// has no identity, and its spec names are VENDOR_MODEL with an optional "_validate".
void identity_from(const std::string& spec, DiskModel& m) {
  std::string s = spec;
  if (s.size() > 9 && s.compare(s.size() - 9, 9, "_validate") == 0) s.resize(s.size() - 9);
  const auto us = s.find('_');
  std::string vendor = us == std::string::npos ? s : s.substr(0, us);
  std::string model = us == std::string::npos ? s : s.substr(us + 1);
  std::string up;
  for (char c : vendor) up += char(std::toupper(static_cast<unsigned char>(c)));
  std::string tag = up + (us == std::string::npos ? "" : "_" + model);
  for (auto& c : tag) c = char(std::toupper(static_cast<unsigned char>(c)));
  m.identity.vendor = up;
  m.identity.model = model;
  m.identity.serial = "SIM" + tag.substr(0, 9);
  m.identity.firmware = "DSIM";
  // Long vendor names in the usual capitalisation (Seagate, Quantum), initialisms (HP, DEC) kept.
  std::string nice = up;
  if (nice.size() > 3)
    for (std::size_t i = 1; i < nice.size(); ++i) nice[i] = char(std::tolower(static_cast<unsigned char>(nice[i])));
  m.name = nice + " " + model;
}

const TopologyNode* find_disk(const std::vector<TopologyNode>& nodes, const TopologyNode* parent,
                              const TopologyNode** bus) {
  for (const auto& n : nodes) {
    if (n.type == "disksim_disk") {
      *bus = parent && parent->type == "disksim_bus" ? parent : nullptr;
      return &n;
    }
    if (const auto* d = find_disk(n.children, &n, bus)) return d;
  }
  return nullptr;
}

const Block* find_block(const ParamFile& f, const std::string& name) {
  for (const auto& b : f.blocks)
    if (b.name == name) return &b;
  return nullptr;
}

std::optional<Error> mechanics(Params& mech, const FileLoader& load, DiskModel& m, ImportResult& r) {
  auto rpm = mech.number("Rotation speed (in rpms)");
  if (!rpm) return rpm.error();
  if (*rpm <= 0) return make_error(mech.raw().find("Rotation speed (in rpms)")->value.where() + ": the rotation speed must be positive");
  m.rpm = *rpm;
  if (auto err = mech.number_or("Percent error in rpms", 0); !err) return err.error();
  else if (*err != 0) r.notes.push_back("`Percent error in rpms` is not modelled (the spindle turns at exactly rpm)");
  auto hs = mech.number("Head switch time");
  if (!hs) return hs.error();
  m.head_switch_ms = std::max(0.0, *hs);
  auto settle = mech.number_or("Add. write settling delay", 0);
  if (!settle) return settle.error();
  // Rule: the top-level settle cannot be negative; a negative DiskSim delay goes to the
  // controller's signed write_settle_ms and the top-level one stays 0.
  m.write_settle_ms = std::max(0.0, *settle);
  if (*settle < 0) m.controller.write_settle_ms = *settle;

  auto type = mech.need("Seek type");
  if (!type) return type.error();
  const std::string t = (*type)->word;
  const std::uint32_t cylinders = m.total_cylinders();
  if (t == "extracted") {
    auto f = mech.need("Full seek curve");
    if (!f) return f.error();
    if ((*f)->kind != Value::Kind::word) return make_error((*f)->where() + ": `Full seek curve` must be a file name");
    auto text = load((*f)->word);
    if (!text) return make_error((*f)->where() + ": seek curve `" + (*f)->word + "`: " + text.error().message);
    auto c = parse_seek_curve(*text, (*f)->word);
    if (!c) return c.error();
    m.seek.curve = std::move(*c);
    // DiskSim reads these for the other seek types only; an extracted curve overrides them.
    for (auto n : {"Single cylinder seek time", "Average seek time", "Full strobe seek time", "HPL seek equation values",
                   "First ten seek times"})
      mech.get(n);
  } else if (t == "hpl" || t == "hplplus10") {
    auto hv = mech.need("HPL seek equation values");
    if (!hv) return hv.error();
    const auto& items = (*hv)->items;
    if ((*hv)->kind != Value::Kind::list || items.size() != 6)
      return make_error((*hv)->where() + ": `HPL seek equation values` must be a list of 6 numbers (v1..v6)");
    std::array<double, 6> v{};
    for (std::size_t i = 0; i < items.size(); ++i) {
      auto x = Params::as_number(items[i], "HPL seek equation values");
      if (!x) return x.error();
      v[i] = *x;
    }
    if (v[0] < 1) return make_error((*hv)->where() + ": the HPL knee v1 must be at least 1 cylinder");
    std::vector<double> first10;
    if (t == "hplplus10") {
      auto ft = mech.need("First ten seek times");
      if (!ft) return ft.error();
      if ((*ft)->kind != Value::Kind::list || (*ft)->items.size() != 10)
        return make_error((*ft)->where() + ": `First ten seek times` must be a list of 10 numbers");
      for (const auto& it : (*ft)->items) {
        auto x = Params::as_number(it, "First ten seek times");
        if (!x) return x.error();
        first10.push_back(*x);
      }
    }
    m.seek.curve = hpl_curve(v, first10, cylinders);
    // The equation's own figures are what the curve is; DiskSim reads these for other seek types.
    for (auto n : {"Single cylinder seek time", "Average seek time", "Full strobe seek time"}) mech.get(n);
  } else {
    return make_error((*type)->where() + ": `Seek type` " + t + " is not importable (extracted, hpl or hplplus10)");
  }
  for (const auto& [d, ms] : m.seek.curve)
    if (!(ms >= 0) || !std::isfinite(ms)) return make_error("the seek curve has a negative time at distance " + std::to_string(d));
  seek_scalars(m.seek, cylinders);
  if (auto a = mech.get("Access time type"); a && a->value.word != "trackSwitchPlusRotation")
    r.notes.push_back("`Access time type` " + a->value.word + " is not modelled (the simulator positions as trackSwitchPlusRotation)");
  return std::nullopt;
}

// The controller block: overheads, write-behind level, bulk sector time, and the bus,
// reconnection and read-ahead rules.
// DiskSim's write-side bus phases (controller.write_reconnect): read only with a bus, like the
// read side, and only what a drive that does not cache its writes uses.
std::optional<Error> write_reconnect(Params& d, DiskModel& m) {
  WriteReconnectSpec w;
  std::pair<const char*, double*> plain[] = {{"Write disconnect overhead", &w.disconnect_ms},
                                             {"First reselect overhead", &w.reselect_ms},
                                             {"Data preparation overhead", &w.data_prep_ms},
                                             {"Minimum seek delay", &w.min_seek_ms}};
  for (auto& [name, out] : plain) {
    auto v = d.number(name);
    if (!v) return v.error();
    *out = *v;
  }
  auto extra = d.whole("Extra write disconnect", 0, 1);
  if (!extra) return extra.error();
  if (*extra == 1) {
    ExtraDisconnectSpec x;
    std::pair<const char*, double*> named[] = {{"Extradisc command overhead", &x.command_ms},
                                               {"Extradisc seek delta", &x.seek_delta_ms},
                                               {"Extradisc disconnect overhead", &x.disconnect_ms},
                                               {"Extradisc inter-disconnect delay", &x.inter_disconnect_ms},
                                               {"Extradisc 2nd disconnect overhead", &x.second_disconnect_ms},
                                               {"Other reselect overhead", &x.reselect_ms}};
    for (auto& [name, out] : named) {
      auto v = d.number(name);
      if (!v) return v.error();
      *out = *v;
    }
    w.extra = x;
  }
  m.controller.write_reconnect = w;
  return std::nullopt;
}

std::optional<Error> controller(Params& d, Params* bus, DiskModel& m) {
  OverheadTable t;
  const char* ops[] = {"Read hit over.", "Read miss over.", "Write hit over.", "Write miss over."};
  double* slots[] = {t.read_hit, t.read_miss, t.write_hit, t.write_miss};
  for (int i = 0; i < 4; ++i)
    for (int k = 0; k < 2; ++k) {
      auto x = d.number(std::string(ops[i]) + (k ? " after write" : " after read"));
      if (!x) return x.error();
      slots[i][k] = *x;
    }
  auto rc = d.number("Read completion overhead");
  if (!rc) return rc.error();
  auto wc = d.number("Write completion overhead");
  if (!wc) return wc.error();
  t.read_completion = *rc;
  t.write_completion = *wc;
  m.controller.overheads = t;
  // Rule: command_overhead_ms is the read-hit overhead after a read, at least 0.05 ms.
  m.command_overhead_ms = std::max(0.05, round_to(t.read_hit[0], 3));
  auto fw = d.whole("Fast write level", 0, 2);
  if (!fw) return fw.error();
  m.controller.write_behind_level = static_cast<int>(*fw);
  auto bulk = d.number_or("Bulk sector transfer time", 0);
  if (!bulk) return bulk.error();
  if (*bulk > 0) m.controller.bulk_sector_ms = *bulk;

  if (bus) {
    BusSpec b;
    auto rb = bus->number("Read block transfer time");
    if (!rb) return rb.error();
    auto wb = bus->number("Write block transfer time");
    if (!wb) return wb.error();
    b.read_block_ms = *rb;
    b.write_block_ms = *wb;
    m.controller.bus = b;
    ReconnectSpec w;
    auto hw = d.number("High (read) water mark");
    if (!hw) return hw.error();
    auto byreq = d.whole("Set watermark by reqsize", 0, 1);
    if (!byreq) return byreq.error();
    auto fr = d.number("First reselect overhead");
    if (!fr) return fr.error();
    auto dp = d.number("Data preparation overhead");
    if (!dp) return dp.error();
    auto dr = d.number("Read disconnect afterread");
    if (!dr) return dr.error();
    auto dw = d.number("Read disconnect afterwrite");
    if (!dw) return dw.error();
    w.high_water = *hw;
    w.by_request_size = *byreq == 1;
    w.first_reselect_ms = *fr;
    w.data_prep_ms = *dp;
    w.disconnect_ms[0] = *dr;
    w.disconnect_ms[1] = *dw;
    m.controller.read_reconnect = w;
    if (auto e = write_reconnect(d, m)) return e;
  }
  PrefetchSpec p;
  auto cr = d.whole("Buffer continuous read", 0, 4);
  if (!cr) return cr.error();
  auto orq = d.whole("Read-ahead over requested", -1, 1);
  if (!orq) return orq.error();
  auto idle = d.whole("Read-ahead on idle hit", 0, 1);
  if (!idle) return idle.error();
  p.continuous_read = static_cast<int>(*cr);
  p.over_requested = static_cast<int>(*orq);
  p.on_idle_hit = *idle == 1;
  m.controller.prefetch = p;
  return std::nullopt;
}

// Rule: the drive's queue is DiskSim's `Max queue length` (the requests the disk holds at once; 1:
// one at a time, the host queues the rest) served by its scheduler's `Scheduling policy` (1 is
// FCFS; the positioning-time families are SPTF). The seven validated drives hold one request:
// imported as tagged queuing of 64 by SPTF, they served a sequential stream's buffered reads out of
// order and held one back for hundreds of milliseconds, which the real drives could not.
std::optional<Error> queue_from(Params& disk, DiskModel& m, ImportResult& r) {
  if (!disk.raw().find("Max queue length")) {
    m.queue = {QueueProtocol::tcq, 64, QueuePolicy::sptf, 0, 0};
    r.notes.push_back("queue: no `Max queue length`; tagged queuing of 64 by SPTF assumed");
    return std::nullopt;
  }
  auto len = disk.whole("Max queue length", 1, 256);
  if (!len) return len.error();
  if (*len <= 1) {
    m.queue = {QueueProtocol::none, 1, QueuePolicy::fifo, 0, 0};
    disk.get("Scheduler");  // one request at a time: its order is the host's
    return std::nullopt;
  }
  m.queue = {QueueProtocol::tcq, static_cast<std::uint32_t>(*len), QueuePolicy::sptf, 0, 0};
  double policy = -1;
  if (disk.raw().find("Scheduler")) {
    auto sb = disk.block("Scheduler");
    if (!sb) return sb.error();
    Params sched(**sb, "scheduler");
    if ((*sb)->find("Scheduling policy")) {
      auto p = sched.whole("Scheduling policy", 0, 1000);
      if (!p) return p.error();
      policy = *p;
    }
  }
  // DiskSim's ioqueue policies (its ioqueue.h): 1 FCFS; 8-16, 20, 21 and 24-26 the shortest
  // positioning (or access) time families, plain, weighted, aged or by priority.
  const auto p = static_cast<int>(policy);
  const bool positioning = (p >= 8 && p <= 16) || p == 20 || p == 21 || (p >= 24 && p <= 26);
  if (p == 1) m.queue.policy = QueuePolicy::fifo;
  else if (!positioning)
    r.notes.push_back(policy < 0 ? "queue: no `Scheduling policy`; SPTF assumed"
                                 : "queue: `Scheduling policy` " + std::to_string(p) +
                                       " has no model policy (fifo or sptf); SPTF assumed");
  return std::nullopt;
}

}  // namespace

Expected<std::vector<std::pair<double, double>>> parse_seek_curve(std::string_view text, const std::string& file) {
  std::vector<std::pair<double, double>> c;
  std::istringstream in{std::string(text)};
  std::string line;
  int n = 0;
  long expected = -1;
  while (std::getline(in, line)) {
    ++n;
    const std::string at = file + ":" + std::to_string(n) + ": ";
    if (const auto h = line.find("Seek distances measured:"); h != std::string::npos) {
      std::string rest = line.substr(h + 24);
      char* end = nullptr;
      expected = std::strtol(rest.c_str(), &end, 10);
      if (end == rest.c_str() || expected <= 0) return make_error(at + "the seek-distance count must be a positive number");
      continue;
    }
    for (auto& ch : line)
      if (ch == ',' || ch == '\t' || ch == '\r') ch = ' ';
    std::istringstream ls(line);
    std::string a, b, extra;
    if (!(ls >> a)) continue;  // a blank line
    if (expected < 0) return make_error(at + "expected \"Seek distances measured: N\" first");
    if (!(ls >> b) || (ls >> extra)) return make_error(at + "expected \"distance, ms\"");
    double d = 0, ms = 0;
    auto pa = std::from_chars(a.data(), a.data() + a.size(), d);
    auto pb = std::from_chars(b.data(), b.data() + b.size(), ms);
    if (pa.ec != std::errc() || pa.ptr != a.data() + a.size() || pb.ec != std::errc() || pb.ptr != b.data() + b.size())
      return make_error(at + "`" + a + " " + b + "` is not a distance and a time");
    if (!(d >= 1) || !(ms >= 0) || !std::isfinite(d) || !std::isfinite(ms))
      return make_error(at + "a distance must be at least 1 and a time not negative");
    if (!c.empty() && d <= c.back().first) return make_error(at + "distances must increase");
    c.emplace_back(d, ms);
  }
  if (expected < 0) return make_error(file + ": not a seek curve (no \"Seek distances measured: N\")");
  if (static_cast<long>(c.size()) != expected)
    return make_error(file + ": says " + std::to_string(expected) + " seek distances but holds " + std::to_string(c.size()));
  return c;
}

Expected<ImportResult> import_disksim(const std::string& parv_name, const FileLoader& load, const ImportOptions& o) {
  auto text = load(parv_name);
  if (!text) {
    const auto& e = text.error();
    return e.message.find(parv_name) == std::string::npos ? make_error(parv_name + ": " + e.message, e.code) : e;
  }
  auto pf = parse_params(*text, parv_name, load);
  if (!pf) return pf.error();

  // The disk the system file simulates: the topology's disk and the bus it hangs on.
  const TopologyNode* bus_node = nullptr;
  const TopologyNode* disk_node = find_disk(pf->topology, nullptr, &bus_node);
  if (!disk_node) return make_error(parv_name + ": the topology holds no disksim_disk");
  auto spec_of = [&](const std::string& inst) -> Expected<const Block*> {
    auto it = pf->instances.find(inst);
    const std::string spec = it == pf->instances.end() ? inst : it->second;
    const Block* b = find_block(*pf, spec);
    if (!b) return make_error(parv_name + ": no block `" + spec + "` for the topology's `" + inst + "`");
    return b;
  };
  auto disk_block = spec_of(disk_node->name);
  if (!disk_block) return disk_block.error();
  const Block* bus_block = nullptr;
  if (bus_node) {
    auto b = spec_of(bus_node->name);
    if (!b) return b.error();
    bus_block = *b;
  }

  ImportResult r;
  DiskModel& m = r.model;
  m.transport = Transport::scsi;
  identity_from((*disk_block)->name, m);

  Params disk(**disk_block, "disk " + (*disk_block)->name);
  auto dm = disk.block("Model");
  if (!dm) return dm.error();
  Params model(**dm, "model " + (*dm)->name);
  auto surfaces = model.whole("Number of data surfaces", 1, 1000);
  if (!surfaces) return surfaces.error();
  m.surfaces = static_cast<std::uint32_t>(*surfaces);
  m.platters = (m.surfaces + 1) / 2;
  auto blocks = model.whole("Block count", 1, 1e15);
  if (!blocks) return blocks.error();
  model.get("Number of cylinders");  // the zones' cylinders say it

  auto lb = model.block("Layout Model");
  if (!lb) return lb.error();
  if ((*lb)->type != "dm_layout_g1")
    return make_error((*lb)->file + ":" + std::to_string((*lb)->line) + ": layout `" + (*lb)->type +
                      "` is not importable (dm_layout_g1 only)");
  Params layout(**lb, "layout");
  if (auto e = detail::layout_zones(layout, m, r)) return *e;
  // Rule: capacity is DiskSim's block count, never more than the zones hold.
  const std::uint64_t zone_sectors = m.zone_sectors();
  m.capacity_sectors = std::min<std::uint64_t>(static_cast<std::uint64_t>(*blocks), zone_sectors);
  if (*blocks > double(zone_sectors))
    r.notes.push_back("`Block count` is more than the zones hold; the capacity is cut to the zones");

  auto mb = model.block("Mechanical Model");
  if (!mb) return mb.error();
  Params mech(**mb, "mechanics");
  if (auto e = mechanics(mech, load, m, r)) return *e;

  // Rule: cache = segments × segment size; read-ahead = the maximum read-ahead.
  auto segs = disk.whole("Number of buffer segments", 1, 1e6);
  if (!segs) return segs.error();
  auto seg = disk.whole("Segment size (in blks)", 1, 1e9);
  if (!seg) return seg.error();
  auto ra = disk.whole("Maximum read-ahead (blks)", 0, 1e9);
  if (!ra) return ra.error();
  m.cache.segments = static_cast<std::uint32_t>(*segs);
  m.cache.bytes = static_cast<std::uint64_t>(*segs * *seg * 512);
  m.cache.read_ahead_sectors = static_cast<std::uint32_t>(*ra);

  std::optional<Params> bus;
  if (bus_block) bus.emplace(*bus_block, "bus " + bus_block->name);
  if (auto e = controller(disk, bus ? &*bus : nullptr, m)) return *e;
  // Rule: every write-behind level above 0 is a write-back cache.
  m.cache.write_back = m.controller.write_behind_level.value_or(0) > 0;

  // Choices with no DiskSim parameter behind them (tests/data/disk-models/README.md).
  m.interface_mb_s = o.interface_mb_s;
  if (!o.interface_given)
    r.notes.push_back("interface_mb_s: DiskSim has no interface rate; 10 MB/s assumed (--interface-mb-s)");
  if (auto e = queue_from(disk, m, r)) return *e;
  m.aam.supported = false;
  m.noise.seed = 7;
  m.noise.seek_jitter_pct = 2.0;

  disk.report(r);
  model.report(r);
  layout.report(r);
  mech.report(r);
  if (bus) {
    // The bus's arbitration and statistics are the system's, not the drive's: not worth a line.
    ImportResult tmp;
    bus->report(tmp);
    for (auto& n : tmp.unknown) r.unknown.push_back(n);
  }
  return r;
}

Expected<ImportResult> import_disksim_file(const std::string& parv_path, const ImportOptions& o,
                                           const std::string* parv_text) {
  const auto slash = parv_path.rfind('/');
  const std::string dir = slash == std::string::npos ? "" : parv_path.substr(0, slash + 1);
  const std::string base = slash == std::string::npos ? parv_path : parv_path.substr(slash + 1);
  FileLoader load = [dir, base, parv_text](const std::string& name) -> Expected<std::string> {
    if (parv_text && name == base) return *parv_text;
    const std::string path = !name.empty() && name[0] == '/' ? name : dir + name;
    std::ifstream in(path, std::ios::binary);
    if (!in) return make_error("cannot open " + path + ": " + std::strerror(errno), errno);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
  };
  // Messages name files as the .parv does (relative to its folder); the .parv itself by its path.
  auto r = import_disksim(base, load, o);
  if (!r && !dir.empty() && r.error().message.rfind(base + ":", 0) == 0)
    return make_error(dir + r.error().message, r.error().code);
  return r;
}

}  // namespace ds::sim::disksim
