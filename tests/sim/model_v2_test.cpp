// Format drivescope-disk-model/2, the timing keys (the layout keys have their own tests): each
// shows in timing as the spec says, is refused with the field named when malformed, and comes
// back from model_to_json.
#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>

#include "drivescope/commands.hpp"
#include "sim/drive.hpp"
#include "sim_test_util.hpp"

namespace {

using simtest::Done;
using simtest::open_model;
using simtest::io_at;
using simtest::set_features;

// A clean /2 drive: 7200 rpm, 4 surfaces, 600 sectors per track, 20 000 cylinders, no queue.
std::string v2_json(const std::string& extra = "") {
  return R"({
    "format": "drivescope-disk-model/2", "name": "v2", "transport": "ata",
    "identity": {"model": "V2"}, "logical_sector_bytes": 512, "rpm": 7200,
    "surfaces": 4, "platters": 2, "zones": [{"cylinders": 20000, "sectors_per_track": 600}],
    "seek": {"track_to_track_ms": 1, "average_ms": 8, "full_stroke_ms": 16, "curve": null},
    "head_switch_ms": 0.5, "write_settle_ms": 0.2, "command_overhead_ms": 0.2, "interface_mb_s": 150,
    "cache": {"bytes": 8388608, "segments": 16, "read_ahead_sectors": 256, "write_back": false},
    "queue": {"protocol": "none"},
    "aam": {"supported": true, "default_level": 254, "quiet_seek_scale": 1.5},
    "noise": {"seed": 5, "seek_jitter_pct": 0})" + extra + "}";
}

ds::sim::DiskModel v2_model(const std::string& extra = "") {
  auto m = ds::sim::parse_model(v2_json(extra));
  REQUIRE_MESSAGE(m.ok(), (m.ok() ? "" : m.error().message));
  return *m;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[static_cast<std::size_t>(q * static_cast<double>(v.size() - 1))];
}

}  // namespace

TEST_CASE("format /2: the timing keys parse, round-trip, and are unknown keys in a /1 file") {
  const std::string keys = R"(, "rpm_actual": 7190.5, "remapped": [{"lba": 1000, "extra_ms": 14}],
    "recalibration": {"every_s": 300, "duration_ms": 120})";
  auto m = v2_model(keys);
  CHECK(m.format_version == 2);
  CHECK(m.rpm_actual == 7190.5);
  REQUIRE(m.remapped.size() == 1);
  CHECK(m.remapped[0].extra_ms == 14);
  CHECK(m.recalibration.every_s == 300);
  // nested keys
  std::string text = v2_json(keys);
  text.replace(text.find(R"("seek_jitter_pct": 0)"), 20,
               R"("seek_jitter_pct": 2, "overhead_jitter_ms": 0.02, "host_latency_us": 20,
                  "host_stall": {"probability": 0.001, "ms": 3})");
  text.replace(text.find(R"("write_back": false)"), 19, R"("write_back": false, "zero_latency_read": true)");
  text.replace(text.find(R"("protocol": "none")"), 18, R"("protocol": "ncq", "depth": 32, "policy": "sptf", "window": 4, "max_wait_ms": 500)");
  text.replace(text.find(R"("quiet_seek_scale": 1.5)"), 23, R"("quiet_seek_scale": 1.5, "short_seek_cylinders": 64)");
  auto full = ds::sim::parse_model(text);
  REQUIRE_MESSAGE(full.ok(), (full.ok() ? "" : full.error().message));
  auto again = ds::sim::parse_model(ds::sim::model_to_json(*full));
  REQUIRE_MESSAGE(again.ok(), (again.ok() ? "" : again.error().message));
  for (const auto* x : {&*full, &*again}) {
    CHECK(x->format_version == 2);
    CHECK(x->rpm_actual == 7190.5);
    CHECK(x->noise.seek_jitter_pct == 2);
    CHECK(x->noise.overhead_jitter_ms == 0.02);
    CHECK(x->noise.host_latency_us == 20);
    CHECK(x->noise.host_stall_probability == 0.001);
    CHECK(x->noise.host_stall_ms == 3);
    CHECK(x->cache.zero_latency_read);
    CHECK(x->queue.window == 4);
    CHECK(x->queue.max_wait_ms == 500);
    CHECK(x->aam.short_seek_cylinders == 64);
    REQUIRE(x->remapped.size() == 1);
    CHECK(x->remapped[0].lba == 1000);
    CHECK(x->recalibration.duration_ms == 120);
  }
  // In a /1 file the same keys are unknown extra keys: ignored.
  std::string v1 = text;
  v1.replace(v1.find("disk-model/2"), 12, "disk-model/1");
  auto old = ds::sim::parse_model(v1);
  REQUIRE(old.ok());
  CHECK(old->format_version == 1);
  CHECK(!old->rpm_actual);
  CHECK(old->remapped.empty());
  CHECK(old->noise.host_latency_us == 0);
  CHECK(!old->cache.zero_latency_read);
  CHECK(old->queue.window == 0);
  CHECK(ds::sim::model_to_json(*old).find("rpm_actual") == std::string::npos);
}

