// `ab` on simulated drives: the A/B finds the effect the model was given, of the right size, and
// finds none where the model has none. Models are the presets of src/sim/presets.cpp (a test may
// read models; the measurement code may not): maxline3 (AAM quiet seek scale 1.5), raptor (AAM
// without effect), wd1200jd (AAM quiet media-rate scale 0.9).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "app/ab.hpp"
#include "app/features.hpp"
#include "app/target.hpp"
#include "sim/sim.hpp"

using namespace ds;
using namespace ds::app;

namespace {

AbResult run(const std::string& spec, const std::string& feature, const std::string& tests, unsigned rounds,
             std::uint64_t seed, const StopFn& stop = {}, double budget_s = 8) {
  auto t = open_target(spec, {.want_io = true, .seed = seed});
  REQUIRE(t);
  AbOptions base;
  base.tests = {tests};
  base.rounds = rounds;
  base.budget_s = budget_s;
  base.seed = seed;
  auto o = parse_ab_feature(feature, base);
  REQUIRE(o);
  auto r = run_ab(*t, *o, stop);
  REQUIRE(r);
  // Whatever happened, the drive is back at its original AAM level.
  FeatureControl fc = feature_control(*t);
  auto now = fc.read(o->feature);
  REQUIRE(now);
  REQUIRE(now->value);
  CHECK(*now->value == r->original);
  CHECK(r->restored);
  return std::move(*r);
}

const measure::AbComparison* find(const AbResult& r, const std::string& test, const std::string& fig) {
  for (const auto& c : r.results)
    if (c.test == test && c.figure == fig) return &c;
  return nullptr;
}

}  // namespace

TEST_CASE("AAM quiet on a model with quiet seek scale 1.5: access difference of the configured size") {
  auto model = sim::preset("maxline3");
  REQUIRE(model);
  REQUIRE(model->aam.quiet_seek_scale == doctest::Approx(1.5));
  auto r = run("sim:maxline3", "aam=fast,quiet", "access", 5, 11);
  CHECK(r.rounds_done == 5);
  CHECK(r.original.level == 254u);
  // Seek time: configured +50 % (B = quiet vs A = fast).
  const auto* seek = find(r, "access", "avg_seek_ms");
  REQUIRE(seek);
  const double configured_pct = (model->aam.quiet_seek_scale - 1) * 100;
  MESSAGE("avg_seek: measured " << seek->diff_pct << " % [" << seek->ci_low_pct << ", " << seek->ci_high_pct
                                << "], configured " << configured_pct << " %");
  CHECK(seek->significant);
  CHECK(std::fabs(seek->diff_pct - configured_pct) <= 0.2 * configured_pct);
  // Access time: the added seek is (scale-1) × the model's average seek (random reads over the
  // whole disk are a uniform sample of cylinder pairs, which is how average_ms is defined).
  const auto* acc = find(r, "access", "read.mean_ms");
  REQUIRE(acc);
  const double configured_ms = (model->aam.quiet_seek_scale - 1) * model->seek.average_ms;
  MESSAGE("access mean: measured +" << acc->diff << " ms (" << acc->diff_pct << " %), configured +"
                                    << configured_ms << " ms");
  CHECK(acc->significant);
  CHECK(std::fabs(acc->diff - configured_ms) <= 0.2 * configured_ms);
  CHECK_FALSE(acc->spread_warning);
}

TEST_CASE("AAM on a model where it has no effect: no significant access difference in >= 17 of 20 seeds") {
  auto model = sim::preset("raptor");
  REQUIRE(model);
  REQUIRE(model->aam.supported);
  REQUIRE(model->aam.quiet_seek_scale == doctest::Approx(1.0));
  int sig_mean = 0, sig_seek = 0, sig_any = 0, warned = 0;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    auto r = run("sim:raptor", "aam=fast,quiet", "access", 5, seed);
    const auto* acc = find(r, "access", "read.mean_ms");
    const auto* seek = find(r, "access", "avg_seek_ms");
    REQUIRE(acc);
    REQUIRE(seek);
    sig_mean += acc->significant;
    sig_seek += seek->significant;
    warned += acc->spread_warning;
    bool any = false;
    for (const auto& c : r.results) any = any || c.significant;
    sig_any += any;
  }
  MESSAGE("false positives over 20 seeds: read.mean_ms " << sig_mean << ", avg_seek_ms " << sig_seek
                                                         << ", any of the access figures " << sig_any
                                                         << "; spread warnings on read.mean_ms " << warned);
  // Each seed's verdict is a 95 % interval excluding zero: false by chance in 5 % of seeds. Of 20,
  // four or more come out significant with probability 1.6 % (binomial); at most one, as this
  // asked before, failed by chance 26 % of the time under a calibrated interval.
  CHECK(sig_mean <= 3);
  CHECK(sig_seek <= 3);
}

