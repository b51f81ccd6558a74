// `sim import`'s importer (sim/disksim_import.hpp): DiskSim's own files of the seven traced drives
// give the committed full models (tests/data/disk-models-disksim) key by key, and hostile input is
// an error value naming its file and line.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "sim/disksim_import.hpp"
#include "sim/disksim_source.hpp"
#include "sim/layout.hpp"
#include "sim/model.hpp"

using namespace ds;
using namespace ds::sim;

namespace {

const std::string kData = DS_TEST_DATA;

struct Drive {
  const char* parv;    // tests/data/disksim/native/NAME.parv
  const char* model;   // tests/data/disk-models-disksim/NAME.json
  double interface_mb_s;  // not a DiskSim parameter: the committed file's era rate, passed in
};
constexpr Drive kDrives[] = {
    {"hp_c2247a", "hp_c2247a", 10},
    {"hp_c2490a", "hp_c2490a", 10},
    {"dec_rz26", "dec_rz26", 10},
    {"st41601n", "seagate_st41601n", 10},
    {"atlas_III", "quantum_qm39100td_atlas3", 40},
    {"cheetah4LP", "seagate_st34501n_cheetah4lp", 40},
    {"cheetah9LP", "seagate_st39102lw_cheetah9lp", 80},
};

Expected<disksim::ImportResult> import_drive(const Drive& d) {
  disksim::ImportOptions o;
  o.interface_mb_s = d.interface_mb_s;
  o.interface_given = true;
  return disksim::import_disksim_file(kData + "/disksim/native/" + d.parv + ".parv", o);
}

// An in-memory file set for the hostile cases.
disksim::FileLoader files(std::map<std::string, std::string> m) {
  return [m](const std::string& name) -> Expected<std::string> {
    auto it = m.find(name);
    if (it == m.end()) return make_error("no such file");
    return it->second;
  };
}

// What of two models of one drive must agree: all of it, or all but what DiskSim's source form
// cannot hold (the bus and the reconnection, which need the .parv; the track sparing, which needs
// the slips' places). Numbers within 1e-9 (the seek scalars: 0.0005, the committed files round
// them to 0.001 ms).
enum class Compare { all, without_bus };

void check_same(const DiskModel& a, const DiskModel& b, Compare what) {
  CHECK(a.name == b.name);
  CHECK(a.transport == b.transport);
  CHECK(a.identity.vendor == b.identity.vendor);
  CHECK(a.identity.model == b.identity.model);
  CHECK(a.identity.serial == b.identity.serial);
  CHECK(a.identity.firmware == b.identity.firmware);
  CHECK(a.logical_sector_bytes == b.logical_sector_bytes);
  CHECK(a.rpm == b.rpm);
  CHECK(a.surfaces == b.surfaces);
  CHECK(a.platters == b.platters);
  REQUIRE(a.zones.size() == b.zones.size());
  for (std::size_t i = 0; i < a.zones.size(); ++i) {
    CAPTURE(i);
    CHECK(a.zones[i].cylinders == b.zones[i].cylinders);
    CHECK(a.zones[i].sectors_per_track == b.zones[i].sectors_per_track);
    CHECK(a.zones[i].track_skew_sectors == b.zones[i].track_skew_sectors);
    CHECK(a.zones[i].cylinder_skew_sectors == b.zones[i].cylinder_skew_sectors);
  }
  CHECK(a.capacity_sectors == b.capacity_sectors);
  CHECK(std::abs(a.seek.track_to_track_ms - b.seek.track_to_track_ms) < 5e-4);
  CHECK(std::abs(a.seek.average_ms - b.seek.average_ms) < 5e-4);
  CHECK(std::abs(a.seek.full_stroke_ms - b.seek.full_stroke_ms) < 5e-4);
  REQUIRE(a.seek.curve.size() == b.seek.curve.size());
  for (std::size_t i = 0; i < a.seek.curve.size(); ++i) {
    CAPTURE(i);
    CHECK(a.seek.curve[i].first == b.seek.curve[i].first);
    CHECK(std::abs(a.seek.curve[i].second - b.seek.curve[i].second) < 1e-9);
  }
  CHECK(a.head_switch_ms == b.head_switch_ms);
  CHECK(a.write_settle_ms == b.write_settle_ms);
  CHECK(a.command_overhead_ms == doctest::Approx(b.command_overhead_ms));
  CHECK(a.interface_mb_s == b.interface_mb_s);
  CHECK(a.cache.bytes == b.cache.bytes);
  CHECK(a.cache.segments == b.cache.segments);
  CHECK(a.cache.read_ahead_sectors == b.cache.read_ahead_sectors);
  CHECK(a.cache.write_back == b.cache.write_back);
  CHECK(a.queue.protocol == b.queue.protocol);
  CHECK(a.queue.depth == b.queue.depth);
  CHECK(a.queue.policy == b.queue.policy);
  CHECK(a.aam.supported == b.aam.supported);
  CHECK(a.noise.seed == b.noise.seed);
  CHECK(a.noise.seek_jitter_pct == b.noise.seek_jitter_pct);
  CHECK(a.format_version == b.format_version);
  CHECK(a.layout_spec.spares_per_track == b.layout_spec.spares_per_track);
  CHECK(a.layout_spec.spares_per_cylinder == b.layout_spec.spares_per_cylinder);
  // DiskSim's track sparing and zone angles (sparing schemes 1 and 2), zone by zone.
  if (what == Compare::all) REQUIRE(a.layout_spec.track_sparing.size() == b.layout_spec.track_sparing.size());
  for (std::size_t i = 0; what == Compare::all && i < a.layout_spec.track_sparing.size(); ++i) {
    CAPTURE(i);
    const auto& x = a.layout_spec.track_sparing[i];
    const auto& y = b.layout_spec.track_sparing[i];
    REQUIRE(x.has_value() == y.has_value());
    if (!x) continue;
    CHECK(x->front_sectors == y->front_sectors);
    CHECK(x->spare_tracks == y->spare_tracks);
    CHECK(x->slipped_tracks == y->slipped_tracks);
  }
  CHECK(a.layout_spec.first_sector_offset == b.layout_spec.first_sector_offset);
  // The controller block.
  const auto& ca = a.controller;
  const auto& cb = b.controller;
  REQUIRE(ca.overheads.has_value() == cb.overheads.has_value());
  for (int k = 0; k < 2; ++k) {
    CHECK(ca.overheads->read_hit[k] == cb.overheads->read_hit[k]);
    CHECK(ca.overheads->read_miss[k] == cb.overheads->read_miss[k]);
    CHECK(ca.overheads->write_hit[k] == cb.overheads->write_hit[k]);
    CHECK(ca.overheads->write_miss[k] == cb.overheads->write_miss[k]);
  }
  CHECK(ca.overheads->read_completion == cb.overheads->read_completion);
  CHECK(ca.overheads->write_completion == cb.overheads->write_completion);
  CHECK(ca.write_behind_level == cb.write_behind_level);
  CHECK(ca.bulk_sector_ms == cb.bulk_sector_ms);
  CHECK(ca.write_settle_ms == cb.write_settle_ms);
  if (what == Compare::without_bus) {
    CHECK_FALSE(ca.bus);
    CHECK_FALSE(ca.read_reconnect);
    CHECK_FALSE(ca.write_reconnect);
  }
  if (what == Compare::all) REQUIRE(ca.bus.has_value() == cb.bus.has_value());
  if (ca.bus) {
    CHECK(ca.bus->read_block_ms == cb.bus->read_block_ms);
    CHECK(ca.bus->write_block_ms == cb.bus->write_block_ms);
  }
  if (what == Compare::all) REQUIRE(ca.read_reconnect.has_value() == cb.read_reconnect.has_value());
  if (ca.read_reconnect) {
    CHECK(ca.read_reconnect->high_water == cb.read_reconnect->high_water);
    CHECK(ca.read_reconnect->by_request_size == cb.read_reconnect->by_request_size);
    CHECK(ca.read_reconnect->first_reselect_ms == cb.read_reconnect->first_reselect_ms);
    CHECK(ca.read_reconnect->data_prep_ms == cb.read_reconnect->data_prep_ms);
    CHECK(ca.read_reconnect->disconnect_ms[0] == cb.read_reconnect->disconnect_ms[0]);
    CHECK(ca.read_reconnect->disconnect_ms[1] == cb.read_reconnect->disconnect_ms[1]);
  }
  REQUIRE(ca.prefetch.has_value() == cb.prefetch.has_value());
  if (ca.prefetch) {
    CHECK(ca.prefetch->continuous_read == cb.prefetch->continuous_read);
    CHECK(ca.prefetch->over_requested == cb.prefetch->over_requested);
    CHECK(ca.prefetch->on_idle_hit == cb.prefetch->on_idle_hit);
  }
}

}  // namespace

