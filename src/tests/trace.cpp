#include "tests/trace.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <deque>
#include <limits>
#include <map>
#include <tuple>

namespace ds::measure {

namespace {

constexpr std::uint64_t kSectorBytes = 512;  // DiskSim blocks and blkparse sectors
constexpr double kNsPerUs = 1e3;
constexpr double kNsPerS = 1e9;
constexpr const char* kFioV2 = "fio version 2 iolog";
constexpr const char* kFioV3 = "fio version 3 iolog";

struct Line {
  std::size_t number = 0;  // 1-based
  std::vector<std::string_view> tokens;
};

// Blank-separated tokens of every non-blank line, with its number.
std::vector<Line> tokenize(std::string_view text) {
  std::vector<Line> out;
  std::size_t number = 0;
  while (!text.empty()) {
    const std::size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
    ++number;
    Line l{number, {}};
    std::size_t i = 0;
    while (i < line.size()) {
      while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
      std::size_t j = i;
      while (j < line.size() && line[j] != ' ' && line[j] != '\t' && line[j] != '\r') ++j;
      if (j > i) l.tokens.push_back(line.substr(i, j - i));
      i = j;
    }
    if (!l.tokens.empty()) out.push_back(std::move(l));
  }
  return out;
}

Error line_error(std::size_t line, const std::string& what) {
  return make_error(fmt::format("line {}: {}", line, what));
}

// Text for a message: a token cut short so a binary blob cannot flood the terminal.
std::string shown(std::string_view t) {
  constexpr std::size_t kMaxShown = 32;
  std::string s(t.substr(0, kMaxShown));
  for (char& c : s)
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) c = '?';
  return t.size() > kMaxShown ? s + "..." : s;
}

std::optional<std::uint64_t> to_u64(std::string_view t) {
  std::uint64_t v = 0;
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec != std::errc() || p != t.data() + t.size()) return std::nullopt;
  return v;
}

// A finite, non-negative decimal number.
std::optional<double> to_nonneg(std::string_view t) {
  double v = 0;
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec != std::errc() || p != t.data() + t.size() || !std::isfinite(v) || v < 0) return std::nullopt;
  return v;
}

Expected<std::uint64_t> field_u64(const Line& l, std::size_t i, const char* name) {
  auto v = to_u64(l.tokens[i]);
  if (!v) return line_error(l.number, fmt::format("{}: expected a whole number, got '{}'", name, shown(l.tokens[i])));
  return *v;
}

Expected<double> field_nonneg(const Line& l, std::size_t i, const char* name) {
  auto v = to_nonneg(l.tokens[i]);
  if (!v) return line_error(l.number, fmt::format("{}: expected a number >= 0, got '{}'", name, shown(l.tokens[i])));
  return *v;
}

// offset + length in bytes, checked: length > 0, fits 32 bits, no wrap-around.
Expected<std::pair<std::uint64_t, std::uint32_t>> extent(std::size_t line, std::uint64_t offset,
                                                         std::uint64_t length) {
  if (length == 0) return line_error(line, "a request of length 0");
  if (length > std::numeric_limits<std::uint32_t>::max())
    return line_error(line, fmt::format("a request of {} bytes (at most 4 GiB - 1)", length));
  if (offset > std::numeric_limits<std::uint64_t>::max() - length)
    return line_error(line, "offset + length overflows");
  return std::pair{offset, static_cast<std::uint32_t>(length)};
}

std::int64_t ns_from(double v, double ns_per_unit) {
  const double ns = v * ns_per_unit;
  constexpr double kMaxNs = 9.2e18;
  return ns >= kMaxNs ? static_cast<std::int64_t>(kMaxNs) : static_cast<std::int64_t>(std::llround(ns));
}

bool is_dev_token(std::string_view t) {  // blkparse's "major,minor"
  const std::size_t c = t.find(',');
  return c != std::string_view::npos && c > 0 && c + 1 < t.size() && to_u64(t.substr(0, c)) &&
         to_u64(t.substr(c + 1));
}

}  // namespace

const char* to_string(TraceFormat f) {
  switch (f) {
    case TraceFormat::disksim_validate: return "disksim-validate";
    case TraceFormat::fio_iolog: return "fio-iolog";
    case TraceFormat::blkparse: return "blkparse";
  }
  return "?";
}

