#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cerrno>
#include <cstdlib>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "io/aio_engine.hpp"
#include "io/histogram.hpp"
#include "io_test_util.hpp"
#include "../support/skip.hpp"

using namespace std::chrono_literals;
using ds::IoCompletion;
using ds::IoRequest;
using ds::io::AioEngine;
using ds::io::AioOptions;
using ds_test::TempFile;

namespace {

// Keeps `qd` reads of `len` bytes in flight until `total` have completed; checks tags, results and
// stamps along the way.
void run_reads(AioEngine& e, unsigned qd, std::uint32_t len, unsigned total) {
  std::mt19937_64 rng(qd * 1000 + len);
  const std::uint64_t blocks = e.info().capacity_bytes / len;
  std::set<std::uint64_t> outstanding;
  std::vector<IoCompletion> done(qd);
  std::uint64_t next_tag = 1;
  unsigned completed = 0;
  std::int64_t last_complete = 0;
  while (completed < total) {
    std::vector<IoRequest> reqs;
    while (outstanding.size() + reqs.size() < qd && next_tag <= total) {
      reqs.push_back({(rng() % blocks) * len, len, false, next_tag});
      outstanding.insert(next_tag++);
    }
    if (!reqs.empty()) {
      auto s = e.submit(reqs);
      REQUIRE_MESSAGE(s.ok(), (s.ok() ? "" : s.error().message));
      // The engine's queue is as deep as we keep, so nothing may be turned away here.
      REQUIRE(*s == reqs.size());
    }
    REQUIRE(e.in_flight() == outstanding.size());
    auto r = e.reap(done, 1, 5000ms);
    REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
    REQUIRE(*r >= 1);
    for (std::size_t i = 0; i < *r; ++i) {
      const auto& c = done[i];
      REQUIRE(outstanding.erase(c.tag) == 1);  // every tag once, and only ours
      CHECK(c.result == static_cast<std::int32_t>(len));
      CHECK(c.submit_ns > 0);
      CHECK(c.complete_ns >= c.submit_ns);
      CHECK(c.complete_ns >= last_complete);  // completion stamps never go back
      last_complete = c.complete_ns;
    }
    completed += static_cast<unsigned>(*r);
  }
  CHECK(outstanding.empty());
  CHECK(e.in_flight() == 0);
}

}  // namespace

TEST_CASE("aio engine: random reads of 512 and 4096 bytes at queue depths 1..32 on a file") {
  TempFile f("/tmp", 8 << 20);
  REQUIRE(f.ok());
  auto e = AioEngine::open("file:" + f.path, AioOptions{.max_queue_depth = 32});
  REQUIRE_MESSAGE(e.ok(), (e.ok() ? "" : e.error().message));
  AioEngine& eng = **e;
  CHECK(eng.direct());
  CHECK(eng.info().capacity_bytes == (8u << 20));
  CHECK((eng.info().logical_block_bytes == 512 || eng.info().logical_block_bytes == 4096));
  CHECK_FALSE(eng.info().writable);
  CHECK_FALSE(eng.info().virtual_time);
  CHECK(eng.buffer_alignment() >= 4096);
  for (unsigned qd : {1u, 2u, 4u, 8u, 16u, 32u})
    for (std::uint32_t len : {512u, 4096u}) {
      if (len % eng.info().logical_block_bytes) continue;
      INFO("qd=" << qd << " len=" << len);
      run_reads(eng, qd, len, 200);
    }
}

TEST_CASE("aio engine: a full queue accepts only what fits, reap with nothing in flight is 0") {
  TempFile f("/tmp", 1 << 20);
  auto e = AioEngine::open(f.path, AioOptions{.max_queue_depth = 4});
  REQUIRE(e.ok());
  AioEngine& eng = **e;
  std::vector<IoCompletion> out(16);
  auto none = eng.reap(out, 1, 10ms);
  REQUIRE(none.ok());
  CHECK(*none == 0);
  std::vector<IoRequest> reqs;
  for (int i = 0; i < 10; ++i) reqs.push_back({std::uint64_t(i) * 4096, 4096, false, 100u + i});
  auto s = eng.submit(reqs);
  REQUIRE(s.ok());
  CHECK(*s == 4);
  auto s2 = eng.submit(std::span(reqs).subspan(4));
  REQUIRE(s2.ok());
  CHECK(*s2 == 0);
  std::set<std::uint64_t> tags;
  while (eng.in_flight()) {
    auto r = eng.reap(out, eng.in_flight(), 5000ms);
    REQUIRE(r.ok());
    for (std::size_t i = 0; i < *r; ++i) tags.insert(out[i].tag);
  }
  CHECK(tags == std::set<std::uint64_t>{100, 101, 102, 103});
}