TEST_CASE("format /2: malformed timing keys name the field") {
  auto err = [](const std::string& extra) {
    auto m = ds::sim::parse_model(v2_json(extra));
    REQUIRE_MESSAGE(!m.ok(), "accepted: " << extra);
    return m.error().message;
  };
  CHECK(err(R"(, "rpm_actual": -1)").starts_with("rpm_actual:"));
  CHECK(err(R"(, "rpm_actual": 90000)").starts_with("rpm_actual:"));
  CHECK(err(R"(, "remapped": {"lba": 1})") == "remapped: must be an array");
  CHECK(err(R"(, "remapped": [{"lba": 1, "extra_ms": -2}])").starts_with("remapped[0].extra_ms:"));
  CHECK(err(R"(, "remapped": [{"extra_ms": 2}])") == "remapped[0].lba: missing");
  CHECK(err(R"(, "remapped": [{"lba": 999999999, "extra_ms": 2}])").starts_with("remapped[0].lba:"));
  CHECK(err(R"(, "recalibration": {"every_s": 0, "duration_ms": 5})").starts_with("recalibration.every_s:"));
  CHECK(err(R"(, "recalibration": {"every_s": 1, "duration_ms": 5000})").starts_with("recalibration.duration_ms:"));
  auto nested = [](const std::string& from, const std::string& to) {
    std::string text = v2_json();
    text.replace(text.find(from), from.size(), to);
    auto m = ds::sim::parse_model(text);
    REQUIRE_MESSAGE(!m.ok(), "accepted: " << to);
    return m.error().message;
  };
  CHECK(nested(R"("seek_jitter_pct": 0)", R"("seek_jitter_pct": 0, "overhead_jitter_ms": "x")") ==
        "noise.overhead_jitter_ms: must be a number");
  CHECK(nested(R"("seek_jitter_pct": 0)", R"("seek_jitter_pct": 0, "host_latency_us": -5)")
            .starts_with("noise.host_latency_us:"));
  CHECK(nested(R"("seek_jitter_pct": 0)", R"("seek_jitter_pct": 0, "host_stall": {"probability": 2, "ms": 1})")
            .starts_with("noise.host_stall.probability:"));
  CHECK(nested(R"("seek_jitter_pct": 0)", R"("seek_jitter_pct": 0, "host_stall": {"probability": 0.1})") ==
        "noise.host_stall.ms: missing");
  CHECK(nested(R"("write_back": false)", R"("write_back": false, "zero_latency_read": 1)") ==
        "cache.zero_latency_read: must be true or false");
  CHECK(nested(R"("protocol": "none")", R"("protocol": "ncq", "window": 0)") ==
        "queue.window: must be a positive integer");
  CHECK(nested(R"("protocol": "none")", R"("protocol": "ncq", "max_wait_ms": 0)").starts_with("queue.max_wait_ms:"));
  CHECK(nested(R"("quiet_seek_scale": 1.5)", R"("quiet_seek_scale": 1.5, "short_seek_cylinders": -1)")
            .starts_with("aam.short_seek_cylinders:"));
}

