// How many simulated random reads the simulator serves per CPU-second (a plain program, not a
// test: the figure goes to docs/performance.md).
// Usage: sim_random_reads [reads] [preset...] [--depth=D ...]  (depths default to 1 and 32)
#include <time.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "sim/rng.hpp"
#include "sim/sim.hpp"

namespace {

double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// Single-sector random reads with `depth` outstanding; returns reads per CPU-second.
double run(ds::IoEngine& io, long n, unsigned depth, double* virt_iops) {
  const std::uint32_t bs = io.info().logical_block_bytes;
  const std::uint64_t cap = io.info().capacity_bytes / bs;
  ds::sim::Rng rng(1234);
  std::vector<ds::IoCompletion> c(depth);
  ds::IoRequest r{0, bs, false, 0};
  long submitted = 0, done = 0;
  const std::int64_t v0 = io.now_ns();
  const double t0 = cpu_seconds();
  for (; submitted < static_cast<long>(depth) && submitted < n; ++submitted) {
    r.offset_bytes = rng.below(cap) * bs;
    r.tag = static_cast<std::uint64_t>(submitted);
    (void)io.submit({&r, 1});
  }
  while (done < n) {
    const auto k = io.reap(c, 1, std::chrono::milliseconds(0)).value();
    done += static_cast<long>(k);
    for (std::size_t i = 0; i < k && submitted < n; ++i, ++submitted) {
      r.offset_bytes = rng.below(cap) * bs;
      r.tag = static_cast<std::uint64_t>(submitted);
      (void)io.submit({&r, 1});
    }
  }
  const double cpu = cpu_seconds() - t0;
  *virt_iops = static_cast<double>(n) * 1e9 / static_cast<double>(io.now_ns() - v0);
  return static_cast<double>(n) / cpu;
}

}  // namespace

int main(int argc, char** argv) {
  const long n = argc > 1 ? std::atol(argv[1]) : 2'000'000;
  std::vector<std::string> presets;
  std::vector<unsigned> depths;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--depth=", 0) == 0) depths.push_back(static_cast<unsigned>(std::atoi(a.c_str() + 8)));
    else presets.push_back(a);
  }
  if (depths.empty()) depths = {1u, 32u};
  if (presets.empty()) presets = {"raptor", "7200.7", "cheetah15k3", "modern8tb"};
  std::printf("%-12s %5s %14s %16s\n", "preset", "depth", "reads/CPU-s", "simulated IOPS");
  for (const auto& p : presets) {
    for (unsigned depth : depths) {
      auto t = ds::sim::open("sim:" + p);
      if (!t) {
        std::fprintf(stderr, "%s\n", t.error().message.c_str());
        return 1;
      }
      double virt = 0;
      const double rate = run(*t->io, n, depth, &virt);
      std::printf("%-12s %5u %14.0f %16.1f\n", p.c_str(), depth, rate, virt);
    }
  }
  return 0;
}
