// The bytes on the wire, shared by every area that reads or writes them (the passthrough layer
// building CDBs, the probe decoding answers, the simulator answering commands): big-endian
// fields (SCSI's byte order, SPC-4 3.5), the SPC-4 sense keys by name, and fixed-format sense
// data. Pure functions; callers check bounds first, and these never read or write past what the
// caller says is there.
#pragma once
#include <array>
#include <cstdint>
#include <span>

namespace ds::wire {

inline std::uint64_t get_be(std::span<const std::uint8_t> b, std::size_t at, int bytes) {
  std::uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v = (v << 8) | b[at + static_cast<std::size_t>(i)];
  return v;
}
inline std::uint16_t get_be16(std::span<const std::uint8_t> b, std::size_t at) {
  return static_cast<std::uint16_t>(get_be(b, at, 2));
}
inline std::uint32_t get_be32(std::span<const std::uint8_t> b, std::size_t at) {
  return static_cast<std::uint32_t>(get_be(b, at, 4));
}
inline std::uint64_t get_be64(std::span<const std::uint8_t> b, std::size_t at) { return get_be(b, at, 8); }

inline void put_be(std::uint8_t* p, std::uint64_t v, int bytes) {
  for (int i = bytes - 1; i >= 0; --i, v >>= 8) p[i] = static_cast<std::uint8_t>(v & 0xFF);
}
inline void put_be16(std::uint8_t* p, std::uint32_t v) { put_be(p, v, 2); }
inline void put_be32(std::uint8_t* p, std::uint32_t v) { put_be(p, v, 4); }
inline void put_be64(std::uint8_t* p, std::uint64_t v) { put_be(p, v, 8); }

// SPC-4 4.5.6, table "Sense key descriptions".
namespace sense_key {
inline constexpr std::uint8_t kNoSense = 0x00;
inline constexpr std::uint8_t kRecoveredError = 0x01;
inline constexpr std::uint8_t kNotReady = 0x02;
inline constexpr std::uint8_t kMediumError = 0x03;
inline constexpr std::uint8_t kHardwareError = 0x04;
inline constexpr std::uint8_t kIllegalRequest = 0x05;
inline constexpr std::uint8_t kUnitAttention = 0x06;
inline constexpr std::uint8_t kAbortedCommand = 0x0B;
}  // namespace sense_key

inline constexpr std::uint8_t kStatusCheckCondition = 0x02;  // SAM-5 status code

// Fixed-format sense data (70h, current error; SPC-4 4.5.3) with the given key and ASC/ASCQ.
inline std::array<std::uint8_t, 18> fixed_sense(std::uint8_t key, std::uint8_t asc, std::uint8_t ascq) {
  std::array<std::uint8_t, 18> s{};
  s[0] = 0x70;
  s[2] = key & 0x0F;
  s[7] = 10;  // ADDITIONAL SENSE LENGTH
  s[12] = asc;
  s[13] = ascq;
  return s;
}

}  // namespace ds::wire