TEST_CASE("sim import: each traced drive's DiskSim files give its committed full model, key by key") {
  // interface_mb_s is no DiskSim parameter: the test passes the committed era rate. The bytes
  // themselves (provenance included) are the ctest sim_import_models' business.
  for (const auto& d : kDrives) {
    CAPTURE(d.parv);
    auto r = import_drive(d);
    REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
    auto want = load_model_file(kData + "/disk-models-disksim/" + d.model + ".json");
    REQUIRE_MESSAGE(want.ok(), (want.ok() ? "" : want.error().message));
    check_same(r->model, *want, Compare::all);
    // What DiskSim gives that the model has no key for is named, not lost.
    CHECK_FALSE(r->not_represented.empty());
    CHECK(r->unknown.empty());
    // The import is a valid model as written.
    auto again = parse_model(model_to_json(r->model));
    CHECK_MESSAGE(again.ok(), (again.ok() ? "" : again.error().message));
  }
}

// The drive's queue is DiskSim's: `Max queue length` requests at once, in its scheduler's order.
// The HP C2247A's own files (one request, FCFS), and the same with a longer queue under three
// policies, and without the length.
TEST_CASE("sim import: the queue is DiskSim's Max queue length served by its Scheduling policy") {
  const std::string dir = kData + "/disksim/native/";
  auto read = [](const std::string& path) {
    std::ifstream f(path);
    std::ostringstream ss;
    ss << f.rdbuf();
    return ss.str();
  };
  const std::string specs = read(dir + "hp_c2247a.diskspecs");
  REQUIRE(specs.find("Max queue length = 1,") != std::string::npos);
  REQUIRE(specs.find("Scheduling policy = 1,") != std::string::npos);
  auto import_with = [&](const std::string& length_line, const std::string& policy_line) {
    std::string edited = specs;
    edited.replace(edited.find("Max queue length = 1,"), 21, length_line);
    edited.replace(edited.find("Scheduling policy = 1,"), 22, policy_line);
    disksim::FileLoader load = [&](const std::string& name) -> Expected<std::string> {
      if (name == "hp_c2247a.diskspecs") return edited;
      return read(dir + name);
    };
    auto r = disksim::import_disksim("hp_c2247a.parv", load, {});
    REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
    return *r;
  };
  auto noted = [](const disksim::ImportResult& r, const char* what) {
    for (const auto& n : r.notes)
      if (n.find(what) != std::string::npos) return true;
    return false;
  };
  {
    const auto r = import_with("Max queue length = 1,", "Scheduling policy = 1,");
    CHECK(r.model.queue.protocol == QueueProtocol::none);
    CHECK(r.model.queue.depth == 1);
    CHECK(r.model.queue.policy == QueuePolicy::fifo);
    CHECK_FALSE(noted(r, "queue:"));
  }
  {
    const auto r = import_with("Max queue length = 16,", "Scheduling policy = 1,");
    CHECK(r.model.queue.protocol == QueueProtocol::tcq);
    CHECK(r.model.queue.depth == 16);
    CHECK(r.model.queue.policy == QueuePolicy::fifo);
    CHECK_FALSE(noted(r, "queue:"));
  }
  {
    const auto r = import_with("Max queue length = 16,", "Scheduling policy = 8,");  // SPTF_OPT
    CHECK(r.model.queue.policy == QueuePolicy::sptf);
    CHECK_FALSE(noted(r, "queue:"));
  }
  {
    const auto r = import_with("Max queue length = 16,", "Scheduling policy = 2,");  // ELEVATOR_LBN
    CHECK(r.model.queue.policy == QueuePolicy::sptf);
    CHECK(noted(r, "`Scheduling policy` 2 has no model policy"));
  }
  {
    const auto r = import_with("", "Scheduling policy = 1,");
    CHECK(r.model.queue.protocol == QueueProtocol::tcq);
    CHECK(r.model.queue.depth == 64);
    CHECK(noted(r, "no `Max queue length`"));
  }
}

