#include "probe/drivedb.hpp"

#include <fmt/format.h>
#include <regex.h>

#include <array>
#include <cctype>
#include <fstream>
#include <memory>
#include <sstream>
#include <system_error>
#include <filesystem>

namespace ds::probe {

namespace {

// A cursor over the C source: skips blanks and comments, reads string expressions, counts lines.
class Lexer {
 public:
  explicit Lexer(std::string_view text) : s_(text) {}

  std::size_t line() const { return line_; }
  bool at_end() {
    skip();
    return i_ >= s_.size();
  }
  // The next significant character, or '\0' at the end; an unterminated comment is an error.
  Expected<char> peek() {
    if (auto e = skip(); !e.empty()) return make_error(e);
    return i_ < s_.size() ? s_[i_] : '\0';
  }
  void advance() { ++i_; }

  // One string expression: adjacent literals ("a" "b"), concatenated as the compiler would.
  Expected<std::string> string_expression() {
    std::string out;
    bool any = false;
    for (;;) {
      auto c = peek();
      if (!c) return c.error();
      if (*c != '"') break;
      any = true;
      ++i_;
      for (;;) {
        if (i_ >= s_.size() || s_[i_] == '\n')
          return make_error(fmt::format("line {}: a string literal is not closed", line_));
        const char ch = s_[i_++];
        if (ch == '"') break;
        if (ch != '\\') {
          out += ch;
          continue;
        }
        if (i_ >= s_.size()) return make_error(fmt::format("line {}: the file ends inside an escape", line_));
        const char e = s_[i_++];
        switch (e) {
          case '\\': case '"': case '\'': case '?': out += e; break;
          case 'n': out += '\n'; break;
          case 't': out += '\t'; break;
          default:
            return make_error(fmt::format("line {}: the escape \\{} is not one a drive table uses", line_,
                                          std::isprint(static_cast<unsigned char>(e)) ? std::string(1, e) : "?"));
        }
      }
    }
    if (!any)
      return make_error(i_ >= s_.size() ? fmt::format("line {}: the file ends inside an entry (truncated?)", line_)
                                        : fmt::format("line {}: a string was expected", line_));
    return out;
  }

 private:
  // Returns an error text, "" when fine.
  std::string skip() {
    while (i_ < s_.size()) {
      const char c = s_[i_];
      if (c == '\n') {
        ++line_;
        ++i_;
      } else if (std::isspace(static_cast<unsigned char>(c))) {
        ++i_;
      } else if (s_.compare(i_, 2, "//") == 0) {
        while (i_ < s_.size() && s_[i_] != '\n') ++i_;
      } else if (s_.compare(i_, 2, "/*") == 0) {
        const std::size_t start = line_;
        const auto end = s_.find("*/", i_ + 2);
        if (end == std::string_view::npos) return fmt::format("line {}: a comment is not closed", start);
        for (std::size_t k = i_; k < end; ++k) line_ += s_[k] == '\n';
        i_ = end + 2;
      } else {
        break;
      }
    }
    return "";
  }

  std::string_view s_;
  std::size_t i_ = 0;
  std::size_t line_ = 1;
};

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }


// An entry that names a drive family (not the version, the defaults, a USB bridge or a disabled one).
bool is_drive_entry(const DriveDbEntry& e) {
  return !starts_with(e.family, "$") && !starts_with(e.family, "USB:") && !starts_with(e.family, "VERSION:") &&
         e.family != "DEFAULT" && e.model_regex != "-" && !e.model_regex.empty();
}

}  // namespace

namespace drivedb_detail {

// A compiled POSIX ERE, freed with its owner. Named, not anonymous: DriveDbMatcher::Compiled (a
// member of an exported class) holds one, and a type with internal linkage there is an ODR hazard.
class Regex {
 public:
  explicit Regex(const std::string& pattern) { ok_ = ::regcomp(&re_, pattern.c_str(), REG_EXTENDED) == 0; }
  ~Regex() {
    if (ok_) ::regfree(&re_);
  }
  Regex(const Regex&) = delete;
  Regex& operator=(const Regex&) = delete;
  bool ok() const { return ok_; }
  // The whole string, as smartmontools' full_match: the leftmost-longest match spans all of it.
  bool full_match(const std::string& s) const {
    regmatch_t m{};
    if (::regexec(&re_, s.c_str(), 1, &m, 0) != 0) return false;
    return m.rm_so == 0 && static_cast<std::size_t>(m.rm_eo) == s.size();
  }

