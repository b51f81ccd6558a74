// The source form written back as DiskSim's files (sim/disksim_source.hpp). Each source field
// goes under the DiskSim name it was extracted from (tests/data/disksim/README.md), in the block
// DiskSim keeps it in; import_disksim does the rest.
#include "sim/disksim_source.hpp"

#include <nlohmann/json.hpp>

#include <charconv>
#include <optional>

namespace ds::sim::disksim {

namespace {

using nlohmann::json;

// A field by its path ("cache.segments", "layout_zones.3.spares": a number steps into a list),
// or null when any step is missing.
const json* at_path(const json& doc, std::string_view path) {
  const json* j = &doc;
  while (!path.empty()) {
    const auto dot = path.find('.');
    const std::string key(path.substr(0, dot));
    if (j->is_array()) {
      std::size_t i = 0;
      const auto [end, ec] = std::from_chars(key.data(), key.data() + key.size(), i);
      if (ec != std::errc() || end != key.data() + key.size() || i >= j->size()) return nullptr;
      j = &(*j)[i];
    } else {
      if (!j->is_object() || !j->contains(key)) return nullptr;
      j = &(*j)[key];
    }
    path = dot == std::string_view::npos ? std::string_view{} : path.substr(dot + 1);
  }
  return j;
}

// DiskSim parameter text, block by block, with the errors of the fields it reads.
class Writer {
 public:
  Writer(const json& doc, std::string name) : doc_(doc), name_(std::move(name)) {}

  // `Name = value` from a number field; a missing one is an error, as DiskSim's own file
  // without the parameter would be one where the importer needs it.
  std::optional<Error> number(std::string& out, const char* dsname, std::string_view path, const std::string& indent) {
    const json* j = at_path(doc_, path);
    if (!j || !j->is_number()) return make_error(name_ + ": `" + std::string(path) + "` must be a number");
    out += indent + dsname + " = " + j->dump() + ",\n";
    return std::nullopt;
  }
  // The same where the source form may leave the field out or give null (DiskSim then has its
  // default).
  std::optional<Error> optional_number(std::string& out, const char* dsname, std::string_view path, const std::string& indent) {
    const json* j = at_path(doc_, path);
    if (!j || j->is_null()) return std::nullopt;
    return number(out, dsname, path, indent);
  }
  Expected<std::string> word(std::string_view path) {
    const json* j = at_path(doc_, path);
    if (!j || !j->is_string() || j->get<std::string>().empty() ||
        j->get<std::string>().find_first_of(" \t\r\n,{}[]#=") != std::string::npos)
      return make_error(name_ + ": `" + std::string(path) + "` must be a single word");
    return j->get<std::string>();
  }
  Expected<std::string> number_list(std::string_view path, std::size_t n) {
    const json* j = at_path(doc_, path);
    if (!j || !j->is_array() || (n && j->size() != n))
      return make_error(name_ + ": `" + std::string(path) + "` must be a list" + (n ? " of " + std::to_string(n) : "") +
                        " numbers");
    std::string s = "[ ";
    for (const auto& x : *j) {
      if (!x.is_number()) return make_error(name_ + ": `" + std::string(path) + "` must hold numbers only");
      s += x.dump() + ", ";
    }
    s.resize(s.size() - 2);
    return s + " ]";
  }
  const std::string& name() const { return name_; }

