// 512e read-modify-write: on modern8tb (4096-byte physical sectors behind 512-byte logical ones) a
// write that does not cover whole physical sectors costs one revolution more on the media; an
// aligned 4 KiB write does not, nor does any write on a drive whose physical sector is 512 bytes.
// Timed through the I/O engine with the write cache off (SET FEATURES 82h), so that each write's
// completion is its media write.
#include <doctest/doctest.h>

#include <vector>

#include "sim/rng.hpp"
#include "sim_test_util.hpp"

namespace {

constexpr std::uint8_t kDisableWriteCache = 0x82;

ds::sim::SimTarget write_through(const std::string& preset) {
  ds::sim::SimOptions o;
  o.writable = true;
  auto t = simtest::open_or_fail("sim:" + preset, o);
  REQUIRE(simtest::set_features(*t.device, kDisableWriteCache).ok());
  return t;
}

// The same write again and again at QD1: the mean interval between completions (from the second
// on, when the head is on the track). A plain re-write comes round once per revolution.
double rewrite_period_ms(ds::IoEngine& io, std::uint64_t lba, std::uint32_t sectors) {
  std::int64_t first = simtest::io_at(io, lba, sectors, true).at, last = first;
  constexpr int kRounds = 20;
  for (int i = 0; i < kRounds; ++i) last = simtest::io_at(io, lba, sectors, true).at;
  return static_cast<double>(last - first) / kRounds / 1e6;
}

// Mean latency of writes at the given places (each `offset` sectors past a 4 KiB boundary).
double mean_write_ms(const std::string& preset, const std::vector<std::uint64_t>& places,
                     std::uint32_t offset, std::uint32_t sectors) {
  auto t = write_through(preset);
  double sum = 0;
  for (std::uint64_t p : places) sum += simtest::io_at(*t.io, p + offset, sectors, true).ms;
  return sum / static_cast<double>(places.size());
}

std::vector<std::uint64_t> random_places(std::uint64_t capacity, int n) {
  ds::sim::Rng rng(42);
  std::vector<std::uint64_t> v;
  for (int i = 0; i < n; ++i) v.push_back(rng.below(capacity / 8 - 2) * 8);
  return v;
}

}  // namespace

TEST_CASE("512e: a write smaller than or not aligned to the 4 KiB physical sector costs a revolution") {
  auto m = ds::sim::preset("modern8tb");
  REQUIRE(m.ok());
  REQUIRE(m->physical_sector_bytes == 4096);
  const double rev_ms = 60e3 / m->spindle_rpm();
  const std::uint64_t at = 123456 * 8;  // a 4 KiB boundary

  auto t = write_through("modern8tb");
  const double aligned = rewrite_period_ms(*t.io, at, 8);
  const double small = rewrite_period_ms(*t.io, at, 1);
  const double misaligned = rewrite_period_ms(*t.io, at + 1, 8);
  const double tail = rewrite_period_ms(*t.io, at, 9);  // whole first sector, part of the next
  INFO("revolution " << rev_ms << " ms; re-write periods: aligned 4 KiB " << aligned << ", 512 B " << small
                     << ", misaligned 4 KiB " << misaligned << ", 4.5 KiB " << tail);
  // A plain re-write waits for its sector to come round: one revolution. A read-modify-write reads
  // on one pass and writes on the next, then waits for the sector again: two.
  CHECK(aligned == doctest::Approx(rev_ms).epsilon(0.001));
  CHECK(small == doctest::Approx(2 * rev_ms).epsilon(0.001));
  CHECK(misaligned == doctest::Approx(2 * rev_ms).epsilon(0.001));
  CHECK(tail == doctest::Approx(2 * rev_ms).epsilon(0.001));

  // Random places: the same seeks, the rotational waits spread alike; the penalty is one
  // revolution on average (less the few sector times an aligned write also spends).
  const auto places = random_places(t.io->info().capacity_bytes / 512, 400);
  const double a = mean_write_ms("modern8tb", places, 0, 8);
  const double s = mean_write_ms("modern8tb", places, 0, 1);
  const double x = mean_write_ms("modern8tb", places, 1, 8);
  MESSAGE("random writes, mean: aligned 4 KiB " << a << " ms, 512 B " << s << " ms, misaligned 4 KiB " << x << " ms");
  CHECK((s - a) / rev_ms == doctest::Approx(1.0).epsilon(0.1));
  CHECK((x - a) / rev_ms == doctest::Approx(1.0).epsilon(0.1));
}

TEST_CASE("512e: a drive with 512-byte physical sectors pays nothing for a 512-byte write") {
  auto m = ds::sim::preset("raptor");
  REQUIRE(m.ok());
  REQUIRE(m->physical_sector_bytes == 512);
  const double rev_ms = 60e3 / m->spindle_rpm();
  auto t = write_through("raptor");
  CHECK(rewrite_period_ms(*t.io, 8000, 1) == doctest::Approx(rev_ms).epsilon(0.001));
  CHECK(rewrite_period_ms(*t.io, 8001, 8) == doctest::Approx(rev_ms).epsilon(0.001));
}