namespace {

// Rotation period from timing alone, write cache off: back-to-back writes of one sector complete
// one revolution apart.
double period_ms(ds::IoEngine& io, std::uint64_t lba) {
  io_at(io, lba, 1, true);
  const Done a = io_at(io, lba, 1, true);
  const Done b = io_at(io, lba, 1, true);
  return static_cast<double>(b.at - a.at) / 1e6;
}

}  // namespace

TEST_CASE("rpm_actual: the spindle turns at it everywhere, streaming included; IDENTIFY keeps rpm") {
  auto nominal = open_model(v2_model(), true);
  auto real = open_model(v2_model(R"(, "rpm_actual": 7100)"), true);
  CHECK(period_ms(*nominal.io, 5000) == doctest::Approx(60000.0 / 7200).epsilon(1e-6));
  CHECK(period_ms(*real.io, 5000) == doctest::Approx(60000.0 / 7100).epsilon(1e-6));
  // Streaming: the truth's zone rate with a revolution of 60/7100 s (the derived skews cover the
  // head switch and one-cylinder seek in sectors of that revolution).
  for (auto* t : {&nominal, &real}) {
    const double rpm = t->model.spindle_rpm();
    const auto& z = t->drive->layout().zones()[0];
    const double h = t->model.surfaces, units = h * z.spt + (h - 1) * z.track_skew + z.cylinder_skew;
    const double truth = h * z.spt * 512 / (units / z.spt * 60.0 / rpm) / 1e6;
    const double got = simtest::sequential_mb_s(*t->io, 100000, 400000, 256, 2);
    MESSAGE("sequential at " << rpm << " rpm: " << got << " MB/s, truth " << truth << " MB/s");
    CHECK(got == doctest::Approx(truth).epsilon(0.003));
  }
  // IDENTIFY word 217: the nominal rpm
  std::array<std::uint8_t, 512> buf{};
  ds::AtaRequest id;
  id.in.command = ds::ata::kIdentifyDevice;
  id.protocol = ds::AtaProtocol::pio_in;
  id.data = buf;
  REQUIRE(real.device->ata(id).ok());
  CHECK((buf[434] | buf[435] << 8) == 7200);
}

namespace {

// Share of reads of B (cylinder c + d) right after a read of A (cylinder c) that miss their
// sector, when B's sector comes `sds` standard deviations of the seek jitter after the nominal
// arrival: alternate A, B, A, B... with no cache (every read positions). A miss costs a
// revolution more than the nominal latency.
struct MissShare {
  double observed = 0, expected = 0;
};

MissShare seek_miss_share(double jitter_pct, std::uint32_t d, double sds, bool write, int n) {
  auto m = v2_model();
  m.noise.seek_jitter_pct = jitter_pct;
  m.cache.bytes = 0;
  auto t = open_model(m, write);
  const auto& lay = t.drive->layout();
  const std::int64_t rot = lay.rotation_ns();
  const std::uint64_t per_cyl = std::uint64_t{m.surfaces} * m.zones[0].sectors_per_track;
  const std::uint32_t c = 1000;
  const std::uint64_t a = c * per_cyl;
  const std::uint64_t track_b = (c + d) * per_cyl;
  const auto overhead = static_cast<std::int64_t>(std::llround(m.command_overhead_ms * 1e6));
  const auto settle = static_cast<std::int64_t>(std::llround(m.write_settle_ms * 1e6));
  const std::int64_t move = t.drive->seek_curve().ns(d) + (write ? settle : 0);
  // A's completion is at A's end angle; B's data starts `slack` after the nominal arrival.
  const std::int64_t arrive = lay.stream_ns(a + 1) + overhead + move;
  const double sd = jitter_pct / 100.0 * static_cast<double>(move);
  const double sector = static_cast<double>(rot) / m.zones[0].sectors_per_track;
  const std::int64_t want = (arrive + std::llround(sds * sd) - lay.stream_ns(track_b)) % rot;
  const std::uint64_t b = track_b + static_cast<std::uint64_t>(std::ceil(static_cast<double>((want + rot) % rot) / sector));
  const std::int64_t slack = ((lay.stream_ns(b) - arrive) % rot + rot) % rot;
  const double nominal_ms = static_cast<double>(overhead + move + slack + lay.stream_ns(b + 1) - lay.stream_ns(b)) / 1e6;
  REQUIRE(!t.drive->write_cache());  // (no cache: writes go to the media)
  int missed = 0;
  for (int i = 0; i < n; ++i) {
    io_at(*t.io, a, 1, write);
    const double ms = io_at(*t.io, b, 1, write).ms;
    CHECK(ms > nominal_ms - 1e-3);
    missed += ms > nominal_ms + static_cast<double>(rot) / 2e6;
  }
  MissShare r;
  r.observed = static_cast<double>(missed) / n;
  r.expected = 0.5 * std::erfc(static_cast<double>(slack) / sd / std::sqrt(2.0));
  return r;
}

}  // namespace

