#include "sim/faults.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <string>

#include <nlohmann/json.hpp>

namespace ds::sim {

namespace {

using nlohmann::json;

Expected<std::uint64_t> count_field(const json& v, const std::string& path, bool positive) {
  if (!v.is_number_integer() && !v.is_number_unsigned())
    return make_error(path + ": must be a non-negative integer", EINVAL);
  if (v.is_number_integer() && !v.is_number_unsigned() && v.get<std::int64_t>() < 0)
    return make_error(path + ": must be a non-negative integer", EINVAL);
  const auto n = v.get<std::uint64_t>();
  if (positive && n == 0) return make_error(path + ": must be positive", EINVAL);
  return n;
}

Expected<std::int64_t> ms_field(const json& v, const std::string& path) {
  if (!v.is_number()) return make_error(path + ": must be a number of milliseconds", EINVAL);
  const double ms = v.get<double>();
  // Bounded so that the nanosecond value fits an int64 with room for the clock to run on.
  if (!std::isfinite(ms) || ms < 0 || ms > 1e12)
    return make_error(path + ": must be between 0 and 1e12 ms", EINVAL);
  return static_cast<std::int64_t>(std::llround(ms * 1e6));
}

// Fixed-format sense (SPC-4 4.5.3) with VALID and the INFORMATION field set to the LBA.
std::vector<std::uint8_t> fixed_sense(std::uint8_t key, std::uint8_t asc, std::uint8_t ascq,
                                      std::uint64_t info) {
  std::vector<std::uint8_t> s(18, 0);
  s[0] = 0x70;
  if (info <= 0xFFFFFFFFu) {
    s[0] |= 0x80;  // VALID: INFORMATION holds the first failing LBA
    for (int i = 0; i < 4; ++i) s[3 + i] = static_cast<std::uint8_t>(info >> (8 * (3 - i)));
  }
  s[2] = key;
  s[7] = 10;
  s[12] = asc;
  s[13] = ascq;
  return s;
}

}  // namespace

Expected<FaultSpec> parse_faults(const json& j, std::uint64_t capacity) {
  if (!j.is_object()) return make_error("faults: must be an object", EINVAL);
  FaultSpec f;
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string& key = it.key();
    const std::string path = "faults." + key;
    const json& v = it.value();
    if (key == "medium_errors") {
      if (!v.is_array()) return make_error(path + ": must be an array", EINVAL);
      for (std::size_t i = 0; i < v.size(); ++i) {
        const std::string p = path + "[" + std::to_string(i) + "]";
        const json& r = v[i];
        if (!r.is_object()) return make_error(p + ": must be an object", EINVAL);
        MediumErrorRegion reg;
        for (auto jt = r.begin(); jt != r.end(); ++jt) {
          if (jt.key() == "first_lba") {
            auto n = count_field(jt.value(), p + ".first_lba", false);
            if (!n) return n.error();
            reg.first_lba = *n;
          } else if (jt.key() == "sectors") {
            auto n = count_field(jt.value(), p + ".sectors", true);
            if (!n) return n.error();
            reg.sectors = *n;
          } else {
            return make_error(p + "." + jt.key() + ": unknown key (expected first_lba, sectors)", EINVAL);
          }
        }
        if (!r.contains("first_lba")) return make_error(p + ".first_lba: missing", EINVAL);
        if (reg.first_lba >= capacity || reg.sectors > capacity - reg.first_lba)
          return make_error(p + ": lies beyond the capacity (" + std::to_string(capacity) + " sectors)",
                            EINVAL);
        f.medium_errors.push_back(reg);
      }
    } else if (key == "stop_answering_after_ios") {
      auto n = count_field(v, path, false);
      if (!n) return n.error();
      f.stop_after_ios = *n;
    } else if (key == "stop_answering_at_ms") {
      auto t = ms_field(v, path);
      if (!t) return t.error();
      f.stop_at_ns = *t;
    } else if (key == "vanish_after_ios") {
      auto n = count_field(v, path, false);
      if (!n) return n.error();
      f.vanish_after_ios = *n;
    } else if (key == "vanish_at_ms") {
      auto t = ms_field(v, path);
      if (!t) return t.error();
      f.vanish_at_ns = *t;
    } else {
      return make_error(path + ": unknown key (expected medium_errors, stop_answering_after_ios, "
                               "stop_answering_at_ms, vanish_after_ios, vanish_at_ms)",
                        EINVAL);
    }
  }
  return f;
}

