// The "actuators" model key: a multi-actuator drive (MACH.2 class) whose LBA ranges each have a
// positioner of their own. Checked through the drive's public interfaces only: timing through the
// I/O engine, the reported ranges through READ LOG EXT / INQUIRY and the probe's decoders.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <vector>

#include "drivescope/commands.hpp"
#include "probe/zones.hpp"
#include "sim/rng.hpp"
#include "sim_test_util.hpp"

namespace {

using ds::sim::DiskModel;

struct Range {
  std::uint64_t lo = 0, hi = 0;  // [lo, hi)
};

// Two host streams of random 4 KiB reads, each keeping one read outstanding in its own LBA
// range, until `total` reads are done. Returns reads per virtual second.
double two_streams_iops(ds::IoEngine& io, Range a, Range b, int total) {
  ds::sim::Rng rng(7);
  const std::array<Range, 2> rs{a, b};
  auto next = [&](std::size_t s) {
    const Range& r = rs[s];
    const std::uint64_t lba = (r.lo + rng.below(r.hi - r.lo - 8)) & ~std::uint64_t{7};
    return ds::IoRequest{lba * 512, 4096, false, s};
  };
  std::array<ds::IoRequest, 2> first{next(0), next(1)};
  REQUIRE(io.submit(first).value() == 2);
  std::int64_t start = -1, end = 0;
  for (int done = 0; done < total;) {
    ds::IoCompletion c;
    REQUIRE(io.reap({&c, 1}, 1, std::chrono::milliseconds(0)).value() == 1);
    REQUIRE(c.ok());
    if (start < 0) start = c.submit_ns;
    end = c.complete_ns;
    ++done;
    const ds::IoRequest r = next(static_cast<std::size_t>(c.tag));
    REQUIRE(io.submit({&r, 1}).value() == 1);
  }
  return total / (static_cast<double>(end - start) * 1e-9);
}

DiskModel preset(const char* name) {
  auto m = ds::sim::preset(name);
  REQUIRE(m.ok());
  return *m;
}

// The gain of two streams in different halves over two in the first half.
double halves_gain(const DiskModel& m) {
  const std::uint64_t cap = m.capacity(), half = cap / 2;
  auto t1 = simtest::open_model(m);
  const double same = two_streams_iops(*t1.io, {0, half / 2}, {half / 2, half}, 400);
  auto t2 = simtest::open_model(m);
  const double apart = two_streams_iops(*t2.io, {0, half / 2}, {half, half + half / 2}, 400);
  return apart / same;
}

}  // namespace

TEST_CASE("actuators: a count splits the LBA space in equal ranges, a list must tile it") {
  DiskModel m = preset("exos2x14");
  REQUIRE(m.actuators.size() == 2);
  CHECK(m.actuators[0].first_lba == 0);
  CHECK(m.actuators[1].first_lba == m.actuators[0].lba_count);
  CHECK(m.actuators[0].lba_count + m.actuators[1].lba_count == m.capacity());

  auto base = nlohmann::json::parse(ds::sim::model_to_json(preset("7k400")));
  const std::uint64_t cap = preset("7k400").capacity();
  auto with = [&](nlohmann::json a) {
    auto j = base;
    j["actuators"] = std::move(a);
    return ds::sim::parse_model(j.dump());
  };
  auto ok = with(nlohmann::json::array({{{"first_lba", 0}, {"lba_count", 1000}},
                                        {{"first_lba", 1000}, {"lba_count", cap - 1000}}}));
  REQUIRE(ok.ok());
  CHECK(ok->actuators.size() == 2);
  // Written back and read again: the same ranges.
  auto again = ds::sim::parse_model(ds::sim::model_to_json(*ok));
  REQUIRE(again.ok());
  CHECK(again->actuators.size() == 2);
  CHECK(again->actuators[1].first_lba == 1000);

  auto gap = with(nlohmann::json::array({{{"first_lba", 0}, {"lba_count", 1000}},
                                         {{"first_lba", 2000}, {"lba_count", cap - 2000}}}));
  REQUIRE_FALSE(gap.ok());
  CHECK(gap.error().message.find("actuators[1].first_lba") != std::string::npos);
  auto short_ = with(nlohmann::json::array({{{"first_lba", 0}, {"lba_count", 1000}}}));
  REQUIRE_FALSE(short_.ok());
  CHECK(short_.error().message.find("actuators") != std::string::npos);
  CHECK_FALSE(with(0).ok());
  CHECK_FALSE(with(9).ok());
  CHECK_FALSE(with("two").ok());
  auto one = with(1);
  REQUIRE(one.ok());
  CHECK(one->actuators.empty());
}

TEST_CASE("actuators: streams in different ranges overlap, in one range they serialise") {
  const DiskModel dual = preset("exos2x14");
  const double gain = halves_gain(dual);
  INFO("dual-actuator gain " << gain);
  // Two positioners each serving one stream at QD1, against one positioner serving both (which
  // SPTF helps a little): about twice the reads.
  CHECK(gain > 1.6);
  CHECK(gain < 2.4);

  // The same drive with one positioner: apart or together, the same single positioner.
  DiskModel single = dual;
  single.actuators.clear();
  const double g1 = halves_gain(single);
  INFO("single-actuator gain " << g1);
  CHECK(g1 < 1.15);
}

