// Trace readers (src/tests/trace) on small hand-written traces, good and malformed, and the
// DiskSim demerit (src/tests/demerit) on distributions whose answer is known by hand, and the
// subsets replay compares (src/tests/replay).
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "tests/demerit.hpp"
#include "tests/replay.hpp"
#include "tests/trace.hpp"

using namespace ds::measure;

namespace {

const char* kValidate =
    "R Miss  564347     2     14095.370     13876.270\n"
    "R Hit   564349     2      1414.270     18746.770\n"
    "W Doub 1194877    15     17221.000     21894.380\n";

const char* kFioV2 =
    "fio version 2 iolog\n"
    "/dev/sdb add\n"
    "/dev/sdb open\n"
    "/dev/sdb read 0 4096\n"
    "/dev/sdb wait 1500 0\n"
    "/dev/sdb write 8192 512\n"
    "/dev/sdb sync 0 0\n"
    "/dev/sdb close\n";

const char* kFioV3 =
    "fio version 3 iolog\n"
    "100 /dev/sdb add\n"
    "110 /dev/sdb open\n"
    "150 /dev/sdb read 4096 4096\n"
    "2150 /dev/sdb write 0 8192\n"
    "2000 /dev/sdb read 65536 4096\n"
    "9000 /dev/sdb close\n";

// blkparse's default output: a request queued, merged into, dispatched (D) and completed (C), a
// second read, a flush with no data, and the closing summary.
const char* kBlkparse =
    "  8,16   1        1     0.000000000  4242  Q   R 2048 + 8 [fio]\n"
    "  8,16   1        2     0.000001000  4242  G   R 2048 + 8 [fio]\n"
    "  8,16   1        3     0.000002000  4242  Q   R 2056 + 8 [fio]\n"
    "  8,16   1        4     0.000002500  4242  M   R 2056 + 8 [fio]\n"
    "  8,16   1        5     0.000003000  4242  I   R 2048 + 16 [fio]\n"
    "  8,16   1        6     0.000010000  4242  D   R 2048 + 16 [fio]\n"
    "  8,16   1        7     0.004010000     0  C   R 2048 + 16 [0]\n"
    "  8,16   0        8     0.005000000  4243  Q  WS 100 + 8 [kworker]\n"
    "  8,16   0        9     0.005002000  4243  D  WS 100 + 8 [kworker]\n"
    "  8,16   0       10     0.005003000  4243  D FWS 0 + 0 [kworker]\n"
    "  8,16   0       11     0.012002000     0  C  WS 100 + 8 [0]\n"
    "  8,16   1       12     0.013000000  4242  P   N [fio]\n"
    "CPU0 (8,16):\n"
    " Reads Queued:           2,       16KiB  Writes Queued:           1,        4KiB\n";

}  // namespace

TEST_CASE("DiskSim validate traces: requests, measured times and the gap before each request") {
  auto t = parse_trace(kValidate);
  REQUIRE(t.ok());
  CHECK(t->format == TraceFormat::disksim_validate);
  CHECK(t->timing == TraceTiming::after_completion);
  REQUIRE(t->requests.size() == 3);
  CHECK(t->requests[0].offset_bytes == 564347ull * 512);
  CHECK(t->requests[0].length_bytes == 1024);
  CHECK_FALSE(t->requests[0].write);
  CHECK(t->requests[0].delay_ns == 0);                // the first goes at once
  CHECK(t->requests[1].delay_ns == 13'876'270);       // the previous line's NEXT_US
  CHECK(t->requests[2].delay_ns == 18'746'770);
  CHECK(*t->requests[1].measured_ms == doctest::Approx(1.41427));
  CHECK(t->requests[1].action == "Hit");
  CHECK(t->requests[2].write);
  CHECK(t->requests[2].line == 3);
  CHECK(t->writes() == 1);
  CHECK(t->has_measured());
}

TEST_CASE("DiskSim validate traces: malformed lines are refused with their line number") {
  auto bad = [](const std::string& text) {
    auto t = parse_disksim_validate(text);
    REQUIRE_FALSE(t.ok());
    return t.error().message;
  };
  CHECK(bad("R Hit 1 2 3 4\nR Hit 1 2 3\n").find("line 2: expected 6 fields") == 0);
  CHECK(bad("X Hit 1 2 3 4\n").find("line 1: expected R or W, got 'X'") == 0);
  CHECK(bad("R Hit 1 2 -3 4\n").find("line 1: SERVICE_US") == 0);
  CHECK(bad("R Hit abc 2 3 4\n").find("line 1: LBA") == 0);
  CHECK(bad("R Hit 1 0 3 4\n").find("line 1: a request of length 0") == 0);
  CHECK(bad("R Hit 1 2 nan 4\n").find("line 1: SERVICE_US") == 0);
  CHECK(bad("R Hit 99999999999999999999 2 3 4\n").find("line 1: LBA") == 0);
  CHECK(bad("\n\n").find("no request") != std::string::npos);
}

