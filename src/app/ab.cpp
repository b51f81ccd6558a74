#include "app/ab.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "app/restore.hpp"
#include "tests/result_keys.hpp"

namespace ds::app {

namespace fs = std::filesystem;

namespace {

const std::set<std::string> kKnownTests{"access", "transfer", "cache", "blocksize"};

std::vector<std::string> split(std::string_view s, char sep) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= s.size()) {
    auto p = s.find(sep, start);
    if (p == std::string_view::npos) p = s.size();
    out.emplace_back(s.substr(start, p - start));
    start = p + 1;
  }
  return out;
}

void put(std::map<std::string, double>& m, const std::string& key, double v) {
  if (std::isfinite(v) && v != 0) m[key] = v;
}

// A figure is named after where it sits in the bench result: "access/avg_seek_ms",
// "access/read.mean_ms" (tests/result_keys.hpp).
std::string figure(const char* test, const char* key) { return fmt::format("{}/{}", test, key); }
std::string figure(const char* test, const char* block, const char* key) {
  return fmt::format("{}/{}.{}", test, block, key);
}

}  // namespace

Expected<AbOptions> parse_ab_feature(std::string_view spec, AbOptions base) {
  auto eq = spec.find('=');
  if (eq == std::string_view::npos)
    return make_error(fmt::format("--feature '{}': expected NAME=A,B (e.g. aam=quiet,fast)", spec));
  auto f = parse_feature_id(spec.substr(0, eq));
  if (!f)
    return make_error(fmt::format("--feature: unknown feature '{}' (known: aam, apm, write-cache, read-ahead, scheduler)",
                                  spec.substr(0, eq)));
  auto vals = split(spec.substr(eq + 1), ',');
  if (vals.size() != 2 || vals[0].empty() || vals[1].empty())
    return make_error(fmt::format("--feature '{}': give exactly two settings, A,B", spec));
  for (const auto& v : vals)
    if (auto p = parse_feature_value(*f, v); !p) return p.error();
  if (vals[0] == vals[1]) return make_error(fmt::format("--feature '{}': A and B are the same setting", spec));
  base.feature = *f;
  base.a_text = vals[0];
  base.b_text = vals[1];
  return base;
}

Expected<std::optional<fs::path>> ab_state_file(const Target& t, const AbOptions& o) {
  fs::path dir;
  if (o.state_dir) {
    dir = *o.state_dir;
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) return make_error(fmt::format("cannot create state directory {}: {}", dir.string(), ec.message()));
  } else if (t.kind == TargetKind::sim && !std::getenv("DRIVESCOPE_STATE_DIR")) {
    return std::optional<fs::path>{};  // in-process only
  } else {
    auto d = state_dir();
    if (!d) return d.error();
    dir = *d;
  }
  return std::optional<fs::path>{dir / state_file_name(t.spec, t.block_name)};
}

namespace {

// Every figure an A/B compares, named, with its 95 % half-width where the test states one: the
// one list both bench_figures and bench_figure_uncertainties read.
template <class Visit>
void visit_bench_figures(const measure::BenchResult& r, Visit&& visit) {
  namespace K = measure::key;
  auto plain = [&visit](std::string name, double v) { visit(std::move(name), measure::Figure{v, NAN}); };
  if (r.access) {
    namespace A = K::access;
    namespace L = K::latency;
    const auto& a = *r.access;
    const char* test = K::tests::access;
    plain(figure(test, A::read, L::mean_ms), a.read.mean_ms);
    plain(figure(test, A::read, L::p50_ms), a.read.p50_ms);
    plain(figure(test, A::read, L::p99_ms), a.read.p99_ms);
    visit(figure(test, A::avg_seek_ms), a.avg_seek_ms);
    visit(figure(test, A::full_stroke_ms), a.full_stroke_ms);
    visit(figure(test, A::track_to_track_ms), a.track_to_track_ms);
    visit(figure(test, A::rotation_ms), a.rotation_ms);
    if (a.write) plain(figure(test, A::write, L::mean_ms), a.write->mean_ms);
  }
  if (r.transfer) {
    visit(figure(K::tests::transfer, K::transfer::outer_mb_s), r.transfer->outer_mb_s);
    visit(figure(K::tests::transfer, K::transfer::inner_mb_s), r.transfer->inner_mb_s);
  }
  if (r.cache) visit(figure(K::tests::cache, K::cache::burst_mb_s), r.cache->burst_mb_s);
  if (r.blocksize)
    for (const auto& row : r.blocksize->rows)
      plain(fmt::format("{}@{}", figure(K::tests::blocksize, K::blocksize_row::read_mb_s), row.block_bytes),
            row.read_mb_s);
}

}  // namespace

