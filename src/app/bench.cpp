#include "app/bench.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <charconv>
#include <cstring>
#include <set>
#include <utility>
#include <vector>

#include "app/io_wrappers.hpp"
#include "app/kernel_errors.hpp"
#include "app/restore.hpp"
#include "app/target.hpp"
#include "report/measure_report.hpp"
#include "tests/bench.hpp"
#include "tests/result_keys.hpp"

namespace ds::app {

namespace {

// "50GB", "1TiB", "10%" (of capacity_bytes), "4096" (bytes) as a number of bytes; `option` names
// the option in the messages. Zero is refused here; the callers decide what else is.
Expected<double> parse_size(std::string_view option, std::string_view text, std::uint64_t capacity_bytes) {
  auto bad = [&] {
    return usage_error(fmt::format("{} {}: expected a size (50GB, 1TiB, 4096) or a percentage (10%)",
                                   option, text.empty() ? "''" : text));
  };
  if (text.empty()) return bad();
  double v = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || !(v > 0) || !std::isfinite(v)) return bad();
  std::string unit(p, text.data() + text.size());
  for (auto& c : unit) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (unit == "%") {
    if (v > 100) return usage_error(fmt::format("{} {}: more than 100 %", option, text));
    return capacity_bytes * v / 100.0;
  }
  static const std::pair<const char*, double> units[] = {
      {"", 1},      {"B", 1},       {"K", 1e3},     {"KB", 1e3},    {"M", 1e6},
      {"MB", 1e6},  {"G", 1e9},     {"GB", 1e9},    {"T", 1e12},    {"TB", 1e12},
      {"KIB", 1024.0}, {"MIB", 1048576.0}, {"GIB", 1073741824.0}, {"TIB", 1099511627776.0}};
  for (auto& [name, mult] : units)
    if (unit == name) return v * mult;
  return bad();
}

}  // namespace

Expected<std::uint64_t> parse_span(std::string_view text, std::uint64_t capacity_bytes,
                                   std::uint32_t block_bytes) {
  auto b = parse_size("--span", text, capacity_bytes);
  if (!b) return b.error();
  const double bytes = *b;
  if (bytes < 1)
    return usage_error(fmt::format("--span {}: expected a size (50GB, 1TiB, 4096) or a percentage (10%)", text));
  if (bytes < block_bytes)
    return usage_error(fmt::format("--span {}: less than one sector ({} bytes); give at least {} bytes",
                                   text, block_bytes, block_bytes));
  if (bytes > static_cast<double>(capacity_bytes))
    return usage_error(fmt::format("--span {}: larger than the target ({} bytes)", text, capacity_bytes));
  return static_cast<std::uint64_t>(bytes);
}

Expected<std::uint64_t> parse_offset(std::string_view text, std::uint64_t capacity_bytes,
                                     std::uint32_t align_bytes) {
  if (text == "0") return std::uint64_t{0};
  auto b = parse_size("--offset", text, capacity_bytes);
  if (!b) return b.error();
  if (*b >= static_cast<double>(capacity_bytes))
    return usage_error(fmt::format("--offset {}: at or beyond the end of the target ({} bytes)", text,
                                   capacity_bytes));
  const std::uint64_t align = align_bytes ? align_bytes : 512;
  return static_cast<std::uint64_t>(*b) / align * align;
}

namespace {

// The drive seen from --offset on: every request moved up by `offset` bytes, the capacity
// shortened by as much. The measurement modules place their reads from "LBA 0" to the capacity,
// so they measure the window without knowing of it (and their positions count from the offset).
class OffsetIo final : public ForwardingIo {
 public:
  OffsetIo(IoEngine& inner, std::uint64_t offset) : ForwardingIo(inner), offset_(offset), info_(inner.info()) {
    info_.capacity_bytes -= offset;
    info_.origin_bytes += offset;  // so that a failure names the device's LBA, not the window's
  }
  const IoTargetInfo& info() const override { return info_; }
  Expected<std::size_t> submit(std::span<const IoRequest> reqs) override {
    moved_.assign(reqs.begin(), reqs.end());
    for (auto& r : moved_) r.offset_bytes += offset_;
    return inner_.submit(moved_);
  }

