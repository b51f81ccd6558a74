// zones_from_points on rates alone (no track structure): the guest's transfer samples of a served
// sim:raptor (tests/vm/serve-bench-host.sh, 2026-12-01), 55 samples of 0.3-1 s through QEMU.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "tests/transfer.hpp"

using ds::measure::TransferPoint;

namespace {

// LBA and MB/s of each sample, in order; the served drive's 16 zones run from 72.59 to 44.97 MB/s.
constexpr double kGuest[][2] = {
    {208312, 72.81},    {2687819, 72.84},   {5375638, 72.82},   {8063457, 72.81},   {10751277, 72.83},
    {13439096, 70.97},  {16126915, 70.94},  {18814734, 70.92},  {21502554, 72.13},  {24190373, 69.18},
    {26878192, 69.69},  {29566011, 68.98},  {32253831, 68.94},  {34941650, 67.16},  {37629469, 67.14},
    {40317288, 67.14},  {43005108, 67.19},  {45692927, 65.28},  {48380746, 65.30},  {51068565, 65.22},
    {53756385, 63.46},  {56444204, 63.61},  {59132023, 63.37},  {61819842, 65.51},  {64507662, 61.58},
    {67195481, 61.60},  {69883300, 61.59},  {72571120, 60.03},  {75258939, 60.01},  {77946758, 60.04},
    {80634577, 59.96},  {83322397, 58.13},  {86010216, 58.05},  {88698035, 58.13},  {91385854, 56.30},
    {94073674, 56.35},  {96761493, 56.40},  {99449312, 54.47},  {102137131, 55.64}, {104824951, 54.29},
    {107512770, 54.21}, {110200589, 52.39}, {112888408, 52.54}, {115576228, 52.37}, {118264047, 50.61},
    {120951866, 51.64}, {123639685, 48.88}, {126327505, 49.49}, {129015324, 48.74}, {131703143, 46.96},
    {134390962, 47.63}, {137078782, 46.97}, {139766601, 45.29}, {142454420, 45.25}, {145142240, 45.31}};

// Another run's 55 samples (2026-12-01, after the rule above): a fast sample (104825042 at
// 56.11 between 54.40 and 54.14) next to a true one of the next zone in (102137220 at 54.40,
// between 55.94 and that spike) made the true one look like a lone slow spike too.
constexpr double kGuest2[][2] = {
    {208952, 72.916}, {2687821, 72.940}, {5375643, 72.829}, {8063464, 74.837}, {10751286, 72.892},
    {13439107, 71.038}, {16126929, 71.067}, {18814751, 70.942}, {21502572, 70.895}, {24190394, 69.131},
    {26878215, 69.102}, {29566037, 70.901}, {32253859, 69.149}, {34941680, 67.212}, {37629502, 67.066},
    {40317323, 67.220}, {43005145, 67.138}, {45692967, 65.325}, {48380788, 65.183}, {51068610, 65.334},
    {53756431, 63.505}, {56444253, 63.542}, {59132075, 63.538}, {61819896, 63.560}, {64507718, 63.069},
    {67195539, 61.577}, {69883361, 61.650}, {72571183, 59.853}, {75259004, 59.990}, {77946826, 60.001},
    {80634647, 60.103}, {83322469, 58.090}, {86010290, 58.653}, {88698112, 57.974}, {91385934, 56.279},
    {94073755, 56.246}, {96761577, 57.263}, {99449398, 55.937}, {102137220, 54.403}, {104825042, 56.114},
    {107512863, 54.140}, {110200685, 52.943}, {112888506, 52.529}, {115576328, 52.416}, {118264150, 50.654},
    {120951971, 50.611}, {123639793, 48.756}, {126327614, 48.801}, {129015436, 48.835}, {131703258, 46.936},
    {134391079, 46.936}, {137078901, 46.961}, {139766722, 45.084}, {142454544, 45.270}, {145142366, 45.281}};

// A third run's (2026-12-01): 8 fast samples and the 15 zone edges made over half of the
// neighbour differences, the noise was read as a zone step's size and the zones merged in pairs.
constexpr double kGuest3[][2] = {
    {210040, 72.815}, {2687820, 72.854}, {5375641, 73.589}, {8063461, 72.815}, {10751282, 72.622},
    {13439103, 70.942}, {16126923, 71.016}, {18814744, 70.904}, {21502565, 70.840}, {24190385, 69.111},
    {26878206, 69.147}, {29566026, 69.157}, {32253847, 68.924}, {34941668, 67.206}, {37629488, 68.283},
    {40317309, 67.122}, {43005130, 67.193}, {45692950, 65.322}, {48380771, 65.182}, {51068591, 65.304},
    {53756412, 63.478}, {56444233, 63.489}, {59132053, 63.448}, {61819874, 63.735}, {64507695, 62.761},
    {67195515, 63.578}, {69883336, 61.531}, {72571157, 60.055}, {75258977, 59.987}, {77946798, 59.963},
    {80634618, 62.310}, {83322439, 58.065}, {86010260, 57.927}, {88698080, 58.081}, {91385901, 56.385},
    {94073722, 56.289}, {96761542, 58.503}, {99449363, 54.460}, {102137183, 54.307}, {104825004, 56.121},
    {107512825, 54.365}, {110200645, 52.344}, {112888466, 52.486}, {115576287, 52.559}, {118264107, 50.723},
    {120951928, 50.782}, {123639748, 48.761}, {126327569, 50.413}, {129015390, 50.358}, {131703210, 47.081},
    {134391031, 46.912}, {137078852, 46.954}, {139766672, 45.308}, {142454493, 46.720}, {145142314, 45.209}};

// The served drive's zones (tools/truth): first LBA, sectors, sequential MB/s.
constexpr double kZones[][3] = {
    {0, 11208304, 72.591}, {11208304, 10917808, 70.700}, {22126112, 10639416, 68.912},
    {32765528, 10348920, 67.022}, {43114448, 10070528, 65.162}, {53184976, 9792136, 63.375},
    {62977112, 9501640, 61.484}, {72478752, 9223248, 59.697}, {81702000, 8932752, 57.806},
    {90634752, 8654360, 56.001}, {99289112, 8363864, 54.128}, {107652976, 8085472, 52.323},
    {115738448, 7807080, 50.517}, {123545528, 7516584, 48.645}, {131062112, 7238192, 46.839},
    {138300304, 6925808, 44.966}};

template <std::size_t N>
std::vector<TransferPoint> points_of(const double (&samples)[N][2]) {
  std::vector<TransferPoint> pts;
  for (const auto& s : samples) {
    TransferPoint p;
    p.lba = static_cast<std::uint64_t>(s[0]);
    p.mb_s = s[1];
    pts.push_back(p);
  }
  return pts;
}

constexpr std::uint64_t kSpan = 145226112;  // the served drive's blocks

// The rate of the zone holding `lba` (0: none).
double rate_at(const std::vector<ds::measure::TransferZone>& zones, std::uint64_t lba) {
  for (const auto& z : zones)
    if (z.first_lba <= lba && lba <= z.last_lba) return z.mb_s;
  return 0;
}

// The served drive's zones read at their middles within 3 %, as vm-serve-bench judges, all but
// `misses` of them.
template <std::size_t N>
void check_zone_middles(const double (&samples)[N][2], int misses = 0) {
  const auto zones = ds::measure::zones_from_points(points_of(samples), kSpan, 512);
  CHECK(zones.size() >= 14);
  double worst = 0;
  int missed = 0;
  for (const auto& t : kZones) {
    const double got = rate_at(zones, static_cast<std::uint64_t>(t[0] + t[1] / 2));
    missed += std::fabs(got - t[2]) > 0.03 * t[2];
    worst = std::max(worst, std::fabs(got - t[2]) / t[2]);
  }
  CHECK(missed <= misses);
  MESSAGE("worst zone-middle error " << 100 * worst << " % over " << zones.size() << " zones found");
}

}  // namespace

