#include "app/twin.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>
#include <utility>

#include "app/bench.hpp"
#include "app/target.hpp"
#include "sim/model.hpp"
#include "sim/seek.hpp"
#include "sim/sim.hpp"
#include "tests/demerit.hpp"
#include "tests/replay.hpp"

namespace ds::app {

namespace {

using nlohmann::json;

// A number at a path of the bench document, or nullopt (absent, null, not a number).
std::optional<double> num(const json& j, std::initializer_list<const char*> path) {
  const json* p = &j;
  for (const char* k : path) {
    if (!p->is_object()) return std::nullopt;
    auto it = p->find(k);
    if (it == p->end()) return std::nullopt;
    p = &*it;
  }
  if (!p->is_number()) return std::nullopt;
  const double v = p->get<double>();
  return std::isfinite(v) ? std::optional<double>(v) : std::nullopt;
}

bool flag(const json& j, std::initializer_list<const char*> path) {
  const json* p = &j;
  for (const char* k : path) {
    if (!p->is_object()) return false;
    auto it = p->find(k);
    if (it == p->end()) return false;
    p = &*it;
  }
  return p->is_boolean() && p->get<bool>();
}

std::string str(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// The provenance of every key as it is written: measured, claimed, or a default with its reason.
struct Sources {
  json map = json::object();
  std::vector<std::string> unobserved;
  void measured(const std::string& key, const std::string& how) { map[key] = "measured: " + how; }
  void claimed(const std::string& key, const std::string& by) { map[key] = "claimed by " + by; }
  void fallback(const std::string& key, const std::string& why) {
    map[key] = "default: " + why;
    unobserved.push_back(key + ": " + why);
  }
};

// The drive's identity as IDENTIFY or INQUIRY gave it (the bench document's identify block).
void identity_keys(const json& doc, json& m, Sources& src) {
  const json& id = doc.contains("identify") && doc["identify"].is_object() ? doc["identify"] : json::object();
  const bool scsi = id.contains("scsi");
  m["transport"] = scsi ? "scsi" : "ata";
  m["identity"] = {{"vendor", scsi ? str(id, "vendor") : std::string("ATA")},
                   {"model", str(id, "model")},
                   {"serial", str(id, "serial")},
                   {"firmware", str(id, "firmware")}};
  src.claimed("identity", scsi ? "INQUIRY and VPD page 80h" : "IDENTIFY DEVICE words 10-19, 23-26, 27-46");
  const double lbs = num(doc, {"target", "logical_block_bytes"}).value_or(512);
  m["logical_sector_bytes"] = static_cast<std::uint32_t>(lbs);
  m["physical_sector_bytes"] = static_cast<std::uint32_t>(num(id, {"physical_sector_bytes"}).value_or(lbs));
  src.claimed("logical_sector_bytes", scsi ? "READ CAPACITY (16)" : "IDENTIFY DEVICE words 106, 117-118");
  if (auto cap = num(doc, {"target", "capacity_bytes"})) {
    m["capacity_sectors"] = static_cast<std::uint64_t>(*cap / lbs);
    src.claimed("capacity_sectors", scsi ? "READ CAPACITY" : "IDENTIFY DEVICE words 100-103");
  }
}

// Rotation: the nominal rpm as claimed, the actual one as the access test's rotation fit found it.
double rotation_keys(const json& doc, json& m, Sources& src) {
  const json& acc = doc["tests"]["access"];
  const auto nominal = num(doc, {"identify", "rotation_rate_rpm"});
  double rev_ms = num(acc, {"rotation_ms"}).value_or(0);
  if (!(rev_ms > 0)) rev_ms = num(doc, {"tests", "transfer", "rotation_ms"}).value_or(0);
  const double actual = rev_ms > 0 ? 60000.0 / rev_ms : 0;
  if (actual > 0) {
    m["rpm_actual"] = actual;
    src.measured("rpm_actual", fmt::format("access test's rotation fit, {:.4f} ms a revolution", rev_ms));
  }
  if (nominal && *nominal >= 600 && *nominal <= 30000) {
    m["rpm"] = *nominal;
    src.claimed("rpm", "the drive's nominal rotation rate (IDENTIFY word 217 / VPD page B1h)");
  } else {
    m["rpm"] = actual > 0 ? std::round(actual) : 7200.0;
    src.fallback("rpm", "no nominal rate reported; the measured rate, rounded");
  }
  return rev_ms > 0 ? rev_ms : 60000.0 / m["rpm"].get<double>();
}

// Zones and their switch times: the transfer test's zones (first LBA, sectors per track), as
// cylinders of `surfaces` tracks. The last zone is rounded up so that the zones hold the whole
// capacity (capacity_sectors cuts the rest).
//
// A zone's sustained rate over its media rate (sectors per track a revolution) leaves
// e = rev·(media/sustained − 1) of switch time per track: a cylinder of H tracks pays H − 1 track
// skews and one cylinder skew, H·e in all. The skews are what streaming shows, and they are
// written as such (per zone, in sectors); a cylinder skew covers at least a one-cylinder seek (a
// skew shorter than its move loses a revolution, which the rates would have shown), the track
// skews share the rest. The head switch itself only has to fit its skew; a drive's skews carry a
// margin over it that streaming cannot see, so it is taken as the smaller of the shortest track
// skew and the one-cylinder seek (a head switch settles on a track as a short seek does).
void zone_keys(const json& doc, double rev_ms, json& m, Sources& src) {
  const json& tr = doc["tests"]["transfer"];
  unsigned surfaces = static_cast<unsigned>(num(tr, {"surfaces_estimate"}).value_or(0));
  if (surfaces >= 1) {
    src.measured("surfaces", "transfer test's track structure (period of the cylinder switches)");
  } else {
    surfaces = 2;
    src.fallback("surfaces", "the transfer test could not tell the tracks per cylinder; 2 assumed");
  }
  m["surfaces"] = surfaces;
  const unsigned platters = static_cast<unsigned>(num(tr, {"platters_estimate"}).value_or((surfaces + 1) / 2));
  m["platters"] = std::max(1u, platters);
  const double lbs = m["logical_sector_bytes"].get<double>();
  const std::uint64_t cap = m.value("capacity_sectors", std::uint64_t{0});
  const double t2t = m["seek"]["track_to_track_ms"].get<double>();
  // The simulated one-cylinder move varies with the seek noise: a skew this much over it is safe.
  const double cyl_move_ms = 1.1 * t2t;
  json zones = json::array();
  std::vector<double> track_skew_ms;
  std::uint64_t covered = 0;
  if (tr.contains("zones") && tr["zones"].is_array()) {
    for (const auto& z : tr["zones"]) {
      const auto first = num(z, {"first_lba"}), last = num(z, {"last_lba"}), spt = num(z, {"sectors_per_track"});
      if (!first || !last || !spt || *spt < 1 || *last < *first) continue;
      const double per_cyl = *spt * surfaces;
      const auto cyls = std::max(1u, static_cast<std::uint32_t>(std::ceil((*last - *first + 1) / per_cyl)));
      json jz = {{"cylinders", cyls}, {"sectors_per_track", static_cast<std::uint32_t>(*spt)}};
      if (auto mb_s = num(z, {"mb_s"}); mb_s && *mb_s > 0) {
        const double sector_ms = rev_ms / *spt;
        const double media = lbs / sector_ms / 1e3;  // MB/s
        const double e = rev_ms * std::max(0.0, media / *mb_s - 1);
        const double cyl = std::max(e, cyl_move_ms);
        const double trk = surfaces > 1 ? std::max(0.0, (surfaces * e - cyl) / (surfaces - 1)) : cyl;
        const auto trk_sectors = static_cast<std::uint32_t>(std::ceil(trk / sector_ms));
        jz["track_skew_sectors"] = trk_sectors;
        jz["cylinder_skew_sectors"] = static_cast<std::uint32_t>(std::ceil(cyl / sector_ms));
        track_skew_ms.push_back(trk_sectors * sector_ms);
      }
      zones.push_back(jz);
      covered += static_cast<std::uint64_t>(cyls * per_cyl);
    }
  }
  if (!zones.empty()) {
    src.measured("zones", fmt::format("transfer test: {} zones, sectors per track from the track boundaries",
                                      zones.size()));
  } else {
    // No zone seen: one zone at the transfer's outer rate, a revolution a track.
    double mb_s = num(tr, {"outer_mb_s"}).value_or(0);
    if (!(mb_s > 0)) mb_s = 100;
    const auto spt = static_cast<std::uint32_t>(std::max(1.0, std::round(mb_s * 1e6 * rev_ms / 1e3 / lbs)));
    zones.push_back({{"cylinders", 1}, {"sectors_per_track", spt}});
    covered = static_cast<std::uint64_t>(spt) * surfaces;
    src.fallback("zones", "the transfer test saw no track structure: one zone at the outer rate");
  }
  if (covered < cap) {
    json& lz = zones.back();
    const double per_cyl = lz["sectors_per_track"].get<double>() * surfaces;
    lz["cylinders"] = lz["cylinders"].get<std::uint32_t>() +
                      static_cast<std::uint32_t>(std::ceil(static_cast<double>(cap - covered) / per_cyl));
  }
  m["zones"] = zones;
  if (!track_skew_ms.empty()) {
    src.measured("zones.skews", "each zone's sustained over media rate (switch time per track)");
    // Within every zone's skew (a switch longer than its skew would lose a revolution there),
    // with a margin for the rounding of the spindle's period to whole nanoseconds.
    m["head_switch_ms"] = 0.98 * std::min(*std::min_element(track_skew_ms.begin(), track_skew_ms.end()), t2t);
    src.measured("head_switch_ms", "bounded by the track skew and the one-cylinder seek (the skew's margin over "
                                   "the switch is not observable)");
  } else {
    m["head_switch_ms"] = std::min(0.5, t2t);
    src.fallback("head_switch_ms", "no zone rates with track sizes; 0.5 ms (at most the one-cylinder seek) assumed");
  }
}

void seek_keys(const json& doc, json& m, Sources& src) {
  const json& acc = doc["tests"]["access"];
  const double avg = num(acc, {"avg_seek_ms"}).value_or(0);
  double full = num(acc, {"full_stroke_ms"}).value_or(0);
  double t2t = num(acc, {"track_to_track_ms"}).value_or(0);
  if (avg > 0) {
    src.measured("seek.average_ms", "access test's random reads less rotation and overhead (calibrated)");
  }
  if (!(t2t > 0)) {
    t2t = avg > 0 ? avg / 8 : 1;
    src.fallback("seek.track_to_track_ms", "not measured; an eighth of the average");
  } else {
    src.measured("seek.track_to_track_ms", "access test's one-cylinder sweep");
  }
  if (!(full > avg)) {
    full = avg > 0 ? 2 * avg : 2;
    src.fallback("seek.full_stroke_ms", "not measured; twice the average");
  } else {
    src.measured("seek.full_stroke_ms", "access test's reads between the span's ends");
  }
  m["seek"] = {{"track_to_track_ms", t2t}, {"average_ms", avg > 0 ? avg : (t2t + full) / 2}, {"full_stroke_ms", full}};
}

void controller_keys(const json& doc, double lbs, json& m, Sources& src) {
  const json& acc = doc["tests"]["access"];
  const json& ca = doc["tests"]["cache"];
  if (auto o = num(acc, {"command_overhead_ms"})) {
    m["command_overhead_ms"] = *o;
    src.measured("command_overhead_ms", "access test's cache-hit latency less one block's transfer");
  } else {
    m["command_overhead_ms"] = 0.1;
    src.fallback("command_overhead_ms", "not measured; 0.1 ms assumed");
  }
  if (auto b = num(ca, {"burst_mb_s"}); b && *b > 0) {
    m["interface_mb_s"] = *b;
    src.measured("interface_mb_s", "cache test's burst rate from the buffer");
  } else {
    m["interface_mb_s"] = 150;
    src.fallback("interface_mb_s", "no burst rate measured; 150 MB/s assumed");
  }
  json cache = {{"bytes", 0}, {"segments", 1}, {"read_ahead_sectors", 0}};
  if (auto sz = num(ca, {"size_bytes_estimate"}); sz && *sz > 0) {
    cache["bytes"] = static_cast<std::uint64_t>(*sz);
    src.measured("cache.bytes", flag(ca, {"size_at_least"}) ? "cache test (a lower bound)" : "cache test");
    const double seg = num(ca, {"segment_bytes_estimate"}).value_or(*sz);
    cache["segments"] = static_cast<std::uint32_t>(std::clamp(std::round(*sz / std::max(seg, lbs)), 1.0, 256.0));
    src.measured("cache.segments", "cache test: size over the largest buffered stretch");
  } else {
    src.fallback("cache.bytes", "the cache test told no cache");
  }
  const json* ra_told = ca.is_object() && ca.contains("read_ahead") ? &ca["read_ahead"] : nullptr;
  if (flag(ca, {"read_ahead"})) {
    const double ra = num(ca, {"read_ahead_bytes_estimate"}).value_or(0);
    cache["read_ahead_sectors"] = static_cast<std::uint32_t>(ra / lbs);
    src.measured("cache.read_ahead_sectors", "cache test's read-ahead extent");
  } else if (ra_told && ra_told->is_boolean()) {
    src.measured("cache.read_ahead_sectors", "cache test saw no read-ahead");
  } else {
    src.fallback("cache.read_ahead_sectors", "the cache test did not tell read-ahead (see its notes); none assumed");
  }
  cache["write_back"] = flag(doc, {"identify", "write_cache", "enabled"});
  src.claimed("cache.write_back", "the drive's write-cache setting (IDENTIFY word 85 bit 5 / caching mode page)");
  src.fallback("cache.zero_latency_read", "not measured by this version");
  m["cache"] = cache;
}

void queue_keys(const json& doc, json& m, Sources& src) {
  const json& id = doc["identify"];
  const json& q = doc["tests"]["queue"];
  json queue = {{"protocol", "none"}, {"depth", 1}, {"policy", "fifo"}};
  for (const char* proto : {"ncq", "tcq"}) {
    if (flag(id, {proto, "supported"})) {
      queue["protocol"] = proto;
      queue["depth"] = static_cast<std::uint32_t>(std::clamp(num(id, {proto, "depth"}).value_or(32), 1.0, 256.0));
      src.claimed("queue.protocol", std::string(proto == std::string("ncq") ? "IDENTIFY word 76 (NCQ) and 75 (depth)"
                                                                            : "IDENTIFY word 83 (TCQ) / INQUIRY CmdQue"));
      break;
    }
  }
  if (queue["protocol"] != "none") {
    if (q.is_object() && q.contains("reorders") && q["reorders"].is_boolean()) {
      queue["policy"] = q["reorders"].get<bool>() ? "sptf" : "fifo";
      src.measured("queue.policy", "queue test: IOPS by depth (" + str(q, "evidence") + ")");
    } else {
      src.fallback("queue.policy", "the queue test did not run or told nothing; served in order");
    }
  }
  m["queue"] = queue;
}

// Slow regions and remapped LBAs: their extra time over the access map's usual region mean.
void defect_keys(const json& doc, json& m, Sources& src) {
  const json& acc = doc["tests"]["access"];
  std::vector<double> normal;
  if (acc.contains("map") && acc["map"].is_array())
    for (const auto& r : acc["map"])
      if (!flag(r, {"slow"}))
        if (auto v = num(r, {"mean_ms"})) normal.push_back(*v);
  const double base = median(normal);
  json defects = json::array(), remapped = json::array();
  if (acc.contains("slow_regions") && acc["slow_regions"].is_array())
    for (const auto& r : acc["slow_regions"]) {
      const auto f = num(r, {"first_lba"}), l = num(r, {"last_lba"}), ms = num(r, {"mean_ms"});
      if (f && l && ms && *l >= *f && *ms > base)
        defects.push_back({{"first_lba", static_cast<std::uint64_t>(*f)},
                           {"sectors", static_cast<std::uint64_t>(*l - *f + 1)},
                           {"extra_ms", *ms - base}});
    }
  if (acc.contains("slow_spikes") && acc["slow_spikes"].is_array())
    for (const auto& r : acc["slow_spikes"]) {
      const auto lba = num(r, {"lba"}), ms = num(r, {"mean_ms"});
      if (lba && ms && *ms > base) remapped.push_back({{"lba", static_cast<std::uint64_t>(*lba)}, {"extra_ms", *ms - base}});
    }
  m["defects"] = defects;
  if (!remapped.empty()) m["remapped"] = remapped;
  src.measured("defects", fmt::format("access test: {} slow regions, {} slow LBAs", defects.size(), remapped.size()));
}

}  // namespace

TwinDraft twin_from_bench(const json& doc) {
  TwinDraft d;
  Sources src;
  json m = json::object();
  m["format"] = sim::kModelFormat2;
  m["name"] = "twin of " + str(doc, "model_name");
  d.rotating = flag(doc, {"tests", "positioning", "mechanical"});
  if (!d.rotating) {
    d.why_not_rotating = doc.contains("tests") && doc["tests"].contains("positioning")
                             ? str(doc["tests"]["positioning"], "evidence")
                             : "the positioning test did not run";
    if (d.why_not_rotating.empty()) d.why_not_rotating = "the positioning test found no mechanical positioning";
  }
  if (!doc.contains("tests") || !doc["tests"].is_object()) {
    d.model = m;
    return d;
  }
  identity_keys(doc, m, src);
  const double rev_ms = rotation_keys(doc, m, src);
  seek_keys(doc, m, src);
  zone_keys(doc, rev_ms, m, src);
  controller_keys(doc, m["logical_sector_bytes"].get<double>(), m, src);
  queue_keys(doc, m, src);
  defect_keys(doc, m, src);
  m["write_settle_ms"] = 0.0;
  src.fallback("write_settle_ms", "writes not measured (the twin is made read-only)");
  const json& aam = doc["identify"].is_object() && doc["identify"].contains("aam") ? doc["identify"]["aam"] : json();
  m["aam"] = {{"supported", flag(aam, {"supported"})},
              {"default_level", static_cast<int>(std::clamp(num(aam, {"current_level"}).value_or(254), 128.0, 254.0))}};
  src.claimed("aam", "IDENTIFY words 83 and 94 (the quiet level's cost is not measured: scales 1)");
  m["noise"] = {{"seed", 1}, {"seek_jitter_pct", 1.0}};
  src.fallback("noise.seek_jitter_pct", "not separated from rotation by this version; 1 % assumed");
  d.unobserved = src.unobserved;
  m["provenance"] = {{"made_by", "drivescope model"}, {"sources", src.map}};
  d.model = std::move(m);
  return d;
}

json twin_calibrate(const json& model, const json& drive, const json& twin, std::vector<std::string>& moves) {
  json m = model;
  const json& da = drive["tests"]["access"];
  const json& ta = twin["tests"]["access"];
  // Additive moves of a figure whose measurement is (locally) the figure plus a bias the model
  // shares: the bias cancels in drive − twin. A difference within the two measurements' combined
  // 95 % half-width is noise and moves nothing; one move is at most 30 % of the figure (a
  // measurement of the twin that went wrong must not throw the model off in one step).
  auto move = [&](const char* what, json& slot, const json& dj, const json& tj, const char* key,
                  const char* hw_key, double floor) {
    const auto want = num(dj, {key}), got = num(tj, {key});
    if (!want || !got) return;
    const double hw_w = hw_key ? num(dj, {hw_key}).value_or(0) : 0.05 * *want;
    const double hw_g = hw_key ? num(tj, {hw_key}).value_or(0) : 0.05 * *got;
    const double diff = *want - *got;
    if (std::fabs(diff) <= std::hypot(hw_w, hw_g)) return;
    const double before = slot.get<double>();
    const double cap = 0.3 * std::max(std::fabs(before), 0.01);
    const double after = std::max(floor, before + std::clamp(diff, -cap, cap));
    if (std::fabs(after - before) < 1e-4) return;
    slot = after;
    moves.push_back(fmt::format("{}: {:.4f} -> {:.4f} (drive measured {:.4f}, twin {:.4f})", what, before, after,
                                *want, *got));
  };
  move("seek.average_ms", m["seek"]["average_ms"], da, ta, "avg_seek_ms", "avg_seek_uncertainty_ms", 0.05);
  move("seek.full_stroke_ms", m["seek"]["full_stroke_ms"], da, ta, "full_stroke_ms", "full_stroke_uncertainty_ms", 0.1);
  move("seek.track_to_track_ms", m["seek"]["track_to_track_ms"], da, ta, "track_to_track_ms",
       "track_to_track_uncertainty_ms", 0.01);
  move("command_overhead_ms", m["command_overhead_ms"], da, ta, "command_overhead_ms", nullptr, 0.0);
  // Multiplicative moves of the cache's figures: the cache test's estimates need not mean what the
  // model's keys mean (its size is what it saw hold, its read-ahead what a hit after a miss
  // reached), but the same test on the twin answers in the same terms, so the ratio moves the
  // model's key until the twin answers as the drive did. Within 10 % is noise.
  const json& dc = drive["tests"]["cache"];
  const json& tc = twin["tests"]["cache"];
  auto scale = [&](const char* what, json& slot, const char* key, double lo, double hi) {
    const auto want = num(dc, {key}), got = num(tc, {key});
    if (!want || !got || *want <= 0 || *got <= 0) return;
    const double ratio = *want / *got;
    if (std::fabs(ratio - 1) <= 0.1) return;
    const double before = slot.get<double>();
    const double after = std::clamp(std::round(before * std::clamp(ratio, 0.25, 4.0)), lo, hi);
    if (after == before) return;
    slot = after;
    moves.push_back(fmt::format("{}: {:.0f} -> {:.0f} (drive measured {:.0f}, twin {:.0f})", what, before, after,
                                *want, *got));
  };
  // A segment's size first (it is what the segment estimate answers to), then, once that matches,
  // their number (what the size estimate answers to): one of the two per round, since each
  // changes what the other measures.
  json& cache = m["cache"];
  if (cache.value("bytes", 0.0) > 0) {
    if (cache.value("read_ahead_sectors", 0.0) > 0)
      scale("cache.read_ahead_sectors", cache["read_ahead_sectors"], "read_ahead_bytes_estimate", 1, 1e7);
    const double segs = std::max(1.0, cache.value("segments", 1.0));
    json seg = std::round(cache["bytes"].get<double>() / segs);
    const std::size_t before = moves.size();
    scale("cache segment bytes", seg, "segment_bytes_estimate", 4096, 1e9);
    if (moves.size() == before) {
      json count = segs;
      const auto want = num(dc, {"size_bytes_estimate"}), got = num(tc, {"size_bytes_estimate"});
      if (want && got && *want > 0 && *got > 0 && std::fabs(*want / *got - 1) > 0.1) {
        count = std::clamp(std::round(segs * std::clamp(*want / *got, 0.25, 4.0)), 1.0, 256.0);
        if (count.get<double>() != segs)
          moves.push_back(fmt::format("cache.segments: {:.0f} -> {:.0f} (size measured {:.0f}, twin {:.0f})", segs,
                                      count.get<double>(), *want, *got));
      }
      cache["segments"] = count;
    }
    cache["bytes"] = seg.get<double>() * cache["segments"].get<double>();
  }
  move("interface_mb_s", m["interface_mb_s"], dc, tc, "burst_mb_s", "burst_uncertainty_mb_s", 1.0);
  // The seek figures must stay ordered for the simulator's fit.
  json& s = m["seek"];
  s["full_stroke_ms"] = std::max(s["full_stroke_ms"].get<double>(), s["average_ms"].get<double>() * 1.05);
  s["track_to_track_ms"] = std::min(s["track_to_track_ms"].get<double>(), s["average_ms"].get<double>() * 0.95);
  return m;
}

namespace {

// The twin measured as the drive was, by the same modules (another seed): simulated time only. The
// model goes through a file beside the output, since a bench opens its target by name.
class TwinBench {
 public:
  TwinBench(BenchRequest drive_request, std::string scratch)
      : req_(std::move(drive_request)), tmp_(std::move(scratch)) {}
  Expected<json> measure(const json& model, std::vector<std::string> tests, std::uint64_t seed) const {
    if (auto check = sim::parse_model(model.dump()); !check)
      return make_error("the twin's model is not valid: " + check.error().message);
    {
      std::ofstream out(tmp_, std::ios::binary | std::ios::trunc);
      if (!(out << model.dump(2)) || !out.flush()) return make_error(tmp_ + ": cannot write", errno);
    }
    BenchRequest tb = req_;
    tb.target = "sim:" + tmp_;
    tb.tests = std::move(tests);
    tb.seed = seed;
    tb.device = {};
    tb.stop = {};
    auto twin = run_bench(tb, {});
    std::remove(tmp_.c_str());
    if (!twin) return make_error("measuring the twin: " + twin.error().message);
    return twin->json;
  }
  const std::vector<std::string>& tests() const { return req_.tests; }

