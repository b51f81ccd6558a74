// Aligned "label: value" text in titled sections, shared by the human reports.
#pragma once
#include <fmt/core.h>

#include <string>
#include <string_view>

namespace ds::report {

// A byte as the reports show it: 0x04.
inline std::string hex2(unsigned v) { return fmt::format("0x{:02x}", v); }

class TextOut {
 public:
  explicit TextOut(int label_width = 28) : width_(label_width) {}
  void section(std::string_view title) {
    if (!s_.empty()) s_ += '\n';
    s_ += fmt::format("{}\n", title);
  }
  void line(std::string_view label, std::string_view value) {
    s_ += fmt::format("  {:<{}} {}\n", fmt::format("{}:", label), width_, value);
  }
  std::string str() && { return std::move(s_); }

 private:
  int width_;
  std::string s_;
};

}  // namespace ds::report
