// The simulated drive on real time (src/serve/realtime.hpp): its size and data, that it answers
// no sooner than the drive could and at the pace --speed sets, and that requests in flight
// together meet in the drive's queue. Everything here runs in a second or two of real time.
#include <doctest/doctest.h>

#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <thread>
#include <vector>

#include "serve/realtime.hpp"
#include "sim/sim.hpp"
#include "../support/skip.hpp"

namespace {

using Clock = std::chrono::steady_clock;

nlohmann::json model_json(const std::string& preset) {
  std::ifstream in(std::string(DS_SOURCE_DIR) + "/models/" + preset + ".json");
  return nlohmann::json::parse(in);
}

std::unique_ptr<ds::serve::RealTimeDrive> open_drive(const std::string& spec, double speed = 1.0) {
  ds::serve::ServeOptions o;
  o.speed = speed;
  auto d = ds::serve::RealTimeDrive::open(spec, o);
  REQUIRE_MESSAGE(d.ok(), d.error().message);
  return std::move(*d);
}

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// `n` random 4 KiB reads spread over the drive by `threads` threads at once; the real seconds
// they took.
double random_reads(ds::serve::RealTimeDrive& d, unsigned threads, unsigned n) {
  const std::uint64_t blocks = d.size_bytes() / 4096;
  std::vector<std::thread> pool;
  const auto t0 = Clock::now();
  for (unsigned t = 0; t < threads; ++t)
    pool.emplace_back([&d, blocks, t, n, threads] {
      std::mt19937_64 rng(1000 + t);
      std::vector<std::byte> buf(4096);
      for (unsigned i = t; i < n; i += threads) d.read(buf, rng() % blocks * 4096);
    });
  for (auto& th : pool) th.join();
  return seconds_since(t0);
}

}  // namespace

TEST_CASE("serve: the drive's size is the model's capacity; a bad speed or a malformed model is refused") {
  auto d = open_drive("sim:raptor");
  const auto m = model_json("raptor");
  CHECK(d->size_bytes() == m["capacity_sectors"].get<std::uint64_t>() * m["logical_sector_bytes"].get<std::uint64_t>());
  CHECK(d->logical_block_bytes() == 512);

  ds::serve::ServeOptions o;
  o.speed = 0;
  auto zero = ds::serve::RealTimeDrive::open("sim:raptor", o);
  REQUIRE_FALSE(zero.ok());
  CHECK(zero.error().message.find("speed") != std::string::npos);

  // A model with a zone of no sectors: refused with the loader's own message.
  auto bad = m;
  bad["zones"][0]["sectors_per_track"] = 0;
  char path[] = "/tmp/ds_serve_bad_XXXXXX.json";
  const int fd = ::mkstemps(path, 5);
  REQUIRE(fd >= 0);
  const std::string text = bad.dump();
  REQUIRE(::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()));
  ::close(fd);
  auto refused = ds::serve::RealTimeDrive::open(path);
  auto loader = ds::sim::open(path);
  ::unlink(path);
  REQUIRE_FALSE(refused.ok());
  REQUIRE_FALSE(loader.ok());
  CHECK(refused.error().message == loader.error().message);
}

TEST_CASE("serve: written data reads back, unwritten reads zeros, out of range is refused") {
  auto d = open_drive("sim:raptor", 100.0);  // the data, not the time, is under test
  std::vector<std::byte> pattern(3000);
  for (std::size_t i = 0; i < pattern.size(); ++i) pattern[i] = static_cast<std::byte>(i * 7 + 1);
  // Not on a sector boundary: the drive times the sectors it touches, the data is byte-exact.
  const std::uint64_t at = 40'000'000'000ull + 100;
  REQUIRE(d->write(pattern, at) == 0);
  std::vector<std::byte> back(pattern.size() + 200, std::byte{0x55});
  REQUIRE(d->read(back, at - 100) == 0);
  CHECK(std::all_of(back.begin(), back.begin() + 100, [](std::byte b) { return b == std::byte{0}; }));
  CHECK(std::equal(pattern.begin(), pattern.end(), back.begin() + 100));
  CHECK(std::all_of(back.begin() + 100 + 3000, back.end(), [](std::byte b) { return b == std::byte{0}; }));
  CHECK(d->flush() == 0);
  std::vector<std::byte> tail(4096);
  CHECK(d->read(tail, d->size_bytes() - 4096) == 0);
  CHECK(d->read(tail, d->size_bytes() - 2048) == EINVAL);
  CHECK(d->write(tail, d->size_bytes()) == EINVAL);
}