TEST_CASE("sim import: the source form of each traced drive gives the model its DiskSim files give, but the bus") {
  // tests/data/disksim/NAME.json holds the values of the drive's .diskspecs, .model and .seek:
  // read through the same rules they must give the same model, save what the form leaves out
  // (the bus, the reconnection, where the slips are), and say that they left it out.
  for (const auto& d : kDrives) {
    CAPTURE(d.model);
    auto parv = import_drive(d);
    REQUIRE(parv.ok());
    std::ifstream in(kData + "/disksim/" + d.model + ".json", std::ios::binary);
    REQUIRE(in);
    std::ostringstream text;
    text << in.rdbuf();
    disksim::ImportOptions o;
    o.interface_mb_s = d.interface_mb_s;
    o.interface_given = true;
    auto src = disksim::import_source_form(text.str(), d.model + std::string(".json"), o);
    REQUIRE_MESSAGE(src.ok(), (src.ok() ? "" : src.error().message));
    check_same(src->model, parv->model, Compare::without_bus);
    bool said = false;
    for (const auto& n : src->notes) said = said || n.find("no bus") != std::string::npos;
    CHECK(said);
    CHECK(src->unknown.empty());
  }
}

TEST_CASE("sim import: DiskSim's spare sector at the end of every track (sparing scheme 3) is kept") {
  // The DEC RZ26 (dec_rz26_validate.model: sparing scheme 3, one spare in its one zone of 58
  // sectors a track) holds 57 LBAs a track in DiskSim (layout_g1.c g1_ltop_sectpertrackspare): the
  // import keeps the spare, so LBA 57 starts the second track and a track of data takes 58
  // sector times. Without the spare the LBA would sit on the first track's last sector.
  auto r = import_drive(kDrives[2]);
  REQUIRE(r.ok());
  const DiskModel& m = r->model;
  CHECK(m.format_version == 2);
  CHECK(m.layout_spec.spares_per_track == 1);
  CHECK(m.layout_spec.spares_per_cylinder == 0);
  CHECK(m.capacity() == 2050860);  // DiskSim's Block count: 2599 cylinders x 14 tracks x 57, less 23142 empty
  auto l = Layout::build(m, 0, 0);
  REQUIRE(l.ok());
  CHECK(l->locate(56).head == 0);
  CHECK(l->locate(56).sector == 56);
  CHECK(l->locate(57).head == 1);
  CHECK(l->locate(57).cyl == 0);
  // Schemes the format has no place for (the Atlas III's sparing scheme 7) stay out, named, and
  // so do their zone angles.
  auto atlas = import_drive(kDrives[4]);
  REQUIRE(atlas.ok());
  CHECK(atlas->model.format_version == 1);
  CHECK(atlas->model.layout_spec.spares_per_track == 0);
  CHECK(atlas->model.layout_spec.track_sparing.empty());
  CHECK(atlas->model.layout_spec.first_sector_offset.empty());
  bool named = false;
  for (const auto& n : atlas->not_represented) named = named || n.find("Number of spares") != std::string::npos;
  CHECK(named);
}

