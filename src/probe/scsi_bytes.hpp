// Big-endian readers and string helpers for the SCSI decoders. Callers check bounds
// first; these never read past what they are given.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "drivescope/wire.hpp"

namespace ds::scsi::detail {

// (the big-endian readers are the shared wire toolkit's, drivescope/wire.hpp)
inline std::uint16_t be16(std::span<const std::uint8_t> b, std::size_t at) { return wire::get_be16(b, at); }
inline std::uint32_t be32(std::span<const std::uint8_t> b, std::size_t at) { return wire::get_be32(b, at); }
inline std::uint64_t be64(std::span<const std::uint8_t> b, std::size_t at) { return wire::get_be64(b, at); }

// Printable ASCII of [at, at+n) clipped to the span; non-printable bytes become '.', as T10
// fields are meant to hold graphic ASCII only.
inline std::string ascii(std::span<const std::uint8_t> b, std::size_t at, std::size_t n) {
  std::string s;
  for (std::size_t i = at; i < at + n && i < b.size(); ++i) {
    const auto c = b[i];
    s.push_back(c >= 0x20 && c < 0x7F ? static_cast<char>(c) : '.');
  }
  return s;
}

inline std::string trim_right(std::string s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\0')) s.pop_back();
  return s;
}
inline std::string trim(std::string s) {
  s = trim_right(std::move(s));
  std::size_t i = 0;
  while (i < s.size() && s[i] == ' ') ++i;
  return s.substr(i);
}

inline std::string hex(std::span<const std::uint8_t> b) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string s;
  s.reserve(b.size() * 2);
  for (auto c : b) {
    s.push_back(digits[c >> 4]);
    s.push_back(digits[c & 0xF]);
  }
  return s;
}

}  // namespace ds::scsi::detail