TEST_CASE("serve: a long read takes the media's time in real time, divided by the speed") {
  // 8 MiB from the outer zone cannot come off the platters faster than the outer zone's media
  // rate (sectors per track x revolutions per second); nor should it take much longer.
  const auto m = model_json("raptor");
  const double media_bytes_s = m["zones"][0]["sectors_per_track"].get<double>() * 512 * m["rpm"].get<double>() / 60;
  const double floor_s = 8.0 * 1048576 / media_bytes_s;
  std::vector<std::byte> buf(8u << 20);
  for (double speed : {1.0, 8.0}) {
    CAPTURE(speed);
    auto d = open_drive("sim:raptor", speed);
    const auto t0 = Clock::now();
    REQUIRE(d->read(buf, 0) == 0);
    const double s = seconds_since(t0);
    CHECK(s * speed >= floor_s);
    // One revolution (the wait for the first sector) and the switches, plus the host's wake-up.
    CHECK(s * speed <= floor_s * 1.25 + 0.006 + 0.010 * speed);
  }
}

TEST_CASE("serve: requests in flight together meet in the drive's queue (SPTF gains, no queue does not)" *
          doctest::test_suite("env")) {
  // At speed 2 each case takes one or two seconds of real time. One at a time, every request also
  // pays the host's wake-up after its completion (the adapter measures it: stats()), which at
  // depth 8 overlaps the drive's work on the others: it is taken out of the depth-1 time, so that
  // both are compared in the drive's time. A host that wakes late by more than a quarter of a
  // millisecond per request (a loaded machine, a sanitizer build: 370-590 us were seen under
  // ASan with a load of 9 on two cores) also stalls the depth-8 run in ways that cannot be taken
  // out, so there the comparison is skipped, visibly, with the lateness measured.
  constexpr double kMaxLateUs = 250;
  auto gain = [](const std::string& spec, double& late_us) {
    auto one = open_drive(spec, 2.0);
    const double qd1_real = random_reads(*one, 1, 96);
    const auto late = one->stats();
    late_us = late.mean_late_us;
    const double qd1 = qd1_real - static_cast<double>(late.requests) * late.mean_late_us * 1e-6;
    auto eight = open_drive(spec, 2.0);
    const double qd8 = random_reads(*eight, 8, 96);
    MESSAGE(spec << ": 96 random reads, depth 1 " << qd1_real << " s (" << qd1 << " s less the host's "
                 << late.mean_late_us << " us per request), depth 8 " << qd8 << " s");
    return qd1 / qd8;
  };
  // sim:raptor reorders (TCQ, SPTF): eight at once finish well before eight times one after the
  // other; sim:wd1200jd has no queue: the same work takes the same time. Each drive is judged on
  // its own run's lateness (one late run must not hide the other's check).
  double sptf_late = 0, none_late = 0;
  const double sptf = gain("sim:raptor", sptf_late);
  const double none = gain("sim:wd1200jd", none_late);
  if (sptf_late <= kMaxLateUs) CHECK(sptf > 1.3);
  if (none_late <= kMaxLateUs) {
    CHECK(none < 1.15);
    CHECK(none > 0.85);
  }
  if (sptf_late > kMaxLateUs || none_late > kMaxLateUs)
    DS_SKIP("the host woke " << sptf_late << " / " << none_late << " us late per request (raptor / wd1200jd; over "
                             << kMaxLateUs << " is too loaded to compare queue depths in real time)");
}