TEST_CASE("sim import: DiskSim's track sparing (scheme 1) and spares per cylinder (scheme 2) are kept") {
  // The HP C2247A (hp_c2247a_validate.model: sparing scheme 1) leaves 1 632 sectors empty at its
  // first zone's front, 325 spare tracks in that zone, and slips 12 tracks of which the last two
  // (6952, 7095) lie beyond the zone's last LBA: DiskSim's g1_ltop_trackspare never lands a
  // track on either, so they are not slipped tracks of the model. LBA 0 is on cylinder 1, surface
  // 4 (1 632 = 17 tracks of 96 sectors, 13 surfaces), and zone 1's first LBA (664 800) on its first
  // cylinder, 559, with the zone's "Offset of first block" 14.
  auto hp = import_drive(kDrives[0]);
  REQUIRE(hp.ok());
  const DiskModel& m = hp->model;
  CHECK(m.format_version == 2);
  REQUIRE(m.layout_spec.track_sparing.size() == m.zones.size());
  REQUIRE(m.layout_spec.track_sparing[0].has_value());
  const TrackSparing& z0 = *m.layout_spec.track_sparing[0];
  CHECK(z0.front_sectors == 1632);
  CHECK(z0.spare_tracks == 325);
  CHECK(z0.slipped_tracks ==
        std::vector<std::uint32_t>{468, 526, 1204, 1861, 2447, 2680, 3098, 3683, 4880, 4919});
  REQUIRE(m.layout_spec.first_sector_offset.size() == m.zones.size());
  CHECK(m.layout_spec.first_sector_offset[1] == std::optional<std::uint32_t>{14});
  CHECK(m.capacity() == 2054864);  // DiskSim's Block count: the zones hold exactly that
  CHECK(m.zone_sectors() == 2054864);
  auto l = Layout::build(m, 0, 0);
  REQUIRE(l.ok());
  CHECK(l->locate(0).cyl == 1);
  CHECK(l->locate(0).head == 4);
  CHECK(l->locate(664800).cyl == 559);
  CHECK(l->locate(664799).cyl < 559);
  for (const auto& n : hp->not_represented) {
    CAPTURE(n);
    for (auto name : {"Number of spares", "slips", "Empty space at zone front", "Offset of first block"})
      CHECK(n.find(name) == std::string::npos);
  }
  // The ST41601N (sparing scheme 2, 6 spares in every zone): spares.per_cylinder, its zone
  // angles, and its 27 slips (absorbed in DiskSim's cylinder spares) named, not kept.
  auto st = import_drive(kDrives[3]);
  REQUIRE(st.ok());
  CHECK(st->model.format_version == 2);
  CHECK(st->model.layout_spec.spares_per_cylinder == 6);
  CHECK(st->model.layout_spec.track_sparing.empty());
  CHECK(st->model.layout_spec.first_sector_offset.size() == st->model.zones.size());
  bool slips = false;
  for (const auto& n : st->not_represented) slips = slips || n.find("slips") != std::string::npos;
  CHECK(slips);
}