TEST_CASE("format /2 seek_jitter_pct: every seek's time, settle included, has that standard deviation") {
  // At one sd of slack a normal jitter overruns on 15.9 % of the seeks, at two on 2.3 % (the /1
  // uniform jitter of ±pct never overruns either); short and long seeks alike.
  for (const std::uint32_t d : {1u, 300u, 15000u}) {
    for (const double sds : {1.0, 2.0}) {
      CAPTURE(d);
      CAPTURE(sds);
      const MissShare r = seek_miss_share(5.0, d, sds, false, 3000);
      MESSAGE("d " << d << ", slack " << sds << " sd: " << r.observed * 100 << " % missed, expected "
                   << r.expected * 100 << " %");
      CHECK(r.observed == doctest::Approx(r.expected).epsilon(0.15));
    }
  }
  const MissShare w = seek_miss_share(5.0, 300, 1.0, true, 3000);  // writes: the settle jitters too
  MESSAGE("writes, d 300: " << w.observed * 100 << " % missed, expected " << w.expected * 100 << " %");
  CHECK(w.observed == doctest::Approx(w.expected).epsilon(0.15));
}

TEST_CASE("format /2 seek jitter: SPTF keeps its gain") {
  auto base = v2_model();
  base.queue = {ds::sim::QueueProtocol::ncq, 32, ds::sim::QueuePolicy::sptf};
  auto jittery = base;
  jittery.noise.seek_jitter_pct = 5.0;
  auto fifo = jittery;
  fifo.queue.policy = ds::sim::QueuePolicy::fifo;
  auto a = open_model(base), b = open_model(jittery), f = open_model(fifo);
  const double clean = simtest::random_read_iops(*a.io, 4000, 32);
  const double noisy = simtest::random_read_iops(*b.io, 4000, 32);
  const double in_order = simtest::random_read_iops(*f.io, 4000, 32);
  MESSAGE("QD32 sptf: " << clean << " IOPS clean, " << noisy << " IOPS with 5 % seek jitter; fifo " << in_order);
  CHECK(noisy >= 0.9 * clean);
  CHECK(noisy >= 1.8 * in_order);
}

