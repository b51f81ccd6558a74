// ds_accuracy: measures every simulated drive (the data set's model files and every preset, each
// as it is and as a /2 variant) over several seeds and budgets, judges each run against the
// independent truth (tools/truth) and prints docs/accuracy.md (scripts/accuracy.sh).
//
//   ds_accuracy [--data DIR] [--seeds N] [--only NAME[,NAME]] [--budget S[,S...]]
//               [--variants v1,v2[,v2x]] [--jobs 1|2] [--runs-json FILE] [--dump-models DIR]
// (v2x: v2 with zero-latency reads and surface-serpentine layouts, reported as a trial of its own.)
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>

#include <fmt/format.h>

#include "accuracy_lib.hpp"
#include "report.hpp"

namespace {

constexpr unsigned kMaxJobs = 2;  // the machine's cores are shared: never more than two workers

struct Options {
  std::string data = "tests/data";
  unsigned seeds = 20;
  std::vector<std::string> only;
  std::vector<double> budgets{120};
  std::vector<std::string> variants{"v1", "v2"};
  unsigned jobs = kMaxJobs;
  std::string runs_json;
  std::string dump_models;  // write each run's model (the /2 variant as drawn) here, to rerun one by hand
};

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string p; std::getline(ss, p, ',');)
    if (!p.empty()) out.push_back(p);
  return out;
}

bool parse_args(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (i + 1 >= argc) return false;
    const std::string v = argv[++i];
    if (a == "--data") o.data = v;
    else if (a == "--seeds") o.seeds = static_cast<unsigned>(std::stoul(v));
    else if (a == "--only") o.only = split(v);
    else if (a == "--budget") {
      o.budgets.clear();
      for (const auto& b : split(v)) o.budgets.push_back(std::stod(b));
    } else if (a == "--variants") o.variants = split(v);
    else if (a == "--jobs") o.jobs = std::clamp(static_cast<unsigned>(std::stoul(v)), 1u, kMaxJobs);
    else if (a == "--runs-json") o.runs_json = v;
    else if (a == "--dump-models") o.dump_models = v;
    else return false;
  }
  for (const auto& v : o.variants)
    if (v != "v1" && v != "v2" && v != "v2x") return false;
  return o.seeds > 0 && !o.budgets.empty() && !o.variants.empty();
}

bool wanted(const accuracy::Subject& s, const Options& o) {
  if (o.only.empty()) return true;
  for (const auto& n : o.only)
    if (s.name.find(n) != std::string::npos) return true;
  return false;
}

nlohmann::json run_json(const accuracy::RunResult& r) {
  nlohmann::json j = {{"drive", r.spec.subject->name}, {"variant", r.spec.variant}, {"seed", r.spec.seed},
                      {"budget_s", r.spec.budget_s}, {"skipped", r.skipped}, {"message", r.message},
                      {"cpu_s", r.cpu_s}, {"drive_time_s", r.bench ? r.bench->drive_time_s : 0.0}};
  // The layout imperfections a /2 variant drew (failures cluster by them).
  const auto model = accuracy::run_model(*r.spec.subject, r.spec.variant, r.spec.seed);
  j["zero_latency_read"] = model.contains("cache") && model["cache"].value("zero_latency_read", false);
  j["layout"] = model.value("layout", "cylinder");
  if (r.bench)
    for (const auto& [name, e] : r.bench->errors) j["errors"][name] = e.message;
  // The tests' own notes say why a figure is null: the first thing to read about a failed run.
  // (and their reason codes, tests/withheld.hpp, which failures can be grouped by).
  auto withheld = [&](const char* test, const std::vector<ds::measure::Withheld>& w) {
    for (const auto& x : w)
      j["withheld"].push_back(fmt::format("{}: {}: {}", test, x.figure, ds::measure::withheld_reason_name(x.reason)));
  };
  if (r.bench && r.bench->access) {
    for (const auto& n : r.bench->access->notes) j["notes"].push_back("access: " + n);
    withheld("access", r.bench->access->withheld);
  }
  if (r.bench && r.bench->transfer) {
    for (const auto& n : r.bench->transfer->notes) j["notes"].push_back("transfer: " + n);
    withheld("transfer", r.bench->transfer->withheld);
  }
  for (const auto& o : r.outcomes)
    j["outcomes"].push_back({{"criterion", o.criterion}, {"pass", o.pass}, {"counts", o.counts},
                             {"measured", o.measured}, {"truth", o.truth}, {"covered", o.covered.value_or(false)},
                             {"intervals", o.intervals}, {"intervals_covered", o.intervals_covered}});
  return j;
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  if (!parse_args(argc, argv, opt)) {
    std::cerr << "usage: ds_accuracy [--data DIR] [--seeds N] [--only NAME[,NAME]] [--budget S[,S...]] "
                 "[--variants v1,v2[,v2x]] [--jobs 1|2] [--runs-json FILE] [--dump-models DIR]\n";
    return 2;
  }
  const auto subjects = accuracy::subjects(opt.data);
  std::vector<accuracy::RunSpec> specs;
  for (double b : opt.budgets)
    for (const auto& s : subjects) {
      if (!wanted(s, opt)) continue;
      if (s.model.is_null()) {
        std::cerr << s.source << ": cannot read the model\n";
        return 1;
      }
      for (const auto& v : opt.variants)
        for (unsigned seed = 1; seed <= opt.seeds; ++seed) specs.push_back({&s, v, seed, b});
    }
  if (!opt.dump_models.empty())
    for (const auto& sp : specs)
      std::ofstream(fmt::format("{}/{}-{}-{}.json", opt.dump_models, sp.subject->name, sp.variant, sp.seed))
          << accuracy::run_model(*sp.subject, sp.variant, sp.seed).dump(1) << "\n";
  const auto results = accuracy::run_many(specs, accuracy::kSeeds, opt.jobs,
                                          [](const accuracy::RunResult& r, std::size_t done, std::size_t total) {
    int fails = 0;
    for (const auto& o : r.outcomes) fails += o.counts && !o.pass;
    std::cerr << fmt::format("[{}/{}] {} {} seed {} {:g} s: {}\n", done, total, r.spec.subject->name, r.spec.variant,
                             r.spec.seed, r.spec.budget_s,
                             r.skipped ? "skipped (" + r.message + ")"
                             : !r.message.empty() ? "ERROR " + r.message
                                                  : fmt::format("{} criteria failed, cpu {:.1f} s", fails, r.cpu_s));
  });
  if (!opt.runs_json.empty()) {
    nlohmann::json all = nlohmann::json::array();
    for (const auto& r : results) all.push_back(run_json(r));
    std::ofstream(opt.runs_json) << all.dump(1) << "\n";
  }
  std::string only;
  for (const auto& n : opt.only) only += (only.empty() ? "" : ",") + n;
  const std::string md = accuracy::markdown(results, {opt.seeds, opt.budgets, opt.variants, only});
  std::fputs(md.c_str(), stdout);
  return 0;
}
