// `drivescope ab TARGET --feature NAME=A,B --tests LIST [--rounds N] [--json]`.
// Ctrl-C / SIGTERM: the first one stops the run after the current test, restores the feature and
// prints what was measured (exit 4); a second one restores from the state file at once and exits.
#include <cstdio>
#include <memory>

#include "app/ab.hpp"
#include "app/bench.hpp"
#include "app/kernel_errors.hpp"
#include "app/progress.hpp"
#include "app/restore.hpp"
#include "cli/cli.hpp"

namespace ds::cli {

namespace {

// --progress=json for ab: a line as each test of each arm of each round starts (ab reports no
// finer steps), and one at the end with fraction 1. ab's callback gives no drive time: null.
void print_ab_progress(const std::vector<std::string>& tests, unsigned rounds, unsigned round, char arm,
                       std::string_view test, double test_fraction) {
  std::size_t index = 0;
  while (index < tests.size() && tests[index] != test) ++index;
  const double steps = 2.0 * rounds * static_cast<double>(tests.size());
  app::ProgressSnapshot s;
  s.test = std::string(test);
  s.test_number = static_cast<int>(index) + 1;
  s.test_count = static_cast<int>(tests.size());
  s.fraction = test_fraction;
  s.run_fraction = ((round * 2.0 + (arm == 'B' ? 1 : 0)) * tests.size() + index + test_fraction) / steps;
  const nlohmann::json extra = {{"round", round + 1}, {"rounds", rounds}, {"arm", std::string(1, arm)}, {"drive_s", nullptr}};
  std::fprintf(stderr, "%s\n", app::format_progress_json("ab", s, extra).c_str());
  std::fflush(stderr);
}

}  // namespace

Action add_ab(CLI::App& app) {
  struct Opts {
    std::string target, feature, tests = "access", state_dir;
    unsigned rounds = 5;
    double budget = 3;
    std::uint64_t seed = 1;
    std::string span, progress = "auto";
    bool keep_state = false, json = false, quiet = false, rates_only = false;
    DeviceFlags dev;
  };
  auto o = std::make_shared<Opts>();
  auto* c = app.add_subcommand("ab", "interleaved A/B test of a feature, with confidence intervals");
  c->add_option("target", o->target, "/dev/sdX, sim:NAME, sim:MODEL.json")->required();
  c->add_option("--feature", o->feature, "NAME=A,B: aam=quiet,fast | apm=128,254 | write-cache=on,off | "
                                         "read-ahead=on,off | scheduler=none,mq-deadline")->required();
  c->add_option("--tests", o->tests, "comma-separated: access,transfer,cache,blocksize (default access)");
  c->add_option("--rounds", o->rounds, "rounds, each A then B (default 5, at least 2)");
  c->add_option("--budget", o->budget, "drive seconds per test, per arm, per round (default 3)")->check(budget_validator());
  c->add_option("--seed", o->seed, "seed of the test plans (and of a simulated drive's noise)")->transform(seed_validator());
  c->add_option("--span", o->span, "limit to the first SIZE (50GB, 1TiB, 4096 bytes) or PERCENT (10%)");
  c->add_flag("--rates-only", o->rates_only, "transfer: rates by zone only, no track structure looked for (bench --rates-only)");
  c->add_option("--state-dir", o->state_dir, "where to keep the restore state file (default: $DRIVESCOPE_STATE_DIR, "
                                             "/run/drivescope, ...; simulated drives: none unless given)");
  c->add_flag("--keep-state", o->keep_state, "keep the state file, marked restored, after a clean restore");
  auto* quiet = c->add_flag("--quiet", o->quiet, "no progress lines on stderr");
  add_progress_option(c, o->progress)->excludes(quiet);
  add_csv_flag(c)->excludes(add_json_flag(c, o->json));
  add_device_options(c, o->dev);
  return [o, c]() -> int {
    if (!c->parsed()) return -1;
    app::AbOptions base;
    base.rounds = o->rounds;
    base.budget_s = o->budget;
    base.seed = o->seed;
    if (!o->state_dir.empty()) base.state_dir = o->state_dir;
    base.keep_state_file = o->keep_state;
    base.rates_only = o->rates_only;
    base.tests.clear();
    for (std::size_t s = 0; s <= o->tests.size();) {
      auto p = o->tests.find(',', s);
      if (p == std::string::npos) p = o->tests.size();
      if (p > s) base.tests.push_back(o->tests.substr(s, p - s));
      s = p + 1;
    }
    auto opts = app::parse_ab_feature(o->feature, base);
    if (!opts) {
      return refuse_usage("ab", opts.error().message);
    }
    // Before any other thread exists: SIGINT/SIGTERM become a flag (see app/restore.hpp).
    std::string forced_file;
    app::SignalGuard guard(restore_at_once(&forced_file));
    auto t = app::open_target(o->target, {.want_io = true, .seed = o->seed, .device = device_choice(o->dev)});
    if (!t) return emit(t.error(), o->json);
    if (c->count("--span") > 0) {  // given empty is refused by parse_span, not the whole drive
      const auto& info = t->io->info();
      auto s = app::parse_span(o->span, info.capacity_bytes,
                               info.logical_block_bytes ? info.logical_block_bytes : 512);
      if (!s) return emit(s.error(), o->json);
      opts->span_bytes = *s;
    }
    if (auto f = app::ab_state_file(*t, *opts); f && *f) forced_file = (*f)->string();
    const bool show = !o->json && !o->quiet && o->progress != "json";
    const bool json_lines = o->progress == "json";
    const auto& tests = opts->tests;
    const unsigned rounds = opts->rounds;
    // Failures the kernel retried away over all rounds: a slow read that was a drive's error
    // recovery would tilt the comparison (the same watch as bench's and replay's).
    const app::KernelErrorWatch kernel(t->block_name);
    auto r = app::run_ab(
        *t, *opts, [&guard] { return guard.interrupted(); },
        [&](unsigned round, char arm, std::string_view test) {
          if (show) std::fprintf(stderr, "drivescope: round %u arm %c %.*s\n", round + 1, arm,
                                 static_cast<int>(test.size()), test.data());
          if (json_lines) print_ab_progress(tests, rounds, round, arm, test, 0);
        });
    if (!r) return emit(r.error(), o->json);
    if (json_lines && !r->interrupted && !r->device_error && !tests.empty())
      print_ab_progress(tests, rounds, rounds - 1, 'B', tests.back(), 1);
    app::Report rep = app::ab_report(*r);
    kernel.finish(rep, r->device_error.has_value());
    return emit(rep, o->json);
  };
}

}  // namespace ds::cli