TEST_CASE("format /2 overhead_jitter_ms: the command overhead varies by that sd, floored at 0.3 x") {
  for (const double sd : {0.05, 0.3}) {
    CAPTURE(sd);
    auto m = v2_model();
    m.command_overhead_ms = 0.5;
    m.noise.overhead_jitter_ms = sd;
    auto t = open_model(m);
    io_at(*t.io, 777, 8);  // a miss; the rest are hits
    const double iface = 8 * 512 / (m.interface_mb_s * 1e3);
    std::vector<double> over;
    for (int i = 0; i < 4000; ++i) over.push_back(io_at(*t.io, 777, 8).ms - iface);
    const double mean = std::accumulate(over.begin(), over.end(), 0.0) / over.size();
    double var = 0;
    for (double x : over) var += (x - mean) * (x - mean);
    const double got_sd = std::sqrt(var / (over.size() - 1));
    const double lo = *std::min_element(over.begin(), over.end());
    MESSAGE("overhead: mean " << mean << " ms, sd " << got_sd << " ms, min " << lo << " ms");
    CHECK(lo >= 0.3 * m.command_overhead_ms - 1e-6);
    if (sd < 0.1) {  // the floor is 10 sd away: a plain normal
      CHECK(mean == doctest::Approx(0.5).epsilon(0.01));
      CHECK(got_sd == doctest::Approx(sd).epsilon(0.06));
    } else {  // the floor is hit (at 0.15 ms, 1.17 sd below the mean: 12 % of the draws)
      const auto at_floor = std::count_if(over.begin(), over.end(), [&](double x) { return x < 0.15 + 1e-6; });
      CHECK(at_floor > 0.09 * over.size());
      CHECK(at_floor < 0.15 * over.size());
    }
  }
}

TEST_CASE("format /2 host latency and stalls: added to the completion the host sees, not to the drive") {
  auto m = v2_model(R"(, "noise": {"seed": 5, "host_latency_us": 200, "host_stall": {"probability": 0.02, "ms": 3}})");
  auto clean_model = v2_model();
  auto t = open_model(m);
  io_at(*t.io, 777, 8);
  const double hit = m.command_overhead_ms + 8 * 512 / (m.interface_mb_s * 1e3);
  std::vector<double> host;
  int stalls = 0;
  const int n = 10000;
  for (int i = 0; i < n; ++i) {
    const double ms = io_at(*t.io, 777, 8).ms - hit;
    CHECK(ms > 0);
    if (ms > 2.0) ++stalls;
    else host.push_back(ms);
  }
  const double med = median(host), p84 = quantile(host, 0.8413);
  MESSAGE("host time: median " << med * 1e3 << " us, p84/p50 " << p84 / med << ", stalls " << stalls << "/" << n);
  CHECK(med == doctest::Approx(0.2).epsilon(0.04));
  CHECK(p84 / med == doctest::Approx(std::exp(0.5)).epsilon(0.05));
  CHECK(stalls == doctest::Approx(0.02 * n).epsilon(0.25));
  // The drive does not wait for the host: with requests queued, streaming keeps its rate.
  auto quiet_host = open_model(clean_model);
  auto busy_host = open_model(v2_model(R"(, "noise": {"seed": 5, "host_latency_us": 200})"));
  const double r0 = simtest::sequential_mb_s(*quiet_host.io, 0, 300000, 256, 4);
  const double r1 = simtest::sequential_mb_s(*busy_host.io, 0, 300000, 256, 4);
  MESSAGE("QD4 streaming: " << r0 << " MB/s, with 200 us host latency " << r1 << " MB/s");
  CHECK(r1 == doctest::Approx(r0).epsilon(0.005));
}

