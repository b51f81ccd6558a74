// Drive-managed SMR in the simulator (model key "smr", sim/smr.hpp): random writes run fast into
// the media cache until it is full, then each write waits for a band clean (the cliff); an idle
// drive cleans, after which writes are fast again; reads of cached data go to the cache region;
// the key is validated and a model without it is untouched.
#include <doctest/doctest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "sim/drive.hpp"
#include "sim_test_util.hpp"

using ds::sim::DiskModel;

namespace {

DiskModel preset(const char* name) {
  auto m = ds::sim::preset(name);
  REQUIRE(m.ok());
  return *m;
}

// The DM-SMR preset with a cache small enough to fill in a test: 16 MB (4096 writes of 4 KiB).
DiskModel small_cache(std::uint64_t cache_bytes = 16u << 20) {
  DiskModel m = preset("archive8tb-smr");
  m.smr.media_cache_bytes = cache_bytes;
  return m;
}

// QD1 4 KiB writes at LBAs spread over the drive by a fixed stride (no two in one band).
struct WriteRun {
  std::vector<double> ms;
};
WriteRun random_writes(ds::IoEngine& io, std::size_t n, std::uint64_t cap, std::uint64_t salt = 0) {
  WriteRun r;
  ds::sim::Rng rng(12345 + salt);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t lba = rng.below(cap / 8 - 1) * 8;
    r.ms.push_back(simtest::io_at(io, lba, 8, true).ms);
  }
  return r;
}

double median_of(std::vector<double> v, std::size_t from, std::size_t to) {
  std::vector<double> s(v.begin() + static_cast<std::ptrdiff_t>(from), v.begin() + static_cast<std::ptrdiff_t>(to));
  std::sort(s.begin(), s.end());
  return s[s.size() / 2];
}

}  // namespace