TEST_CASE("zones by rate alone: a lone sample faster than the one outside it is a spike, not a zone") {
  // Zones slow down inward; through QEMU one sample in ten came out 1-3 % fast (21502554 at 72.13
  // between 70.92 and 69.18), and each was a "zone" of its own: a zone-middle rate 3.4 % high.
  const auto zones = ds::measure::zones_from_points(points_of(kGuest), kSpan, 512);
  REQUIRE(zones.size() >= 2);
  for (std::size_t i = 1; i < zones.size(); ++i) {
    CAPTURE(zones[i].first_lba);
    CHECK(zones[i].mb_s < zones[i - 1].mb_s);  // never faster than the zone outside it
  }
  // The middles of the served drive's zones 1 and 5 (70.70 and 63.38 MB/s), each with a fast
  // sample near its inner end.
  CHECK(std::fabs(rate_at(zones, 16567148) - 70.70) < 0.02 * 70.70);
  CHECK(std::fabs(rate_at(zones, 58057054) - 63.38) < 0.02 * 63.38);
}

TEST_CASE("zones by rate alone: a flat noisy target stays one zone") {
  std::vector<TransferPoint> pts;
  for (int i = 0; i < 40; ++i) {
    TransferPoint p;
    p.lba = static_cast<std::uint64_t>(i) * 1000;
    p.mb_s = 500 * (1 + 0.004 * std::sin(i * 2.1));  // ±0.4 % jitter, no trend
    pts.push_back(p);
  }
  CHECK(ds::measure::zones_from_points(pts, 40000, 512).size() == 1);
}