TEST_CASE("aio engine: requests are checked before anything is submitted") {
  TempFile f("/tmp", 1 << 20);
  auto e = AioEngine::open(f.path, {});
  REQUIRE(e.ok());
  AioEngine& eng = **e;
  const std::uint64_t cap = eng.info().capacity_bytes;
  auto expect_reject = [&](IoRequest r, const char* words) {
    // A good request first: a bad one anywhere in the batch must keep the whole batch back.
    std::vector<IoRequest> batch{{0, 4096, false, 1}, r};
    auto s = eng.submit(batch);
    REQUIRE_FALSE(s.ok());
    INFO(s.error().message);
    CHECK(s.error().message.find(words) != std::string::npos);
    CHECK(eng.in_flight() == 0);
  };
  expect_reject({0, 4096, true, 2}, "opened read-only");
  expect_reject({cap, 4096, false, 3}, "beyond the end");
  expect_reject({cap - 4096, 8192, false, 4}, "beyond the end");
  expect_reject({UINT64_MAX - 4095, 4096, false, 5}, "beyond the end");
  expect_reject({0, 0, false, 6}, "length is zero");
  expect_reject({100, 4096, false, 7}, "logical block");
  expect_reject({0, 1000, false, 8}, "logical block");
  expect_reject({0, 16u << 20, false, 9}, "request limit");
  // The last whole block is still readable.
  std::vector<IoRequest> last{{cap - 4096, 4096, false, 10}};
  REQUIRE(eng.submit(last).ok());
  std::vector<IoCompletion> out(1);
  auto r = eng.reap(out, 1, 5000ms);
  REQUIRE(r.ok());
  CHECK(out[0].result == 4096);
}

TEST_CASE("aio engine: open refuses bad targets and options with clear messages") {
  auto missing = AioEngine::open("/tmp/drivescope-does-not-exist", {});
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().message.find("No such file") != std::string::npos);
  auto chr = AioEngine::open("/dev/null", {});
  REQUIRE_FALSE(chr.ok());
  CHECK(chr.error().message.find("neither a block device nor a regular file") != std::string::npos);
  TempFile f("/tmp", 1 << 20);
  auto qd0 = AioEngine::open(f.path, AioOptions{.max_queue_depth = 0});
  REQUIRE_FALSE(qd0.ok());
  CHECK(qd0.error().message.find("out of range") != std::string::npos);
  auto qd257 = AioEngine::open(f.path, AioOptions{.max_queue_depth = 257});
  CHECK_FALSE(qd257.ok());
  auto qd256 = AioEngine::open(f.path, AioOptions{.max_queue_depth = 256});
  REQUIRE(qd256.ok());
  CHECK((*qd256)->info().max_queue_depth == 256);
  TempFile tiny("/tmp", 100);
  auto t = AioEngine::open(tiny.path, {});
  REQUIRE_FALSE(t.ok());
  CHECK(t.error().message.find("too small") != std::string::npos);
}

TEST_CASE("aio engine: writes carry the fixed pattern to the right offset when writable") {
  TempFile f("/tmp", 1 << 20);
  auto e = AioEngine::open(f.path, AioOptions{.writable = true, .max_queue_depth = 8});
  REQUIRE(e.ok());
  AioEngine& eng = **e;
  CHECK(eng.info().writable);
  std::vector<IoRequest> reqs{{65536, 8192, true, 1}, {4096, 4096, true, 2}};
  REQUIRE(*eng.submit(reqs) == 2);
  std::vector<IoCompletion> out(2);
  std::size_t got = 0;
  while (got < 2) {
    auto r = eng.reap(std::span(out).subspan(got), 1, 5000ms);
    REQUIRE(r.ok());
    got += *r;
  }
  for (auto& c : out) CHECK(c.result == (c.tag == 1 ? 8192 : 4096));
  std::vector<std::byte> want(8192), have(8192);
  AioEngine::fill_write_pattern(want);
  REQUIRE(pread(f.fd, have.data(), 8192, 65536) == 8192);
  CHECK(want == have);
  REQUIRE(pread(f.fd, have.data(), 4096, 4096) == 4096);
  CHECK(std::equal(have.begin(), have.begin() + 4096, want.begin()));
  // Untouched bytes in between still hold the file's own content.
  std::vector<std::byte> mid(4096);
  REQUIRE(pread(f.fd, mid.data(), 4096, 8192) == 4096);
  CHECK(mid == f.expected(8192, 4096));
  // The pattern is not trivially compressible: no run of 16 equal bytes.
  int run = 1, longest = 1;
  for (std::size_t i = 1; i < want.size(); ++i) {
    run = want[i] == want[i - 1] ? run + 1 : 1;
    longest = std::max(longest, run);
  }
  CHECK(longest < 16);
}