// wd1200jd's quiet level loses a revolution at about one switch in nine (the media-rate scale is
// honoured as switch time, docs/disk-model.md): which switches depends on the place, so a
// transfer sample either meets one or not. Before, every round sampled the same places and the
// structure took each lost revolution for a cylinder switch: -17.5 % in [-17.55, -17.47] for
// -10 % on every seed, an interval that never held the truth. Now the samples lie at random
// places of their grid cells, and a switch loss the structure cannot assign to a kind leaves the
// stream's own rate: over 20 seeds 18 intervals held -10 % (by hand, 30 s a test). With the
// preset as /2 (controller-time jitter among its keys) that fell to 15 of 20 (91 of seeds 1-100,
// significant on 12): most samples of a zone met no loss, and the zone's outlier test dropped
// those that did. A sample is now judged on its rate without its lost revolutions (kept in the
// mean): 97 of seeds 1-100 held, significant on 52 (87 and 50 in the run below). Now each
// zone's rate is its samples' lossless rates times the share of time spent reading pooled over
// the whole run (transfer_zones.cpp, pooled_loss_share): seeds 1-100 held 95, significant 100,
// the difference within 2.5 points of the truth on 100 (before: 48), every two rounds' intervals
// overlapping on 100.
TEST_CASE("AAM quiet on a model with quiet media-rate scale 0.9: the transfer interval holds the configured change") {
  auto model = sim::preset("wd1200jd");
  REQUIRE(model);
  REQUIRE(model->aam.quiet_rate_scale < 1.0);
  const double configured_pct = (model->aam.quiet_rate_scale - 1) * 100;
  int held = 0, significant = 0, near = 0, consistent = 0;
  const int seeds = 20;
  for (int seed = 1; seed <= seeds; ++seed) {
    auto r = run("sim:wd1200jd", "aam=fast,quiet", "transfer", 4, static_cast<std::uint64_t>(seed), {}, 30);
    const auto* outer = find(r, "transfer", "outer_mb_s");
    REQUIRE(outer);
    INFO("seed " << seed << ": " << outer->diff_pct << " % [" << outer->ci_low_pct << ", " << outer->ci_high_pct << "]");
    held += outer->ci_low_pct <= configured_pct && configured_pct <= outer->ci_high_pct;
    significant += outer->significant && outer->ci_high_pct < 0;
    near += std::fabs(outer->diff_pct - configured_pct) <= 2.5;
    // Each round states its own interval: within an arm, every two rounds' intervals meet.
    bool meet = true;
    for (const auto& x : r.runs)
      for (const auto& y : r.runs) {
        if (x.arm != y.arm || &x == &y || !x.uncertainties.contains("transfer/outer_mb_s")) continue;
        const double d = std::fabs(x.figures.at("transfer/outer_mb_s") - y.figures.at("transfer/outer_mb_s"));
        meet = meet && d <= x.uncertainties.at("transfer/outer_mb_s") + y.uncertainties.at("transfer/outer_mb_s");
      }
    consistent += meet;
    // Never confidently the wrong way.
    CHECK_FALSE((outer->significant && outer->ci_low_pct > 0));
  }
  MESSAGE("transfer outer under AAM quiet: the interval held " << configured_pct << " % on " << held << "/" << seeds
                                                                << " seeds, significant on " << significant
                                                                << ", within 2.5 points on " << near
                                                                << ", rounds' intervals meeting on " << consistent);
  // A calibrated 95 % interval misses on at most 3 of 20 seeds with probability 98.4 % (binomial).
  CHECK(held >= seeds - 3);
  // A 10 % change the drive really makes is told apart from no change, and measured near its size.
  CHECK(significant >= seeds - 1);
  CHECK(near >= seeds - 1);
  CHECK(consistent >= seeds - 1);
}