TEST_CASE("format /2 remapped: a media read of the LBA costs extra_ms more, a cache hit does not") {
  const std::uint64_t x = 3'000'000;
  // What a read of [lba, lba + n) costs more on the drive with the remapped LBA than without,
  // both fresh and with the same history.
  auto more_ms = [&](std::uint64_t lba, std::uint32_t n) {
    auto with = open_model(v2_model(R"(, "remapped": [{"lba": 3000000, "extra_ms": 14}])"));
    auto without = open_model(v2_model());
    for (auto* t : {&with, &without}) io_at(*t->io, 10, 1);
    return io_at(*with.io, lba, n).ms - io_at(*without.io, lba, n).ms;
  };
  CHECK(more_ms(x - 3, 8) == doctest::Approx(14.0).epsilon(1e-6));
  CHECK(more_ms(x, 1) == doctest::Approx(14.0).epsilon(1e-6));
  CHECK(std::fabs(more_ms(x + 1, 8)) < 1e-6);  // its neighbours cost nothing more
  CHECK(std::fabs(more_ms(x - 8, 8)) < 1e-6);
  CHECK(std::fabs(more_ms(x + 50000, 8)) < 1e-6);
  // a re-read (a cache hit) costs the hit time only
  auto with = open_model(v2_model(R"(, "remapped": [{"lba": 3000000, "extra_ms": 14}])"));
  CHECK(io_at(*with.io, x, 1).ms > 14.0);
  with.io->idle(std::chrono::milliseconds(20));
  CHECK(io_at(*with.io, x, 1).ms == doctest::Approx(with.model.command_overhead_ms + 512 / (with.model.interface_mb_s * 1e3)).epsilon(0.01));
}

namespace {

// Completion stamps of back-to-back cache hits over `seconds` of drive time.
std::vector<std::int64_t> hits_for(ds::sim::SimTarget& t, double seconds) {
  io_at(*t.io, 777, 8);
  std::vector<std::int64_t> at;
  while (t.io->now_ns() < static_cast<std::int64_t>(seconds * 1e9)) at.push_back(io_at(*t.io, 777, 8).at);
  return at;
}

}  // namespace

TEST_CASE("format /2 recalibration: nothing served for duration_ms once every every_s, phase from the seed") {
  const std::string recal = R"(, "recalibration": {"every_s": 0.5, "duration_ms": 40})";
  std::vector<std::int64_t> first_gap;
  for (const std::uint64_t seed : {1u, 2u}) {
    ds::sim::SimOptions o;
    o.seed = seed;
    auto t = ds::sim::open(v2_model(recal), o);
    REQUIRE(t.ok());
    const auto at = hits_for(*t, 3.0);
    std::vector<std::int64_t> gaps;  // completions after a pause
    for (std::size_t i = 1; i < at.size(); ++i) {
      const double gap_ms = static_cast<double>(at[i] - at[i - 1]) / 1e6;
      if (gap_ms > 1.0) {
        CHECK(gap_ms <= 40.0 + 1.0);
        CHECK(gap_ms >= 40.0 * 0.5);  // the hit in service ends before the pause starts
        gaps.push_back(at[i]);
      }
    }
    CAPTURE(seed);
    CHECK(gaps.size() >= 5);
    CHECK(gaps.size() <= 6);
    for (std::size_t i = 1; i < gaps.size(); ++i)
      CHECK(static_cast<double>(gaps[i] - gaps[i - 1]) / 1e9 == doctest::Approx(0.5).epsilon(0.002));
    first_gap.push_back(gaps.front() % 500'000'000);
  }
  CHECK(std::llabs(first_gap[0] - first_gap[1]) > 1'000'000);  // another seed, another phase
}