TEST_CASE("fio iolog version 2: back to back, a wait becomes the pause before the next request") {
  auto t = parse_trace(kFioV2);
  REQUIRE(t.ok());
  CHECK(t->format == TraceFormat::fio_iolog);
  CHECK(t->timing == TraceTiming::after_completion);
  REQUIRE(t->requests.size() == 2);  // sync is not replayed
  CHECK(t->requests[0].offset_bytes == 0);
  CHECK(t->requests[0].length_bytes == 4096);
  CHECK(t->requests[0].delay_ns == 0);
  CHECK(t->requests[1].write);
  CHECK(t->requests[1].offset_bytes == 8192);
  CHECK(t->requests[1].delay_ns == 1'500'000);
  CHECK_FALSE(t->has_measured());
}

TEST_CASE("fio iolog version 3: issue times in µs from the first line, never going backwards") {
  auto t = parse_trace(kFioV3);
  REQUIRE(t.ok());
  CHECK(t->timing == TraceTiming::at_time);
  REQUIRE(t->requests.size() == 3);
  CHECK(t->requests[0].delay_ns == 50'000);     // 150 − 100 µs
  CHECK(t->requests[1].delay_ns == 2'050'000);
  CHECK(t->requests[2].delay_ns == 2'050'000);  // 2000 < 2150: issued at once after it
  CHECK(t->requests[1].length_bytes == 8192);
}

TEST_CASE("fio iologs: malformed input is refused with its line number") {
  auto bad = [](const std::string& text) {
    auto t = parse_fio_iolog(text);
    REQUIRE_FALSE(t.ok());
    return t.error().message;
  };
  CHECK(bad("fio version 1 iolog\n").find("line 1: expected the header") == 0);
  CHECK(bad("fio version 2 iolog\n/dev/sdb frobnicate 0 1\n").find("line 2: unknown I/O action 'frobnicate'") == 0);
  CHECK(bad("fio version 2 iolog\n/dev/sdb read 0\n").find("line 2: expected FILE ACTION") == 0);
  CHECK(bad("fio version 2 iolog\n/dev/sdb read x 512\n").find("line 2: OFFSET") == 0);
  CHECK(bad("fio version 2 iolog\n/dev/sdb read 0 0\n").find("line 2: a request of length 0") == 0);
  CHECK(bad("fio version 2 iolog\n/dev/sdb read 0 8589934592\n").find("line 2: a request of") == 0);
  CHECK(bad("fio version 3 iolog\n5 /dev/sdb wait 10 0\n").find("line 2: 'wait' is not allowed") == 0);
  CHECK(bad("fio version 3 iolog\n/dev/sdb read 0 512\n").find("line 2: expected TIME FILE") == 0);
  CHECK(bad("fio version 2 iolog\n/dev/sdb add\n").find("no read or write") != std::string::npos);
}

TEST_CASE("blkparse: D events replayed at their times, C − D as the measured time") {
  auto t = parse_trace(kBlkparse);
  REQUIRE(t.ok());
  CHECK(t->format == TraceFormat::blkparse);
  CHECK(t->timing == TraceTiming::at_time);
  CHECK(t->variant == "D events");
  REQUIRE(t->requests.size() == 2);  // the merged read and the write; the flush moves no data
  CHECK(t->requests[0].offset_bytes == 2048ull * 512);
  CHECK(t->requests[0].length_bytes == 16 * 512);
  CHECK(t->requests[0].delay_ns == 0);
  CHECK(*t->requests[0].measured_ms == doctest::Approx(4.0));
  CHECK(t->requests[1].write);
  CHECK(t->requests[1].delay_ns == 4'992'000);
  CHECK(*t->requests[1].measured_ms == doctest::Approx(7.0));
}

TEST_CASE("blkparse: a trace without D events falls back to its Q events") {
  const char* q_only =
      "8,0 0 1 0.000000000 1 Q R 10 + 8 [a]\n"
      "8,0 0 2 0.001000000 1 Q W 20 + 8 [a]\n"
      "8,0 0 3 0.003000000 0 C W 20 + 8 [0]\n";
  auto t = parse_blkparse(q_only);
  REQUIRE(t.ok());
  CHECK(t->variant.find("Q events") == 0);
  REQUIRE(t->requests.size() == 2);
  CHECK_FALSE(t->requests[0].measured_ms.has_value());  // never completed in the trace
  CHECK(*t->requests[1].measured_ms == doctest::Approx(2.0));
}

TEST_CASE("blkparse: malformed events are refused with their line number") {
  auto bad = [](const std::string& text) {
    auto t = parse_blkparse(text);
    REQUIRE_FALSE(t.ok());
    return t.error().message;
  };
  CHECK(bad("hello world\n").find("line 1: not a blkparse event line") == 0);
  CHECK(bad("8,0 0 1 0.0 1 D R 10 8 [a]\n").find("line 1: a D event without 'SECTOR + COUNT'") == 0);
  CHECK(bad("8,0 0 1 0.0 1 D R 10 + x [a]\n").find("line 1: count") == 0);
  CHECK(bad("8,0 0 1 0.0 1 D R 10 + 8 [a]\n8,0 0 2 -1.0 1 C R 10 + 8 [0]\n").find("line 2: time") == 0);
  CHECK(bad("8,0 0 1 0.0 1 D\n").find("line 1: a blkparse event needs") == 0);
  CHECK(bad("8,0 0 1 0.0 1 P N [a]\n").find("no read or write") != std::string::npos);
}

TEST_CASE("trace formats are told apart, and a name picks one") {
  CHECK(*detect_trace_format(kValidate) == TraceFormat::disksim_validate);
  CHECK(*detect_trace_format(kFioV2) == TraceFormat::fio_iolog);
  CHECK(*detect_trace_format(kFioV3) == TraceFormat::fio_iolog);
  CHECK(*detect_trace_format(kBlkparse) == TraceFormat::blkparse);
  auto unknown = detect_trace_format("\n# something else\n");
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.error().message.find("line 2: cannot tell the trace format") == 0);
  CHECK_FALSE(detect_trace_format("").ok());
  CHECK(*parse_trace_format("blkparse") == TraceFormat::blkparse);
  CHECK_FALSE(parse_trace_format("csv").ok());
  // A format given explicitly wins over what detection would say.
  CHECK_FALSE(parse_trace(kValidate, TraceFormat::fio_iolog).ok());
}

