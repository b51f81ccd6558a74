// The phase-locked revolution (src/tests/spindle.*) on synthetic stamps: re-reads of a few blocks
// that complete on their combs t = φ + n·T, with a host's latency on every stamp, stalls, reads
// late by whole revolutions, and a starting revolution a few per cent off.
#include <doctest/doctest.h>

#include <cmath>
#include <random>

#include "tests/spindle.hpp"

using namespace ds::measure;

namespace {

struct Synth {
  double T = 4.0e6;            // ns
  unsigned anchors = 5;
  std::size_t reads = 150;
  double gap_ms = 80;          // mean time between two anchor reads (random reads in between)
  double host_median_us = 40;  // lognormal, σ 0.5
  double stall_p = 0.02, stall_ms = 3;
  double lost_rev_p = 0.02;    // a recalibration or a retry: the sector's next pass, or a later one
  bool steady = false;         // the anchor reads come at a steady pace (± 1 % of it)
};

std::vector<AnchorRead> synth(const Synth& p, std::mt19937_64& g, int* stalls = nullptr) {
  std::uniform_real_distribution<double> u(0, 1);
  std::lognormal_distribution<double> host(std::log(p.host_median_us * 1e3), 0.5);
  std::vector<double> phi(p.anchors);
  for (auto& x : phi) x = u(g) * p.T;
  std::vector<AnchorRead> out;
  double t = 1e9 * (1 + u(g));
  for (std::size_t k = 0; k < p.reads; ++k) {
    // The command arrives.
    t += (p.steady ? 1 + 0.01 * (2 * u(g) - 1) : -std::log(1 - u(g))) * p.gap_ms * 1e6;
    const unsigned j = static_cast<unsigned>(k % p.anchors);
    // The sector's next pass after the arrival, maybe a later one, then the host.
    double pass = phi[j] + std::ceil((t - phi[j]) / p.T) * p.T;
    if (u(g) < p.lost_rev_p) pass += p.T * (1 + std::floor(u(g) * 30));
    double done = pass + host(g);
    if (u(g) < p.stall_p) {
      done += p.stall_ms * 1e6;
      if (stalls) ++*stalls;
    }
    out.push_back({j, static_cast<std::int64_t>(done)});
    t = done;
  }
  return out;
}

}  // namespace

TEST_CASE("fit_spindle: the revolution to parts per million, its interval calibrated over seeds") {
  int covered = 0, found = 0;
  double worst_rel = 0, widest_rel = 0;
  const int seeds = 200;
  for (int seed = 1; seed <= seeds; ++seed) {
    std::mt19937_64 g(static_cast<std::uint64_t>(seed));
    Synth p;
    p.T = 1e6 * (3.0 + 14.0 * std::uniform_real_distribution<double>(0, 1)(g));  // 3 .. 17 ms
    int stalls = 0;
    const auto reads = synth(p, g, &stalls);
    // The starting revolution is off by up to 4 %, and said to be within 5 %.
    const double t0 = p.T * (1 + 0.04 * (2 * std::uniform_real_distribution<double>(0, 1)(g) - 1));
    const SpindleFit f = fit_spindle(reads, t0, 0.05);
    if (f.revolution_ns <= 0) continue;
    ++found;
    const double err = std::fabs(f.revolution_ns - p.T);
    covered += err <= f.half_width_ns;
    worst_rel = std::max(worst_rel, err / p.T);
    widest_rel = std::max(widest_rel, f.half_width_ns / p.T);
    CHECK(f.outliers >= static_cast<std::size_t>(stalls));  // the stalls are left out
  }
  MESSAGE("found " << found << "/" << seeds << ", covered " << covered << ", worst error " << worst_rel * 1e6
                   << " ppm, widest interval " << widest_rel * 1e6 << " ppm");
  CHECK(found == seeds);
  CHECK(covered >= 0.9 * seeds);
  CHECK(worst_rel < 5e-5);
  CHECK(widest_rel < 1e-4);
}

TEST_CASE("fit_spindle: no comb, no revolution") {
  std::mt19937_64 g(7);
  std::uniform_real_distribution<double> u(0, 1);
  // Stamps at no particular phase (a device without platters, or every read a buffer hit).
  std::vector<AnchorRead> reads;
  double t = 1e9;
  for (unsigned k = 0; k < 150; ++k) {
    t += 1e6 * (1 + 20 * u(g));
    reads.push_back({k % 5, static_cast<std::int64_t>(t)});
  }
  CHECK(fit_spindle(reads, 8.33e6, 0.05).revolution_ns == 0);
  // A comb, but searched around a revolution 30 % off: nothing locks.
  Synth p;
  p.T = 8.333e6;
  const auto comb = synth(p, g);
  CHECK(fit_spindle(comb, p.T * 1.3, 0.05).revolution_ns == 0);
  CHECK(fit_spindle(comb, p.T * 1.01, 0.05).revolution_ns == doctest::Approx(p.T).epsilon(1e-4));
  // Reads of each block at a steady pace P: the phases also line up at 1/T ± 1/P, where a search a few
  // per cent wide finds a second peak almost as high. Refused or right, never locked onto the alias.
  int refused = 0;
  for (int seed = 1; seed <= 20; ++seed) {
    std::mt19937_64 gs(static_cast<std::uint64_t>(seed));
    Synth st;
    st.T = 4.0e6;
    st.steady = true;
    st.gap_ms = 60;  // each of the 5 blocks about every 300 ms
    st.reads = 300;
    const SpindleFit f = fit_spindle(synth(st, gs), st.T * 1.01, 0.05);
    CHECK((f.revolution_ns == 0 || std::fabs(f.revolution_ns - st.T) <= f.half_width_ns));
    refused += f.revolution_ns == 0;
  }
  MESSAGE("steady pace: " << refused << " of 20 refused, the others right");
  // Too few reads.
  const std::vector<AnchorRead> few(comb.begin(), comb.begin() + 10);
  CHECK(fit_spindle(few, p.T, 0.05).revolution_ns == 0);
}