TEST_CASE("aio engine: a file that shrinks under a reader gives short reads, not a failure") {
  TempFile f("/tmp", 1 << 20);
  auto e = AioEngine::open(f.path, {});
  REQUIRE(e.ok());
  AioEngine& eng = **e;
  REQUIRE(ftruncate(f.fd, (1 << 20) - 4096 - 2048) == 0);  // EOF now mid-block
  std::vector<IoRequest> reqs{{(1 << 20) - 8192, 8192, false, 1},  // straddles the new EOF
                              {(1 << 20) - 4096, 4096, false, 2}};  // wholly past it
  REQUIRE(*eng.submit(reqs) == 2);
  std::vector<IoCompletion> out(2);
  std::size_t got = 0;
  while (got < 2) {
    auto r = eng.reap(std::span(out).subspan(got), 1, 5000ms);
    REQUIRE(r.ok());
    got += *r;
  }
  for (auto& c : out) {
    INFO("tag " << c.tag << " result " << c.result);
    CHECK(c.ok());
    if (c.tag == 1) CHECK((c.result > 0 && c.result < 8192));
    if (c.tag == 2) CHECK(c.result == 0);
  }
  CHECK(eng.in_flight() == 0);
}

TEST_CASE("aio engine: a reap that sees nothing before its timeout is an error, and recoverable") {
  // Large O_DIRECT reads from the VM's disk take milliseconds, so a 0 ms reap right after submit
  // normally finds nothing; when the disk is faster than that, the contract is still checked.
  TempFile f("/tmp", 64 << 20);
  auto e = AioEngine::open(f.path, AioOptions{.max_queue_depth = 8});
  REQUIRE(e.ok());
  AioEngine& eng = **e;
  bool saw_timeout = false;
  for (int attempt = 0; attempt < 5 && !saw_timeout; ++attempt) {
    std::vector<IoRequest> reqs;
    for (int i = 0; i < 8; ++i) reqs.push_back({std::uint64_t(i) * (8 << 20), 8 << 20, false, 1u + i});
    REQUIRE(*eng.submit(reqs) == 8);
    std::vector<IoCompletion> out(8);
    auto r = eng.reap(out, 8, 0ms);
    std::size_t got = 0;
    if (!r.ok()) {
      saw_timeout = true;
      CHECK(r.error().code == ETIMEDOUT);
      CHECK(r.error().message.find("stopped answering") != std::string::npos);
      CHECK(r.error().message.find("8 outstanding") != std::string::npos);
      CHECK(eng.in_flight() == 8);  // nothing lost
    } else {
      got = *r;
    }
    while (got < 8) {
      auto r2 = eng.reap(std::span(out).subspan(got), 1, 10000ms);
      REQUIRE(r2.ok());
      got += *r2;
    }
    CHECK(eng.in_flight() == 0);
  }
  if (!saw_timeout) MESSAGE("the disk answered every reap within 0 ms; timeout path not exercised");
}

TEST_CASE("aio engine: /dev/shm is used directly when O_DIRECT works, refused otherwise" * doctest::test_suite("env")) {
  TempFile f("/dev/shm", 1 << 20);
  if (!f.ok()) {
    DS_SKIP("no /dev/shm here");
  }
  auto e = AioEngine::open(f.path, AioOptions{.max_queue_depth = 8});
  if (e.ok()) {
    CHECK((*e)->direct());
    run_reads(**e, 8, 4096, 100);
    return;
  }
  CHECK(e.error().message.find("O_DIRECT") != std::string::npos);
  auto b = AioEngine::open(f.path, AioOptions{.max_queue_depth = 8, .allow_buffered = true});
  REQUIRE(b.ok());
  CHECK_FALSE((*b)->direct());
  run_reads(**b, 8, 4096, 100);
}

TEST_CASE("aio engine: a 4096-byte-sector loop device reads single sectors of 4096 bytes" * doctest::test_suite("env")) {
  TempFile f("/tmp", 4 << 20);
  ds_test::LoopDevice loop(f.path, 4096);
  if (!loop.ok()) {
    DS_SKIP("losetup --sector-size 4096 is not available here: " << loop.why);
  }
  auto e = AioEngine::open(loop.dev, AioOptions{.max_queue_depth = 16});
  REQUIRE_MESSAGE(e.ok(), (e.ok() ? "" : e.error().message));
  AioEngine& eng = **e;
  CHECK(eng.info().logical_block_bytes == 4096);
  CHECK(eng.info().physical_block_bytes >= 4096);
  CHECK(eng.info().capacity_bytes == (4u << 20));
  std::vector<IoRequest> small{{0, 512, false, 1}};
  auto s = eng.submit(small);
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().message.find("4096-byte logical block") != std::string::npos);
  std::vector<IoRequest> off{{512, 4096, false, 1}};
  CHECK_FALSE(eng.submit(off).ok());
  run_reads(eng, 16, 4096, 300);
  auto asfile = AioEngine::open("file:" + loop.dev, {});
  REQUIRE_FALSE(asfile.ok());
  CHECK(asfile.error().message.find("not a regular file") != std::string::npos);
}