TEST_CASE("every prefix and every one-byte corruption of the samples is read or refused, never a crash") {
  for (const char* sample : {kValidate, kFioV2, kFioV3, kBlkparse}) {
    const std::string s(sample);
    for (std::size_t n = 0; n <= s.size(); ++n) (void)parse_trace(s.substr(0, n));
    for (std::size_t i = 0; i < s.size(); ++i)
      for (char c : {'\0', '\n', '-', '9', '+', 'x', '\xff'}) {
        std::string m = s;
        m[i] = c;
        for (auto f : {TraceFormat::disksim_validate, TraceFormat::fio_iolog, TraceFormat::blkparse})
          (void)parse_trace(m, f);
      }
  }
  CHECK(true);  // reaching here is the assertion (ASan/UBSan builds check the accesses)
}

// ---- the demerit ----

TEST_CASE("demerit: identical distributions are 0 apart") {
  std::vector<double> a;
  for (int i = 0; i < 1000; ++i) a.push_back(0.5 + 0.013 * i);
  CHECK(demerit_ms(a, a) == 0.0);
}

TEST_CASE("demerit: two straight CDFs shifted by c are c apart; a stretched one by the known RMS") {
  const std::vector<CdfPoint> a{{0, 0}, {10, 1}};
  const std::vector<CdfPoint> shifted{{2.5, 0}, {12.5, 1}};
  CHECK(cdf_rms_distance_ms(a, shifted) == doctest::Approx(2.5).epsilon(1e-12));
  // Twice as wide: the distance at probability p is 10 p, so the RMS over p = k/N (k = 1..N) is
  // 10 · sqrt((N + 1)(2N + 1) / (6 N²)).
  const std::vector<CdfPoint> wide{{0, 0}, {20, 1}};
  const double n = 10000;
  CHECK(cdf_rms_distance_ms(a, wide) == doctest::Approx(10 * std::sqrt((n + 1) * (2 * n + 1) / (6 * n * n))));
  CHECK(std::isnan(cdf_rms_distance_ms(a, {})));
  CHECK(std::isnan(cdf_rms_distance_ms(a, {{0, 0}, {1, 0.5}})));  // never reaches 1
}

