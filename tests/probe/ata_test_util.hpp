// Shared helpers for the ATA decoder tests: the real-drive fixtures in tests/data/identify, their
// summary.csv, and parsers for the text of two independent decoders (hdparm --Istdin, skdump) so
// our decode is checked against other tools rather than against numbers typed in by hand.
#pragma once
#include <unistd.h>

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace ds::atatest {

inline std::string identify_dir() { return std::string(DS_TEST_DATA) + "/identify"; }
inline std::string drive_path(const std::string& drive, const std::string& file) {
  return identify_dir() + "/" + drive + "/" + file;
}

inline std::string read_text(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

inline std::vector<std::uint8_t> read_bytes(const std::string& path) {
  const std::string s = read_text(path);
  return {s.begin(), s.end()};
}

inline std::string trim(const std::string& s) {
  const auto a = s.find_first_not_of(" \t\r\n");
  if (a == std::string::npos) return {};
  const auto b = s.find_last_not_of(" \t\r\n");
  return s.substr(a, b - a + 1);
}

// summary.csv: a header line, then one row per blob; no field holds a comma or a quote.
using CsvRow = std::map<std::string, std::string>;
inline std::vector<CsvRow> read_summary() {
  std::istringstream in(read_text(identify_dir() + "/summary.csv"));
  std::string line;
  std::vector<std::string> header;
  std::vector<CsvRow> rows;
  auto split = [](const std::string& l) {
    std::vector<std::string> f;
    std::string cur;
    for (char c : l) {
      if (c == ',') f.push_back(cur), cur.clear();
      else if (c != '\r') cur += c;
    }
    f.push_back(cur);
    return f;
  };
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    auto f = split(line);
    if (header.empty()) { header = f; continue; }
    CsvRow r;
    for (std::size_t i = 0; i < header.size() && i < f.size(); ++i) r[header[i]] = f[i];
    rows.push_back(std::move(r));
  }
  return rows;
}

inline std::optional<std::uint64_t> to_u64(const std::string& s) {
  if (s.empty()) return std::nullopt;
  return std::strtoull(s.c_str(), nullptr, 0);
}

// What hdparm -I / --Istdin printed.
struct HdparmText {
  std::string model, serial, firmware;
  std::optional<std::uint64_t> lba28, lba48;
  std::optional<int> queue_depth;
  std::optional<int> aam_recommended, aam_current;
  std::optional<int> apm_level;
  std::map<std::string, bool> features;  // "Commands/features" line → enabled mark '*'
  std::string checksum;                  // "correct", ...
  std::map<std::string, bool> security;  // "Security:" lines: "supported", "enabled", "locked",
                                         // "frozen", "supported: enhanced erase" → not/yes
  std::optional<int> erase_minutes, enhanced_erase_minutes;
  std::string wwn;                       // "Logical Unit WWN Device Identifier"
  bool has_feature(const std::string& n) const { return features.count(n) != 0; }
};

inline std::string after_colon(const std::string& line) {
  const auto p = line.find(':');
  return p == std::string::npos ? std::string() : trim(line.substr(p + 1));
}

inline HdparmText parse_hdparm(const std::string& text) {
  HdparmText h;
  std::istringstream in(text);
  std::string line;
  bool in_features = false, in_security = false;
  while (std::getline(in, line)) {
    const std::string t = trim(line);
    if (t.rfind("Security:", 0) == 0) { in_security = true; continue; }
    if (in_security) {
      if (line.empty() || line[0] != '\t') {
        in_security = false;
      } else {
        int a = -1, b = -1;
        if (std::sscanf(t.c_str(), "%dmin for SECURITY ERASE UNIT. %dmin for ENHANCED", &a, &b) >= 1) {
          h.erase_minutes = a;
          if (b >= 0) h.enhanced_erase_minutes = b;
        } else if (t.rfind("not", 0) == 0) {
          h.security[trim(t.substr(3))] = false;
        } else {
          h.security[t] = true;
        }
        continue;
      }
    }
    if (t.rfind("Logical Unit WWN Device Identifier:", 0) == 0) h.wwn = after_colon(t);
    if (t.rfind("Model Number:", 0) == 0) h.model = after_colon(t);
    else if (t.rfind("Serial Number:", 0) == 0) h.serial = after_colon(t);
    else if (t.rfind("Firmware Revision:", 0) == 0) h.firmware = after_colon(t);
    else if (t.rfind("LBA    user addressable sectors:", 0) == 0) h.lba28 = to_u64(after_colon(t));
    else if (t.rfind("LBA48  user addressable sectors:", 0) == 0) h.lba48 = to_u64(after_colon(t));
    else if (t.rfind("Queue depth:", 0) == 0) h.queue_depth = std::atoi(after_colon(t).c_str());
    else if (t.rfind("Advanced power management level:", 0) == 0) {
      const std::string v = after_colon(t);
      if (!v.empty() && std::isdigit(static_cast<unsigned char>(v[0]))) h.apm_level = std::atoi(v.c_str());
    } else if (t.rfind("Recommended acoustic management value:", 0) == 0) {
      // "Recommended acoustic management value: 254, current value: 128"
      int rec = -1, cur = -1;
      if (std::sscanf(t.c_str(), "Recommended acoustic management value: %d, current value: %d",
                      &rec, &cur) == 2) {
        h.aam_recommended = rec;
        h.aam_current = cur;
      }
    } else if (t.rfind("Checksum:", 0) == 0) {
      h.checksum = after_colon(t);
    }
    if (t.rfind("Commands/features:", 0) == 0) { in_features = true; continue; }
    if (in_features) {
      // Feature lines are "\t   *\tName" (enabled) or "\t    \tName"; a line not starting
      // with a tab ends the section.
      if (line.empty() || line[0] != '\t') { in_features = false; continue; }
      if (t.rfind("Enabled", 0) == 0) continue;
      const auto tab2 = line.find('\t', 1);
      if (tab2 == std::string::npos) continue;
      const std::string mark = line.substr(1, tab2 - 1);
      h.features[trim(line.substr(tab2 + 1))] = mark.find('*') != std::string::npos;
    }
  }
  return h;
}

inline std::string strip_ansi(const std::string& s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\x1b' && i + 1 < s.size() && s[i + 1] == '[') {
      i += 2;
      while (i < s.size() && !std::isalpha(static_cast<unsigned char>(s[i]))) ++i;
      continue;
    }
    out += s[i];
  }
  return out;
}

