// Aligned "label: value" text in titled sections, shared by the human reports.
#pragma once
#include <fmt/core.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace ds::report {

// A byte as the reports show it: 0x04.
inline std::string hex2(unsigned v) { return fmt::format("0x{:02x}", v); }

// A string from a device (a SCSI name string, a sysfs model) made safe for a terminal: control
// characters (C0, DEL, and C1 as UTF-8), and bytes that are not UTF-8, become \xNN. An ESC from
// a drive must never reach the terminal, where it would start an escape sequence. Printable
// UTF-8 is kept as it is.
inline std::string printable(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  auto escape = [&out](unsigned char b) { out += fmt::format("\\x{:02x}", b); };
  for (std::size_t i = 0; i < s.size();) {
    const auto b = static_cast<unsigned char>(s[i]);
    if (b < 0x80) {
      if (b < 0x20 || b == 0x7F) escape(b);
      else out += static_cast<char>(b);
      ++i;
      continue;
    }
    // The length of a well-formed UTF-8 sequence from its lead byte (RFC 3629), or 0.
    const std::size_t n = b >= 0xC2 && b <= 0xDF ? 2 : b >= 0xE0 && b <= 0xEF ? 3 : b >= 0xF0 && b <= 0xF4 ? 4 : 0;
    bool ok = n > 0 && i + n <= s.size();
    std::uint32_t cp = n == 2 ? b & 0x1Fu : n == 3 ? b & 0x0Fu : b & 0x07u;
    for (std::size_t k = 1; ok && k < n; ++k) {
      const auto c = static_cast<unsigned char>(s[i + k]);
      ok = (c & 0xC0) == 0x80;
      cp = (cp << 6) | (c & 0x3Fu);
    }
    // Overlong forms, surrogates and code points past U+10FFFF are not UTF-8 either.
    ok = ok && !(n == 3 && cp < 0x800) && !(n == 4 && (cp < 0x10000 || cp > 0x10FFFF)) && !(cp >= 0xD800 && cp <= 0xDFFF);
    if (!ok || (cp >= 0x80 && cp <= 0x9F)) {
      for (std::size_t k = 0; k < (ok ? n : 1); ++k) escape(static_cast<unsigned char>(s[i + k]));
      i += ok ? n : 1;
      continue;
    }
    out.append(s.substr(i, n));
    i += n;
  }
  return out;
}

class TextOut {
 public:
  explicit TextOut(int label_width = 28) : width_(label_width) {}
  void section(std::string_view title) {
    if (!s_.empty()) s_ += '\n';
    s_ += fmt::format("{}\n", title);
  }
  // The value may come from a device: it is shown through printable().
  void line(std::string_view label, std::string_view value) {
    s_ += fmt::format("  {:<{}} {}\n", fmt::format("{}:", label), width_, printable(value));
  }
  std::string str() && { return std::move(s_); }

 private:
  int width_;
  std::string s_;
};

}  // namespace ds::report