TEST_CASE("sim import: hostile input is an error naming the file and line, never a crash") {
  const std::string parv =
      "disksim_bus B { Read block transfer time = 0.1, Write block transfer time = 0.1 }\n"
      "source d.diskspecs\n"
      "instantiate [ bus1 ] as B\n"
      "instantiate [ disk0 ] as D\n"
      "topology disksim_bus bus1 [ disksim_disk disk0 [] ]\n";
  auto run = [&](std::map<std::string, std::string> fs) {
    if (!fs.count("a.parv")) fs["a.parv"] = parv;
    return disksim::import_disksim("a.parv", files(fs), {});
  };
  SUBCASE("missing .parv") {
    auto r = disksim::import_disksim("none.parv", files({}), {});
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().message.find("none.parv") != std::string::npos);
  }
  SUBCASE("missing sourced file") {
    auto r = run({});
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().message.find("a.parv:2") != std::string::npos);
    CHECK(r.error().message.find("d.diskspecs") != std::string::npos);
  }
  SUBCASE("truncated block") {
    auto r = run({{"d.diskspecs", "disksim_disk D {\n Model = 3,\n Fast write level = 0"}});
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().message.find("d.diskspecs:3") != std::string::npos);
    CHECK(r.error().message.find("closing") != std::string::npos);
  }
  SUBCASE("unbalanced braces") {
    auto r = run({{"d.diskspecs", "disksim_disk D {\n a = 1 }\n}\n"}});
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().message.find("d.diskspecs:3") != std::string::npos);
  }
  SUBCASE("truncated .parv") {
    auto r = run({{"a.parv", parv.substr(0, 40)}});
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().message.find("a.parv:1") != std::string::npos);
  }
  SUBCASE("a garbage number") {
    auto r = run({{"d.diskspecs", "disksim_disk D {\n Model = source m.model\n}\n"},
                  {"m.model", "dm_disk M {\n Number of data surfaces = 1x3,\n Block count = 10\n}\n"}});
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().message.find("m.model:2") != std::string::npos);
    CHECK(r.error().message.find("1x3") != std::string::npos);
  }
  SUBCASE("a source loop") {
    auto r = run({{"d.diskspecs", "source d.diskspecs\n"}});
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().message.find("nest") != std::string::npos);
  }
  SUBCASE("a bad seek file") {
    CHECK_FALSE(disksim::parse_seek_curve("Seek distances measured: 2\n1, 1.0\n", "s.seek").ok());
    auto bad = disksim::parse_seek_curve("Seek distances measured: 2\n1, 1.0\n2, x\n", "s.seek");
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.error().message.find("s.seek:3") != std::string::npos);
    CHECK(disksim::parse_seek_curve("Seek distances measured: 2\n1, 1.0\n2,\t1.5\n", "s.seek").ok());
  }
}