std::map<std::string, double> bench_figures(const measure::BenchResult& r) {
  std::map<std::string, double> m;
  visit_bench_figures(r, [&m](std::string name, const measure::Figure& f) { put(m, name, f.value); });
  return m;
}

std::map<std::string, double> bench_figure_uncertainties(const measure::BenchResult& r) {
  std::map<std::string, double> m;
  // Only where bench_figures keeps the figure itself (measured: finite, not zero).
  visit_bench_figures(r, [&m](std::string name, const measure::Figure& f) {
    if (std::isfinite(f.value) && f.value != 0 && std::isfinite(f.uncertainty)) m[std::move(name)] = f.uncertainty;
  });
  return m;
}

bool figure_before(std::string_view a, std::string_view b) {
  const auto at_a = a.find('@'), at_b = b.find('@');
  const std::string_view name_a = a.substr(0, at_a), name_b = b.substr(0, at_b);
  if (name_a != name_b) return name_a < name_b;
  // The same figure at two sizes: the one without a size first, then by the size's value.
  auto size_of = [](std::string_view s, std::size_t at) -> std::optional<unsigned long long> {
    if (at == std::string_view::npos) return std::nullopt;
    unsigned long long v = 0;
    const auto digits = s.substr(at + 1);
    auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
    if (ec != std::errc() || p != digits.data() + digits.size()) return std::nullopt;
    return v;
  };
  const auto sa = size_of(a, at_a), sb = size_of(b, at_b);
  if (sa && sb && *sa != *sb) return *sa < *sb;
  if (sa.has_value() != sb.has_value()) return !sa.has_value();
  return a < b;
}

