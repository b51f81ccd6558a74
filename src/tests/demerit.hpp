// The demerit figure DiskSim is validated with (Ruemmler & Wilkes, "An introduction to disk drive
// modeling", IEEE Computer 27(3), 1994: the root mean square of the horizontal distance between
// the simulated and the measured service-time CDFs), computed the way DiskSim 4.0's `rms`
// program does (src/rms.c over the distributions src/disksim_stat.c prints), so drivescope's
// figures stand next to the ones DiskSim's valid/runvalid reports:
//
//   1. Each set of service times becomes DiskSim's "access time" distribution (valid/statdefs:
//      1750 buckets, scale 1000 per ms, start 0, step 1, grow 1 %): bucket edges in µs start
//      0, 1, 2, … and each next edge is the previous + 1 + floor(previous / 100), so buckets are
//      1 µs wide below 0.1 ms and about 1 % wide above. A time is cut to whole µs first.
//   2. The CDF is the polyline through (edge, fraction of the times below that edge), with the
//      fraction as DiskSim prints it (6 decimals), up to the first point that reaches 1.
//   3. At cumulative probabilities 0.0001, 0.0002, … 1 the two polylines are read backwards
//      (linear interpolation, the time at which each reaches that probability), and the demerit
//      is the root mean square of the differences, in ms.
#pragma once
#include <span>
#include <vector>

namespace ds::measure {

struct CdfPoint {
  double ms = 0;  // x: service time
  double p = 0;   // y: fraction of the requests faster than ms
};

// Step 1 + 2: DiskSim's distribution of a set of times (ms). Empty input: empty curve.
std::vector<CdfPoint> disksim_cdf(std::span<const double> times_ms);

// Step 3 on two curves that start at p = 0 and end at p >= 1 (as disksim_cdf's do); anything
// else (empty, no point reaching 1) gives NaN.
double cdf_rms_distance_ms(const std::vector<CdfPoint>& a, const std::vector<CdfPoint>& b);

// The demerit of `simulated` against `measured` service times (ms); NaN when either is empty.
double demerit_ms(std::span<const double> simulated, std::span<const double> measured);

// The same figure as a percentage of the measured mean (Ruemmler & Wilkes' normalised form).
double demerit_pct(std::span<const double> simulated, std::span<const double> measured);

}  // namespace ds::measure
