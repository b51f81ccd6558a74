// Shared helpers for the SCSI decoder tests: read the sg3_utils fixtures in tests/data/scsi and
// pull figures out of sg_inq / sg_vpd text so the decoders are checked against an independent
// decode rather than against numbers typed in by hand.
#pragma once
#include <cctype>
#include <cstdint>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "passthrough/inhex.hpp"

namespace ds::scsitest {

inline std::string read_text(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

inline std::string data_path(const std::string& name) {
  return std::string(DS_TEST_DATA) + "/scsi/" + name;
}

inline std::vector<std::uint8_t> load_hex(const std::string& name) {
  auto r = ds::parse_inhex(read_text(data_path(name)));
  if (!r) return {};
  return *r;
}

// Splits a stream of concatenated VPD pages (vpd_sdeb.hex) by their headers.
inline std::map<std::uint8_t, std::vector<std::uint8_t>> split_vpd_pages(
    const std::vector<std::uint8_t>& all) {
  std::map<std::uint8_t, std::vector<std::uint8_t>> pages;
  std::size_t at = 0;
  while (at + 4 <= all.size()) {
    const std::size_t n = 4 + ((std::size_t{all[at + 2]} << 8) | all[at + 3]);
    if (at + n > all.size()) break;
    pages[all[at + 1]].assign(all.begin() + at, all.begin() + at + n);
    at += n;
  }
  return pages;
}

inline std::string trim(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  std::size_t i = 0;
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  return s.substr(i);
}

inline std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  for (std::string l; std::getline(ss, l);) out.push_back(l);
  return out;
}

// "Label: value" lines of sg_vpd / sg_inq output: label (trimmed) -> value (leading space
// removed, trailing kept as printed).
inline std::map<std::string, std::string> labelled(const std::string& text) {
  std::map<std::string, std::string> m;
  for (const auto& l : lines_of(text)) {
    const auto c = l.find(": ");
    if (c == std::string::npos) continue;
    m[trim(l.substr(0, c))] = l.substr(c + 2);
  }
  return m;
}

// The first unsigned number in a value ("65535 blocks", "0xffff blocks", "0 [invalid]").
inline unsigned long long first_number(const std::string& v) {
  return std::stoull(trim(v), nullptr, 0);
}

// NAME=VALUE tokens of sg_inq's standard INQUIRY lines, brackets around obsolete ones dropped.
inline std::map<std::string, std::string> flag_tokens(const std::string& text) {
  std::map<std::string, std::string> m;
  std::stringstream ss(text);
  for (std::string tok; ss >> tok;) {
    while (!tok.empty() && (tok.front() == '[' || tok.front() == '(')) tok.erase(tok.begin());
    while (!tok.empty() && (tok.back() == ']' || tok.back() == ')')) tok.pop_back();
    const auto eq = tok.find('=');
    if (eq == std::string::npos || eq == 0) continue;
    m.emplace(tok.substr(0, eq), tok.substr(eq + 1));  // first occurrence wins
  }
  return m;
}

// One designator as sg_vpd prints it in a Device Identification page decode.
struct SgDesignator {
  std::string association, type, code_set, transport, value;
};

inline std::vector<SgDesignator> sg_designators(const std::string& text) {
  std::vector<SgDesignator> out;
  std::string assoc;
  bool want_next_line_value = false;
  for (const auto& raw : lines_of(text)) {
    const std::string l = trim(raw);
    if (l.empty()) continue;
    if (want_next_line_value) {
      out.back().value = l;
      want_next_line_value = false;
      continue;
    }
    // Association headers are the only lines indented by exactly two spaces.
    if (raw.rfind("  ", 0) == 0 && raw[2] != ' ' && l.back() == ':') {
      assoc = l.substr(0, l.size() - 1);
    } else if (l.rfind("designator type: ", 0) == 0) {
      SgDesignator d;
      d.association = assoc;
      const auto comma = l.find(",  code set: ");
      d.type = l.substr(17, comma - 17);
      d.code_set = l.substr(comma + 13);
      out.push_back(d);
    } else if (!out.empty() && l.rfind("transport: ", 0) == 0) {
      out.back().transport = l.substr(11);
    } else if (!out.empty() && l == "SCSI name string:") {
      want_next_line_value = true;
    } else if (!out.empty() && l.rfind("vendor id: ", 0) == 0) {
      out.back().value = raw.substr(raw.find(": ") + 2);
    } else if (!out.empty() && l.rfind("vendor specific: ", 0) == 0) {
      out.back().value += raw.substr(raw.find(": ") + 2);
    } else if (!out.empty() && l.find(": 0x") != std::string::npos) {
      out.back().value = l.substr(l.find(": 0x") + 2);
    } else if (!out.empty() && l.rfind("0x", 0) == 0) {
      out.back().value = l;
    }
  }
  return out;
}

}  // namespace ds::scsitest
