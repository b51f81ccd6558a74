#include "passthrough/inhex.hpp"

#include <fmt/format.h>

namespace ds {
namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool is_separator(char c) { return c == ' ' || c == '\t' || c == ',' || c == '\r'; }

}  // namespace

Expected<std::vector<std::uint8_t>> parse_inhex(std::string_view text) {
  std::vector<std::uint8_t> out;
  std::size_t line_no = 0;
  while (!text.empty()) {
    ++line_no;
    const std::size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = (nl == std::string_view::npos) ? std::string_view{} : text.substr(nl + 1);
    if (const std::size_t hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);

    std::size_t i = 0;
    while (i < line.size()) {
      if (is_separator(line[i])) {
        ++i;
        continue;
      }
      std::size_t j = i;
      while (j < line.size() && !is_separator(line[j])) ++j;
      std::string_view tok = line.substr(i, j - i);
      i = j;
      std::string_view digits = tok;
      if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) {
        digits.remove_prefix(2);
        if (digits.size() > 2)
          return make_error(fmt::format("inhex line {}: '{}' is more than one byte", line_no, tok));
      }
      for (char c : digits)
        if (hex_value(c) < 0)
          return make_error(fmt::format("inhex line {}: '{}' is not hex", line_no, tok));
      if (digits.size() <= 2) {
        int v = 0;
        for (char c : digits) v = v * 16 + hex_value(c);
        out.push_back(static_cast<std::uint8_t>(v));
      } else if (digits.size() % 2 == 0) {
        for (std::size_t k = 0; k < digits.size(); k += 2)
          out.push_back(static_cast<std::uint8_t>(hex_value(digits[k]) * 16 + hex_value(digits[k + 1])));
      } else {
        return make_error(fmt::format("inhex line {}: '{}' has an odd number of hex digits", line_no, tok));
      }
    }
  }
  if (out.empty()) return make_error("inhex input holds no bytes");
  return out;
}

}  // namespace ds