json faults_to_json(const FaultSpec& f) {
  json j = json::object();
  if (!f.medium_errors.empty()) {
    json a = json::array();
    for (const auto& r : f.medium_errors) a.push_back({{"first_lba", r.first_lba}, {"sectors", r.sectors}});
    j["medium_errors"] = a;
  }
  if (f.stop_after_ios) j["stop_answering_after_ios"] = *f.stop_after_ios;
  if (f.stop_at_ns) j["stop_answering_at_ms"] = static_cast<double>(*f.stop_at_ns) / 1e6;
  if (f.vanish_after_ios) j["vanish_after_ios"] = *f.vanish_after_ios;
  if (f.vanish_at_ns) j["vanish_at_ms"] = static_cast<double>(*f.vanish_at_ns) / 1e6;
  return j;
}

std::optional<std::uint64_t> FaultState::medium_error(std::uint64_t lba, std::uint64_t sectors) const {
  std::optional<std::uint64_t> first;
  for (const auto& r : spec_.medium_errors) {
    // [lba, lba+sectors) and [first_lba, first_lba+sectors) overlap iff the larger start lies in
    // both; differences instead of sums so that no end can overflow.
    const std::uint64_t lo = std::max(lba, r.first_lba);
    const bool overlap = lo - lba < sectors && lo - r.first_lba < r.sectors;
    if (overlap && (!first || lo < *first)) first = lo;
  }
  return first;
}

bool FaultState::stopped(std::int64_t t) const {
  return (spec_.stop_after_ios && completed_ >= *spec_.stop_after_ios) ||
         (spec_.stop_at_ns && t >= *spec_.stop_at_ns);
}

bool FaultState::vanished(std::int64_t t) const {
  return (spec_.vanish_after_ios && completed_ >= *spec_.vanish_after_ios) ||
         (spec_.vanish_at_ns && t >= *spec_.vanish_at_ns);
}

std::int32_t FaultState::complete(std::uint64_t lba, std::uint64_t sectors, std::int64_t done_ns,
                                  std::int32_t bytes) {
  const bool gone = vanished(done_ns);
  ++completed_;
  if (gone) return -ENODEV;
  if (medium_error(lba, sectors)) return -EIO;
  return bytes;
}

std::optional<CommandResult> FaultState::command_fault(std::int64_t now, Millis timeout,
                                                       std::int64_t& wait_ns) const {
  wait_ns = 0;
  if (vanished(now)) {
    CommandResult r;
    r.outcome = Outcome::os_error;
    r.os_errno = ENODEV;
    r.message = "simulated drive: the device is gone (injected fault)";
    return r;
  }
  if (stopped(now)) {
    CommandResult r;
    r.outcome = Outcome::os_error;
    r.os_errno = ETIMEDOUT;
    wait_ns = std::max<std::int64_t>(0, static_cast<std::int64_t>(timeout.count()) * 1'000'000);
    r.duration = Nanos(wait_ns);
    r.message = "simulated drive: no answer within " + std::to_string(timeout.count()) +
                " ms (injected fault: the drive stopped answering)";
    return r;
  }
  return std::nullopt;
}

std::optional<CommandResult> FaultState::media_fault(std::uint64_t lba, std::uint64_t sectors, bool ata,
                                                     std::int64_t dur_ns) const {
  const auto bad = medium_error(lba, sectors);
  if (!bad) return std::nullopt;
  CommandResult r;
  r.outcome = Outcome::check_condition;
  r.scsi_status = 0x02;
  r.duration = Nanos(dur_ns);
  r.message = "simulated drive: unrecovered read error at LBA " + std::to_string(*bad) + " (injected fault)";
  if (ata) {
    // ERR in status, UNC (bit 6) in error, the first failing LBA in the LBA registers; the SATL
    // returns it as an ATA Status Return descriptor (SAT-3 12.2.2.6), sense key MEDIUM ERROR.
    AtaOutput o;
    o.status = 0x51;  // DRDY | DSC | ERR
    o.error = 0x40;   // UNC
    o.lba = *bad;
    o.extended = true;
    r.ata = o;
    r.sense = {0x72, 0x03, 0x11, 0x00, 0, 0, 0, 14, 0x09, 0x0C, 0x01, o.error, 0, 0, 0, 0, 0, 0, 0, 0,
               0x40, o.status};
    for (int i = 0; i < 3; ++i) {
      r.sense[8 + 7 + 2 * i] = static_cast<std::uint8_t>(*bad >> (8 * i));            // LBA low/mid/high
      r.sense[8 + 6 + 2 * i] = static_cast<std::uint8_t>(*bad >> (8 * (i + 3)));      // their upper bytes
    }
  } else {
    r.sense = fixed_sense(0x03, 0x11, 0x00, *bad);  // MEDIUM ERROR, UNRECOVERED READ ERROR
  }
  return r;
}

}  // namespace ds::sim
