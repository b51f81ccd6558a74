// SMART through libatasmart. See smart.hpp for why everything goes through a blob.
#include "probe/smart.hpp"

#include <atasmart.h>
#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <memory>

namespace ds::probe {
namespace {

struct SkDiskFree {
  void operator()(SkDisk* d) const { sk_disk_free(d); }
};
using SkDiskPtr = std::unique_ptr<SkDisk, SkDiskFree>;

std::string errno_text(int e) { return e ? std::strerror(e) : "unknown error"; }

// Opens a libatasmart "blob" disk (sk_disk_open with no name) and loads `blob` into it.
// sk_disk_set_blob validates the record container itself: it rejects a repeated tag, a payload
// of the wrong size and a blob without IDFY.
Expected<SkDiskPtr> open_blob(std::span<const std::uint8_t> blob) {
  if (blob.empty()) return make_error("libatasmart blob is empty");
  SkDisk* raw = nullptr;
  errno = 0;
  if (sk_disk_open(nullptr, &raw) < 0 || raw == nullptr) {
    return make_error("libatasmart: cannot create a blob disk: " + errno_text(errno), errno);
  }
  SkDiskPtr d(raw);
  errno = 0;
  if (sk_disk_set_blob(d.get(), blob.data(), blob.size()) < 0) {
    const int e = errno;
    return make_error("libatasmart rejected the blob (sk_disk_set_blob: " + errno_text(e) +
                          "): it needs one 512-byte IDFY record, and SMDT/SMTH of 512 bytes and "
                          "SMST of 4 bytes at most once each",
                      e);
  }
  return d;
}

const char* unit_name(SkSmartAttributeUnit u) {
  switch (u) {
    case SK_SMART_ATTRIBUTE_UNIT_NONE: return "";
    case SK_SMART_ATTRIBUTE_UNIT_MSECONDS: return "ms";
    case SK_SMART_ATTRIBUTE_UNIT_SECTORS: return "sectors";
    case SK_SMART_ATTRIBUTE_UNIT_MKELVIN: return "mK";
    case SK_SMART_ATTRIBUTE_UNIT_SMALL_PERCENT: return "%/1000";
    case SK_SMART_ATTRIBUTE_UNIT_PERCENT: return "%";
    case SK_SMART_ATTRIBUTE_UNIT_MB: return "MB";
    default: return "unknown";
  }
}

// Our own rendering of libatasmart's interpreted value. Durations use the largest unit that
// keeps the figure readable.
std::string pretty_text(SkSmartAttributeUnit u, std::uint64_t v) {
  switch (u) {
    case SK_SMART_ATTRIBUTE_UNIT_NONE: return fmt::format("{}", v);
    case SK_SMART_ATTRIBUTE_UNIT_MSECONDS: {
      const double ms = static_cast<double>(v);
      if (ms < 1000.0) return fmt::format("{} ms", v);
      if (ms < 60e3) return fmt::format("{:.1f} s", ms / 1e3);
      if (ms < 3600e3) return fmt::format("{:.1f} min", ms / 60e3);
      if (ms < 86400e3) return fmt::format("{:.1f} h", ms / 3600e3);
      return fmt::format("{:.1f} days", ms / 86400e3);
    }
    case SK_SMART_ATTRIBUTE_UNIT_SECTORS: return fmt::format("{} sectors", v);
    case SK_SMART_ATTRIBUTE_UNIT_MKELVIN:
      return fmt::format("{:.1f} °C", (static_cast<double>(v) - 273150.0) / 1000.0);
    case SK_SMART_ATTRIBUTE_UNIT_SMALL_PERCENT:
      return fmt::format("{:.3f}%", static_cast<double>(v) / 1000.0);
    case SK_SMART_ATTRIBUTE_UNIT_PERCENT: return fmt::format("{}%", v);
    case SK_SMART_ATTRIBUTE_UNIT_MB: return fmt::format("{} MB", v);
    default: return "n/a";
  }
}

void collect_attribute(SkDisk*, const SkSmartAttributeParsedData* a, void* userdata) {
  auto* out = static_cast<std::vector<SmartAttribute>*>(userdata);
  SmartAttribute s;
  s.id = a->id;
  s.name = a->name ? a->name : fmt::format("attribute-{}", a->id);
  s.value = a->current_value;
  s.worst = a->worst_value;
  if (a->threshold_valid) s.threshold = a->threshold;
  std::memcpy(s.raw_bytes.data(), a->raw, 6);
  for (int i = 5; i >= 0; --i) s.raw = (s.raw << 8) | s.raw_bytes[static_cast<std::size_t>(i)];
  s.pretty_value = a->pretty_value;
  s.pretty_unit = unit_name(a->pretty_unit);
  s.pretty = pretty_text(a->pretty_unit, a->pretty_value);
  s.prefailure = a->prefailure;
  s.online = a->online;
  if (a->good_now_valid) s.good_now = static_cast<bool>(a->good_now);
  if (a->good_in_the_past_valid) s.good_in_the_past = static_cast<bool>(a->good_in_the_past);
  s.warn = a->warn;
  out->push_back(std::move(s));
}

void put_u32_be(std::vector<std::uint8_t>& v, std::uint32_t x) {
  for (int s = 24; s >= 0; s -= 8) v.push_back(static_cast<std::uint8_t>(x >> s));
}

void put_record(std::vector<std::uint8_t>& v, const char tag[4], const std::uint8_t* p,
                std::uint32_t n) {
  v.insert(v.end(), tag, tag + 4);
  put_u32_be(v, n);
  v.insert(v.end(), p, p + n);
}

}  // namespace

std::string SmartAttribute::raw_hex() const {
  // Most significant byte first, like any hex number (skdump prints the stored bytes in order,
  // which reads 1 as 0x010000000000).
  std::string s = "0x";
  for (auto b = raw_bytes.rbegin(); b != raw_bytes.rend(); ++b) s += fmt::format("{:02x}", *b);
  return s;
}

std::optional<double> SmartReport::power_on_hours() const {
  if (!power_on_ms) return std::nullopt;
  return static_cast<double>(*power_on_ms) / 3600e3;
}

std::optional<double> SmartReport::temperature_c() const {
  if (!temperature_mkelvin) return std::nullopt;
  return (static_cast<double>(*temperature_mkelvin) - 273150.0) / 1000.0;
}

std::vector<std::uint8_t> make_atasmart_blob(std::span<const std::uint8_t, 512> identify,
                                             const std::uint8_t* smart_data,
                                             const std::uint8_t* thresholds,
                                             std::optional<bool> status_good) {
  // Record layout: 4-byte ASCII tag, payload length as a big-endian u32, payload as read from the
  // drive (libatasmart's sk_disk_get_blob writes the same order).
  std::vector<std::uint8_t> v;
  put_record(v, "IDFY", identify.data(), 512);
  if (status_good) {
    const std::uint8_t st[4] = {0, 0, 0, static_cast<std::uint8_t>(*status_good ? 1 : 0)};
    put_record(v, "SMST", st, 4);
  }
  if (smart_data) put_record(v, "SMDT", smart_data, 512);
  if (thresholds) put_record(v, "SMTH", thresholds, 512);
  return v;
}

Expected<AtasmartBlobInfo> atasmart_check_blob(std::span<const std::uint8_t> blob) {
  auto d = open_blob(blob);
  if (!d) return d.error();
  AtasmartBlobInfo info;
  const SkIdentifyParsedData* idp = nullptr;
  if (sk_disk_identify_parse(d->get(), &idp) == 0 && idp) {
    info.model = idp->model;
    info.serial = idp->serial;
    info.firmware = idp->firmware;
  } else {
    return make_error("libatasmart cannot parse the IDENTIFY record of the blob: " +
                      errno_text(errno));
  }
  SkBool avail = FALSE;
  if (sk_disk_smart_is_available(d->get(), &avail) == 0) info.smart_available = avail;
  SkBool good = FALSE;
  if (info.smart_available && sk_disk_smart_status(d->get(), &good) == 0)
    info.status_good = static_cast<bool>(good);
  return info;
}

Expected<SmartReport> smart_from_blob(std::span<const std::uint8_t> blob) {
  auto opened = open_blob(blob);
  if (!opened) return opened.error();
  SkDisk* d = opened->get();
  SmartReport r;

  SkBool avail = FALSE;
  if (sk_disk_smart_is_available(d, &avail) < 0) {
    return make_error("libatasmart cannot tell whether SMART is available: " + errno_text(errno));
  }
  r.available = avail;
  if (!r.available) return r;  // SMART not supported/enabled: nothing more to decode

  SkBool good = FALSE;
  if (sk_disk_smart_status(d, &good) == 0) r.status_good = static_cast<bool>(good);

  // For a blob disk this does not touch any device; it confirms the SMDT page is present.
  if (sk_disk_smart_read_data(d) < 0) {
    return make_error("the blob holds no SMART data page (SMDT): " + errno_text(errno), errno);
  }

  const SkSmartParsedData* pd = nullptr;
  if (sk_disk_smart_parse(d, &pd) == 0 && pd) {
    r.offline_collection_status =
        sk_smart_offline_data_collection_status_to_string(pd->offline_data_collection_status);
    const char* st = sk_smart_self_test_execution_status_to_string(pd->self_test_execution_status);
    r.self_test_status = st ? st : "";
    r.self_test_remaining_percent = pd->self_test_execution_percent_remaining;
    if (pd->short_and_extended_test_available) {
      r.short_test_minutes = pd->short_test_polling_minutes;
      r.extended_test_minutes = pd->extended_test_polling_minutes;
    }
    if (pd->conveyance_test_available) r.conveyance_test_minutes = pd->conveyance_test_polling_minutes;
  }

  if (sk_disk_smart_parse_attributes(d, collect_attribute, &r.attributes) < 0) {
    return make_error("libatasmart cannot parse the SMART attributes: " + errno_text(errno), errno);
  }

  std::uint64_t v = 0;
  if (sk_disk_smart_get_bad(d, &v) == 0) r.bad_sectors = v;
  if (sk_disk_smart_get_power_on(d, &v) == 0) r.power_on_ms = v;
  if (sk_disk_smart_get_power_cycle(d, &v) == 0) r.power_cycles = v;
  if (sk_disk_smart_get_temperature(d, &v) == 0) r.temperature_mkelvin = v;
  // The overall verdict folds the self-assessment (SMST) with the attributes; libatasmart needs
  // the status for it, so it is absent when the status was not captured.
  SkSmartOverall overall;
  if (sk_disk_smart_get_overall(d, &overall) == 0) {
    const char* s = sk_smart_overall_to_string(overall);
    if (s) r.overall = s;
  }
  return r;
}

Expected<SmartReport> smart_from_pages(std::span<const std::uint8_t, 512> identify,
                                       std::span<const std::uint8_t, 512> smart_data,
                                       std::span<const std::uint8_t, 512> thresholds,
                                       std::optional<bool> status_good) {
  const auto blob = make_atasmart_blob(identify, smart_data.data(), thresholds.data(), status_good);
  return smart_from_blob(blob);
}

}  // namespace ds::probe
