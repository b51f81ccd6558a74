// The two SimDrive calls a real-time driver (src/serve) relies on: next_event_ns() names the next
// time the drive does something without running it, so that advancing to exactly that time
// completes the command; and flush_cache() says when buffered writes are on the media without
// moving the clock.
#include "sim_test_util.hpp"

#include "sim/drive.hpp"

TEST_CASE("SimDrive::next_event_ns: idle -1; a queued command now; then its completion, reached by advancing to it") {
  auto t = ds::sim::open("sim:raptor");
  REQUIRE(t.ok());
  ds::sim::SimDrive& d = *t->drive;
  CHECK(d.next_event_ns() == -1);
  d.advance_to(1'000'000);
  ds::IoRequest r;
  r.offset_bytes = 30'000'000'000ull;
  r.length_bytes = 4096;
  r.tag = 7;
  REQUIRE(*t->io->submit({&r, 1}) == 1);
  // Queued, not yet handed to the mechanism: the drive starts it at once.
  CHECK(d.next_event_ns() == d.now_ns());
  d.advance_to(d.now_ns());
  const std::int64_t done = d.next_event_ns();
  REQUIRE(done > d.now_ns());
  // Nothing is complete a nanosecond before; all of it at that time, and the stamp says so.
  std::array<ds::IoCompletion, 4> out{};
  d.advance_to(done - 1);
  CHECK(*t->io->reap(out, 0, std::chrono::milliseconds(0)) == 0);
  CHECK(d.now_ns() == done - 1);
  d.advance_to(done);
  REQUIRE(*t->io->reap(out, 0, std::chrono::milliseconds(0)) == 1);
  CHECK(out[0].tag == 7);
  CHECK(out[0].complete_ns == done);
  CHECK(out[0].submit_ns == 1'000'000);
  CHECK(d.next_event_ns() == -1);
}

TEST_CASE("SimDrive::flush_cache: buffered writes end on the media later; the clock does not move") {
  auto t = ds::sim::open("sim:raptor", {.seed = std::nullopt, .writable = true, .faults = std::nullopt});
  REQUIRE(t.ok());
  ds::sim::SimDrive& d = *t->drive;
  REQUIRE(d.write_cache());
  CHECK(d.flush_cache() == d.now_ns());  // nothing buffered
  std::array<ds::IoCompletion, 4> out{};
  for (std::uint64_t i = 0; i < 4; ++i) {
    ds::IoRequest w;
    w.offset_bytes = i * 20'000'000'000ull;
    w.length_bytes = 65536;
    w.write = true;
    REQUIRE(*t->io->submit({&w, 1}) == 1);
    REQUIRE(*t->io->reap(out, 1, std::chrono::milliseconds(0)) == 1);
  }
  const std::int64_t before = d.now_ns();
  const std::int64_t flushed = d.flush_cache();
  CHECK(d.now_ns() == before);
  // Four writes far apart: at least a seek and some rotation each once they go to the media.
  CHECK(flushed - before > 4'000'000);
}