TEST_CASE("zones by rate alone: fast spikes go first, so a true sample beside one is not taken for a spike") {
  check_zone_middles(kGuest2);
}

TEST_CASE("zones by rate alone: the noise is not read from zone steps and spikes") {
  // Before: 8 zones, every second edge lost. One zone stays out of reach: two of its three
  // samples read 2.1 and 3.4 % fast (64507695, 67195515), so by rates it is the zone outside it.
  check_zone_middles(kGuest3, 1);
  check_zone_middles(kGuest);
}

TEST_CASE("zones by rate alone: fewer samples than zones are a decline, not one noisy zone") {
  // A 3 s transfer of sim:wd1200jd (16 zones, 52.5 to 29.2 MB/s): 8 samples, each in a zone of
  // its own. Every difference is a step, so the smallest quarter of them was taken for noise and
  // the disk became one zone: 42.2 ± 5.8 MB/s outside and inside, ratio 1.00 ± 0.19 for 1.80.
  constexpr double kShort[][2] = {{1884649, 52.52},   {29131928, 50.44},  {56307165, 47.84},  {98078218, 44.81},
                                  {144529595, 40.37}, {163625169, 36.87}, {185970408, 35.20}, {227635873, 29.64}};
  const auto zones = ds::measure::zones_from_points(points_of(kShort), 234441648, 512);
  REQUIRE(zones.size() >= 2);
  CHECK(zones.size() == 8);
  CHECK(zones.front().mb_s == doctest::Approx(52.52));
  CHECK(zones.back().mb_s == doctest::Approx(29.64));
}

TEST_CASE("zones tile the span: a place read twice or neighbouring LBAs never make a zone end before it starts") {
  // A RAM-backed loop device (issue 31): flat rates, no structure; LBA 0 sampled twice (a retake)
  // with rates far apart made zone 0 end at 2^64 - 1 and overlap zone 1, about one run in five.
  const std::uint64_t span = 1 << 17;
  for (const auto& rates : {std::vector<double>{900, 3000, 3100, 3050, 3080},
                            std::vector<double>{3000, 900, 3100, 3050, 3080}}) {
    for (const std::uint64_t second : {std::uint64_t{0}, std::uint64_t{1}}) {
      std::vector<TransferPoint> pts(5);
      const std::uint64_t lbas[] = {0, second, span / 2, span - 2048, span - 1024};
      for (std::size_t i = 0; i < pts.size(); ++i) {
        pts[i].lba = lbas[i];
        pts[i].mb_s = pts[i].media_mb_s = rates[i];
      }
      const auto zones = ds::measure::zones_from_points(pts, span, 512);
      CAPTURE(second);
      CAPTURE(rates[0]);
      REQUIRE_FALSE(zones.empty());
      CHECK(ds::measure::zones_tile_span(zones, span));
      for (const auto& z : zones) CHECK(z.last_lba < span);
    }
  }
}

TEST_CASE("zones_tile_span: gaps, overlaps and zones past the span are caught") {
  using ds::measure::TransferZone;
  auto zone = [](std::uint64_t a, std::uint64_t b) {
    TransferZone z;
    z.first_lba = a;
    z.last_lba = b;
    return z;
  };
  CHECK(ds::measure::zones_tile_span({zone(0, 99), zone(100, 199)}, 200));
  CHECK_FALSE(ds::measure::zones_tile_span({zone(0, 99), zone(99, 199)}, 200));   // overlap
  CHECK_FALSE(ds::measure::zones_tile_span({zone(0, 98), zone(100, 199)}, 200));  // gap
  CHECK_FALSE(ds::measure::zones_tile_span({zone(0, UINT64_MAX), zone(0, 199)}, 200));
  CHECK_FALSE(ds::measure::zones_tile_span({zone(0, 99), zone(100, 200)}, 200));  // past the span
  CHECK_FALSE(ds::measure::zones_tile_span({zone(1, 199)}, 200));
}
