#include "sim/defects.hpp"

#include <algorithm>
#include <cmath>

#include "sim/positioner.hpp"
#include "sim/rng.hpp"

namespace ds::sim {

namespace {
// The recalibration's own stream of the drive's seed, so that one key does not shift another.
constexpr std::uint64_t kRecalStream = 0x726563616C696272ull;
}  // namespace

SurfaceDefects::SurfaceDefects(const DiskModel& m) {
  for (const auto& r : m.remapped) remapped_.emplace_back(r.lba, ms_to_ns(r.extra_ms));
  std::sort(remapped_.begin(), remapped_.end());
  for (const auto& d : m.defects) {
    slow_.emplace_back(d.first_lba, d.first_lba + d.sectors);
    slow_ns_.push_back(ms_to_ns(d.extra_ms));
  }
}

std::int64_t SurfaceDefects::remap_extra(std::uint64_t first, std::uint64_t end) const {
  std::int64_t extra = 0;
  auto it = std::lower_bound(remapped_.begin(), remapped_.end(), std::pair<std::uint64_t, std::int64_t>{first, 0});
  for (; it != remapped_.end() && it->first < end; ++it) extra += it->second;
  return extra;
}

std::int64_t SurfaceDefects::defect_extra(std::uint64_t first, std::uint64_t end) const {
  std::int64_t extra = 0;
  if (first >= end) return 0;  // (a stream already past a request's end has nothing to read)
  for (std::size_t i = 0; i < slow_.size(); ++i)
    if (slow_[i].first < end && first < slow_[i].second) extra += slow_ns_[i];
  return extra;
}

Recalibration::Recalibration(const DiskModel& m, std::uint64_t seed) {
  if (m.recalibration.every_s <= 0) return;
  every_ns_ = std::llround(m.recalibration.every_s * 1e9);
  ns_ = ms_to_ns(m.recalibration.duration_ms);
  next_ = static_cast<std::int64_t>(Rng(seed ^ kRecalStream).below(static_cast<std::uint64_t>(every_ns_)));
}

}  // namespace ds::sim