 private:
  std::uint64_t offset_;
  IoTargetInfo info_;
  std::vector<IoRequest> moved_;
};

// --offset and --span against the target: the offset rounded down to a physical sector, the span
// (a percentage is of the whole drive) ending inside the drive.
Expected<std::pair<std::uint64_t, std::optional<std::uint64_t>>> window(const BenchRequest& req,
                                                                         const IoTargetInfo& info) {
  const std::uint32_t block = info.logical_block_bytes ? info.logical_block_bytes : 512;
  std::uint64_t offset = 0;
  if (req.offset) {
    auto o = parse_offset(*req.offset, info.capacity_bytes, std::max(block, info.physical_block_bytes));
    if (!o) return o.error();
    offset = *o;
  }
  std::optional<std::uint64_t> span;
  if (req.span) {
    auto s = parse_span(*req.span, info.capacity_bytes, block);
    if (!s) return s.error();
    if (*s > info.capacity_bytes - offset)
      return usage_error(fmt::format("--span {} from --offset {}: runs past the end of the target ({} bytes)",
                                     *req.span, req.offset.value_or("0"), info.capacity_bytes));
    span = *s;
  }
  return std::make_pair(offset, span);
}

// The positioning ranges the drive reports (ATA log 47h / VPD B9h, decoded by identify), for the
// actuators test (which compares the halves of the span when there are none). Behind --offset the
// tests see LBAs from the offset on, so the ranges are moved down with them and cut at it.
std::vector<measure::LbaRange> positioning_ranges(const nlohmann::json& identify, std::uint64_t offset_bytes,
                                                  std::uint32_t block_bytes) {
  std::vector<measure::LbaRange> out;
  if (!identify.is_object() || !identify.contains("concurrent_positioning_ranges") ||
      !identify["concurrent_positioning_ranges"].is_object())
    return out;
  const std::uint64_t skip = offset_bytes / (block_bytes ? block_bytes : 512);
  for (const auto& x : identify["concurrent_positioning_ranges"].value("ranges", nlohmann::json::array())) {
    if (!x.is_object()) continue;
    const auto first = x.value("lowest_lba", std::uint64_t{0});
    const auto count = x.value("lba_count", std::uint64_t{0});
    if (count == 0 || first + count <= skip) continue;
    const std::uint64_t start = std::max(first, skip);
    out.push_back({start - skip, first + count - start});
  }
  return out;
}

// --tests, checked before the target is opened: a wrong name is a usage error (exit 2, as ab's
// --tests and CLI11's own checks), an empty one ("access,,cache", --tests "") too, since it
// would otherwise silently become the default set; a name given twice would run once with its
// share of the budget counted twice.
std::optional<Error> check_tests(const std::vector<std::string>& tests, bool given) {
  if (given && tests.empty()) return usage_error("--tests: no test given");
  const auto known = measure::bench_test_names();
  std::set<std::string> seen;
  for (const std::string& t : tests) {
    if (t.empty()) return usage_error("--tests: an empty test name (two commas, or a comma at an end)");
    if (std::find(known.begin(), known.end(), t) == known.end())
      return usage_error(fmt::format("--tests: unknown test '{}' (known: {})", t, fmt::join(known, ", ")));
    if (!seen.insert(t).second) return usage_error(fmt::format("--tests: '{}' is named twice", t));
  }
  return std::nullopt;
}

// The physical sector size identify decoded, and the command it came from: READ CAPACITY(16) on a
// SCSI drive (identify.scsi.read_capacity), else IDENTIFY word 106 (logical_per_physical_sectors).
void claimed_sector(const nlohmann::json& identify, measure::BenchOptions& bo) {
  if (!identify.is_object()) return;
  const nlohmann::json* rc = nullptr;
  if (auto s = identify.find("scsi"); s != identify.end() && s->is_object())
    if (auto c = s->find("read_capacity"); c != s->end() && c->is_object()) rc = &*c;
  if (rc) {
    if (auto p = rc->find("physical_block_bytes"); p != rc->end() && p->is_number_unsigned()) {
      bo.claimed_physical_bytes = p->get<std::uint32_t>();
      bo.claimed_by = rc->value("command", std::string("READ CAPACITY(16)"));
    }
    return;
  }
  if (!identify.contains("logical_per_physical_sectors")) return;
  if (auto p = identify.find("physical_sector_bytes"); p != identify.end() && p->is_number_unsigned()) {
    bo.claimed_physical_bytes = p->get<std::uint32_t>();
    bo.claimed_by = "IDENTIFY word 106";
  }
}

}  // namespace