// skdump --load text: "Key: value" lines and the attribute table.
struct SkdumpAttr {
  int id = 0;
  std::string name;
  int value = 0, worst = 0;
  std::string threshold;  // a number or "n/a"
  std::string raw_hex;    // "0x..." as printed
  std::string type;       // "prefail" / "old-age"
  std::string good;       // "yes" / "no" / "n/a"
};
struct SkdumpText {
  std::map<std::string, std::string> keys;
  std::vector<SkdumpAttr> attrs;
};

inline SkdumpText parse_skdump(const std::string& raw) {
  SkdumpText s;
  std::istringstream in(strip_ansi(raw));
  std::string line;
  bool table = false;
  while (std::getline(in, line)) {
    if (line.rfind("ID# ", 0) == 0) { table = true; continue; }
    if (table) {
      std::istringstream ls(line);
      SkdumpAttr a;
      if (!(ls >> a.id >> a.name >> a.value >> a.worst >> a.threshold)) continue;
      // Pretty may be several words; the raw field is the first token that starts with 0x.
      std::string tok;
      while (ls >> tok && tok.rfind("0x", 0) != 0) {}
      a.raw_hex = tok;
      std::string updates;
      ls >> a.type >> updates >> a.good;
      s.attrs.push_back(a);
      continue;
    }
    const auto p = line.find(": ");
    if (p != std::string::npos) s.keys[line.substr(0, p)] = trim(line.substr(p + 2));
  }
  return s;
}

// Path of an installed hdparm, if any (/sbin, /usr/sbin, then PATH).
inline std::optional<std::string> find_hdparm() {
  for (const char* p : {"/sbin/hdparm", "/usr/sbin/hdparm"})
    if (::access(p, X_OK) == 0) return std::string(p);
  if (const char* path = std::getenv("PATH")) {
    std::istringstream ps(path);
    std::string dir;
    while (std::getline(ps, dir, ':')) {
      const std::string p = dir + "/hdparm";
      if (!dir.empty() && ::access(p.c_str(), X_OK) == 0) return p;
    }
  }
  return std::nullopt;
}

// Runs a shell command and returns its stdout+stderr (exit code in *rc).
inline std::string run_capture(const std::string& cmd, int* rc) {
  std::string out;
  FILE* p = ::popen((cmd + " 2>&1").c_str(), "r");
  if (!p) { *rc = -1; return out; }
  std::array<char, 4096> buf{};
  std::size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  *rc = ::pclose(p);
  return out;
}

// A fresh temp directory removed when the object dies (malformed fixtures live only here).
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "ds_ata_test_XXXXXX").string();
    if (::mkdtemp(tmpl.data())) path = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    if (!path.empty()) std::filesystem::remove_all(path, ec);
  }
  std::string write(const std::string& name, const std::vector<std::uint8_t>& bytes) const {
    const auto p = (path / name).string();
    std::ofstream f(p, std::ios::binary);
    f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    return p;
  }
  std::string write_text(const std::string& name, const std::string& text) const {
    return write(name, std::vector<std::uint8_t>(text.begin(), text.end()));
  }
};

}  // namespace ds::atatest
