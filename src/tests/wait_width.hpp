// The revolution from the spread of rotational waits. A read that follows another at a fixed
// distance, at a random sector, waits for its sector a time uniform over one revolution: the
// latencies are K + W + N, W uniform over [0, rev) and N the per-command noise. Both edges of that
// blurred uniform are sharp where the noise is small against a revolution, so their distance is
// the revolution. Used where the backward steps cannot measure it: a drive whose buffer reads the
// track from where the head lands (zero-latency read) serves every backward step from the buffer.
#pragma once
#include <vector>

namespace ds::measure {

struct WaitWidth {
  double rev_ms = 0;          // 0: fewer than kMinWaits latencies, or no flat uniform part
  double half_width_ms = 0;   // of the profile-likelihood 95 % interval
  double foot_ms = 0;         // K
  double sigma_ms = 0;        // the noise's σ at the fit
};

inline constexpr std::size_t kMinWaits = 60;

// Pure: maximum likelihood over (K, rev, σ) of latencies (ms) drawn as above, with a floor density
// for outliers (stalls, remapped sectors); the 95 % interval of rev where its profile likelihood is
// within χ²₁(0.95)/2 = 1.92 of the top.
WaitWidth wait_width_fit(const std::vector<double>& latencies_ms);

}  // namespace ds::measure