TEST_CASE("actuators: 1 is one positioner exactly as without the key (same stamps)") {
  DiskModel a = preset("modern8tb");
  auto j = nlohmann::json::parse(ds::sim::model_to_json(a));
  j["actuators"] = 1;
  auto b = ds::sim::parse_model(j.dump());
  REQUIRE(b.ok());
  auto ta = simtest::open_model(a);
  auto tb = simtest::open_model(*b);
  const std::uint64_t cap = a.capacity();
  CHECK(two_streams_iops(*ta.io, {0, cap / 2}, {cap / 2, cap}, 200) ==
        two_streams_iops(*tb.io, {0, cap / 2}, {cap / 2, cap}, 200));
}

TEST_CASE("actuators: the queue depth counts the commands of every range") {
  // NCQ depth 32: 64 reads submitted at once, half in each range; the drive holds 32, so the
  // last completions come after the first 32 have made room, whatever their range.
  auto t = simtest::open_or_fail("sim:exos2x14");
  const std::uint64_t half = t.model.capacity() / 2;
  std::vector<ds::IoRequest> reqs;
  ds::sim::Rng rng(3);
  for (std::uint64_t i = 0; i < 64; ++i)
    reqs.push_back({((i % 2 ? half : 0) + rng.below(half - 8)) / 8 * 8 * 512, 4096, false, i});
  REQUIRE(t.io->submit(reqs).value() == 64);
  std::vector<ds::IoCompletion> cs(64);
  REQUIRE(t.io->reap(cs, 64, std::chrono::milliseconds(0)).value() == 64);
  int both = 0;
  for (const auto& c : cs) {
    REQUIRE(c.ok());
    both += c.tag % 2;
  }
  CHECK(both == 32);
  // 64 random reads over two positioners with SPTF among up to 16 each: well under 64 single
  // random reads' time (about 12 ms each), and more than 32 × the shortest positioning.
  const auto last = std::max_element(cs.begin(), cs.end(), [](auto& x, auto& y) { return x.complete_ns < y.complete_ns; });
  const double ms = static_cast<double>(last->complete_ns) * 1e-6;
  INFO("64 reads took " << ms << " ms");
  CHECK(ms < 64 * 12.0 / 2);
  CHECK(ms > 32 * 1.0);
}

TEST_CASE("actuators: ATA log 47h and VPD B9h report the model's ranges") {
  auto t = simtest::open_or_fail("sim:exos2x14");
  const auto& want = t.model.actuators;
  std::vector<std::uint8_t> dir(512), log(512);
  REQUIRE(ds::ata::read_log_ext(*t.device, ds::ata::kLogDirectory, 0, dir).ok());
  CHECK(dir[2 * 0x47] == 1);
  REQUIRE(ds::ata::read_log_ext(*t.device, ds::ata::kLogConcurrentPositioningRanges, 0, log).ok());
  auto l = ds::probe::decode_cpr_log(log);
  REQUIRE(l.ok());
  REQUIRE(l->ranges.size() == want.size());
  CHECK(l->problems.empty());
  for (std::size_t i = 0; i < want.size(); ++i) {
    CHECK(l->ranges[i].lowest_lba == want[i].first_lba);
    CHECK(l->ranges[i].lba_count == want[i].lba_count);
    CHECK(l->ranges[i].storage_elements == 1);
  }
  std::vector<std::uint8_t> vpd(512);
  REQUIRE(ds::scsi::inquiry_vpd(*t.device, 0xB9, vpd).ok());
  auto v = ds::probe::decode_cpr_vpd(vpd);
  REQUIRE(v.ok());
  REQUIRE(v->ranges.size() == want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    CHECK(v->ranges[i].lowest_lba == want[i].first_lba);
    CHECK(v->ranges[i].lba_count == want[i].lba_count);
  }

  // A drive without the key keeps no such log nor page, as before.
  auto s = simtest::open_or_fail("sim:modern8tb");
  CHECK_FALSE(ds::ata::read_log_ext(*s.device, ds::ata::kLogDirectory, 0, dir).ok());
  CHECK_FALSE(ds::scsi::inquiry_vpd(*s.device, 0xB9, vpd).ok());
}

TEST_CASE("actuators: a SCSI model with TCQ overlaps its ranges and answers VPD B9h") {
  DiskModel m = preset("cheetah15k3");
  REQUIRE(m.transport == ds::sim::Transport::scsi);
  REQUIRE(m.queue.protocol == ds::sim::QueueProtocol::tcq);
  const double single = halves_gain(m);
  auto j = nlohmann::json::parse(ds::sim::model_to_json(m));
  j["actuators"] = 2;
  auto dual = ds::sim::parse_model(j.dump());
  REQUIRE(dual.ok());
  const double gain = halves_gain(*dual);
  INFO("gain one positioner " << single << ", two " << gain);
  CHECK(single < 1.15);
  CHECK(gain > 1.6);
  auto t = simtest::open_model(*dual);
  std::vector<std::uint8_t> vpd(512);
  REQUIRE(ds::scsi::inquiry_vpd(*t.device, 0x00, vpd).ok());
  CHECK(std::find(vpd.begin() + 4, vpd.begin() + 4 + vpd[3], 0xB9) != vpd.begin() + 4 + vpd[3]);
  REQUIRE(ds::scsi::inquiry_vpd(*t.device, 0xB9, vpd).ok());
  auto v = ds::probe::decode_cpr_vpd(vpd);
  REQUIRE(v.ok());
  REQUIRE(v->ranges.size() == 2);
  CHECK(v->ranges[1].lowest_lba == dual->actuators[1].first_lba);
  CHECK(v->ranges[0].lba_count + v->ranges[1].lba_count == dual->capacity());
}