namespace {

bool stop_requested(const StopFn& stop) { return stop && stop(); }

// A feature the target cannot read or does not have is refused before any test runs: the first
// switch would fail after an empty table and look like a failed device (exit 5).
std::optional<Error> refuse_unusable_feature(FeatureControl& fc, const Target& t, const AbOptions& o) {
  auto reading = fc.read(o.feature);
  if (!reading)
    return make_error(fmt::format("ab: {} cannot be used on {}: {}", to_string(o.feature), t.spec,
                                  reading.error().message));
  if (!reading->reported || !reading->supported)
    return make_error(fmt::format("ab: {} does not {} {}{}", t.spec,
                                  reading->reported ? "support" : "report the state of", to_string(o.feature),
                                  reading->note.empty() ? std::string() : " (" + reading->note + ")"));
  return std::nullopt;
}

// Switches the feature to the arm's setting and keeps what the drive says back: a mismatch is
// warned every time, a drive that cannot confirm any setting only once. False (with
// res.device_error set) when the switch failed.
bool switch_arm(RestoreStack& stack, const AbOptions& o, unsigned round, AbArmRun& run, AbResult& res,
                bool& warned_unverified) {
  auto s = stack.change(o.feature, run.value);
  if (!s) {
    res.device_error = fmt::format("setting {} to {} failed: {}", to_string(o.feature),
                                   describe_value(o.feature, run.value), s.error().message);
    return false;
  }
  if (stack.state().settings.size() == 1) res.original = stack.state().settings.front().original;
  run.verification = std::string(to_string(s->verification));
  run.set_message = s->message;
  if (s->verification == Verification::mismatch) {
    res.warnings.push_back(fmt::format("round {} arm {}: {}", round + 1, run.arm, s->message));
  } else if (s->verification == Verification::not_reported && !warned_unverified) {
    res.warnings.push_back(s->message);
    warned_unverified = true;
  }
  return true;
}

// Every test of one arm in one round, its figures into run. Sets res.device_error and stops at a
// test that cannot run.
void measure_arm(Target& t, const AbOptions& o, unsigned round, int arm, AbArmRun& run, AbResult& res,
                 const StopFn& stop, const AbProgressFn& progress) {
  for (const auto& test : o.tests) {
    if (stop_requested(stop)) break;
    if (progress) progress(round, run.arm, test);
    measure::BenchOptions bo;
    bo.tests = {test};
    bo.span_bytes = o.span_bytes;
    bo.budget_s = o.budget_s;
    bo.transfer_rates_only = o.rates_only;
    // A fresh plan for every arm and round: the same random LBAs in both arms would hide
    // the run-to-run spread the interval has to account for.
    bo.seed = o.seed * 1000003ull + round * 2ull + static_cast<unsigned>(arm) + 1;
    auto b = measure::run_bench(*t.io, bo);
    if (!b) {
      res.device_error = fmt::format("round {} arm {} {}: {}", round + 1, run.arm, test, b.error().message);
      break;
    }
    for (const auto& [name, err] : b->errors) run.errors.push_back(name + ": " + err.message);
    for (auto& [k, v] : bench_figures(*b)) run.figures[k] = v;
    for (auto& [k, u] : bench_figure_uncertainties(*b)) run.uncertainties[k] = u;
    // A device that failed under a test ends the comparison (exit 5, features restored): its
    // arms would go on measuring a failing drive, and the difference would be the failure's.
    for (const auto& [name, err] : b->errors)
      if (device_failure(err)) {
        res.device_error = fmt::format("round {} arm {} {}: {}", round + 1, run.arm, name, err.message);
        return;
      }
  }
}

// The rounds, A then B in each, until all are done, the device fails or a stop is asked for. A
// round counts as done only when both its arms ran.
void run_rounds(Target& t, const AbOptions& o, RestoreStack& stack, AbResult& res, const StopFn& stop,
                const AbProgressFn& progress) {
  bool warned_unverified = false;
  for (unsigned round = 0; round < o.rounds && !res.device_error; ++round) {
    for (int arm = 0; arm < 2 && !res.device_error; ++arm) {
      if (stop_requested(stop)) break;
      AbArmRun run;
      run.round = round;
      run.arm = arm == 0 ? 'A' : 'B';
      run.value = arm == 0 ? res.a : res.b;
      if (!switch_arm(stack, o, round, run, res, warned_unverified)) break;
      measure_arm(t, o, round, arm, run, res, stop, progress);
      res.runs.push_back(std::move(run));
    }
    if (stop_requested(stop)) break;
    bool complete = res.runs.size() >= 2 * (round + 1);
    if (complete && !res.device_error) res.rounds_done = round + 1;
  }
}

// The figures bench_figures takes from each test when the test measured them (blocksize's depend
// on the sizes, so they are not listed).
const std::map<std::string, std::vector<std::string>> kFiguresOf{
    {"access", {"read.mean_ms", "read.p50_ms", "read.p99_ms", "avg_seek_ms", "full_stroke_ms", "track_to_track_ms",
                "rotation_ms"}},
    {"transfer", {"outer_mb_s", "inner_mb_s"}},
    {"cache", {"burst_mb_s"}},
};

// Each figure of the chosen tests that no comparison came of, with why (the text and the JSON list
// them under the table).
void note_not_compared(const AbOptions& o,
                       const std::map<std::string, std::pair<std::vector<double>, std::vector<double>>>& vals,
                       AbResult& res) {
  for (const auto& test : o.tests) {
    auto figs = kFiguresOf.find(test);
    if (figs == kFiguresOf.end()) continue;
    for (const auto& fig : figs->second) {
      const bool compared = std::any_of(res.results.begin(), res.results.end(),
                                        [&](const auto& c) { return c.test == test && c.figure == fig; });
      if (compared) continue;
      auto v = vals.find(test + "/" + fig);
      std::string why;
      if (v != vals.end())
        why = fmt::format("measured in {} of A's and {} of B's runs: a comparison needs two in each arm",
                          v->second.first.size(), v->second.second.size());
      else if (fig == "track_to_track_ms")  // bench runs transfer first and gives access its zones
        why = "not measured: access aims it with a transfer run's zone table, and ab runs each test alone";
      else
        why = fmt::format("not measured in any run ({:g} s of drive time per run)", o.budget_s);
      res.not_compared.push_back({test, fig, why});
    }
  }
}

// Analysis: every figure seen in both arms with at least two values each.
void compare_figures(const AbOptions& o, AbResult& res) {
  std::map<std::string, std::pair<std::vector<double>, std::vector<double>>> vals;
  for (const auto& run : res.runs)
    for (const auto& [k, v] : run.figures) (run.arm == 'A' ? vals[k].first : vals[k].second).push_back(v);
  measure::AbStatsOptions so;
  so.confidence = o.confidence;
  so.seed = o.seed;
  std::vector<std::string> order;
  for (const auto& kv : vals) order.push_back(kv.first);
  std::sort(order.begin(), order.end(), [](const auto& x, const auto& y) { return figure_before(x, y); });
  for (const auto& key : order) {
    const auto& ab = vals.at(key);
    const auto slash = key.find('/');
    auto c = measure::compare_arms(key.substr(0, slash), key.substr(slash + 1), ab.first, ab.second, so);
    if (c) res.results.push_back(std::move(*c));
  }
  note_not_compared(o, vals, res);
  for (const auto& c : res.results)
    if (c.spread_warning)
      res.warnings.push_back(fmt::format(
          "{} {}: the spread inside an arm ({:.1f} %) is larger than the difference being tested ({:+.1f} %)",
          c.test, c.figure, std::max(c.spread_a_pct, c.spread_b_pct), c.diff_pct));
}

}  // namespace