TEST_CASE("format /2 cache.zero_latency_read: a read landing inside its track takes one revolution") {
  // Whole tracks on consecutive cylinders, look-ahead off, a random pause before each: every read
  // seeks one cylinder and lands at a random angle. With zero-latency reads each takes overhead +
  // seek + one revolution (+ < 1 sector to the next boundary); without, a rotational wait of half
  // a revolution more on average.
  std::vector<double> spread;
  double mean[2] = {0, 0};
  for (const bool zl : {false, true}) {
    auto m = v2_model();
    m.cache.zero_latency_read = zl;
    auto t = open_model(m);
    REQUIRE(set_features(*t.device, ds::ata::kSfDisableLookAhead).ok());
    const std::uint32_t n = m.zones[0].sectors_per_track;
    const std::uint64_t per_cyl = std::uint64_t{m.surfaces} * n;
    std::vector<double> ms;
    ds::sim::Rng rng(3);
    for (std::uint64_t c = 2000; c < 3000; ++c) {
      t.io->idle(std::chrono::microseconds(1 + rng.below(20000)));
      ms.push_back(io_at(*t.io, c * per_cyl, n).ms);
    }
    ms.erase(ms.begin());  // the first seek comes from elsewhere
    const auto [lo, hi] = std::minmax_element(ms.begin(), ms.end());
    spread.push_back(*hi - *lo);
    mean[zl] = std::accumulate(ms.begin(), ms.end(), 0.0) / ms.size();
    if (zl) {
      const double rot = 60000.0 / m.rpm, sector = rot / n;
      const double expect = m.command_overhead_ms + t.drive->seek_curve().ms(1) + rot;
      CHECK(*lo >= expect - 1e-3);
      CHECK(*hi <= expect + sector + 1e-3);
    }
  }
  MESSAGE("full-track reads: mean " << mean[0] << " ms plain, " << mean[1] << " ms zero-latency; spread "
                                    << spread[0] << " / " << spread[1] << " ms");
  CHECK(mean[0] - mean[1] == doctest::Approx(60000.0 / 7200 / 2).epsilon(0.1));
  // The track is kept: after a zero-latency read of all but its first sector, that one is a hit.
  auto m = v2_model();
  m.cache.zero_latency_read = true;
  auto t = open_model(m);
  const std::uint32_t n = m.zones[0].sectors_per_track;
  const std::uint64_t track = 4000ull * m.surfaces * n;
  const double hit = m.command_overhead_ms + 512 / (m.interface_mb_s * 1e3);
  int kept = 0;
  for (int i = 0; i < 20; ++i) {
    const std::uint64_t f = track + static_cast<std::uint64_t>(i) * 40 * m.surfaces * n;
    io_at(*t.io, f + 1, n - 1);
    kept += io_at(*t.io, f, 1).ms < hit + 1e-3;
  }
  CHECK(kept >= 19);  // (unless the head landed on sector 0 or 1)
}

TEST_CASE("format /2 aam.short_seek_cylinders: short seeks keep their speed at the quiet level") {
  // Random reads within a band of cylinders: the mean latency moves with the level only when the
  // band's seeks are longer than short_seek_cylinders.
  auto m = v2_model();
  m.aam.short_seek_cylinders = 64;
  const std::uint64_t per_cyl = std::uint64_t{m.surfaces} * m.zones[0].sectors_per_track;
  auto mean_at = [&](std::uint8_t level, std::uint64_t cyls) {
    auto t = open_model(m);
    REQUIRE(set_features(*t.device, ds::ata::kSfEnableAam, level).ok());
    return simtest::mean_random_read_ms(*t.io, 4000, 3, 5000 * per_cyl, (5000 + cyls) * per_cyl);
  };
  const double short_fast = mean_at(254, 60), short_quiet = mean_at(128, 60);
  const double long_fast = mean_at(254, 15000), long_quiet = mean_at(128, 15000);
  MESSAGE("band of 60 cylinders: " << short_fast << " / " << short_quiet << " ms; of 15000: " << long_fast
                                   << " / " << long_quiet << " ms (levels 254 / 128)");
  CHECK(short_quiet == doctest::Approx(short_fast).epsilon(1e-9));
  CHECK(long_quiet > long_fast + 2.0);
}