Expected<TraceFormat> parse_trace_format(std::string_view name) {
  for (auto f : {TraceFormat::disksim_validate, TraceFormat::fio_iolog, TraceFormat::blkparse})
    if (name == to_string(f)) return f;
  return make_error(fmt::format("--format {}: expected disksim-validate, fio-iolog or blkparse", shown(name)));
}

bool Trace::has_measured() const {
  return std::any_of(requests.begin(), requests.end(), [](const auto& r) { return r.measured_ms.has_value(); });
}

std::size_t Trace::writes() const {
  return static_cast<std::size_t>(std::count_if(requests.begin(), requests.end(), [](const auto& r) { return r.write; }));
}

Expected<TraceFormat> detect_trace_format(std::string_view text) {
  const auto lines = tokenize(text);
  if (lines.empty()) return make_error("the trace is empty");
  const Line& l = lines.front();
  std::string first;
  for (std::size_t i = 0; i < l.tokens.size(); ++i) first += (i ? " " : "") + std::string(l.tokens[i]);
  if (first == kFioV2 || first == kFioV3) return TraceFormat::fio_iolog;
  if (is_dev_token(l.tokens[0])) return TraceFormat::blkparse;
  if (l.tokens.size() == 6 && (l.tokens[0] == "R" || l.tokens[0] == "W")) return TraceFormat::disksim_validate;
  return line_error(l.number, "cannot tell the trace format (not a fio iolog header, a blkparse event or a "
                              "DiskSim validate line); give --format");
}

// ---- DiskSim validate ----

Expected<Trace> parse_disksim_validate(std::string_view text) {
  Trace t;
  t.format = TraceFormat::disksim_validate;
  t.timing = TraceTiming::after_completion;
  t.variant = "DiskSim validate";
  double next_gap_us = 0;  // the previous line's NEXT_US: the pause before this request
  for (const Line& l : tokenize(text)) {
    if (l.tokens.size() != 6)
      return line_error(l.number, fmt::format("expected 6 fields (R|W ACTION LBA BLOCKS SERVICE_US NEXT_US), got {}",
                                              l.tokens.size()));
    if (l.tokens[0] != "R" && l.tokens[0] != "W")
      return line_error(l.number, fmt::format("expected R or W, got '{}'", shown(l.tokens[0])));
    auto lba = field_u64(l, 2, "LBA");
    if (!lba) return lba.error();
    auto blocks = field_u64(l, 3, "BLOCKS");
    if (!blocks) return blocks.error();
    auto service = field_nonneg(l, 4, "SERVICE_US");
    if (!service) return service.error();
    auto next = field_nonneg(l, 5, "NEXT_US");
    if (!next) return next.error();
    if (*lba > std::numeric_limits<std::uint64_t>::max() / kSectorBytes ||
        *blocks > std::numeric_limits<std::uint64_t>::max() / kSectorBytes)
      return line_error(l.number, "LBA or BLOCKS too large");
    auto ext = extent(l.number, *lba * kSectorBytes, *blocks * kSectorBytes);
    if (!ext) return ext.error();
    TraceRequest r;
    r.offset_bytes = ext->first;
    r.length_bytes = ext->second;
    r.write = l.tokens[0] == "W";
    r.delay_ns = ns_from(next_gap_us, kNsPerUs);
    r.measured_ms = *service / 1e3;
    r.action = std::string(shown(l.tokens[1]));
    r.line = l.number;
    t.requests.push_back(std::move(r));
    next_gap_us = *next;
  }
  if (t.requests.empty()) return make_error("the trace holds no request");
  return t;
}

// ---- fio iolog v2 / v3 ----

namespace {

bool is_file_action(std::string_view a) { return a == "add" || a == "open" || a == "close"; }
bool is_skipped_io(std::string_view a) { return a == "sync" || a == "datasync" || a == "trim"; }

}  // namespace