Expected<AbResult> run_ab(Target& t, const AbOptions& o, const StopFn& stop, const AbProgressFn& progress) {
  if (!t.io) return make_error("ab needs block I/O on the target (open it with I/O)");
  // Mistakes on the command line, like the ones CLI11 finds: exit 2 (kUsageErrorCode).
  if (o.rounds < 2) return usage_error("--rounds must be at least 2 (a confidence interval needs two runs per arm)");
  if (o.tests.empty()) return usage_error("--tests: no test given");
  for (const auto& name : o.tests)
    if (!kKnownTests.count(name))
      return usage_error(fmt::format("unknown test '{}' (known: access, transfer, cache, blocksize)", name));
  auto va = parse_feature_value(o.feature, o.a_text);
  if (!va) return usage_error(va.error().message);
  auto vb = parse_feature_value(o.feature, o.b_text);
  if (!vb) return usage_error(vb.error().message);
  auto file = ab_state_file(t, o);
  if (!file) return file.error();

  AbResult res;
  res.target = t.spec;
  res.feature = o.feature;
  res.a = *va;
  res.b = *vb;
  res.tests = o.tests;
  res.rounds_requested = o.rounds;
  res.budget_s = o.budget_s;
  if (*file) res.state_file = (*file)->string();

  FeatureControl fc = feature_control(t, o.root);
  if (auto refused = refuse_unusable_feature(fc, t, o)) return *refused;
  RestoreState header;
  header.target = t.spec;
  header.kind = std::string(to_string(t.kind));
  header.device_path = t.device_path;
  header.block_name = t.block_name;
  RestoreStack stack(fc, header, *file, o.keep_state_file);
  if (auto ok = stack.check_no_leftover(); !ok) return ok.error();

  run_rounds(t, o, stack, res, stop, progress);
  res.interrupted = stop_requested(stop);

  res.restore_messages = stack.restore_all();
  res.restored = stack.all_restored();
  if (!res.restored)
    res.warnings.push_back("the feature could not be put back: run `" +
                           (*file ? restore_command_line(t.spec, **file) : std::string("drivescope restore")) + "`");
  compare_figures(o, res);
  return res;
}

