// The engine half of bench/engine_vs_fio.sh: uniform random reads kept at a fixed queue depth for
// a fixed time. Prints one JSON line.
//
//   aio_randread TARGET QD SECONDS [BLOCK_BYTES] [engine|raw|runner|runner1]
//
// engine (default): through ds::io::AioEngine, exactly as a measurement module drives it: after
//   each reap (min 1 event, up to QD) all replacements go down in one submit() — one io_submit per
//   loop turn — and every completion's latency goes into a Histogram.
// runner: the queue test's own I/O path, ds::measure::run_closed_loop (src/tests/runner.cpp) on
//   the same engine, as the queue test runs it with the none scheduler: the replacements of one
//   reap in one submit call; its records' latencies then go into the same Histogram.
// runner1: the same with one request per submit call (LoopOptions::batch_submit false), as the
//   queue test runs under another scheduler or with `ncq --one-per-submit`.
// raw: the same loop written directly on libaio (no engine layer, same clock reads, same
//   histogram). It is the reference the engine must not fall behind; the difference between the
//   two is the cost of the engine's abstraction.
#include <fcntl.h>
#include <libaio.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <ctime>
#include <string>
#include <vector>

#include "io/aio_engine.hpp"
#include "io/histogram.hpp"
#include "tests/queue.hpp"

using namespace std::chrono_literals;

