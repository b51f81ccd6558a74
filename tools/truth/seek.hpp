// Seek time by distance, as the format spec defines it: the model's curve (linear between its
// points) or, without one, a square-root-then-linear curve fitted to the three figures (Ruemmler
// & Wilkes 1994); times the AAM seek scale at the drive's default level.
#pragma once
#include <cstdint>
#include <utility>
#include <vector>

namespace truth::detail {

struct Model;

// A run of cylinders [first, first + count) each holding `weight` (LBAs, or 1 for uniform).
struct Run {
  std::uint64_t first = 0, count = 0;
  double weight = 0;
};

class SeekFn {
 public:
  SeekFn(const Model& m, std::uint64_t physical_cylinders);
  double ms(double d) const;         // d ≥ 0 cylinders; 0 → 0
  double fit_knee() const { return knee_; }  // 0 when the model has a curve

 private:
  double base_ms(double d) const;
  double fit_ms(double d) const;
  std::vector<std::pair<double, double>> curve_;
  double t2t_ = 0, beta_ = 0, knee_ = 0;
  double aam_scale_ = 1, short_seek_ = 0;
};

// Mean seek time between two cylinders drawn independently, each with probability proportional
// to the runs' weights (same cylinder: 0 ms). Exact: the distance distribution is the
// autocorrelation of the weights, a sum of trapezoids, accumulated as second differences.
double mean_seek(const std::vector<Run>& runs, const SeekFn& seek);

// Mean seek over uniformly random pairs among n cylinders, for the curve fit (no AAM scale).
double mean_uniform(std::uint64_t n, double t2t, double beta, double knee);

}  // namespace truth::detail