Report ab_report(const AbResult& r) {
  Report rep;
  using nlohmann::json;
  const auto f = r.feature;
  rep.json["drivescope"] = {{"version", version()}};
  rep.json["target"] = {{"name", r.target}};
  json ab{{"feature", std::string(to_string(f))},
          {"a", value_to_json(f, r.a)},
          {"b", value_to_json(f, r.b)},
          {"original", value_to_json(f, r.original)},
          {"tests", r.tests},
          {"rounds_requested", r.rounds_requested},
          {"rounds_done", r.rounds_done},
          {"budget_s_per_test", r.budget_s},
          {"interrupted", r.interrupted},
          {"confidence", 0.95}};
  ab["results"] = json::array();
  for (const auto& c : r.results)
    ab["results"].push_back({{"test", c.test},
                             {"figure", c.figure},
                             {"a", c.mean_a},
                             {"b", c.mean_b},
                             {"diff_pct", c.diff_pct},
                             {"ci_low_pct", c.ci_low_pct},
                             {"ci_high_pct", c.ci_high_pct},
                             {"significant", c.significant},
                             {"a_values", c.a},
                             {"b_values", c.b},
                             {"sd_a", c.sd_a},
                             {"sd_b", c.sd_b},
                             {"df", c.df},
                             {"bootstrap_low_pct", c.boot_low_pct},
                             {"bootstrap_high_pct", c.boot_high_pct},
                             {"spread_a_pct", c.spread_a_pct},
                             {"spread_b_pct", c.spread_b_pct},
                             {"spread_warning", c.spread_warning}});
  ab["arms"] = json::array();
  for (const auto& run : r.runs)
    ab["arms"].push_back({{"round", run.round + 1},
                          {"arm", std::string(1, run.arm)},
                          {"value", value_to_json(f, run.value)},
                          {"verification", run.verification},
                          {"message", run.set_message},
                          {"figures", run.figures},
                          {"uncertainties", run.uncertainties},
                          {"errors", run.errors}});
  ab["restore"] = {{"restored", r.restored}, {"messages", r.restore_messages},
                   {"state_file", r.state_file.empty() ? json(nullptr) : json(r.state_file)}};
  if (r.device_error) ab["error"] = *r.device_error;
  ab["not_compared"] = json::array();
  for (const auto& n : r.not_compared)
    ab["not_compared"].push_back({{"test", n.test}, {"figure", n.figure}, {"reason", n.reason}});
  ab["warnings"] = r.warnings;
  rep.json["ab"] = ab;
  rep.warnings = r.warnings;

  std::string& t = rep.text;
  t += fmt::format("A/B of {} on {}: A = {}, B = {}; {} of {} rounds, tests: {}\n", to_string(f), r.target,
                   describe_value(f, r.a), describe_value(f, r.b), r.rounds_done, r.rounds_requested,
                   fmt::join(r.tests, ","));
  t += fmt::format("{:<12} {:<26} {:>11} {:>11} {:>9}  {:<21} {}\n", "test", "figure", "A", "B", "B vs A",
                   "95 % interval", "verdict");
  for (const auto& c : r.results)
    t += fmt::format("{:<12} {:<26} {:>11.4g} {:>11.4g} {:>+8.2f}%  [{:>+7.2f}, {:>+7.2f}]   {}{}\n", c.test,
                     c.figure, c.mean_a, c.mean_b, c.diff_pct, c.ci_low_pct, c.ci_high_pct,
                     c.significant ? "significant" : "not significant", c.spread_warning ? " (!spread)" : "");
  if (r.results.empty()) t += "(no figure has two rounds in both arms: nothing to compare)\n";
  for (const auto& n : r.not_compared)
    t += fmt::format("{:<12} {:<26} not compared: {}\n", n.test, n.figure, n.reason);
  for (const auto& m : r.restore_messages) t += m + "\n";
  if (r.interrupted) t += "interrupted: the rounds completed so far are analysed above\n";
  if (r.device_error) t += "stopped: " + *r.device_error + "\n";

  if (!r.restored) rep.exit_code = kExitFailure;
  else if (r.interrupted) rep.exit_code = kExitInterrupted;
  else if (r.device_error) rep.exit_code = kExitDevice;
  return rep;
}

}  // namespace ds::app