TEST_CASE("demerit: a constant shift through DiskSim's buckets") {
  // Below 0.1 ms DiskSim's buckets are 1 µs wide: times at k + 0.5 µs shifted by 20 µs give the
  // same curve moved by exactly 0.020 ms.
  std::vector<double> a, b;
  for (int k = 10; k < 60; ++k)
    for (int r = 0; r < 1 + k % 3; ++r) {
      a.push_back((k + 0.5) / 1000);
      b.push_back((k + 20 + 0.5) / 1000);
    }
  CHECK(demerit_ms(b, a) == doctest::Approx(0.020).epsilon(1e-9));
  // Around 10 ms the buckets are about 1 % wide (~0.1 ms at 10–11 ms): a 1 ms shift comes out as
  // 1 ms within one bucket width.
  std::vector<double> c, d;
  for (int i = 0; i < 5000; ++i) {
    const double t = 8.0 + 4.0 * i / 5000;
    c.push_back(t);
    d.push_back(t + 1.0);
  }
  const double dm = demerit_ms(d, c);
  CHECK(std::fabs(dm - 1.0) < 0.13);
  CHECK(demerit_pct(d, c) == doctest::Approx(100 * dm / 10.0).epsilon(1e-3));
  CHECK(std::isnan(demerit_ms({}, c)));
}

TEST_CASE("DiskSim's distribution: 1 µs buckets up to 0.1 ms, then about 1 % wide, ending at 1") {
  std::vector<double> v{0.0505, 0.0505, 0.0515, 20.0};
  auto c = disksim_cdf(v);
  REQUIRE(c.size() > 3);
  CHECK(c[0].ms == 0.0);
  CHECK(c[0].p == 0.0);
  CHECK(c[51].ms == doctest::Approx(0.051));  // edge 51 µs: the two 50.5 µs times lie below
  CHECK(c[51].p == doctest::Approx(0.5));
  CHECK(c[52].p == doctest::Approx(0.75));
  CHECK(c.back().p == 1.0);
  CHECK(c.back().ms > 20.0);
  CHECK(c.back().ms < 20.0 * 1.02 + 0.001);
  for (std::size_t i = 101; i < c.size(); ++i)
    CHECK(c[i].ms - c[i - 1].ms <= 0.011 * c[i - 1].ms + 0.001);
}

TEST_CASE("replay comparisons: subsets by the request before, and whether it continues that one") {
  // R 0+8, R 8+8 (continues a read), W 100+4 (after a read), W 104+4 (continues a write),
  // R 500+8 (after a write). Each simulated time is the measured one plus a mark that says which
  // subsets the request is in, so every subset's means tell its members.
  auto req = [](std::uint64_t lba, std::uint32_t n, bool w, double real, double sim) {
    ds::measure::ReplayedRequest r;
    r.lba = lba;
    r.blocks = n;
    r.write = w;
    r.measured_ms = real;
    r.service_ms = sim;
    return r;
  };
  const std::vector<ds::measure::ReplayedRequest> rs{req(0, 8, false, 10, 10), req(8, 8, false, 10, 11),
                                                     req(100, 4, true, 10, 12), req(104, 4, true, 10, 13),
                                                     req(500, 8, false, 10, 14)};
  const auto cs = ds::measure::compare_replay(rs);
  auto find = [&](const std::string& name) -> const ds::measure::Comparison* {
    for (const auto& c : cs)
      if (c.subset == name) return &c;
    return nullptr;
  };
  struct Want {
    const char* name;
    std::size_t count;
    double sim_mean;
  };
  for (const Want& w : {Want{"all", 5, 12}, Want{"reads after reads", 1, 11}, Want{"writes after reads", 1, 12},
                        Want{"writes after writes", 1, 13}, Want{"reads after writes", 1, 14},
                        Want{"sequential", 2, 12}, Want{"not sequential", 2, 13}}) {
    CAPTURE(w.name);
    const auto* c = find(w.name);
    REQUIRE(c != nullptr);
    CHECK(c->measured.count == w.count);
    CHECK(c->simulated.mean_ms == doctest::Approx(w.sim_mean));
  }
  // The first request has no request before it: in none of the last six.
  std::size_t by_previous = 0;
  for (const char* n : {"reads after reads", "reads after writes", "writes after reads", "writes after writes"})
    by_previous += find(n)->measured.count;
  CHECK(by_previous == 4);
}