 private:
  regex_t re_{};
  bool ok_ = false;
};

}  // namespace drivedb_detail

using drivedb_detail::Regex;

Expected<DriveDb> parse_drivedb(std::string_view text) {
  if (text.find('\0') != std::string_view::npos) return make_error("a drive table is text; this has NUL bytes");
  Lexer lx(text);
  DriveDb db;
  for (;;) {
    auto c = lx.peek();
    if (!c) return c.error();
    if (*c == '\0') break;
    if (*c != '{')
      return make_error(fmt::format("line {}: an entry ('{{') was expected, not '{}'", lx.line(),
                                    std::isprint(static_cast<unsigned char>(*c)) ? std::string(1, *c) : "?"));
    DriveDbEntry e;
    e.line = lx.line();
    lx.advance();
    std::array<std::string*, 5> fields{&e.family, &e.model_regex, &e.firmware_regex, &e.warning, &e.presets};
    for (std::size_t k = 0; k < fields.size(); ++k) {
      auto s = lx.string_expression();
      if (!s) return make_error(fmt::format("{} (field {} of the entry of line {})", s.error().message, k + 1, e.line));
      *fields[k] = std::move(*s);
      auto sep = lx.peek();
      if (!sep) return sep.error();
      const char want = k + 1 < fields.size() ? ',' : '}';
      // A trailing comma before the brace is valid C; accept it.
      if (k + 1 == fields.size() && *sep == ',') {
        lx.advance();
        sep = lx.peek();
        if (!sep) return sep.error();
      }
      if (*sep != want)
        return make_error(fmt::format("line {}: the entry of line {} needs '{}' after field {}{}", lx.line(), e.line,
                                      want, k + 1, *sep == '\0' ? " (the file ends there: truncated?)" : ""));
      lx.advance();
    }
    if (starts_with(e.family, "VERSION:") && db.version.empty()) {
      auto v = std::string_view(e.family).substr(8);
      while (!v.empty() && v.front() == ' ') v.remove_prefix(1);
      db.version = std::string(v);
    }
    db.entries.push_back(std::move(e));
    auto sep = lx.peek();
    if (!sep) return sep.error();
    if (*sep == ',') lx.advance();
  }
  if (db.entries.empty()) return make_error("no entries: this is not a drive table");
  return db;
}

DriveDbPresets parse_presets(std::string_view presets) {
  DriveDbPresets p;
  std::istringstream in{std::string(presets)};
  std::string opt, arg;
  while (in >> opt) {
    if (opt != "-F" && opt != "-v") continue;
    if (!(in >> arg)) break;
    if (opt == "-F") {
      p.firmware_bugs.push_back(arg);
      continue;
    }
    // -v ID,FORMAT[:BYTEORDER][,NAME[,HDD|SSD]]: the NAME is the third field.
    const auto c1 = arg.find(',');
    if (c1 == std::string::npos) continue;
    int id = 0;
    try {
      id = std::stoi(arg.substr(0, c1));
    } catch (const std::exception&) {
      continue;  // "N" (every attribute) or another form we do not name
    }
    const auto c2 = arg.find(',', c1 + 1);
    if (c2 == std::string::npos || id < 1 || id > 255) continue;
    const auto c3 = arg.find(',', c2 + 1);
    p.attribute_names[id] = arg.substr(c2 + 1, c3 == std::string::npos ? std::string::npos : c3 - c2 - 1);
  }
  return p;
}

std::optional<bool> family_says_smr(std::string_view family) {
  if (family.find("(SMR)") != std::string_view::npos) return true;
  if (family.find("(CMR)") != std::string_view::npos || family.find("(PMR)") != std::string_view::npos) return false;
  return std::nullopt;
}

