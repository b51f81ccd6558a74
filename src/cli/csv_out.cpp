// --csv[=TABLE]: the tables of a command's result as CSV (RFC 4180) instead of the aligned text.
// One rule for every command, taken from the JSON document rather than from each command's text
// layout: every array of objects in the document is a table (its dotted path is the name), one
// row per element, one column per scalar leaf (nested objects flattened as a.b, arrays of scalars
// joined with ';'); an array of objects inside a row is left out of the row and is a table of its
// own, named PATH[i].KEY.
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/cli.hpp"

namespace ds::cli {

namespace {

using nlohmann::json;

std::unique_ptr<std::string>& csv_selection() {
  static std::unique_ptr<std::string> table;  // null: no --csv; "": every table
  return table;
}

std::string scalar_text(const json& v) {
  if (v.is_null()) return "";
  if (v.is_string()) return v.get<std::string>();
  return v.dump(-1, ' ', false, json::error_handler_t::replace);
}

bool is_object_array(const json& v) {
  if (!v.is_array() || v.empty()) return false;
  for (const auto& e : v)
    if (!e.is_object()) return false;
  return true;
}

// One element's scalar leaves under dotted names, in document order.
void flatten(const json& obj, const std::string& prefix, std::vector<std::pair<std::string, std::string>>& out) {
  for (const auto& [k, v] : obj.items()) {
    const std::string name = prefix.empty() ? k : prefix + "." + k;
    if (v.is_object()) {
      flatten(v, name, out);
    } else if (v.is_array()) {
      if (is_object_array(v)) continue;
      std::string joined;
      for (const auto& e : v) joined += (joined.empty() ? "" : ";") + scalar_text(e);
      out.emplace_back(name, joined);
    } else {
      out.emplace_back(name, scalar_text(v));
    }
  }
}

CsvTable table_of(const std::string& name, const json& rows) {
  CsvTable t{name, {}, {}};
  std::map<std::string, std::size_t> column;
  std::vector<std::vector<std::pair<std::string, std::string>>> cells;
  for (const auto& r : rows) {
    cells.emplace_back();
    flatten(r, "", cells.back());
    for (const auto& c : cells.back())
      if (column.emplace(c.first, t.header.size()).second) t.header.push_back(c.first);
  }
  for (const auto& row : cells) {
    std::vector<std::string> line(t.header.size());
    for (const auto& [k, v] : row) line[column[k]] = v;
    t.rows.push_back(std::move(line));
  }
  return t;
}

void collect(const json& v, const std::string& path, std::vector<CsvTable>& out) {
  if (is_object_array(v)) {
    out.push_back(table_of(path, v));
    // A list of objects inside a row (compare's rows of each table, a queue depth's histogram)
    // is a table of its own, named after its row: compare.tables[0].rows.
    for (std::size_t i = 0; i < v.size(); ++i)
      for (const auto& [k, child] : v[i].items())
        if (child.is_object() || child.is_array()) collect(child, fmt::format("{}[{}].{}", path, i, k), out);
    return;
  }
  if (!v.is_object()) return;
  for (const auto& [k, child] : v.items()) collect(child, path.empty() ? k : path + "." + k, out);
}

}  // namespace

std::string csv_field(std::string_view s) {
  if (s.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(s);
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::vector<CsvTable> csv_tables(const nlohmann::json& doc) {
  std::vector<CsvTable> out;
  collect(doc, "", out);
  return out;
}

std::string to_csv(const CsvTable& t) {
  std::string s;
  auto line = [&s](const std::vector<std::string>& cells) {
    for (std::size_t i = 0; i < cells.size(); ++i) s += (i ? "," : "") + csv_field(cells[i]);
    s += "\r\n";  // RFC 4180 2.1: CRLF line breaks
  };
  line(t.header);
  for (const auto& r : t.rows) line(r);
  return s;
}

CLI::Option* add_csv_flag(CLI::App* c) {
  auto table = std::make_shared<std::string>();
  auto* opt = c->add_flag("--csv", *table,
                          "the tables as CSV (RFC 4180) instead of text, each after a line \"# NAME\"; "
                          "--csv=NAME: only that table, without the name line");
  opt->option_text("[=TABLE]");
  opt->each([table](const std::string& v) { csv_selection() = std::make_unique<std::string>(v == "true" ? "" : v); });
  return opt;
}

bool csv_requested() { return csv_selection() != nullptr; }

int print_csv(const nlohmann::json& doc) {
  const auto tables = csv_tables(doc);
  const std::string& want = *csv_selection();
  std::string names;
  for (const auto& t : tables) {
    if (!want.empty() && t.name == want) {
      std::cout << to_csv(t) << std::flush;
      return app::kExitOk;
    }
    names += (names.empty() ? "" : ", ") + t.name;
  }
  if (!want.empty()) {
    std::fprintf(stderr, "drivescope: --csv=%s: no such table here (tables: %s)\n", want.c_str(),
                 names.empty() ? "none" : names.c_str());
    return app::kExitUsage;
  }
  for (std::size_t i = 0; i < tables.size(); ++i)
    std::cout << (i ? "\r\n" : "") << "# " << tables[i].name << "\r\n" << to_csv(tables[i]);
  std::cout << std::flush;
  return app::kExitOk;
}

}  // namespace ds::cli