Expected<Report> run_bench(const BenchRequest& req, const measure::ProgressFn& progress) {
  if (auto e = check_tests(req.tests, req.tests_given)) return *e;
  OpenOptions oo;
  oo.want_io = true;
  oo.write = req.write;
  oo.destructive = req.destructive;
  oo.seed = req.seed;
  oo.device = req.device;
  auto t = open_target(req.target, oo);
  if (!t) return t.error();
  return bench_target(*t, req, progress);
}

Expected<Report> bench_target(Target& target, const BenchRequest& req, const measure::ProgressFn& progress) {
  if (auto e = check_tests(req.tests, req.tests_given)) return *e;
  if (!target.io) return make_error(req.target + ": opened without its block-I/O engine");
  Target* t = &target;
  // A leftover state file means an earlier ab or ncq left this drive's settings changed: what
  // would be measured is not the drive as it is set up (docs/safety.md).
  for (const auto& f : state_file_candidates(t->spec, t->block_name))
    if (auto ok = check_no_leftover(f); !ok)
      return make_error("bench: refusing to measure a drive whose settings are not its own: " + ok.error().message);

  measure::BenchOptions bo;
  if (!req.tests.empty()) bo.tests = req.tests;
  bo.allow_write = req.write;
  bo.seed = req.seed;
  bo.stop = req.stop;
  if (req.budget_s) bo.budget_s = *req.budget_s;
  bo.transfer_rates_only = req.rates_only;
  auto w = window(req, t->io->info());
  if (!w) return w.error();
  bo.span_bytes = w->second;

  Report r;
  // The target's size and block beside its name: every LBA in the tests counts in these blocks,
  // and the schema test holds each below the span (docs/schema, tests/schema/bounds.py).
  r.json = {{"drivescope", {{"version", version()}}},
            {"target", {{"kind", to_string(t->kind)},
                        {"name", req.target},
                        {"capacity_bytes", t->io->info().capacity_bytes},
                        {"logical_block_bytes", t->io->info().logical_block_bytes}}}};
  // The identity goes beside the results so a report says what was measured. It is best effort:
  // a file target has none, and a failure here must not cost the measurements.
  if (t->device) {
    if (auto id = identify_target(*t, {}); id && id->json.contains("identify"))
      r.json["identify"] = id->json["identify"];
  }
  claimed_sector(r.json.value("identify", nlohmann::json()), bo);
  bo.positioning_ranges = positioning_ranges(r.json.value("identify", nlohmann::json()), w->first,
                                             t->io->info().logical_block_bytes);
  OffsetIo shifted(*t->io, w->first);
  StoppableIo io(shifted, req.stop);
  const KernelErrorWatch kernel(t->block_name);
  auto res = measure::run_bench(io, bo, progress);
  if (!res) return res.error();
  const bool interrupted = req.stop && req.stop();
  r.json[measure::key::kDocumentKey] = report::bench_to_json(*res);
  r.json["settings"] = {{"tests", bo.tests}, {"seed", bo.seed}, {"budget_s", bo.budget_s},
                        {"write", bo.allow_write},
                        {"span_bytes", bo.span_bytes ? nlohmann::json(*bo.span_bytes) : nlohmann::json()},
                        {"offset_bytes", w->first}, {"rates_only", bo.transfer_rates_only}};
  const std::string from = w->first ? fmt::format(", from byte {}; positions count from there", w->first) : "";
  r.text = fmt::format("drivescope bench {} ({}{})\n\n", req.target, to_string(t->kind), from) +
           report::bench_to_text(*res);
  for (const auto& [test, err] : res->errors) {
    // A module's own message may name its test already ("access: span too small").
    const bool named = err.message.starts_with(test + ": ");
    r.warnings.push_back(named ? err.message : fmt::format("{}: {}", test, err.message));
    r.exit_code = worse_exit(r.exit_code, device_failure(err) ? kExitDevice : kExitPartial);
  }
  kernel.finish(r, r.exit_code == kExitDevice);
  if (interrupted) {
    // The tests that finished are in the report; the one cut short is under tests.errors.
    r.json["interrupted"] = true;
    r.warnings.push_back("interrupted by a signal: the report has the tests finished before it (the one cut short is under errors)");
    r.exit_code = worse_exit(r.exit_code, kExitInterrupted);
  }
  return r;
}

}  // namespace ds::app