TEST_CASE("ab stopped from outside after two rounds: restored, the rounds so far analysed") {
  int polls = 0;
  // Each arm polls once before setting the feature and once per test, and once more per round (5 a round): stop in round 3.
  auto r = run("sim:maxline3", "aam=fast,quiet", "access", 50, 2, [&] { return ++polls > 12; });
  CHECK(r.interrupted);
  CHECK(r.rounds_done >= 2);
  CHECK(r.rounds_done < 50);
  CHECK_FALSE(r.results.empty());
  auto rep = ab_report(r);
  CHECK(rep.exit_code == kExitInterrupted);
  CHECK(rep.json["ab"]["interrupted"] == true);
  CHECK(rep.json["ab"]["results"][0].contains("ci_low_pct"));
}

TEST_CASE("ab input errors") {
  CHECK_FALSE(parse_ab_feature("aam"));
  CHECK_FALSE(parse_ab_feature("aam=quiet"));
  CHECK_FALSE(parse_ab_feature("aam=quiet,quiet"));
  CHECK_FALSE(parse_ab_feature("warp=1,2"));
  CHECK_FALSE(parse_ab_feature("aam=quiet,99"));
  auto t = open_target("sim:maxline3", {.want_io = true});
  REQUIRE(t);
  auto o = parse_ab_feature("aam=fast,quiet");
  REQUIRE(o);
  o->tests = {"warp"};
  CHECK_FALSE(run_ab(*t, *o));
  o->tests = {"access"};
  o->rounds = 1;
  CHECK_FALSE(run_ab(*t, *o));
  // Mistakes in the options are usage errors (exit 2), like CLI11's.
  CHECK(run_ab(*t, *o).error().code == kUsageErrorCode);
  // scheduler on a simulated drive: refused before any test runs (issue 15: it used to run, print
  // an empty table and exit 5 as if the device had failed), with the reason.
  auto s = parse_ab_feature("scheduler=none,mq-deadline");
  REQUIRE(s);
  auto r = run_ab(*t, *s);
  REQUIRE_FALSE(r);
  CHECK(r.error().message.find("block") != std::string::npos);
  CHECK(r.error().code != kUsageErrorCode);  // the command line is right; the target lacks it
}

TEST_CASE("ab: block-size figures in the order of their sizes, not of their text") {
  // As text "@1048576" < "@131072" < "@4096" < "@65536".
  CHECK(figure_before("blocksize/read_mb_s@4096", "blocksize/read_mb_s@65536"));
  CHECK(figure_before("blocksize/read_mb_s@65536", "blocksize/read_mb_s@1048576"));
  CHECK_FALSE(figure_before("blocksize/read_mb_s@1048576", "blocksize/read_mb_s@131072"));
  CHECK_FALSE(figure_before("blocksize/read_mb_s@4096", "blocksize/read_mb_s@4096"));
  CHECK(figure_before("access/avg_seek_ms", "blocksize/read_mb_s@512"));
  CHECK(figure_before("access/avg_seek_ms", "access/read.mean_ms"));
  // A size that is no number sorts as a figure without one, before the numbered ones; no crash.
  CHECK(figure_before("blocksize/read_mb_s@x", "blocksize/read_mb_s@512"));
  CHECK(figure_before("blocksize/read_mb_s", "blocksize/read_mb_s@512"));

  // An A/B of the block-size sweep lists its rows from the smallest block to the largest.
  auto r = run("sim:raptor", "read-ahead=on,off", "blocksize", 2, 3, {}, 2);
  std::vector<std::uint64_t> sizes;
  for (const auto& c : r.results) {
    REQUIRE(c.test == "blocksize");
    const auto at = c.figure.find('@');
    REQUIRE(at != std::string::npos);
    sizes.push_back(std::stoull(c.figure.substr(at + 1)));
  }
  REQUIRE(sizes.size() >= 3);
  CHECK(std::is_sorted(sizes.begin(), sizes.end()));
  // Sizes of different digit counts, so that the text order would have differed.
  CHECK(std::to_string(sizes.front()).size() < std::to_string(sizes.back()).size());
}