TEST_CASE("sim import: a hostile source form is an error naming the field, never a crash") {
  std::ifstream in(kData + "/disksim/hp_c2247a.json", std::ios::binary);
  REQUIRE(in);
  std::ostringstream ss;
  ss << in.rdbuf();
  const std::string good = ss.str();
  const auto doc = nlohmann::json::parse(good);
  auto import = [](const std::string& text) { return disksim::import_source_form(text, "my drive#1.json", {}); };
  REQUIRE(import(good).ok());  // a name with a space and a '#' is only a name
  auto fails_naming = [&](nlohmann::json j, const std::string& field) {
    CAPTURE(field);
    auto r = import(j.dump());
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().message.find(field) != std::string::npos);
    CHECK(r.error().message.find("my drive#1.json") != std::string::npos);
  };
  SUBCASE("not the source form") {
    CHECK_FALSE(import("[1, 2]").ok());
    nlohmann::json j = doc;
    j["schema"] = "disk-model/v9";
    CHECK_FALSE(import(j.dump()).ok());
  }
  SUBCASE("a missing field") {
    nlohmann::json j = doc;
    j["cache"].erase("segments");
    fails_naming(j, "cache.segments");
  }
  SUBCASE("a field of the wrong type") {
    nlohmann::json j = doc;
    j["layout_zones"][3]["first_cyl"] = "many";
    fails_naming(j, "layout_zones.3.first_cyl");
  }
  SUBCASE("a word that would be DiskSim syntax") {
    nlohmann::json j = doc;
    j["seek"]["type"] = "extracted }, Zones = [";
    fails_naming(j, "seek.type");
  }
  SUBCASE("an overhead name that would be DiskSim syntax") {
    nlohmann::json j = doc;
    j["overheads_ms"]["Read hit, or = 3"] = 1.0;
    fails_naming(j, "overheads_ms");
  }
  SUBCASE("a broken seek curve") {
    nlohmann::json j = doc;
    j["seek"]["curve_ms"] = nlohmann::json::array({nlohmann::json::array({1, 2, 3})});
    fails_naming(j, "seek.curve_ms");
  }
  SUBCASE("every truncation") {
    // Every cut before the closing brace (the file ends "}\n": a cut after it is the whole file).
    const std::size_t whole = good.rfind('}');
    for (std::size_t n = 0; n < whole; n += 61) CHECK_FALSE(import(good.substr(0, n)).ok());
  }
}
