// Stage 1 of `drivescope model` (pure): the drive's bench document drafted into a model
// document, every key with its source (app/twin.hpp).
#include "app/twin.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "report/json_read.hpp"
#include "sim/model.hpp"
#include "tests/stats.hpp"

namespace ds::app {

namespace {

using nlohmann::json;

// A test's block of the bench document, or null when the test did not run (through json_section:
// const operator[] on a missing key read past the map under ASan when transfer had failed, CI of
// 280bc09).
const json& test_section(const json& doc, const char* name) { return report::json_section(doc, {"tests", name}); }

// Why a test left a key unmeasured, as a default's reason says it: the test's failure where the
// bench recorded one (a default must not read as what the test saw when it saw nothing), else
// `silent`, what the test said by not telling it.
std::string unmeasured(const json& doc, const char* test, const std::string& silent) {
  const json* e = report::json_at(doc, {"tests", "errors", test});
  if (e && e->is_string()) return fmt::format("the {} test failed ({})", test, e->get<std::string>());
  return silent;
}

// Paths into the bench document: absent, null or the wrong type reads as nullopt (or false).
using report::json_number_at;
using report::json_true_at;

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
  const double lbs = json_number_at(doc, {"target", "logical_block_bytes"}).value_or(512);
  m["logical_sector_bytes"] = static_cast<std::uint32_t>(lbs);
  m["physical_sector_bytes"] = static_cast<std::uint32_t>(json_number_at(id, {"physical_sector_bytes"}).value_or(lbs));
  src.claimed("logical_sector_bytes", scsi ? "READ CAPACITY (16)" : "IDENTIFY DEVICE words 106, 117-118");
  if (auto cap = json_number_at(doc, {"target", "capacity_bytes"})) {
    m["capacity_sectors"] = static_cast<std::uint64_t>(*cap / lbs);
    src.claimed("capacity_sectors", scsi ? "READ CAPACITY" : "IDENTIFY DEVICE words 100-103");
  }
}

// Rotation: the nominal rpm as claimed, the actual one as the access test's rotation fit found it.
double rotation_keys(const json& doc, json& m, Sources& src) {
  const json& acc = test_section(doc, "access");
  const auto nominal = json_number_at(doc, {"identify", "rotation_rate_rpm"});
  double rev_ms = json_number_at(acc, {"rotation_ms"}).value_or(0);
  if (!(rev_ms > 0)) rev_ms = json_number_at(doc, {"tests", "transfer", "rotation_ms"}).value_or(0);
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

// What the transfer test's zones draft: the zones, each zone's track skew in ms where its rate
// bounds the head switch, the sectors they cover, and how many stream at the interface's rate.
struct DraftedZones {
  json zones = json::array();
  std::vector<double> track_skew_ms;
  std::uint64_t covered = 0;
  std::size_t bus_limited = 0;
};

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
// margin over it that streaming cannot see, so it is taken as the shortest track skew, and no
// more than the one-cylinder seek where the streams told the surfaces: they can only where a
// cylinder switch, max(1-cylinder seek, head switch), costs more than a head switch, i.e. where
// the seek is the slower. Where they could not (the same-head probe told them, or nothing did),
// the head switch may well outlast the seek (a Cheetah 15K.3: 0.3 ms over a 0.2 ms seek).
// A zone whose media outruns the interface (the cache test's burst rate) streams at the bus's
// rate: its e is the bus's wait, not switch time, and bounds no head switch (its skews are kept,
// streaming there waits for the bus anyway). Read as a bound it made the HP C2490A's twin a
// 5.3 ms head switch for the drive's 1 ms, every move within a cylinder 4 ms too slow.
// Only zones with a track size are drafted. (Zones with rates but no track size, each a
// revolution a track at its sustained rate, were tried: 228 of the twin table's 260 pairs within
// 6 % against 233 with one zone at the read-ahead's pace, the ST41601N's and DEC RZ26's full
// models farther, the HP C2247A's nearer.)
DraftedZones transfer_zones(const json& doc, const json& tr, double rev_ms, double lbs, unsigned surfaces,
                            double cyl_move_ms) {
  DraftedZones d;
  if (!tr.contains("zones") || !tr["zones"].is_array()) return d;
  const auto burst = json_number_at(doc, {"tests", "cache", "burst_mb_s"});
  for (const auto& z : tr["zones"]) {
    const auto first = json_number_at(z, {"first_lba"}), last = json_number_at(z, {"last_lba"}), spt = json_number_at(z, {"sectors_per_track"});
    if (!first || !last || !spt || *spt < 1 || *last < *first) continue;
    const double per_cyl = *spt * surfaces;
    const auto cyls = std::max(1u, static_cast<std::uint32_t>(std::ceil((*last - *first + 1) / per_cyl)));
    json jz = {{"cylinders", cyls}, {"sectors_per_track", static_cast<std::uint32_t>(*spt)}};
    if (auto mb_s = json_number_at(z, {"mb_s"}); mb_s && *mb_s > 0) {
      const double sector_ms = rev_ms / *spt;
      const double media = lbs / sector_ms / 1e3;  // MB/s
      const bool bus_bound = burst && *burst < media;
      d.bus_limited += bus_bound ? 1 : 0;
      const double e = rev_ms * std::max(0.0, media / *mb_s - 1);
      const double cyl = std::max(e, cyl_move_ms);
      const double trk = surfaces > 1 ? std::max(0.0, (surfaces * e - cyl) / (surfaces - 1)) : cyl;
      const auto trk_sectors = static_cast<std::uint32_t>(std::ceil(trk / sector_ms));
      jz["track_skew_sectors"] = trk_sectors;
      jz["cylinder_skew_sectors"] = static_cast<std::uint32_t>(std::ceil(cyl / sector_ms));
      if (!bus_bound) d.track_skew_ms.push_back(trk_sectors * sector_ms);
    }
    d.zones.push_back(jz);
    d.covered += static_cast<std::uint64_t>(cyls * per_cyl);
  }
  return d;
}

// No zone drafted: one zone, a revolution a track, at the media's pace as the cache test's
// read-ahead showed it (the LBA-weighted mean: a random read's media time comes out right on
// average), else at the transfer's outer rate. Where the interface is slower than the media the
// transfer's rate is the interface's, and a zone at it made every miss's media read as slow as
// the bus (the Cheetah 4LP full model: 47 sectors a track for 131-195).
void one_zone(const json& doc, const json& tr, double rev_ms, double lbs, unsigned surfaces, DraftedZones& d,
              Sources& src) {
  const double pace = json_number_at(doc, {"tests", "cache", "read_ahead_mb_s"}).value_or(0);
  const double outer = json_number_at(tr, {"outer_mb_s"}).value_or(0);
  const double mb_s = pace > 0 ? pace : outer > 0 ? outer : 100;
  const auto spt = static_cast<std::uint32_t>(std::max(1.0, std::round(mb_s * 1e6 * rev_ms / 1e3 / lbs)));
  d.zones.push_back({{"cylinders", 1}, {"sectors_per_track", spt}});
  d.covered = static_cast<std::uint64_t>(spt) * surfaces;
  const std::string why = unmeasured(doc, "transfer", "the transfer test saw no track structure");
  if (pace > 0) src.measured("zones", "one zone at the cache test's read-ahead pace (the media's, over the LBAs), a "
                                      "revolution a track; the track sizes not told: " + why);
  else src.fallback("zones", why + (outer > 0 ? ": one zone at the outer rate" : ": one zone at 100 MB/s"));
}

// The head switch: within every zone's skew where the zones' rates bound it (zone_keys' comment).
void head_switch_key(const json& tr, const DraftedZones& d, double t2t, json& m, Sources& src) {
  if (!d.track_skew_ms.empty()) {
    src.measured("zones.skews", "each zone's sustained over media rate (switch time per track)");
    // Within every zone's skew (a switch longer than its skew would lose a revolution there),
    // with a margin for the rounding of the spindle's period to whole nanoseconds.
    const bool seek_slower = tr.is_object() && tr.contains("surfaces_source") && tr["surfaces_source"] == "streams";
    const double skew = *std::min_element(d.track_skew_ms.begin(), d.track_skew_ms.end());
    m["head_switch_ms"] = 0.98 * (seek_slower ? std::min(skew, t2t) : skew);
    src.measured("head_switch_ms", seek_slower ? "bounded by the track skew and the one-cylinder seek (the skew's margin "
                                                 "over the switch is not observable)"
                                               : "bounded by the track skew (the skew's margin over the switch is not "
                                                 "observable; the streams saw no cylinder switch slower than it)");
  } else if (d.bus_limited > 0) {
    m["head_switch_ms"] = std::min(0.5, t2t);
    src.fallback("head_switch_ms", "the interface is slower than the media in every zone (the sustained rate bounds "
                                   "no switch); 0.5 ms (at most the one-cylinder seek) assumed");
  } else {
    m["head_switch_ms"] = std::min(0.5, t2t);
    src.fallback("head_switch_ms", "no zone rates with track sizes; 0.5 ms (at most the one-cylinder seek) assumed");
  }
}

// Returns whether the zones carry the transfer test's track sizes (else one zone at a pace).
bool zone_keys(const json& doc, double rev_ms, json& m, Sources& src) {
  const json& tr = test_section(doc, "transfer");
  unsigned surfaces = static_cast<unsigned>(json_number_at(tr, {"surfaces_estimate"}).value_or(0));
  if (surfaces >= 1) {
    src.measured("surfaces", "transfer test's track structure (period of the cylinder switches)");
  } else {
    surfaces = 2;
    src.fallback("surfaces", unmeasured(doc, "transfer", "the transfer test could not tell the tracks per cylinder") + "; 2 assumed");
  }
  m["surfaces"] = surfaces;
  const unsigned platters = static_cast<unsigned>(json_number_at(tr, {"platters_estimate"}).value_or((surfaces + 1) / 2));
  m["platters"] = std::max(1u, platters);
  const double lbs = m["logical_sector_bytes"].get<double>();
  const std::uint64_t cap = m.value("capacity_sectors", std::uint64_t{0});
  const double t2t = m["seek"]["track_to_track_ms"].get<double>();
  // The simulated one-cylinder move varies with the seek noise: a skew this much over it is safe.
  DraftedZones d = transfer_zones(doc, tr, rev_ms, lbs, surfaces, 1.1 * t2t);
  const bool from_pace = d.zones.empty();
  if (from_pace) one_zone(doc, tr, rev_ms, lbs, surfaces, d, src);
  else
    src.measured("zones", fmt::format("transfer test: {} zones, sectors per track from the track boundaries",
                                      d.zones.size()));
  if (d.covered < cap) {
    json& lz = d.zones.back();
    const double per_cyl = lz["sectors_per_track"].get<double>() * surfaces;
    lz["cylinders"] = lz["cylinders"].get<std::uint32_t>() +
                      static_cast<std::uint32_t>(std::ceil(static_cast<double>(cap - d.covered) / per_cyl));
  }
  m["zones"] = d.zones;
  head_switch_key(tr, d, t2t, m, src);
  return !from_pace;
}

void seek_keys(const json& doc, json& m, Sources& src) {
  const json& acc = test_section(doc, "access");
  const double avg = json_number_at(acc, {"avg_seek_ms"}).value_or(0);
  double full = json_number_at(acc, {"full_stroke_ms"}).value_or(0);
  double t2t = json_number_at(acc, {"track_to_track_ms"}).value_or(0);
  if (avg > 0) {
    src.measured("seek.average_ms", "access test's random reads less rotation and overhead (calibrated)");
  }
  if (!(t2t > 0)) {
    t2t = avg > 0 ? avg / 8 : 1;
    src.fallback("seek.track_to_track_ms", unmeasured(doc, "access", "not measured") + "; an eighth of the average");
  } else {
    src.measured("seek.track_to_track_ms", "access test's one-cylinder sweep");
  }
  if (!(full > avg)) {
    full = avg > 0 ? 2 * avg : 2;
    src.fallback("seek.full_stroke_ms", unmeasured(doc, "access", "not measured") + "; twice the average");
  } else {
    src.measured("seek.full_stroke_ms", "access test's reads between the span's ends");
  }
  m["seek"] = {{"track_to_track_ms", t2t}, {"average_ms", avg > 0 ? avg : (t2t + full) / 2}, {"full_stroke_ms", full}};
}

void controller_keys(const json& doc, double lbs, json& m, Sources& src) {
  const json& acc = test_section(doc, "access");
  const json& ca = test_section(doc, "cache");
  if (auto o = json_number_at(acc, {"command_overhead_ms"})) {
    m["command_overhead_ms"] = *o;
    src.measured("command_overhead_ms", "access test's cache-hit latency less one block's transfer");
  } else {
    m["command_overhead_ms"] = 0.1;
    src.fallback("command_overhead_ms", unmeasured(doc, "access", "not measured") + "; 0.1 ms assumed");
  }
  if (auto b = json_number_at(ca, {"burst_mb_s"}); b && *b > 0) {
    m["interface_mb_s"] = *b;
    src.measured("interface_mb_s", "cache test's burst rate from the buffer");
    // Data read from the media crosses to the host after it is read, block by block at that rate
    // (the bus object with block times of 0: the interface rate governs). Without it the
    // simulator lets a miss's transfer overlap the seek, which on an interface slower than the
    // media (a SCSI-2 bus, a USB bridge) makes a miss as quick as a hit, and the twin's own cache
    // test then finds a cache many times the drive's.
    m["controller"]["bus"] = {{"read_block_ms", 0.0}, {"write_block_ms", 0.0}};
    src.measured("controller.bus", "cache test's burst rate, pipelined behind the media on a miss");
  } else {
    m["interface_mb_s"] = 150;
    src.fallback("interface_mb_s", unmeasured(doc, "cache", "no burst rate measured") + "; 150 MB/s assumed");
  }
  json cache = {{"bytes", 0}, {"segments", 1}, {"read_ahead_sectors", 0}};
  if (auto sz = json_number_at(ca, {"size_bytes_estimate"}); sz && *sz > 0) {
    cache["bytes"] = static_cast<std::uint64_t>(*sz);
    src.measured("cache.bytes", json_true_at(ca, {"size_at_least"}) ? "cache test (a lower bound)" : "cache test");
    const double seg = json_number_at(ca, {"segment_bytes_estimate"}).value_or(*sz);
    cache["segments"] = static_cast<std::uint32_t>(std::clamp(std::round(*sz / std::max(seg, lbs)), 1.0, 256.0));
    src.measured("cache.segments", "cache test: size over the largest buffered stretch");
  } else if (auto largest = json_number_at(ca, {"largest_hit_bytes"}); largest && *largest > 0) {
    // No size, but re-reads were served from the buffer: it holds at least the largest of them
    // (through a virtual machine's host path a single re-read split into several commands may pass
    // the hit line where the size probe's rounds do not).
    cache["bytes"] = static_cast<std::uint64_t>(*largest);
    src.measured("cache.bytes", "cache test's largest re-read served from the buffer (a lower bound: no size told)");
  } else {
    src.fallback("cache.bytes", unmeasured(doc, "cache", "the cache test told no cache"));
  }
  const json* ra_told = ca.is_object() && ca.contains("read_ahead") ? &ca["read_ahead"] : nullptr;
  if (json_true_at(ca, {"read_ahead"})) {
    const double ra = json_number_at(ca, {"read_ahead_bytes_estimate"}).value_or(0);
    cache["read_ahead_sectors"] = static_cast<std::uint32_t>(ra / lbs);
    src.measured("cache.read_ahead_sectors", json_true_at(ca, {"read_ahead_at_least"})
                                                 ? "cache test's read-ahead extent (a lower bound: see its notes)"
                                                 : "cache test's read-ahead extent");
    // A drive that reads ahead only once a stream is established (DiskSim has no such rule; the
    // simulator's controller.prefetch.after_sequential_reads): absent, the read-ahead follows any read.
    if (const auto after = json_number_at(ca, {"read_ahead_after_sequential_reads"}); after && *after >= 1) {
      // continuous_read 3 (up to read_ahead_sectors) is the read-ahead without the object.
      m["controller"]["prefetch"] = {{"continuous_read", 3}, {"after_sequential_reads", static_cast<std::uint32_t>(*after)}};
      src.measured("controller.prefetch.after_sequential_reads",
                   "cache test: the next block missed after a single read, hit after this many reads in a row");
    }
  } else if (ra_told && ra_told->is_boolean()) {
    src.measured("cache.read_ahead_sectors", "cache test saw no read-ahead");
  } else {
    src.fallback("cache.read_ahead_sectors",
                 unmeasured(doc, "cache", "the cache test did not tell read-ahead (see its notes)") + "; none assumed");
  }
  // The size probe steps by twos and the read-ahead is often a floor: the segment the size and
  // count give may not hold a block and the read-ahead after it.
  const double held = segment_floor_bytes({{"cache", cache}, {"logical_sector_bytes", lbs}});
  if (cache["bytes"].get<double>() > 0 && cache["bytes"].get<double>() / cache["segments"].get<double>() < held) {
    cache["bytes"] = static_cast<std::uint64_t>(held * cache["segments"].get<double>());
    src.measured("cache.bytes", "cache test, segments raised to hold a block and the read-ahead after it");
  }
  cache["write_back"] = json_true_at(doc, {"identify", "write_cache", "enabled"});
  src.claimed("cache.write_back", "the drive's write-cache setting (IDENTIFY word 85 bit 5 / caching mode page)");
  src.fallback("cache.zero_latency_read", "not measured by this version");
  m["cache"] = cache;
}

void queue_keys(const json& doc, json& m, Sources& src) {
  const json& id = report::json_section(doc, {"identify"});
  const json& q = test_section(doc, "queue");
  json queue = {{"protocol", "none"}, {"depth", 1}, {"policy", "fifo"}};
  for (const char* proto : {"ncq", "tcq"}) {
    if (json_true_at(id, {proto, "supported"})) {
      queue["protocol"] = proto;
      queue["depth"] = static_cast<std::uint32_t>(std::clamp(json_number_at(id, {proto, "depth"}).value_or(32), 1.0, 256.0));
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
      src.fallback("queue.policy", unmeasured(doc, "queue", "the queue test did not run or told nothing") + "; served in order");
    }
  }
  m["queue"] = queue;
}

// The access map's bins as the draft reads them: each bin's middle LBA, mean time and samples.
struct MapBin {
  double mid = 0, mean_ms = 0, samples = 1;
  bool slow = false;
};
std::vector<MapBin> map_bins(const json& acc) {
  std::vector<MapBin> out;
  if (acc.contains("map") && acc["map"].is_array())
    for (const auto& r : acc["map"]) {
      const auto f = json_number_at(r, {"first_lba"}), l = json_number_at(r, {"last_lba"}), v = json_number_at(r, {"mean_ms"});
      if (f && l && v)
        out.push_back({(*f + *l) / 2, *v, json_number_at(r, {"samples"}).value_or(1), json_true_at(r, {"slow"})});
    }
  return out;
}

// The usual time of a random read landing at LBA `lba`, from the access map's usual bins. The
// map's reads come each from the one before, i.e. from anywhere, so the seek to a place grows
// with its mean distance from a uniform one, (x² + (1 − x)²) / 2 for x its place in the span: the
// bins' means as a line in that. (A median of the bins was the usual time of the span's middle;
// the 7200.7's slow region, at the inner end, then lost 2 ms of the end's longer seeks from its
// extra 42.) Fewer than three usual bins: their median, wherever.
struct UsualTime {
  double span = 1, a = NAN, b = 0;
  double at(double lba) const {
    const double x = std::clamp(lba / span, 0.0, 1.0);
    return a + b * (x * x + (1 - x) * (1 - x)) / 2;
  }
};
UsualTime usual_time(const std::vector<MapBin>& bins, double capacity) {
  UsualTime u;
  u.span = std::max(1.0, capacity);
  std::vector<double> g, y;
  for (const auto& b : bins) {
    if (b.slow) continue;
    const double x = std::clamp(b.mid / u.span, 0.0, 1.0);
    g.push_back((x * x + (1 - x) * (1 - x)) / 2);
    y.push_back(b.mean_ms);
  }
  u.a = median(y);
  if (y.size() >= 3) {
    const auto fit = measure::fit_line(g, y);
    if (std::isfinite(fit.slope) && std::isfinite(fit.intercept)) u.a = fit.intercept, u.b = fit.slope;
  }
  return u;
}

// A slow region's time: the mean of the access map's slow bins within it (random reads, as the
// usual bins' are: the region's own `mean_ms` comes from the reads that placed its edges, short
// moves from just outside, and is no random read's time), weighted by their samples.
std::optional<double> region_mean(const std::vector<MapBin>& bins, double first, double last) {
  double sum = 0, n = 0;
  for (const auto& b : bins) {
    if (!b.slow || b.mid < first || b.mid > last) continue;
    sum += b.mean_ms * b.samples;
    n += b.samples;
  }
  if (n > 0) return sum / n;
  return std::nullopt;
}

// Slow regions and remapped LBAs: their extra time over what a random read usually takes there.
void defect_keys(const json& doc, json& m, Sources& src) {
  const json& acc = test_section(doc, "access");
  const auto bins = map_bins(acc);
  const UsualTime usual = usual_time(bins, static_cast<double>(m.value("capacity_sectors", std::uint64_t{0})));
  json defects = json::array(), remapped = json::array();
  if (acc.contains("slow_regions") && acc["slow_regions"].is_array())
    for (const auto& r : acc["slow_regions"]) {
      const auto f = json_number_at(r, {"first_lba"}), l = json_number_at(r, {"last_lba"});
      if (!f || !l || *l < *f) continue;
      const auto ms = region_mean(bins, *f, *l);
      const auto own = json_number_at(r, {"mean_ms"});
      const double base = usual.at((*f + *l) / 2);
      const double t = ms ? *ms : own.value_or(NAN);
      if (std::isfinite(t) && t > base)
        defects.push_back({{"first_lba", static_cast<std::uint64_t>(*f)},
                           {"sectors", static_cast<std::uint64_t>(*l - *f + 1)},
                           {"extra_ms", t - base}});
    }
  if (acc.contains("slow_spikes") && acc["slow_spikes"].is_array())
    for (const auto& r : acc["slow_spikes"]) {
      const auto lba = json_number_at(r, {"lba"}), ms = json_number_at(r, {"mean_ms"});
      if (!lba || !ms) continue;
      const double base = usual.at(*lba);
      if (*ms > base) remapped.push_back({{"lba", static_cast<std::uint64_t>(*lba)}, {"extra_ms", *ms - base}});
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
  d.rotating = json_true_at(doc, {"tests", "positioning", "mechanical"});
  if (!d.rotating) {
    d.why_not_rotating = report::json_at(doc, {"tests", "positioning"})
                             ? str(test_section(doc, "positioning"), "evidence")
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
  d.track_sizes = zone_keys(doc, rev_ms, m, src);
  controller_keys(doc, m["logical_sector_bytes"].get<double>(), m, src);
  queue_keys(doc, m, src);
  defect_keys(doc, m, src);
  m["write_settle_ms"] = 0.0;
  src.fallback("write_settle_ms", "writes not measured (the twin is made read-only)");
  const json& aam = report::json_section(doc, {"identify", "aam"});
  m["aam"] = {{"supported", json_true_at(aam, {"supported"})},
              {"default_level", static_cast<int>(std::clamp(json_number_at(aam, {"current_level"}).value_or(254), 128.0, 254.0))}};
  src.claimed("aam", "IDENTIFY words 83 and 94 (the quiet level's cost is not measured: scales 1)");
  m["noise"] = {{"seed", 1}, {"seek_jitter_pct", 1.0}};
  src.fallback("noise.seek_jitter_pct", "not separated from rotation by this version; 1 % assumed");
  if (const json* errs = report::json_at(doc, {"tests", "errors"}); errs && errs->is_object())
    for (const auto& [test, why] : errs->items())
      d.failed_tests.push_back(test + ": " + (why.is_string() ? why.get<std::string>() : why.dump()));
  d.unobserved = src.unobserved;
  m["provenance"] = {{"made_by", "drivescope model"}, {"sources", src.map}, {"failed_tests", d.failed_tests}};
  d.model = std::move(m);
  return d;
}

double segment_floor_bytes(const json& model) {
  const auto c = model.find("cache");
  if (c == model.end() || !c->is_object()) return 0;
  const double lbs = model.value("logical_sector_bytes", 512.0), ra = c->value("read_ahead_sectors", 0.0) * lbs;
  return ra > 0 ? lbs + ra : 0;
}

json with_segment_floor(json model) {
  json& c = model["cache"];
  const double floor = segment_floor_bytes(model), n = std::max(1.0, c.value("segments", 1.0));
  if (c.value("bytes", 0.0) / n < floor) c["bytes"] = static_cast<std::uint64_t>(std::ceil(floor * n));
  return model;
}

}  // namespace ds::app