TEST_CASE("serve: the request log has every request with its real and simulated times") {
  ds::serve::ServeOptions o;
  o.speed = 4.0;
  auto d = ds::serve::RealTimeDrive::open("sim:raptor", o);
  REQUIRE(d.ok());
  (*d)->keep_log(3);  // at most three kept: the fourth is served, not recorded
  std::vector<std::byte> buf(4096);
  for (std::uint64_t off : {0ull, 1ull << 30, 8ull << 30, 16ull << 30}) CHECK((*d)->read(buf, off) == 0);
  const auto log = (*d)->log();
  REQUIRE(log.size() == 3);
  CHECK((*d)->stats().requests == 4);
  for (std::size_t i = 0; i < log.size(); ++i) {
    const auto& r = log[i];
    CHECK(r.offset == (i == 0 ? 0 : i == 1 ? 1ull << 30 : 8ull << 30));
    CHECK(r.length == 4096);
    CHECK_FALSE(r.write);
    CHECK(r.answered_real_ns >= r.arrived_real_ns);
    CHECK(r.complete_drive_ns > r.submit_drive_ns);
    // Answered no sooner than the drive's time allows at speed 4 (and in order: one at a time).
    CHECK(static_cast<double>(r.answered_real_ns - r.arrived_real_ns) >=
          static_cast<double>(r.complete_drive_ns - r.submit_drive_ns) / 4 - 1e4);
    if (i) CHECK(r.submit_drive_ns >= log[i - 1].complete_drive_ns);
  }
}

TEST_CASE("serve: realtime runs the timing threads under SCHED_FIFO, or says why not") {
  ds::serve::ServeOptions o;
  o.speed = 100.0;
  o.realtime = true;
  auto d = ds::serve::RealTimeDrive::open("sim:raptor", o);
  REQUIRE(d.ok());
  int policy = -1;
  std::thread th([&] {
    std::vector<std::byte> buf(512);
    CHECK((*d)->read(buf, 0) == 0);
    sched_param sp{};
    pthread_getschedparam(pthread_self(), &policy, &sp);
  });
  th.join();
  const int err = (*d)->stats().realtime_errno;
  if (err == 0) {
    CHECK(policy == SCHED_FIFO);
  } else {
    CHECK(err == EPERM);
    CHECK(policy != SCHED_FIFO);
  }
  // Not asked for: the thread keeps its policy.
  auto plain = open_drive("sim:raptor", 100.0);
  std::thread th2([&] {
    std::vector<std::byte> buf(512);
    CHECK(plain->read(buf, 0) == 0);
    sched_param sp{};
    pthread_getschedparam(pthread_self(), &policy, &sp);
  });
  th2.join();
  CHECK(policy != SCHED_FIFO);
  CHECK(plain->stats().realtime_errno == 0);
}

TEST_CASE("serve: a model without queue.max_wait_ms is served with the bound, plain SPTF passes a far command over") {
  // In virtual time: one far read, then a sequential stream kept 4 deep next to the head. Plain SPTF
  // serves the stream first for as long as it goes on; with the bound (serve's default, 500 ms) the
  // far read is served once it has waited that long.
  auto far_done_ms = [](std::optional<double> bound) {
    ds::sim::SimOptions so;
    so.max_wait_ms_if_unset = bound;
    auto t = ds::sim::open("sim:raptor", so);
    REQUIRE(t.ok());
    CHECK(t->model.queue.max_wait_ms == doctest::Approx(bound.value_or(0)));
    ds::IoEngine& io = *t->io;
    const std::int64_t t0 = io.now_ns();
    std::uint64_t next = 0, tag = 1;
    auto submit = [&](std::uint64_t off, std::uint64_t tg) {
      ds::IoRequest r;
      r.offset_bytes = off;
      r.length_bytes = 65536;
      r.tag = tg;
      REQUIRE(io.submit({&r, 1}).ok());
    };
    submit(60ull << 30, 0);  // the far one, tag 0
    for (int i = 0; i < 4; ++i) submit(next, tag++), next += 65536;
    std::array<ds::IoCompletion, 8> got{};
    for (int n = 0; n < 4000; ++n) {  // 4000 × 64 KiB: about 3.5 s of stream
      auto k = io.reap(got, 1, std::chrono::milliseconds(10000));
      REQUIRE(k.ok());
      for (std::size_t i = 0; i < *k; ++i) {
        if (got[i].tag == 0) return static_cast<double>(got[i].complete_ns - t0) * 1e-6;
        submit(next, tag++), next += 65536;
      }
    }
    return 1e9;  // still waiting when the stream ended
  };
  const double plain = far_done_ms(std::nullopt);
  const double bounded = far_done_ms(ds::serve::kDefaultMaxWaitMs);
  MESSAGE("the far read done after " << plain << " ms with plain SPTF, " << bounded << " ms with the bound");
  CHECK(plain > 3000);
  CHECK(bounded >= ds::serve::kDefaultMaxWaitMs);
  CHECK(bounded < ds::serve::kDefaultMaxWaitMs + 60);
}