namespace {

struct Rng {  // xorshift64*: cheap, uniform enough for offsets
  std::uint64_t x = 0x2545F4914F6CDD1Dull;
  std::uint64_t next() {
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    return x * 0x2545F4914F6CDD1Dull;
  }
};

struct Result {
  std::uint64_t ios = 0;
  std::int64_t start_ns = 0, stop_ns = 0;
  ds::io::Histogram hist;
};

std::int64_t mono_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

// The engine on `target`, or null with the reason on stderr.
std::unique_ptr<ds::io::AioEngine> open_engine(const std::string& target, unsigned qd) {
  auto opened = ds::io::AioEngine::open(target, ds::io::AioOptions{.max_queue_depth = qd});
  if (!opened) {
    std::fprintf(stderr, "aio_randread: %s\n", opened.error().message.c_str());
    return nullptr;
  }
  return std::move(*opened);
}

int run_engine(const std::string& target, unsigned qd, double seconds, std::uint32_t bs,
               Result& res) {
  auto engine = open_engine(target, qd);
  if (!engine) return 1;
  ds::io::AioEngine& eng = *engine;
  const std::uint64_t blocks = eng.info().capacity_bytes / bs;
  if (blocks == 0 || bs % eng.info().logical_block_bytes) {
    std::fprintf(stderr, "aio_randread: block size %u does not fit the target\n", bs);
    return 1;
  }
  Rng rng;
  std::vector<ds::IoRequest> reqs(qd);
  std::vector<ds::IoCompletion> done(qd);
  std::uint64_t tag = 0;
  res.start_ns = eng.now_ns();
  const std::int64_t end = res.start_ns + static_cast<std::int64_t>(seconds * 1e9);
  std::size_t want = qd;
  for (;;) {
    for (std::size_t i = 0; i < want; ++i) reqs[i] = {rng.next() % blocks * bs, bs, false, tag++};
    std::size_t sent = 0;
    while (sent < want) {
      auto s = eng.submit(std::span(reqs).subspan(sent, want - sent));
      if (!s) {
        std::fprintf(stderr, "aio_randread: %s\n", s.error().message.c_str());
        return 1;
      }
      sent += *s;
      if (*s == 0) break;  // kernel queue full; the reap below makes room
    }
    auto r = eng.reap(done, 1, 10s);
    if (!r) {
      std::fprintf(stderr, "aio_randread: %s\n", r.error().message.c_str());
      return 1;
    }
    for (std::size_t i = 0; i < *r; ++i) {
      if (!done[i].ok()) {
        std::fprintf(stderr, "aio_randread: read failed: error %d\n", -done[i].result);
        return 1;
      }
      res.hist.add(static_cast<std::uint64_t>(done[i].latency_ns()));
    }
    res.ios += *r;
    if (done[0].complete_ns >= end) break;
    want = qd - eng.in_flight();
  }
  res.stop_ns = eng.now_ns();
  return 0;  // the engine drains what is still in flight when it is destroyed
}

int run_runner(const std::string& target, unsigned qd, double seconds, std::uint32_t bs, bool batch,
               Result& res) {
  auto engine = open_engine(target, qd);
  if (!engine) return 1;
  ds::io::AioEngine& eng = *engine;
  const std::uint64_t blocks = eng.info().capacity_bytes / bs;
  Rng rng;
  ds::measure::LoopOptions lo;
  lo.depth = qd;
  lo.target_s = seconds;
  lo.hard_limit_s = seconds;
  lo.min_ios = 1;
  lo.max_ios = 100'000'000;
  lo.batch_submit = batch;
  res.start_ns = eng.now_ns();
  auto r = ds::measure::run_closed_loop(eng, lo, [&](std::uint64_t) {
    return ds::IoRequest{rng.next() % blocks * bs, bs, false, 0};
  });
  res.stop_ns = eng.now_ns();
  if (r.error) {
    std::fprintf(stderr, "aio_randread: %s\n", r.error->message.c_str());
    return 1;
  }
  for (const auto& rec : r.records) res.hist.add(static_cast<std::uint64_t>(rec.complete_ns - rec.submit_ns));
  res.ios = r.records.size();
  return 0;
}

int run_raw(const std::string& target, unsigned qd, double seconds, std::uint32_t bs,
            Result& res) {
  const int fd = ::open(target.c_str(), O_RDONLY | O_DIRECT);
  std::uint64_t cap = 0;
  if (fd < 0 || ioctl(fd, BLKGETSIZE64, &cap) != 0) {
    std::fprintf(stderr, "aio_randread raw: %s is not an openable block device\n", target.c_str());
    return 1;
  }
  io_context_t ctx = nullptr;
  if (io_setup(static_cast<int>(qd), &ctx) != 0) return 1;
  const std::uint64_t blocks = cap / bs;
  std::vector<iocb> cbs(qd);
  std::vector<iocb*> batch(qd);
  std::vector<io_event> ev(qd);
  std::vector<std::int64_t> stamp(qd);
  std::vector<unsigned> free_slots;
  std::vector<void*> bufs(qd);
  for (unsigned i = 0; i < qd; ++i) {
    if (posix_memalign(&bufs[i], 4096, bs) != 0) return 1;
    free_slots.push_back(i);
  }
  Rng rng;
  res.start_ns = mono_ns();
  const std::int64_t end = res.start_ns + static_cast<std::int64_t>(seconds * 1e9);
  unsigned inflight = 0;
  for (;;) {
    const std::size_t n = free_slots.size();
    for (std::size_t i = 0; i < n; ++i) {
      const unsigned s = free_slots[i];
      io_prep_pread(&cbs[s], fd, bufs[s], bs, static_cast<long long>(rng.next() % blocks * bs));
      cbs[s].data = reinterpret_cast<void*>(static_cast<std::uintptr_t>(s));
      batch[i] = &cbs[s];
    }
    if (n) {
      const std::int64_t t = mono_ns();
      const int rc = io_submit(ctx, static_cast<long>(n), batch.data());
      if (rc != static_cast<int>(n)) return 1;
      for (std::size_t i = 0; i < n; ++i) stamp[free_slots[i]] = t;
      free_slots.clear();
      inflight += static_cast<unsigned>(n);
    }
    timespec ts{10, 0};
    const int got = io_getevents(ctx, 1, qd, ev.data(), &ts);
    const std::int64_t now = mono_ns();
    if (got <= 0) return 1;
    for (int i = 0; i < got; ++i) {
      const unsigned s = static_cast<unsigned>(reinterpret_cast<std::uintptr_t>(ev[i].data));
      if (static_cast<long>(ev[i].res) != static_cast<long>(bs)) return 1;
      res.hist.add(static_cast<std::uint64_t>(now - stamp[s]));
      free_slots.push_back(s);
    }
    inflight -= static_cast<unsigned>(got);
    res.ios += static_cast<std::uint64_t>(got);
    if (now >= end) break;
  }
  res.stop_ns = mono_ns();
  while (inflight) {
    timespec ts{10, 0};
    const int got = io_getevents(ctx, 1, qd, ev.data(), &ts);
    if (got <= 0) break;
    inflight -= static_cast<unsigned>(got);
  }
  io_destroy(ctx);
  ::close(fd);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s TARGET QD SECONDS [BLOCK_BYTES] [engine|raw|runner|runner1]\n", argv[0]);
    return 2;
  }
  const std::string target = argv[1];
  const unsigned qd = static_cast<unsigned>(std::strtoul(argv[2], nullptr, 10));
  const double seconds = std::strtod(argv[3], nullptr);
  const std::uint32_t bs =
      argc > 4 ? static_cast<std::uint32_t>(std::strtoul(argv[4], nullptr, 10)) : 4096;
  const std::string mode = argc > 5 ? argv[5] : "engine";
  const bool raw = mode == "raw";
  if (qd < 1 || qd > 256 || bs == 0) {
    std::fprintf(stderr, "aio_randread: bad queue depth or block size\n");
    return 2;
  }
  Result res;
  const bool runner = mode == "runner" || mode == "runner1";
  const int rc = raw      ? run_raw(target, qd, seconds, bs, res)
                 : runner ? run_runner(target, qd, seconds, bs, mode == "runner", res)
                          : run_engine(target, qd, seconds, bs, res);
  if (rc != 0) return rc;
  // CPU time of the whole process (user + system): on a RAM-backed target the I/O is done by
  // the CPU, so I/Os per CPU-second compare the tools even when other work shares the CPU.
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  const double cpu = static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
                     static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
  const double elapsed = static_cast<double>(res.stop_ns - res.start_ns) / 1e9;
  std::printf("{\"mode\": \"%s\", \"iops\": %.1f, \"ios\": %llu, \"seconds\": %.3f, "
              "\"mean_lat_us\": %.2f, \"p50_lat_us\": %.2f, \"p99_lat_us\": %.2f, "
              "\"cpu_s\": %.3f}\n",
              mode.c_str(), static_cast<double>(res.ios) / elapsed,
              static_cast<unsigned long long>(res.ios), elapsed, res.hist.mean() / 1e3,
              static_cast<double>(res.hist.percentile(50)) / 1e3,
              static_cast<double>(res.hist.percentile(99)) / 1e3, cpu);
  return 0;
}