TEST_CASE("smr: the key is parsed, written back and checked") {
  const DiskModel m = preset("archive8tb-smr");
  REQUIRE(m.smr.enabled());
  CHECK(m.smr.media_cache_bytes > 20'000'000'000ull);
  CHECK(m.smr.band_bytes >= 10'000'000ull);
  auto again = ds::sim::parse_model(ds::sim::model_to_json(m));
  REQUIRE(again.ok());
  CHECK(again->smr.media_cache_bytes == m.smr.media_cache_bytes);
  CHECK(again->smr.band_bytes == m.smr.band_bytes);
  CHECK(again->smr.idle_delay_ms == m.smr.idle_delay_ms);

  auto base = nlohmann::json::parse(ds::sim::model_to_json(preset("7k400")));
  auto with = [&](nlohmann::json s) {
    auto j = base;
    j["smr"] = std::move(s);
    return ds::sim::parse_model(j.dump());
  };
  CHECK(with({{"media_cache_bytes", 1 << 20}, {"band_bytes", 1 << 20}}).ok());
  auto no_band = with({{"media_cache_bytes", 1 << 20}});
  REQUIRE_FALSE(no_band.ok());
  CHECK(no_band.error().message.find("smr.band_bytes") != std::string::npos);
  CHECK_FALSE(with({{"media_cache_bytes", 1000}, {"band_bytes", 1 << 20}}).ok());  // not whole sectors
  CHECK_FALSE(with({{"media_cache_bytes", 1 << 20}, {"band_bytes", 1 << 20}, {"idle_delay_ms", -1}}).ok());
  CHECK_FALSE(with({{"media_cache_bytes", 1 << 20}, {"band_bytes", 1 << 20}, {"cache_first_lba", 1ull << 40}}).ok());
  CHECK_FALSE(with("big").ok());
  CHECK_FALSE(with({{"media_cache_bytes", 1 << 20}, {"band_bytes", 1 << 20}, {"idle_delay_ms", 1e300}}).ok());
  CHECK_FALSE(with({{"media_cache_bytes", 1 << 20}, {"band_bytes", 1 << 20}, {"idle_clean_mb_s", 1e-300}}).ok());
  auto exos = nlohmann::json::parse(ds::sim::model_to_json(preset("exos2x14")));
  exos["smr"] = {{"media_cache_bytes", 1 << 20}, {"band_bytes", 1 << 20}};
  CHECK_FALSE(ds::sim::parse_model(exos.dump()).ok());
  CHECK_FALSE(preset("7k400").smr.enabled());
}

TEST_CASE("smr: random writes are fast until the media cache is full, then each waits for a band clean") {
  const DiskModel m = small_cache();
  auto t = simtest::open_model(m, true);
  const std::size_t fit = m.smr.media_cache_bytes / 4096;
  const auto run = random_writes(*t.io, fit + 40, m.capacity());
  const double fast = median_of(run.ms, 100, fit);
  const double slow = median_of(run.ms, fit, fit + 40);
  INFO("fast " << fast << " ms, after the cache filled " << slow << " ms");
  // Into the cache: no seek, no rotational wait, far below one revolution (10 ms at 5980 rpm).
  CHECK(fast < 1.0);
  // A clean reads and rewrites a whole band: at least twice its media time (30 MB at under
  // 200 MB/s: 0.15 s each way).
  CHECK(slow > 300.0);
  // The cliff is where the cache is full, not before: the last write that fits is still fast.
  CHECK(run.ms[fit - 1] < 1.0);
  CHECK(run.ms[fit] > 300.0);
  // Each slow write waited for exactly one clean (a clean frees at least the 4 KiB it needs); a
  // write whose room an earlier clean had made (two cached writes in one band) waited for none.
  const auto slow_writes = std::count_if(run.ms.begin() + static_cast<std::ptrdiff_t>(fit), run.ms.end(),
                                         [](double v) { return v > 300.0; });
  CHECK(slow_writes >= 30);
  CHECK(t.drive->smr().forced_cleans() == static_cast<std::uint64_t>(slow_writes));
  CHECK(t.drive->smr().idle_cleans() == 0);
}

TEST_CASE("smr: an idle drive cleans bands and fast writes come back; without idling they do not") {
  const DiskModel m = small_cache();
  const std::size_t fit = m.smr.media_cache_bytes / 4096;
  auto idle = simtest::open_model(m, true);
  random_writes(*idle.io, fit + 5, m.capacity());
  idle.io->idle(std::chrono::seconds(20));  // 1 s idle delay, then ~0.35 s a band
  const auto after = random_writes(*idle.io, 20, m.capacity(), 1);
  CHECK(idle.drive->smr().idle_cleans() > 20);
  CHECK(median_of(after.ms, 0, 20) < 1.0);

  auto busy = simtest::open_model(m, true);
  random_writes(*busy.io, fit + 5, m.capacity());
  busy.io->idle(std::chrono::milliseconds(500));  // shorter than the idle delay: no clean
  const auto more = random_writes(*busy.io, 20, m.capacity(), 1);
  CHECK(busy.drive->smr().idle_cleans() == 0);
  CHECK(median_of(more.ms, 0, 20) > 300.0);
}

TEST_CASE("smr: a read of cached data goes to the cache region, other reads to their LBA") {
  DiskModel m = small_cache();
  m.smr.cache_first_lba = 0;
  auto t = simtest::open_model(m, true);
  const std::uint64_t far = m.capacity() - 1'000'000;
  simtest::io_at(*t.io, far, 8, true);  // now cached, at the cache region (LBA 0's cylinders)
  // From next to the cache, a read of the cached LBA needs no long seek; a read of its
  // neighbour band (not cached) needs a full-stroke one.
  simtest::io_at(*t.io, 100, 8);
  const double cached = simtest::io_at(*t.io, far, 8).ms;
  simtest::io_at(*t.io, 100, 8);
  const double uncached = simtest::io_at(*t.io, far - 200'000, 8).ms;
  INFO("cached " << cached << " ms, not cached " << uncached << " ms");
  CHECK(cached + 8.0 < uncached);
}

TEST_CASE("smr: the same seed gives the same timings") {
  const DiskModel m = small_cache(1u << 20);
  auto a = simtest::open_model(m, true);
  auto b = simtest::open_model(m, true);
  CHECK(random_writes(*a.io, 300, m.capacity()).ms == random_writes(*b.io, 300, m.capacity()).ms);
}

TEST_CASE("smr: idle_clean_mb_s paces the idle cleaning") {
  DiskModel m = small_cache();
  const std::size_t fit = m.smr.media_cache_bytes / 4096;
  auto count_idle_cleans = [&](double mb_s) {
    DiskModel x = m;
    x.smr.idle_clean_mb_s = mb_s;
    auto t = simtest::open_model(x, true);
    random_writes(*t.io, fit + 5, x.capacity());
    t.io->idle(std::chrono::seconds(21));
    simtest::io_at(*t.io, 8, 8, true);  // the idle cleaning is settled when the next command comes
    return t.drive->smr().idle_cleans();
  };
  const auto free_run = count_idle_cleans(0);  // back to back: a band in ~0.45 s
  // 30 MiB bands at 15.7 MB/s: one band every 2 s, so 20 s of cleaning after the 1 s delay is 10 bands.
  const auto paced = count_idle_cleans(15.73);
  INFO("back to back " << free_run << ", paced " << paced);
  CHECK(free_run > 30);
  CHECK(paced >= 10);
  CHECK(paced <= 11);
}