TEST_CASE("aio engine: a 512-byte-sector loop device and its latencies in a histogram" * doctest::test_suite("env")) {
  TempFile f("/tmp", 4 << 20);
  ds_test::LoopDevice loop(f.path, 512);
  if (!loop.ok()) {
    DS_SKIP("losetup is not available here: " << loop.why);
  }
  auto e = AioEngine::open(loop.dev, AioOptions{.max_queue_depth = 4});
  REQUIRE(e.ok());
  AioEngine& eng = **e;
  CHECK(eng.info().logical_block_bytes == 512);
  ds::io::Histogram h;
  std::vector<IoCompletion> out(4);
  for (std::uint64_t i = 0; i < 64; ++i) {
    std::vector<IoRequest> r{{i * 512 * 97 % (4 << 20) / 512 * 512, 512, false, i}};
    REQUIRE(*eng.submit(r) == 1);
    auto got = eng.reap(out, 1, 5000ms);
    REQUIRE(got.ok());
    REQUIRE(*got == 1);
    CHECK(out[0].tag == i);
    CHECK(out[0].result == 512);
    h.add(static_cast<std::uint64_t>(out[0].latency_ns()));
  }
  CHECK(h.count() == 64);
  CHECK(h.min() > 0);
  CHECK(h.percentile(50) <= h.max());
}

namespace {
// The open flags (from /proc/self/fdinfo) of every descriptor of this process on `path`,
// except `skip`.
std::vector<long> open_flags_of(const std::string& path, int skip) {
  std::vector<long> out;
  for (int fd = 0; fd < 1024; ++fd) {
    if (fd == skip) continue;
    char link[64], target[4096];
    std::snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    const ssize_t n = readlink(link, target, sizeof target - 1);
    if (n <= 0 || std::string(target, static_cast<std::size_t>(n)) != path) continue;
    std::snprintf(link, sizeof link, "/proc/self/fdinfo/%d", fd);
    FILE* f = std::fopen(link, "r");
    if (!f) continue;
    char line[256];
    long flags = -1;
    while (std::fgets(line, sizeof line, f))
      if (std::sscanf(line, "flags: %lo", &flags) == 1) break;
    std::fclose(f);
    out.push_back(flags);
  }
  return out;
}
}  // namespace

TEST_CASE("aio engine: a read-only run holds the target read-only and O_DIRECT") {
  TempFile f("/tmp", 1 << 20);
  {
    auto e = AioEngine::open(f.path, {});
    REQUIRE(e.ok());
    const auto flags = open_flags_of(f.path, f.fd);  // f.fd is the test's own O_RDWR descriptor
    REQUIRE(flags.size() == 1);
    CHECK((flags[0] & O_ACCMODE) == O_RDONLY);
    CHECK((flags[0] & O_DIRECT) != 0);
  }
  CHECK(open_flags_of(f.path, f.fd).empty());  // closed with the engine
  auto w = AioEngine::open(f.path, AioOptions{.writable = true});
  REQUIRE(w.ok());
  const auto flags = open_flags_of(f.path, f.fd);
  REQUIRE(flags.size() == 1);
  CHECK((flags[0] & O_ACCMODE) == O_RDWR);
}

TEST_CASE("aio engine: exclusive opens of a block device exclude each other, via IoEngine" * doctest::test_suite("env")) {
  TempFile f("/tmp", 1 << 20);
  ds_test::LoopDevice loop(f.path, 512);
  if (!loop.ok()) {
    DS_SKIP("losetup is not available here: " << loop.why);
  }
  auto first = AioEngine::open(loop.dev, AioOptions{.exclusive = true, .max_queue_depth = 2});
  REQUIRE(first.ok());
  auto second = AioEngine::open(loop.dev, AioOptions{.exclusive = true});
  REQUIRE_FALSE(second.ok());
  CHECK(second.error().code == EBUSY);
  CHECK(second.error().message.find("O_EXCL failed") != std::string::npos);
  // Measurement modules hold the engine through the interface.
  std::unique_ptr<ds::IoEngine> eng = std::move(*first);
  std::vector<IoRequest> r{{0, 512, false, 77}};
  REQUIRE(*eng->submit(r) == 1);
  std::vector<IoCompletion> out(1);
  REQUIRE(*eng->reap(out, 1, 5000ms) == 1);
  CHECK(out[0].tag == 77);
  const auto t0 = eng->now_ns();
  eng->idle(2ms);
  CHECK(eng->now_ns() - t0 >= 2'000'000);
}