TEST_CASE("format /2 queue.window and max_wait_ms") {
  auto base = v2_model();
  base.queue = {ds::sim::QueueProtocol::ncq, 32, ds::sim::QueuePolicy::sptf};
  auto iops = [&](std::uint32_t window, double max_wait_ms) {
    auto m = base;
    m.queue.window = window;
    m.queue.max_wait_ms = max_wait_ms;
    auto t = open_model(m);
    return simtest::random_read_iops(*t.io, 4000, 32);
  };
  auto fifo_model = base;
  fifo_model.queue.policy = ds::sim::QueuePolicy::fifo;
  auto f = open_model(fifo_model);
  const double fifo = simtest::random_read_iops(*f.io, 4000, 32);
  const double w1 = iops(1, 0), w4 = iops(4, 0), all = iops(0, 0);
  MESSAGE("QD32 IOPS: fifo " << fifo << ", sptf window 1 " << w1 << ", window 4 " << w4 << ", all " << all);
  CHECK(w1 == doctest::Approx(fifo).epsilon(1e-9));  // a window of one is fifo
  CHECK(w4 > 1.15 * fifo);
  CHECK(w4 < 0.85 * all);
  // max_wait_ms bounds how long a command is passed over.
  auto worst = [&](double max_wait_ms) {
    auto m = base;
    m.queue.max_wait_ms = max_wait_ms;
    auto t = open_model(m);
    const std::uint64_t cap = m.capacity();
    ds::sim::Rng rng(8);
    std::vector<ds::IoRequest> reqs(32);
    std::uint64_t tag = 0;
    for (auto& r : reqs) r = {rng.below(cap) * 512, 512, false, tag++};
    REQUIRE(t.io->submit(reqs).value() == 32);
    double w = 0;
    ds::IoCompletion c[32];
    for (int done = 0; done < 6000;) {
      const auto k = t.io->reap(c, 1, std::chrono::milliseconds(0)).value();
      for (std::size_t i = 0; i < k; ++i, ++done) {
        w = std::max(w, static_cast<double>(c[i].latency_ns()) / 1e6);
        ds::IoRequest r{rng.below(cap) * 512, 512, false, tag++};
        REQUIRE(t.io->submit({&r, 1}).value() == 1);
      }
    }
    return w;
  };
  const double unbounded = worst(0), bounded = worst(100);
  MESSAGE("worst QD32 latency: " << unbounded << " ms without max_wait, " << bounded << " ms with 100 ms");
  CHECK(bounded < 0.5 * unbounded);
  // passed over for at most 100 ms, then served after the command in service and at most the 30
  // others of the queue that were overdue before it (one service each: overhead, a full stroke,
  // a revolution)
  const double service = base.command_overhead_ms + base.seek.full_stroke_ms + 60000.0 / base.rpm;
  CHECK(bounded <= 100 + 31 * service);
}

TEST_CASE("format /2: all its noise comes from the seed, reproducibly") {
  const std::string noisy = R"(, "noise": {"seed": 5, "seek_jitter_pct": 3, "overhead_jitter_ms": 0.05,
    "host_latency_us": 30, "host_stall": {"probability": 0.01, "ms": 2}},
    "recalibration": {"every_s": 0.2, "duration_ms": 20})";
  auto run = [&](std::optional<std::uint64_t> seed) {
    ds::sim::SimOptions o;
    o.seed = seed;
    auto m = v2_model(noisy);
    m.queue = {ds::sim::QueueProtocol::ncq, 32, ds::sim::QueuePolicy::sptf};
    auto t = ds::sim::open(m, o);
    REQUIRE(t.ok());
    ds::sim::Rng rng(4);
    std::vector<std::int64_t> stamps;
    std::vector<ds::IoRequest> reqs(16);
    ds::IoCompletion c[16];
    for (int round = 0; round < 100; ++round) {
      for (auto& r : reqs) r = {rng.below(m.capacity() - 8) * 512, 4096, false, rng.next()};
      REQUIRE(t->io->submit(reqs).value() == reqs.size());
      while (t->io->in_flight() > 0) {
        const auto n = t->io->reap(c, 1, std::chrono::milliseconds(0)).value();
        for (std::size_t i = 0; i < n; ++i) stamps.push_back(c[i].complete_ns);
      }
    }
    return stamps;
  };
  CHECK(run(std::nullopt) == run(std::nullopt));
  CHECK(run(std::nullopt) == run(5));  // noise.seed is the default seed
  CHECK(run(6) != run(5));
}