 private:
  BenchRequest req_;
  std::string tmp_;
};

// Stage 2, repeated: figures moved by the drive − twin difference of their measurement; a few
// rounds, as each move changes the others' measurements a little.
std::optional<Error> calibrate_figures(json& model, const json& drive, const TwinBench& tb, unsigned rounds,
                                       std::uint64_t seed, std::vector<std::string>& moves) {
  for (unsigned round = 0; round < rounds; ++round) {
    auto twin = tb.measure(model, tb.tests(), seed + 1 + round);
    if (!twin) return twin.error();
    const std::size_t before = moves.size();
    model = twin_calibrate(model, drive, *twin, moves);
    if (moves.size() == before) break;
  }
  return std::nullopt;
}

// The mean squared log ratio of two queue tests' IOPS at the depths both ran.
double iops_distance(const json& drive_queue, const json& twin_queue) {
  double sum = 0;
  std::size_t n = 0;
  if (!drive_queue.contains("depths") || !twin_queue.contains("depths")) return INFINITY;
  for (const auto& d : drive_queue["depths"])
    for (const auto& t : twin_queue["depths"])
      if (num(d, {"depth"}) == num(t, {"depth"})) {
        const auto a = num(d, {"iops"}), c = num(t, {"iops"});
        if (a && c && *a > 0 && *c > 0) {
          sum += std::pow(std::log(*c / *a), 2);
          ++n;
        }
      }
  return n ? sum / static_cast<double>(n) : INFINITY;
}

// Stage 3: how strongly the drive reorders. The simulator's SPTF looks at the oldest `window`
// commands (0: all); of in-order service and a few windows, the one whose IOPS by depth come
// closest to the drive's is kept.
std::optional<Error> fit_queue(json& model, const json& drive, const TwinBench& tb, std::uint64_t seed,
                               std::vector<std::string>& moves) {
  if (model["queue"]["protocol"] == "none" || !drive["tests"].contains("queue")) return std::nullopt;
  const std::vector<std::pair<const char*, unsigned>> choices = {{"fifo", 0}, {"sptf", 2},  {"sptf", 4},
                                                                 {"sptf", 8}, {"sptf", 16}, {"sptf", 0}};
  double best = INFINITY;
  json best_q = model["queue"];
  for (const auto& [policy, window] : choices) {
    json trial = model;
    trial["queue"]["policy"] = policy;
    if (window > 0) trial["queue"]["window"] = window;
    else trial["queue"].erase("window");
    auto tq = tb.measure(trial, {"queue"}, seed + 11);
    if (!tq) return tq.error();
    const double s = iops_distance(drive["tests"]["queue"], (*tq)["tests"]["queue"]);
    if (s < best) {
      best = s;
      best_q = trial["queue"];
    }
  }
  if (best_q != model["queue"])
    moves.push_back(fmt::format("queue: {} -> {} (IOPS by depth closest to the drive's)", model["queue"].dump(),
                                best_q.dump()));
  model["queue"] = best_q;
  return std::nullopt;
}

// The cache workload: what the cache test's probes cannot pin (how many segments, how large,
// how they are shared between streams) shows in how a mixed stream is served. A few phases, each
// with its own number of interleaved sequential streams (1 to 12, so that some phases have more
// streams than the drive has segments), reads of 1 to 64 blocks (log-uniform), a stream jumping
// elsewhere now and then, and think times that let the read-ahead run. Pure, from its seed.
measure::Trace cache_workload(std::uint64_t capacity_blocks, std::uint32_t block_bytes, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  measure::Trace t;
  t.format = measure::TraceFormat::fio_iolog;
  t.timing = measure::TraceTiming::after_completion;
  const std::uint64_t hi = capacity_blocks > 256 ? capacity_blocks - 256 : 1;
  std::uniform_int_distribution<std::uint64_t> anywhere(0, hi);
  std::uniform_real_distribution<double> u(0, 1);
  std::exponential_distribution<double> think_ms(1.0 / 2.0);
  for (unsigned streams : {1u, 2u, 3u, 4u, 6u, 8u, 12u, 2u, 5u}) {
    std::vector<std::uint64_t> at(streams);
    for (auto& a : at) a = anywhere(rng);
    for (int i = 0; i < 160; ++i) {
      auto& a = at[std::uniform_int_distribution<unsigned>(0, streams - 1)(rng)];
      if (u(rng) < 0.08) a = anywhere(rng);
      const auto blocks = static_cast<std::uint32_t>(std::floor(std::exp(u(rng) * std::log(64.0)))) + 0u;
      const std::uint32_t n = std::max(1u, blocks);
      if (a + n >= capacity_blocks) a = 0;
      t.requests.push_back({a * block_bytes, n * block_bytes, false,
                            static_cast<std::int64_t>(think_ms(rng) * 1e6), {}, {}, t.requests.size() + 1});
      a += n;
    }
  }
  return t;
}

// The service times of a workload on an engine; empty when it did not complete.
std::vector<double> workload_ms(IoEngine& io, const measure::Trace& w) {
  measure::ReplayOptions ro;
  ro.wrap = true;
  auto r = measure::replay(io, w, ro);
  std::vector<double> ms;
  if (!r || r->stopped) return ms;
  for (const auto& q : r->requests) ms.push_back(q.service_ms);
  return ms;
}

// The service times of a workload on the twin (simulated time).
Expected<std::vector<double>> twin_times(const json& model, const measure::Trace& w, std::uint64_t seed) {
  auto dm = sim::parse_model(model.dump());
  if (!dm) return dm.error();
  sim::SimOptions so;
  so.seed = seed;
  auto st = sim::open(std::move(*dm), so);
  if (!st) return st.error();
  return workload_ms(*st->io, w);
}

// Stage 4: the cache's segments and their size, fitted to the workload's service times on the
// drive (the demerit of the twin's against them, over a grid of segment counts and sizes around
// what the cache test saw). The read-ahead stays as the cache test measured it.
std::optional<Error> fit_cache(json& model, const std::vector<double>& drive_ms, const measure::Trace& w,
                               std::uint64_t seed, std::vector<std::string>& moves) {
  json& cache = model["cache"];
  if (drive_ms.empty() || cache.value("bytes", 0.0) <= 0) return std::nullopt;
  const double lbs = model["logical_sector_bytes"].get<double>();
  auto score = [&](const json& trial) {
    const auto ms = twin_times(trial, w, seed);
    return ms && ms->size() == drive_ms.size() ? measure::demerit_pct(*ms, drive_ms) : HUGE_VAL;
  };
  const double seg0 = cache["bytes"].get<double>() / std::max(1.0, cache.value("segments", 1.0));
  double best = score(model);
  const double start = best;
  json best_cache = cache;
  for (unsigned n : {1u, 2u, 3u, 4u, 5u, 6u, 8u, 10u, 12u, 16u, 24u, 32u})
    for (int k = -4; k <= 8; ++k) {
      const double seg = std::max(lbs, std::round(seg0 * std::pow(2.0, k / 4.0) / lbs) * lbs);
      json trial = model;
      trial["cache"]["segments"] = n;
      trial["cache"]["bytes"] = static_cast<std::uint64_t>(seg * n);
      const double s = score(trial);
      if (s < best) {
        best = s;
        best_cache = trial["cache"];
      }
    }
  if (best_cache != cache)
    moves.push_back(fmt::format("cache: {} segments of {:.0f} bytes -> {} of {:.0f} (mixed-stream workload's demerit "
                                "{:.2f} % -> {:.2f} %)",
                                cache["segments"].get<double>(), seg0, best_cache["segments"].get<double>(),
                                best_cache["bytes"].get<double>() / best_cache["segments"].get<double>(), start, best));
  cache = best_cache;
  return std::nullopt;
}

// The seek workload: reads that alternate between two places `dist` blocks apart, for distances
// doubling from one cylinder (of the twin's mean cylinder) to most of the stroke. Each visit moves
// on by more than the read-ahead, so no read is a hit, and lands at a random place in its track,
// so the rotational wait averages out alike on drive and twin. `group[i]` is the distance index of
// request i (the first of each group, whose move comes from elsewhere, is -1).
struct SeekWorkload {
  measure::Trace trace;
  std::vector<int> group;
  std::vector<double> cylinders;  // the twin's distance of each group, in its mean cylinders
};
SeekWorkload seek_workload(std::uint64_t capacity_blocks, double cyl_blocks, std::uint64_t step_blocks,
                           std::uint64_t seed) {
  SeekWorkload w;
  std::mt19937_64 rng(seed);
  w.trace.format = measure::TraceFormat::fio_iolog;
  w.trace.timing = measure::TraceTiming::after_completion;
  const int per_group = 100;  // a group's mean is then within about ±0.1 revolution (95 %)
  const std::uint32_t bytes = 512;  // one block: positioning, hardly any transfer
  for (double d = 1; d * cyl_blocks < 0.9 * static_cast<double>(capacity_blocks); d *= 2) {
    const auto dist = static_cast<std::uint64_t>(d * cyl_blocks);
    const std::uint64_t room = capacity_blocks - dist - per_group * step_blocks - 1;
    const std::uint64_t a = std::uniform_int_distribution<std::uint64_t>(0, room)(rng);
    std::uniform_int_distribution<std::uint64_t> jitter(0, step_blocks / 2);
    const int g = static_cast<int>(w.cylinders.size());
    w.cylinders.push_back(d);
    for (int i = 0; i < per_group; ++i) {
      const std::uint64_t lba = a + (i % 2 ? dist : 0) + static_cast<std::uint64_t>(i / 2) * step_blocks + jitter(rng);
      w.trace.requests.push_back({lba * 512, bytes, false, 0, {}, {}, w.trace.requests.size() + 1});
      w.group.push_back(i == 0 ? -1 : g);
    }
  }
  return w;
}

// Each group's mean service time and the standard error of that mean, with the slowest 5 % of a
// group left out (a stall, a retry: what the seek curve must not absorb). Reads in `avoid` (slow
// regions, remapped LBAs: modelled apart) are left out on both sides.
struct GroupStat {
  double mean = NAN, se = NAN;
};
std::vector<GroupStat> group_means(const std::vector<double>& ms, const SeekWorkload& w,
                                   const std::vector<std::pair<std::uint64_t, std::uint64_t>>& avoid) {
  std::vector<std::vector<double>> by(w.cylinders.size());
  for (std::size_t i = 0; i < ms.size() && i < w.group.size(); ++i) {
    if (w.group[i] < 0) continue;
    const std::uint64_t lba = w.trace.requests[i].offset_bytes / 512;
    bool skip = false;
    for (const auto& [lo, hi] : avoid) skip = skip || (lba >= lo && lba <= hi);
    if (!skip) by[w.group[i]].push_back(ms[i]);
  }
  std::vector<GroupStat> out(by.size());
  for (std::size_t g = 0; g < by.size(); ++g) {
    auto& v = by[g];
    std::sort(v.begin(), v.end());
    v.resize(v.size() - v.size() / 20);
    if (v.size() < 10) continue;
    double sum = 0, sq = 0;
    for (double x : v) sum += x;
    const double mean = sum / static_cast<double>(v.size());
    for (double x : v) sq += (x - mean) * (x - mean);
    out[g] = {mean, std::sqrt(sq / static_cast<double>(v.size() - 1) / static_cast<double>(v.size()))};
  }
  return out;
}

// Pool-adjacent-violators: the nearest non-decreasing sequence (least squares, weights w).
void make_non_decreasing(std::vector<double>& y, std::vector<double> w) {
  std::vector<double> val, wt;
  std::vector<std::size_t> len;
  for (std::size_t i = 0; i < y.size(); ++i) {
    val.push_back(y[i]);
    wt.push_back(w[i]);
    len.push_back(1);
    while (val.size() > 1 && val[val.size() - 2] > val.back()) {
      const std::size_t k = val.size() - 1;
      val[k - 1] = (val[k - 1] * wt[k - 1] + val[k] * wt[k]) / (wt[k - 1] + wt[k]);
      wt[k - 1] += wt[k];
      len[k - 1] += len[k];
      val.pop_back(), wt.pop_back(), len.pop_back();
    }
  }
  std::size_t i = 0;
  for (std::size_t b = 0; b < val.size(); ++b)
    for (std::size_t j = 0; j < len[b]; ++j) y[i++] = val[b];
}


// Stage 5: the seek curve as a table at the workload's distances, started from the curve the
// simulator fits to the three figures, each point moved by the drive − twin difference of its
// group's mean (rotation, overhead and transfer are alike on both and cancel); a few rounds, as
// a point's neighbours share its moves through the interpolation.
std::optional<Error> fit_seek_curve(json& model, const std::vector<double>& drive_ms, const SeekWorkload& w,
                                    std::uint64_t seed, std::vector<std::string>& moves) {
  if (drive_ms.size() != w.group.size() || w.cylinders.empty()) return std::nullopt;
  auto dm = sim::parse_model(model.dump());
  if (!dm) return dm.error();
  auto fitted = sim::SeekCurve::build(dm->seek, dm->total_cylinders());
  if (!fitted) return fitted.error();
  const double total = dm->total_cylinders();
  std::vector<std::pair<double, double>> table;
  for (double d : w.cylinders) table.emplace_back(std::min(d, total), fitted->ms(static_cast<std::uint32_t>(std::min(d, total))));
  if (table.back().first < total) table.emplace_back(total, fitted->ms(static_cast<std::uint32_t>(total)));
  // What the twin models apart: its slow regions and remapped LBAs.
  std::vector<std::pair<std::uint64_t, std::uint64_t>> avoid;
  for (const auto& d : model.value("defects", json::array()))
    avoid.emplace_back(d["first_lba"].get<std::uint64_t>(),
                       d["first_lba"].get<std::uint64_t>() + d["sectors"].get<std::uint64_t>());
  for (const auto& r : model.value("remapped", json::array()))
    avoid.emplace_back(r["lba"].get<std::uint64_t>(), r["lba"].get<std::uint64_t>());
  const auto want = group_means(drive_ms, w, avoid);
  double worst_before = 0, worst_after = 0;
  for (int round = 0; round < 4; ++round) {
    json trial = model;
    trial["seek"]["curve"] = table;
    // The twin's side averaged over three seeds (simulated time is cheap).
    std::vector<GroupStat> got(w.cylinders.size(), GroupStat{0, 0});
    for (std::uint64_t k = 0; k < 3; ++k) {
      auto tms = twin_times(trial, w.trace, seed + 10 * round + k);
      if (!tms) return tms.error();
      const auto g = group_means(*tms, w, avoid);
      for (std::size_t i = 0; i < got.size(); ++i) {
        got[i].mean += g[i].mean / 3;
        got[i].se += g[i].se * g[i].se / 9;
      }
    }
    // A point moves only where the difference is beyond the noise of the two means (95 %): where
    // the drive's reads cannot contradict the fitted curve, it stays.
    double worst = 0;
    std::vector<double> y, wts;
    for (const auto& p : table) y.push_back(p.second);
    for (std::size_t g = 0; g < got.size(); ++g) {
      const double diff = want[g].mean - got[g].mean;
      const double hw = 1.96 * std::sqrt(want[g].se * want[g].se + got[g].se);
      if (!std::isfinite(diff) || !std::isfinite(hw)) continue;
      worst = std::max(worst, std::fabs(diff));
      if (std::fabs(diff) > hw) {
        y[g] = std::max(0.05, y[g] + diff);
      }
    }
    for (std::size_t i = 0; i < y.size(); ++i) wts.push_back(i < want.size() && std::isfinite(want[i].se) && want[i].se > 0 ? 1 / (want[i].se * want[i].se) : 1e6);
    make_non_decreasing(y, wts);
    for (std::size_t i = 0; i < y.size(); ++i) table[i].second = y[i];
    if (round == 0) worst_before = worst;
    worst_after = worst;
  }
  model["seek"]["curve"] = table;
  moves.push_back(fmt::format("seek.curve: {} points fitted to the alternating-reads workload (largest group "
                              "difference {:.3f} ms at the first round, {:.3f} ms at the last)",
                              table.size(), worst_before, worst_after));
  return std::nullopt;
}

// Drive time a workload took: its service times and the pauses between its requests.
double busy_ms(const std::vector<double>& ms, const measure::Trace& w) {
  double t = 0;
  for (double x : ms) t += x;
  for (std::size_t i = 0; i < ms.size() && i < w.requests.size(); ++i) t += w.requests[i].delay_ns / 1e6;
  return t;
}

// The workload on the drive itself (its drive time counts in the budget).
Expected<std::vector<double>> drive_workload(const ModelRequest& req, const measure::Trace& w) {
  OpenOptions oo;
  oo.want_io = true;
  oo.seed = req.seed;
  oo.device = req.device;
  auto t = open_target(req.target, oo);
  if (!t) return t.error();
  return workload_ms(*t->io, w);
}

// The model file, written whole or not at all.
std::optional<Error> write_model(const std::string& path, const std::string& text) {
  const std::string part = path + ".part";
  std::ofstream out(part, std::ios::binary | std::ios::trunc);
  if (!(out << text) || !out.flush()) return make_error(part + ": cannot write the model file", errno);
  out.close();
  if (std::rename(part.c_str(), path.c_str()) != 0) return make_error(path + ": cannot write the model file", errno);
  return std::nullopt;
}

Report model_report(const ModelRequest& req, const json& drive, const json& model, const TwinDraft& draft,
                    const std::vector<std::string>& moves, bool interrupted) {
  Report r;
  r.json = {{"drivescope", drive.value("drivescope", json::object())},
            {"target", drive.value("target", json::object())},
            {"twin", {{"path", req.output},
                      {"rotating", draft.rotating},
                      {"partial", interrupted},
                      {"drive_time_s", model["provenance"]["drive_time_s"]},
                      {"calibration", moves},
                      {"unobserved", draft.unobserved}}},
            {"model", model}};
  r.text = fmt::format("{}: twin written to {} ({} zones, {} surfaces, {:.0f} rpm, {:.1f} s of drive time{})\n",
                       req.target, req.output, model["zones"].size(), model.value("surfaces", 0),
                       model.value("rpm_actual", model.value("rpm", 0.0)),
                       model["provenance"]["drive_time_s"].get<double>(), interrupted ? ", partial: interrupted" : "");
  for (const auto& mv : moves) r.text += "  calibrated " + mv + "\n";
  for (const auto& u : draft.unobserved) r.text += "  not observed: " + u + "\n";
  return r;
}

}  // namespace

Expected<Report> run_model(const ModelRequest& req, const measure::ProgressFn& progress) {
  BenchRequest b;
  b.target = req.target;
  b.tests = {"access", "transfer", "cache", "queue"};
  b.tests_given = true;
  b.seed = req.seed;
  // The bench gets 60 % of the drive time: the cache and seek workloads after it take the rest
  // (about 3300 reads; half a minute on a 5400 rpm drive of the 1990s).
  b.budget_s = 0.6 * req.budget_s.value_or(180);
  b.device = req.device;
  b.stop = req.stop;
  // Stage 1: the drive measured, its figures drafted into a model.
  auto drive = run_bench(b, progress);
  if (!drive) return drive.error();
  const json& ddoc = drive->json;
  const TwinDraft draft = twin_from_bench(ddoc);
  const bool interrupted = drive->exit_code == kExitInterrupted;
  if (!draft.rotating && !req.allow_flat && !interrupted)
    return make_error(req.target + ": no twin made: the timing shows no rotating drive (" + draft.why_not_rotating +
                      "); --allow-flat makes a model without mechanics anyway");
  json model = draft.model;
  std::vector<std::string> moves;
  double workload_s = 0;  // drive time of the cache and seek workloads
  if (draft.rotating && !interrupted) {
    const TwinBench tb(b, req.output + ".calibrating.json");
    if (auto e = calibrate_figures(model, ddoc, tb, req.calibration_rounds, req.seed, moves)) return *e;
    const auto cap_blocks = static_cast<std::uint64_t>(num(ddoc, {"target", "capacity_bytes"}).value_or(0) /
                                                       model["logical_sector_bytes"].get<double>());
    const measure::Trace w = cache_workload(cap_blocks, model["logical_sector_bytes"].get<std::uint32_t>(), req.seed);
    auto dms = drive_workload(req, w);
    if (!dms) return dms.error();
    if (auto e = fit_cache(model, *dms, w, req.seed + 21, moves)) return *e;
    auto dm = sim::parse_model(model.dump());
    if (!dm) return dm.error();
    const double cyl_blocks = static_cast<double>(dm->capacity()) / std::max(1u, dm->total_cylinders());
    const auto step = static_cast<std::uint64_t>(model["cache"].value("read_ahead_sectors", 0.0) + 2 * cyl_blocks / std::max(1u, dm->surfaces));
    const SeekWorkload sw = seek_workload(cap_blocks, cyl_blocks, step, req.seed + 31);
    auto sms = drive_workload(req, sw.trace);
    if (!sms) return sms.error();
    if (auto e = fit_seek_curve(model, *sms, sw, req.seed + 41, moves)) return *e;
    workload_s = (busy_ms(*dms, w) + busy_ms(*sms, sw.trace)) / 1e3;
    if (auto e = fit_queue(model, ddoc, tb, req.seed, moves)) return *e;
  }
  for (const char* k : {"bytes", "segments", "read_ahead_sectors"})
    if (model["cache"].contains(k)) model["cache"][k] = static_cast<std::uint64_t>(model["cache"][k].get<double>());
  model["provenance"]["target"] = req.target;
  model["provenance"]["drive_time_s"] = num(ddoc, {"tests", "drive_time_s"}).value_or(0) + workload_s;
  model["provenance"]["partial"] = interrupted;
  model["provenance"]["calibration"] = moves;
  model["provenance"]["unobserved"] = draft.unobserved;
  const std::string text = model.dump(2) + "\n";
  if (auto check = sim::parse_model(text); !check)
    return make_error("the twin's model is not valid: " + check.error().message);
  if (auto e = write_model(req.output, text)) return *e;
  Report r = model_report(req, ddoc, model, draft, moves, interrupted);
  r.exit_code = drive->exit_code;
  r.warnings = drive->warnings;
  return r;
}

}  // namespace ds::app