Expected<Trace> parse_fio_iolog(std::string_view text) {
  const auto lines = tokenize(text);
  if (lines.empty()) return make_error("the trace is empty");
  std::string header;
  for (std::size_t i = 0; i < lines[0].tokens.size(); ++i) header += (i ? " " : "") + std::string(lines[0].tokens[i]);
  const bool v3 = header == kFioV3;
  if (!v3 && header != kFioV2)
    return line_error(lines[0].number, "expected the header 'fio version 2 iolog' or 'fio version 3 iolog'");
  Trace t;
  t.format = TraceFormat::fio_iolog;
  t.timing = v3 ? TraceTiming::at_time : TraceTiming::after_completion;
  t.variant = header;
  const std::size_t skip = v3 ? 1 : 0;  // v3 lines start with the time
  std::optional<std::uint64_t> first_us;
  std::uint64_t last_us = 0;
  std::int64_t pending_wait_ns = 0;  // v2 "wait": a pause before the next request
  for (std::size_t k = 1; k < lines.size(); ++k) {
    const Line& l = lines[k];
    const std::size_t n = l.tokens.size();
    if (n != skip + 2 && n != skip + 4)
      return line_error(l.number, fmt::format("expected {}FILE ACTION [OFFSET LENGTH], got {} fields", v3 ? "TIME " : "", n));
    std::uint64_t at_us = 0;
    if (v3) {
      auto tm = field_u64(l, 0, "TIME");
      if (!tm) return tm.error();
      if (!first_us) first_us = *tm;
      // A time that goes backwards is issued at once, as fio does (no negative delay).
      at_us = std::max(last_us, *tm >= *first_us ? *tm - *first_us : 0);
      last_us = at_us;
    }
    const std::string_view action = l.tokens[skip + 1];
    if (n == skip + 2) {
      if (!is_file_action(action))
        return line_error(l.number, fmt::format("unknown file action '{}' (add, open, close)", shown(action)));
      continue;
    }
    auto offset = field_u64(l, skip + 2, "OFFSET");
    if (!offset) return offset.error();
    auto length = field_u64(l, skip + 3, "LENGTH");
    if (!length) return length.error();
    if (action == "wait") {
      if (v3) return line_error(l.number, "'wait' is not allowed in a version 3 iolog (it has times)");
      pending_wait_ns = ns_from(static_cast<double>(*offset), kNsPerUs);
      continue;
    }
    if (is_skipped_io(action)) continue;
    if (action != "read" && action != "write")
      return line_error(l.number, fmt::format("unknown I/O action '{}' (read, write, sync, datasync, trim, wait)",
                                              shown(action)));
    auto ext = extent(l.number, *offset, *length);
    if (!ext) return ext.error();
    TraceRequest r;
    r.offset_bytes = ext->first;
    r.length_bytes = ext->second;
    r.write = action == "write";
    r.delay_ns = v3 ? ns_from(static_cast<double>(at_us), kNsPerUs) : pending_wait_ns;
    r.line = l.number;
    pending_wait_ns = 0;
    t.requests.push_back(std::move(r));
  }
  if (t.requests.empty()) return make_error("the iolog holds no read or write");
  return t;
}

// ---- blkparse ----

namespace {

struct BlkEvent {
  std::string_view dev;
  double t_s = 0;
  char action = 0;
  bool write = false;
  std::uint64_t sector = 0;
  std::uint64_t count = 0;
  std::size_t line = 0;
};

// R or W from the RWBS field; nullopt for anything that moves no data (discard, flush, N).
std::optional<bool> rwbs_write(std::string_view rwbs) {
  if (rwbs.find('D') != std::string_view::npos || rwbs.find('E') != std::string_view::npos) return std::nullopt;
  if (rwbs.find('W') != std::string_view::npos) return true;
  if (rwbs.find('R') != std::string_view::npos) return false;
  return std::nullopt;
}

// One event line: "DEV CPU SEQ TIME PID ACTION RWBS [SECTOR + COUNT] ...". Returns nullopt for an
// event that is not a Q, D or C of data (plugs, merges, remaps, flushes...), an error for a
// malformed one.
Expected<std::optional<BlkEvent>> blk_event(const Line& l) {
  constexpr std::size_t kMinFields = 7;
  if (l.tokens.size() < kMinFields)
    return line_error(l.number, fmt::format("a blkparse event needs at least {} fields, got {}", kMinFields, l.tokens.size()));
  auto t = field_nonneg(l, 3, "time");
  if (!t) return t.error();
  const std::string_view a = l.tokens[5];
  if (a != "Q" && a != "D" && a != "C") return std::optional<BlkEvent>{};
  auto w = rwbs_write(l.tokens[6]);
  if (!w) return std::optional<BlkEvent>{};
  if (l.tokens.size() < 10 || l.tokens[8] != "+")
    return line_error(l.number, fmt::format("a {} event without 'SECTOR + COUNT'", a));
  auto sector = field_u64(l, 7, "sector");
  if (!sector) return sector.error();
  auto count = field_u64(l, 9, "count");
  if (!count) return count.error();
  if (*count == 0) return std::optional<BlkEvent>{};
  return std::optional<BlkEvent>{BlkEvent{l.tokens[0], *t, a[0], *w, *sector, *count, l.number}};
}

}  // namespace

