// The per-command service breakdown (sim/breakdown.hpp, SimDrive::set_service_hook): every
// request's parts sum to its service time exactly, and each part shows up where the mechanism
// says it must (a hit moves no head, a miss on the head's own track seeks nothing, a slow bus
// costs its block time per block). The whole-trace sum is checked in tests/app (replay).
#include <cmath>
#include <cstdint>
#include <vector>

#include "sim/drive.hpp"
#include "sim/rng.hpp"
#include "sim_test_util.hpp"

using ds::sim::ServiceRecord;

namespace {

// A drive with the hook collecting every record, and a QD1 read or write that returns its record.
struct Watched {
  ds::sim::SimTarget t;
  std::vector<ServiceRecord> seen;
  explicit Watched(const ds::sim::DiskModel& m) : t(simtest::open_model(m, true)) {
    t.drive->set_service_hook([this](const ServiceRecord& r) { seen.push_back(r); });
  }
  ServiceRecord io(std::uint64_t lba, std::uint32_t sectors, bool write = false) {
    const std::size_t before = seen.size();
    simtest::io_at(*t.io, lba, sectors, write);
    REQUIRE(seen.size() == before + 1);
    return seen.back();
  }
};

ds::sim::DiskModel preset(const char* name) {
  auto m = ds::sim::preset(name);
  REQUIRE(m.ok());
  return *m;
}

void check_sum(const ServiceRecord& r) {
  CHECK(r.parts.total() == r.complete_ns - r.submit_ns);
  for (std::int64_t v : {r.parts.overhead, r.parts.queue, r.parts.seek, r.parts.settle, r.parts.rotation,
                         r.parts.media, r.parts.lost_revs, r.parts.bus, r.parts.other})
    CHECK(v >= 0);
}

}  // namespace

TEST_CASE("breakdown: the parts sum to each service time over a mixed depth-32 load") {
  // Every preset (write-back, SPTF, SMR, two actuators, AAM-capable) under random reads and
  // writes, sequential runs and re-reads, 32 outstanding.
  for (const auto& name : ds::sim::preset_names()) {
    CAPTURE(name);
    Watched w(preset(name.c_str()));
    ds::sim::Rng rng(7);
    const std::uint64_t cap = w.t.drive->capacity();
    std::uint64_t tag = 0, next_seq = 0;
    std::vector<ds::IoCompletion> c(32);
    auto submit = [&] {
      const bool seq = rng.below(4) == 0;
      const std::uint64_t lba = seq ? next_seq : rng.below(cap - 256) / 8 * 8;
      const auto n = static_cast<std::uint32_t>(8 * (1 + rng.below(16)));
      next_seq = lba + n;
      ds::IoRequest r{lba * 512, n * 512u, rng.below(3) == 0, tag++};
      REQUIRE(w.t.io->submit({&r, 1}).value() == 1);
    };
    for (int i = 0; i < 32; ++i) submit();
    std::size_t done = 0;
    while (done < 2000) {
      const std::size_t n = w.t.io->reap(c, 1, std::chrono::milliseconds(0)).value();
      done += n;
      for (std::size_t i = 0; i < n; ++i) submit();
    }
    REQUIRE(w.seen.size() >= 2000);
    for (const auto& r : w.seen) check_sum(r);
  }
}

TEST_CASE("breakdown: a cache hit moves no head and waits for no sector") {
  Watched w(preset("raptor"));
  const auto miss = w.io(1'000'000, 64);
  check_sum(miss);
  CHECK(miss.parts.media > 0);
  w.t.drive->advance_to(w.t.drive->now_ns() + 50'000'000);  // the read-ahead done
  const auto hit = w.io(1'000'000, 64);
  check_sum(hit);
  CHECK(hit.parts.seek == 0);
  CHECK(hit.parts.settle == 0);
  CHECK(hit.parts.rotation == 0);
  CHECK(hit.parts.media == 0);
  CHECK(hit.parts.overhead > 0);
  // All of its time past the decode is the transfer at the interface rate (MB/s: bytes·1000/rate ns).
  const auto& model = w.t.drive->model();
  REQUIRE(!model.controller.bulk_sector_ms);
  CHECK(hit.parts.bus == static_cast<std::int64_t>(std::ceil(64.0 * model.logical_sector_bytes * 1000.0 / model.interface_mb_s)));
}

TEST_CASE("breakdown: a miss on the head's own track seeks nothing") {
  auto m = preset("raptor");
  m.cache.bytes = 0;  // no cache: every read is a miss, and nothing reads ahead
  Watched w(m);
  const std::uint64_t lba = 2'000'000;
  std::uint64_t first = 0, end = 0;
  w.t.drive->layout().locate(lba, &first, &end);
  REQUIRE(end - first > 40);
  const auto a = w.io(first, 8);
  check_sum(a);
  CHECK(a.parts.seek > 0);  // from cylinder 0
  const auto b = w.io(first + 24, 8);  // the same track, after the head has passed a
  check_sum(b);
  CHECK(b.parts.seek == 0);
  CHECK(b.parts.settle == 0);
  CHECK(b.parts.media > 0);
  CHECK(b.parts.rotation > 0);  // it waits for its sector: the head is past it only when it is read
}

TEST_CASE("breakdown: on a slow bus the bus part grows by the block time per block") {
  auto m = preset("raptor");
  constexpr double kBlockMs = 0.1;  // DiskSim's HP C2247A's bus: 0.1 ms a block, far slower than the media
  m.controller.bus = ds::sim::BusSpec{kBlockMs, kBlockMs};
  Watched w(m);
  const auto block_ns = static_cast<std::int64_t>(kBlockMs * 1e6);
  // Hits: the whole transfer crosses the bus, block by block.
  w.io(3'000'000, 128);
  w.t.drive->advance_to(w.t.drive->now_ns() + 100'000'000);
  const auto small = w.io(3'000'000, 8), large = w.io(3'000'000, 64);
  check_sum(small);
  check_sum(large);
  CHECK(small.parts.bus == 8 * block_ns);
  CHECK(large.parts.bus == 64 * block_ns);
  // Misses: the last blocks cross after the media has read them; more blocks, a longer tail.
  const auto miss_small = w.io(50'000'000, 8), miss_large = w.io(90'000'000, 64);
  check_sum(miss_small);
  check_sum(miss_large);
  CHECK(miss_small.parts.bus >= block_ns);  // at least the last block, after the media read it
  CHECK(miss_large.parts.bus > miss_small.parts.bus);
}

TEST_CASE("breakdown: no hook, no records, and the same completions") {
  // The hook only reads what the mechanism works out anyway: with it set the drive completes every
  // request at the same time as without.
  auto run = [](bool hooked) {
    auto t = simtest::open_model(preset("cheetah15k3"), true);
    std::size_t calls = 0;
    if (hooked) t.drive->set_service_hook([&](const ServiceRecord&) { ++calls; });
    std::vector<std::int64_t> stamps;
    ds::sim::Rng rng(3);
    for (int i = 0; i < 300; ++i)
      stamps.push_back(simtest::io_at(*t.io, rng.below(t.drive->capacity() - 64), 16, rng.below(2) == 0).at);
    CHECK(calls == (hooked ? 300u : 0u));
    return stamps;
  };
  CHECK(run(true) == run(false));
}