struct DriveDbMatcher::Compiled {
  const DriveDbEntry* entry;
  std::unique_ptr<Regex> model, firmware;  // firmware null: any firmware
};

DriveDbMatcher::DriveDbMatcher(const DriveDb& db) {
  for (const auto& e : db.entries) {
    if (!is_drive_entry(e)) continue;
    Compiled c{&e, std::make_unique<Regex>(e.model_regex), nullptr};
    if (!e.firmware_regex.empty()) c.firmware = std::make_unique<Regex>(e.firmware_regex);
    if (!c.model->ok() || (c.firmware && !c.firmware->ok())) {
      ++bad_;  // smartctl, too, skips an entry it cannot compile
      continue;
    }
    compiled_.push_back(std::move(c));
  }
}
DriveDbMatcher::~DriveDbMatcher() = default;
DriveDbMatcher::DriveDbMatcher(DriveDbMatcher&&) noexcept = default;

std::optional<DriveDbMatch> DriveDbMatcher::lookup(std::string_view model, std::string_view firmware) const {
  const std::string m(model), f(firmware);
  for (const auto& c : compiled_) {
    if (!c.model->full_match(m)) continue;
    if (c.firmware && !c.firmware->full_match(f)) continue;
    return DriveDbMatch{*c.entry, parse_presets(c.entry->presets), family_says_smr(c.entry->family)};
  }
  return std::nullopt;
}

std::vector<std::string> default_drivedb_paths() {
  return {"/etc/smart_drivedb.h", "/var/lib/smartmontools/drivedb/drivedb.h", "/usr/share/smartmontools/drivedb.h"};
}

namespace {

Expected<std::string> read_text(const std::filesystem::path& p) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(p, ec))
    return make_error(fmt::format("{}: not a regular file", p.string()));
  // The table is about 250 KB; anything far larger is not one.
  const auto size = std::filesystem::file_size(p, ec);
  if (ec) return make_error(fmt::format("{}: {}", p.string(), ec.message()));
  if (size > (64u << 20)) return make_error(fmt::format("{}: {} bytes is too large for a drive table", p.string(), size));
  std::ifstream in(p, std::ios::binary);
  if (!in) return make_error(fmt::format("{}: cannot be read", p.string()));
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

LoadedDriveDb load_drivedb(const std::string& explicit_path, const std::string& root) {
  LoadedDriveDb out;
  auto add = [&](const std::filesystem::path& p, const std::string& shown) -> bool {
    auto text = read_text(p);
    if (!text) {
      out.note = text.error().message;
      out.failed = true;
      return false;
    }
    auto db = parse_drivedb(*text);
    if (!db) {
      out.note = fmt::format("{}: not a drive table: {}", shown, db.error().message);
      out.failed = true;
      return false;
    }
    if (out.db.version.empty()) out.db.version = db->version;
    for (auto& e : db->entries) out.db.entries.push_back(std::move(e));
    out.sources.push_back(shown);
    return true;
  };
  if (!explicit_path.empty()) {
    if (!add(explicit_path, explicit_path)) out.db = {};
    return out;
  }
  const auto paths = default_drivedb_paths();
  const std::filesystem::path base(root.empty() ? "/" : root);
  std::error_code ec;
  // The administrator's additions come first (searched before the table), when present.
  const auto extra = base / paths[0].substr(1);
  if (std::filesystem::exists(extra, ec) && !add(extra, paths[0])) {
    out.db = {};
    out.sources.clear();
    return out;
  }
  for (std::size_t k = 1; k < paths.size(); ++k) {
    const auto p = base / paths[k].substr(1);
    if (!std::filesystem::exists(p, ec)) continue;
    if (!add(p, paths[k])) {
      out.db = {};
      out.sources.clear();
    }
    return out;
  }
  out.note = fmt::format("smartmontools' drive database is not installed ({} or {}; Debian: apt install smartmontools)",
                         paths[1], paths[2]);
  if (!out.sources.empty()) out.note.clear();  // only the administrator's file: searched alone
  return out;
}

}  // namespace ds::probe