Expected<Trace> parse_blkparse(std::string_view text) {
  const auto lines = tokenize(text);
  if (lines.empty()) return make_error("the trace is empty");
  if (!is_dev_token(lines[0].tokens[0]))
    return line_error(lines[0].number, "not a blkparse event line (expected 'MAJOR,MINOR CPU SEQ TIME PID ACTION ...')");
  std::vector<BlkEvent> events;
  for (const Line& l : lines) {
    if (!is_dev_token(l.tokens[0])) break;  // blkparse's closing summary ("CPU0 (8,0):" ...)
    auto e = blk_event(l);
    if (!e) return e.error();
    if (*e) events.push_back(**e);
  }
  const bool have_d = std::any_of(events.begin(), events.end(), [](const BlkEvent& e) { return e.action == 'D'; });
  const char issue = have_d ? 'D' : 'Q';
  Trace t;
  t.format = TraceFormat::blkparse;
  t.timing = TraceTiming::at_time;
  t.variant = have_d ? "D events" : "Q events (the trace has no D events)";
  // Issued requests waiting for their C, by (device, sector, count, direction), oldest first.
  std::map<std::tuple<std::string_view, std::uint64_t, std::uint64_t, bool>, std::deque<std::size_t>> open;
  std::vector<double> issued_at;
  for (const BlkEvent& e : events) {
    const auto key = std::tuple{e.dev, e.sector, e.count, e.write};
    if (e.action == issue) {
      if (e.sector > std::numeric_limits<std::uint64_t>::max() / kSectorBytes ||
          e.count > std::numeric_limits<std::uint64_t>::max() / kSectorBytes)
        return line_error(e.line, "sector or count too large");
      auto ext = extent(e.line, e.sector * kSectorBytes, e.count * kSectorBytes);
      if (!ext) return ext.error();
      TraceRequest r;
      r.offset_bytes = ext->first;
      r.length_bytes = ext->second;
      r.write = e.write;
      r.line = e.line;
      open[key].push_back(t.requests.size());
      issued_at.push_back(e.t_s);
      t.requests.push_back(std::move(r));
    } else if (e.action == 'C') {
      auto it = open.find(key);
      if (it == open.end() || it->second.empty()) continue;
      const std::size_t i = it->second.front();
      it->second.pop_front();
      t.requests[i].measured_ms = std::max(0.0, e.t_s - issued_at[i]) * 1e3;
    }
  }
  if (t.requests.empty()) return make_error("the blkparse output holds no read or write Q or D event");
  // Issue times from the first request on, in time order (blkparse sorts by time; a merged
  // multi-CPU output may not be strictly ordered).
  std::vector<std::size_t> order(t.requests.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return issued_at[a] < issued_at[b]; });
  const double t0 = issued_at[order.front()];
  std::vector<TraceRequest> sorted;
  sorted.reserve(order.size());
  for (std::size_t i : order) {
    sorted.push_back(std::move(t.requests[i]));
    sorted.back().delay_ns = ns_from(issued_at[i] - t0, kNsPerS);
  }
  t.requests = std::move(sorted);
  return t;
}

Expected<Trace> parse_trace(std::string_view text, std::optional<TraceFormat> format) {
  if (!format) {
    auto f = detect_trace_format(text);
    if (!f) return f.error();
    format = *f;
  }
  switch (*format) {
    case TraceFormat::disksim_validate: return parse_disksim_validate(text);
    case TraceFormat::fio_iolog: return parse_fio_iolog(text);
    case TraceFormat::blkparse: return parse_blkparse(text);
  }
  return make_error("unknown trace format");
}

}  // namespace ds::measure
