// The statistics every measurement's analysis rests on (pure functions over numbers): the normal
// distribution's constants, location and spread (plain and robust), Student's t for the intervals
// of few values, a least-squares line and a rank correlation. One place, so that a figure's
// interval and its outlier rules are read the same way in every module.
#pragma once
#include <cmath>
#include <cstddef>
#include <span>
#include <vector>

namespace ds::measure {

// The constants of the normal distribution that the analyses' figures rest on. Each module uses
// these names, so that a figure's interval and its outlier rules are read in one place.
// A normal σ from the median absolute deviation, 1/Φ⁻¹(3/4): robust_sigma below, and every
// outlier rule that counts "robust deviations".
inline constexpr double kMadToSigma = 1.4826;
// Half-width of a two-sided 95 % interval of a normal estimate, in standard errors.
inline constexpr double kZ95 = 1.96;
// The standard error of a sample median over that of the mean, for a normal sample: √(π/2).
inline constexpr double kMedianSeFactor = 1.2533;
// The first quartile of |x − y| for x, y independent N(0, σ²), in σ: √2 · Φ⁻¹(0.625). A noise
// read from the smallest quarter of neighbours' differences (transfer_zones.cpp).
inline constexpr double kAbsDiffQ1PerSigma = 0.4506;

double mean(std::span<const double> v);
double stddev(std::span<const double> v);
double quantile(std::vector<double> v, double q);  // linear interpolation, q in [0,1]
double median(std::vector<double> v);
double mad(std::vector<double> v);  // median absolute deviation (unscaled)
// A normal sample's σ from its MAD, which outliers barely move: exactly kMadToSigma · mad(v). Where
// a further factor goes first (3 · kMadToSigma · mad(v)), callers keep that product as it is: the
// doubles would differ in the last bit.
double robust_sigma(std::vector<double> v);
// The standard error of the median of v, for a normal sample: √(π/2) σ/√n, σ from the MAD.
double median_se(const std::vector<double>& v);
// slope_se: the slope's standard error from the residuals (0 with fewer than three points).
struct LineFit { double slope = 0, intercept = 0, r2 = 0, slope_se = 0; };
LineFit fit_line(std::span<const double> x, std::span<const double> y);
// y = intercept + a1·x1 + a2·x2 by least squares, with the coefficients' covariance from the
// residuals (n − 3 degrees of freedom; all zero with fewer than four points or collinear x).
struct PlaneFit {
  double intercept = 0, a1 = 0, a2 = 0;
  double v11 = 0, v12 = 0, v22 = 0;  // covariance of (a1, a2)
  double dof = 0;
  // a1 + a2·u and its standard error.
  double at(double u) const { return a1 + a2 * u; }
  double se_at(double u) const;
};
PlaneFit fit_plane(std::span<const double> x1, std::span<const double> x2, std::span<const double> y);
// Spearman's rank correlation (ties share their mean rank); 0 with fewer than three pairs.
double rank_correlation(std::span<const double> x, std::span<const double> y);

// The standard normal CDF Φ(z): the one-sided confidence that an estimate z standard errors on one
// side of a threshold lies on that side.
double normal_cdf(double z);

// Student's t distribution (df > 0): CDF and quantile (p in (0,1)).
double student_t_cdf(double t, double df);
double student_t_quantile(double p, double df);
// Regularized incomplete beta I_x(a, b), for the t CDF.
double incomplete_beta(double a, double b, double x);

// The two-sided 95 % quantile of Student's t with df degrees of freedom: the half-width, in
// standard errors, of a 95 % interval of a mean of df + 1 values (12.71 for 2 values, 2.26 for 10,
// 1.98 for 100, kZ95 in the limit). df ≤ 0: NaN.
double t95(double df);
// The 95 % half-width of the mean of v: t95(n − 1) · s/√n (0 with fewer than two values). With few
// values 1.96 in place of t95 gives an interval that holds the truth far less often than 95 %
// (about 91 % at n = 8, 81 % at n = 3).
double mean_half_width(std::span<const double> v);
// A mean and its standard error s/√n (NaN with fewer than two values).
struct MeanSe {
  double mean = NAN, se = NAN;
};
MeanSe mean_se(std::span<const double> v);
// The same of v less its drop_low smallest and drop_high largest values (a retry, a stall: not
// what is measured). NaN where fewer than two are left.
MeanSe trimmed_mean_se(std::vector<double> v, std::size_t drop_low, std::size_t drop_high);
// The 95 % half-width of the median of v: t95(n − 1) · median_se(v) (0 with fewer than two values).
double median_half_width(const std::vector<double>& v);

// The one rule for a figure with a random part and a systematic one (a method's known bias, a
// stated resolution): the random 95 % half-width plus the systematic bound. A bound is no σ:
// in quadrature it would be treated as if it could cancel, and max() would drop the random part
// wherever the bound is the larger.
inline double with_systematic(double random_half_width, double systematic_bound) {
  return random_half_width + systematic_bound;
}

}  // namespace ds::measure