 private:
  const json& doc_;
  std::string name_;
};

// The disk spec: its buffer, read-ahead and controller overheads (the .diskspecs).
Expected<std::string> diskspecs(Writer& w, const json& doc, const std::string& spec, const std::string& model_file) {
  std::string s = "disksim_disk " + spec + " {\n   Model = source " + model_file + ",\n";
  const std::string in = "   ";
  // The cache fields the importer reads, then those it reports as not represented.
  static constexpr std::pair<const char*, const char*> kCache[] = {
      {"Number of buffer segments", "cache.segments"},
      {"Segment size (in blks)", "cache.segment_size_blocks"},
      {"Maximum read-ahead (blks)", "cache.max_readahead_blocks"},
      {"Buffer continuous read", "cache.buffer_continuous_read"},
      {"Read-ahead over requested", "cache.readahead_over_requested"},
      {"Read-ahead on idle hit", "cache.readahead_on_idle_hit"},
      {"Fast write level", "cache.fast_write_level"}};
  for (const auto& [dsname, path] : kCache)
    if (auto e = w.number(s, dsname, path, in)) return *e;
  static constexpr std::pair<const char*, const char*> kOptional[] = {
      {"Maximum number of write segments", "cache.max_write_segments"},
      {"Use separate write segment", "cache.separate_write_segment"},
      {"Enable caching in buffer", "cache.enable_caching_in_buffer"},
      {"Minimum read-ahead (blks)", "cache.min_readahead_blocks"},
      {"Combine seq writes", "cache.combine_seq_writes"},
      {"Read any free blocks", "cache.read_any_free_blocks"},
      {"Max queue length", "queue.max_queue_length"},
      {"Avg sectors per cylinder", "queue.avg_sectors_per_cylinder"}};
  for (const auto& [dsname, path] : kOptional)
    if (auto e = w.optional_number(s, dsname, path, in)) return *e;
  // The overheads are kept under DiskSim's own names: each goes through as it is.
  const json* ov = at_path(doc, "overheads_ms");
  if (!ov || !ov->is_object()) return make_error(w.name() + ": `overheads_ms` must be an object of DiskSim's overheads");
  for (const auto& [key, value] : ov->items()) {
    if (key.empty() || key.find_first_of(",{}[]#=\n") != std::string::npos)
      return make_error(w.name() + ": `overheads_ms` has a key that is no DiskSim parameter name: " + key);
    if (!value.is_number()) return make_error(w.name() + ": `overheads_ms." + key + "` must be a number");
    s += in + key + " = " + value.dump() + ",\n";
  }
  s.resize(s.size() - 2);
  return s + "\n}\n";
}

// One layout zone's numbers (its slips and defects are the caller's: the source form counts
// them but does not list them).
Expected<std::string> zone(Writer& w, std::size_t i) {
  const std::string p = "layout_zones." + std::to_string(i) + ".";
  std::string s = "         dm_layout_g1_zone {\n";
  const std::string in = "            ";
  static constexpr std::pair<const char*, const char*> kZone[] = {
      {"First cylinder number", "first_cyl"},       {"Last cylinder number", "last_cyl"},
      {"Blocks per track", "sectors_per_track"},    {"Skew for track switch", "track_skew_sectors"},
      {"Skew for cylinder switch", "cylinder_skew_sectors"}};
  static constexpr std::pair<const char*, const char*> kOptional[] = {
      {"Offset of first block", "first_block_offset"},
      {"Empty space at zone front", "empty_space_at_zone_front"},
      {"Number of spares", "spares"}};
  for (const auto& [dsname, key] : kZone)
    if (auto e = w.number(s, dsname, p + key, in)) return *e;
  for (const auto& [dsname, key] : kOptional)
    if (auto e = w.optional_number(s, dsname, p + key, in)) return *e;
  return s;
}

// The layout block (the .model's `Layout Model`), its zones in the source's order.
Expected<std::string> layout(Writer& w, const json& doc, std::vector<std::string>& notes) {
  const std::string& name = w.name();
  std::string m;
  auto layout_type = w.word("layout.type");
  if (!layout_type) return layout_type.error();
  m += "   Layout Model = " + *layout_type + " {\n";
  for (const auto& [dsname, path] : {std::pair{"LBN-to-PBN mapping scheme", "layout.mapping_scheme"},
                                     std::pair{"Sparing scheme used", "layout.sparing_scheme"},
                                     std::pair{"Rangesize for sparing", "layout.rangesize_for_sparing"}})
    if (auto e = w.optional_number(m, dsname, path, "      ")) return *e;
  const json* zones = at_path(doc, "layout_zones");
  if (!zones || !zones->is_array() || zones->empty())
    return make_error(name + ": `layout_zones` must be a list of DiskSim's layout zones");
  m += "      Zones = [\n";
  std::size_t unlisted = 0;
  for (std::size_t i = 0; i < zones->size(); ++i) {
    auto z = zone(w, i);
    if (!z) return z.error();
    m += *z;
    for (const char* list : {"slips", "defects"}) {
      const json& count = (*zones)[i].contains(list) ? (*zones)[i][list] : json(0);
      if (!count.is_number()) return make_error(name + ": `layout_zones." + std::to_string(i) + "." + list + "` must be a count");
      // A zone with none gets DiskSim's empty list; one with some gets a word in the list's
      // place, so that no rule reads an empty list where the drive had entries.
      const bool none = count.get<double>() == 0;
      m += std::string("            ") + list + " = " + (none ? "[]" : "unlisted") + ",\n";
      if (!none && std::string_view(list) == "slips") ++unlisted;
    }
    m.resize(m.size() - 2);
    m += "\n         },\n";
  }
  m.resize(m.size() - 2);
  m += "\n      ]\n   },\n";
  if (unlisted)
    notes.push_back(std::to_string(unlisted) +
                    " zones have slips the source form counts but does not list (DiskSim's .model lists them)");

  return m;
}

// The mechanics block (the .model's `Mechanical Model`); an extracted seek curve goes to its
// own file, `seek_file` in `files`, as DiskSim keeps it.
Expected<std::string> mechanics(Writer& w, const json& doc, const std::string& seek_file,
                                std::map<std::string, std::string>& files) {
  const std::string& name = w.name();
  std::string m;
  m += "   Mechanical Model = dm_mech_g1 {\n";
  const std::string in = "      ";
  auto access = w.word("access_time_type");
  if (!access) return access.error();
  m += in + "Access time type = " + *access + ",\n";
  for (const auto& [dsname, path] : {std::pair{"Rotation speed (in rpms)", "rotation.rpm"},
                                     std::pair{"Head switch time", "head_switch_ms"}})
    if (auto e = w.number(m, dsname, path, in)) return *e;
  for (const auto& [dsname, path] : {std::pair{"Percent error in rpms", "rotation.percent_error"},
                                     std::pair{"Add. write settling delay", "add_write_settle_ms"},
                                     std::pair{"Single cylinder seek time", "seek.single_cylinder_ms"},
                                     std::pair{"Average seek time", "seek.average_ms"},
                                     std::pair{"Full strobe seek time", "seek.full_strobe_ms"}})
    if (auto e = w.optional_number(m, dsname, path, in)) return *e;
  auto seek_type = w.word("seek.type");
  if (!seek_type) return seek_type.error();
  m += in + "Seek type = " + *seek_type + ",\n";
  if (at_path(doc, "seek.hpl_values")) {
    // The six HPL values under their roles' names, in DiskSim's order v1..v6.
    const json* h = at_path(doc, "seek.hpl_values");
    const char* keys[] = {"V1_boundary_cyl", "V2", "V3", "V4", "V5", "V6_single_cyl"};
    std::string list = "[ ";
    for (const char* k : keys) {
      if (!h->is_object() || !h->contains(k) || !(*h)[k].is_number())
        return make_error(name + ": `seek.hpl_values." + k + "` must be a number");
      list += (*h)[k].dump() + ", ";
    }
    list.resize(list.size() - 2);
    m += in + "HPL seek equation values = " + list + " ],\n";
  }
  if (at_path(doc, "seek.first_ten_ms")) {
    auto l = w.number_list("seek.first_ten_ms", 10);
    if (!l) return l.error();
    m += in + "First ten seek times = " + *l + ",\n";
  }
  if (const json* c = at_path(doc, "seek.curve_ms")) {
    if (!c->is_array()) return make_error(name + ": `seek.curve_ms` must be a list of [distance, ms]");
    std::string t = "Seek distances measured: " + std::to_string(c->size()) + "\n";
    for (const auto& p : *c) {
      if (!p.is_array() || p.size() != 2 || !p[0].is_number() || !p[1].is_number())
        return make_error(name + ": `seek.curve_ms` must be a list of [distance, ms]");
      t += p[0].dump() + ", " + p[1].dump() + "\n";
    }
    files[seek_file] = t;
    m += in + "Full seek curve = " + seek_file + ",\n";
  }
  return m;
}

}  // namespace

Expected<SourceFormFiles> source_form_files(std::string_view json_text, const std::string& name) {
  const json doc = json::parse(json_text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) return make_error(name + ": not JSON");
  if (doc.value("schema", "") != "disk-model/v1")
    return make_error(name + ": not DiskSim's parameters in the source form (no \"schema\": \"disk-model/v1\")");
  Writer w(doc, name);
  SourceFormFiles out;
  auto spec = w.word("drive.disksim_spec_name");
  if (!spec) return spec.error();
  auto model_name = w.word("drive.disksim_model_name");
  if (!model_name) return model_name.error();
  // The files are named after the source file ("hp_c2247a.json:model"), so that a message about
  // a value says where it came from; characters DiskSim's syntax gives a meaning become '_'.
  std::string base = name;
  if (const auto slash = base.rfind('/'); slash != std::string::npos) base = base.substr(slash + 1);
  for (auto& c : base)
    if (c == ' ' || c == '\t' || c == '{' || c == '}' || c == '[' || c == ']' || c == ',' || c == '=' || c == '#') c = '_';
  const std::string parv = base + ":parv", specs = base + ":diskspecs", model = base + ":model", seek = base + ":seek";

  out.parv = parv;
  out.files[parv] = "# DiskSim's files as " + name + " holds them (written by drivescope)\nsource " + specs +
                    "\ninstantiate [ disk0 ] as " + *spec + "\ntopology disksim_iodriver driver0 [\n   disksim_disk disk0 []\n]\n";
  auto ds = diskspecs(w, doc, *spec, model);
  if (!ds) return ds.error();
  out.files[specs] = *ds;

  // The disk's model: geometry, layout and mechanics (the .model).
  std::string m = "dm_disk " + *model_name + " {\n";
  for (const auto& [dsname, path] : {std::pair{"Number of data surfaces", "geometry.surfaces"},
                                     std::pair{"Number of cylinders", "geometry.cylinders"},
                                     std::pair{"Block count", "geometry.block_count"}})
    if (auto e = w.number(m, dsname, path, "   ")) return *e;
  auto lay = layout(w, doc, out.notes);
  if (!lay) return lay.error();
  m += *lay;
  auto mech = mechanics(w, doc, seek, out.files);
  if (!mech) return mech.error();
  m += *mech;
  m.resize(m.size() - 2);
  m += "\n   }\n}\n";
  out.files[model] = m;
  if (doc.contains("provenance")) out.provenance = doc["provenance"].dump();
  out.notes.push_back(
      "the source form holds no bus, reconnection or write-disconnect figures: the model has no controller.bus, "
      "read_reconnect or write_reconnect (DiskSim's .parv and .diskspecs have them)");
  return out;
}

Expected<ImportResult> import_source_form(std::string_view json_text, const std::string& name, const ImportOptions& o) {
  auto files = source_form_files(json_text, name);
  if (!files) return files.error();
  FileLoader load = [&files](const std::string& n) -> Expected<std::string> {
    auto it = files->files.find(n);
    if (it == files->files.end()) return make_error("no file " + n + " in the source form");
    return it->second;
  };
  auto r = import_disksim(files->parv, load, o);
  if (!r) return r.error();
  for (auto& n : files->notes) r->notes.push_back(std::move(n));
  r->source_provenance = std::move(files->provenance);
  return r;
}

}  // namespace ds::sim::disksim
