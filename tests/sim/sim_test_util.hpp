// Helpers for the simulator tests: drive a SimTarget through its public I/O interface the way a
// host would, and read the model/truth files of tests/data/disk-models.
#pragma once
#include <doctest/doctest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "drivescope/opcodes.hpp"
#include "sim/rng.hpp"
#include "sim/sim.hpp"

namespace simtest {

inline std::string data_dir() { return std::string(DS_TEST_DATA) + "/disk-models"; }

// Model files (without the .truth.json ones), sorted.
inline std::vector<std::string> model_files() {
  std::vector<std::string> v;
  for (const auto& e : std::filesystem::directory_iterator(data_dir())) {
    const auto p = e.path().string();
    if (p.ends_with(".json") && !p.ends_with(".truth.json")) v.push_back(p);
  }
  std::sort(v.begin(), v.end());
  return v;
}

inline nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return nlohmann::json::parse(ss.str());
}

inline std::string truth_path(const std::string& model_path) {
  return model_path.substr(0, model_path.size() - 5) + ".truth.json";
}

inline ds::sim::SimTarget open_model(const ds::sim::DiskModel& m, bool writable = false) {
  ds::sim::SimOptions o;
  o.writable = writable;
  auto t = ds::sim::open(m, o);
  REQUIRE_MESSAGE(t.ok(), (t.ok() ? "" : t.error().message));
  return std::move(*t);
}

// One command at QD1, submitted now: its latency and completion stamp.
struct Done {
  double ms = 0;        // latency
  std::int64_t at = 0;  // completion stamp
};
inline Done io_at(ds::IoEngine& io, std::uint64_t lba, std::uint32_t sectors, bool write = false) {
  ds::IoRequest r{lba * 512, sectors * 512u, write, lba};
  REQUIRE(io.submit({&r, 1}).value() == 1);
  ds::IoCompletion c;
  REQUIRE(io.reap({&c, 1}, 1, std::chrono::milliseconds(0)).value() == 1);
  REQUIRE(c.ok());
  return {static_cast<double>(c.latency_ns()) / 1e6, c.complete_ns};
}

// SET FEATURES through the drive's command interface.
inline ds::CommandResult set_features(ds::Device& dev, std::uint8_t sub, std::uint8_t count = 0) {
  ds::AtaRequest r;
  r.in.command = ds::ata::kSetFeatures;
  r.in.features = sub;
  r.in.count = count;
  return dev.ata(r);
}

inline ds::sim::SimTarget open_or_fail(const std::string& spec, ds::sim::SimOptions o = {}) {
  auto t = ds::sim::open(spec, o);
  REQUIRE_MESSAGE(t.ok(), (t.ok() ? "" : t.error().message));
  return std::move(*t);
}

// A preset with its controller time made exact (noise.overhead_jitter_ms 0): for the tests of one
// mechanism whose expected time counts the overhead (a write into the cache, a cache hit). The
// presets are format /2 and jitter it; that jitter has its own test (model_v2_test.cpp).
inline ds::sim::SimTarget open_exact_overhead(const std::string& spec, ds::sim::SimOptions o = {}) {
  auto t = open_or_fail(spec, o);
  ds::sim::DiskModel m = t.model;
  m.noise.overhead_jitter_ms = 0;
  auto exact = ds::sim::open(m, o);
  REQUIRE_MESSAGE(exact.ok(), (exact.ok() ? "" : exact.error().message));
  return std::move(*exact);
}

// Stream [first, end) sectors with `qd` requests of `req` sectors outstanding; returns MB/s
// measured from the first completion to the last (the initial positioning excluded).
inline double sequential_mb_s(ds::IoEngine& io, std::uint64_t first, std::uint64_t end,
                              std::uint32_t req, unsigned qd) {
  const std::uint32_t bs = io.info().logical_block_bytes;
  std::uint64_t next = first;
  auto make = [&]() {
    const std::uint32_t n = static_cast<std::uint32_t>(std::min<std::uint64_t>(req, end - next));
    ds::IoRequest r{next * bs, n * bs, false, next};
    next += n;
    return r;
  };
  for (unsigned i = 0; i < qd && next < end; ++i) {
    auto r = make();
    REQUIRE(io.submit({&r, 1}).value() == 1);
  }
  std::int64_t t_first = -1, t_last = 0;
  std::uint64_t bytes_after_first = 0;
  ds::IoCompletion c[8];
  while (io.in_flight() > 0) {
    const auto n = io.reap(c, 1, std::chrono::milliseconds(0)).value();
    for (std::size_t i = 0; i < n; ++i) {
      REQUIRE(c[i].ok());
      if (t_first < 0) t_first = c[i].complete_ns;
      else bytes_after_first += static_cast<std::uint64_t>(c[i].result);
      t_last = c[i].complete_ns;
      if (next < end) {
        auto r = make();
        REQUIRE(io.submit({&r, 1}).value() == 1);
      }
    }
  }
  return static_cast<double>(bytes_after_first) * 1e3 / static_cast<double>(t_last - t_first);
}

// Mean latency (ms) of n single-sector reads at uniformly random LBAs, one at a time.
inline double mean_random_read_ms(ds::IoEngine& io, int n, std::uint64_t seed = 42,
                                  std::uint64_t first = 0, std::uint64_t end = 0) {
  const std::uint32_t bs = io.info().logical_block_bytes;
  if (end == 0) end = io.info().capacity_bytes / bs;
  ds::sim::Rng rng(seed);
  double sum = 0;
  for (int i = 0; i < n; ++i) {
    ds::IoRequest r{(first + rng.below(end - first)) * bs, bs, false, static_cast<std::uint64_t>(i)};
    REQUIRE(io.submit({&r, 1}).value() == 1);
    ds::IoCompletion c;
    REQUIRE(io.reap({&c, 1}, 1, std::chrono::milliseconds(0)).value() == 1);
    REQUIRE(c.ok());
    sum += static_cast<double>(c.latency_ns());
  }
  return sum / n / 1e6;
}

// Random single-sector reads with `depth` kept outstanding; returns completions per second.
inline double random_read_iops(ds::IoEngine& io, int n, unsigned depth, std::uint64_t seed = 7) {
  const std::uint32_t bs = io.info().logical_block_bytes;
  const std::uint64_t cap = io.info().capacity_bytes / bs;
  ds::sim::Rng rng(seed);
  int submitted = 0, done = 0;
  auto submit_one = [&]() {
    ds::IoRequest r{rng.below(cap) * bs, bs, false, static_cast<std::uint64_t>(submitted)};
    REQUIRE(io.submit({&r, 1}).value() == 1);
    ++submitted;
  };
  const std::int64_t t0 = io.now_ns();
  while (submitted < static_cast<int>(depth) && submitted < n) submit_one();
  ds::IoCompletion c[64];
  std::int64_t t_end = t0;
  while (done < n) {
    const auto k = io.reap(c, 1, std::chrono::milliseconds(0)).value();
    REQUIRE(k > 0);
    for (std::size_t i = 0; i < k; ++i) {
      t_end = std::max(t_end, c[i].complete_ns);
      ++done;
      if (submitted < n) submit_one();
    }
  }
  return n * 1e9 / static_cast<double>(t_end - t0);
}

}  // namespace simtest
