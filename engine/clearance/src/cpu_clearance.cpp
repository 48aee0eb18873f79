#include <algorithm>
#include <chrono>
#include <cmath>
#include <vector>

#include <glm/common.hpp>

#include "voxen/clearance/clearance.hpp"
#include "voxen/clearance/distance_envelope.hpp"

namespace voxen {

namespace {

// One target region's padded block: the obstacles, then the three envelope passes.
class Block {
 public:
  Block(const OccupancyMap& map, const ClearanceOptions& options)
      : map_(map), options_(options), n_(map.regionSize()), pad_(options.padding(map.model())), size_(glm::ivec3(n_) + 2 * pad_),
        field_(size_t(size_.x) * size_.y * size_.z), line_(size_t(std::max({size_.x, size_.y, size_.z}))),
        out_(line_.size()), scratch_(line_.size() + 1) {
    for (int a = 0; a < 3; ++a) {
      const double step = map.model().resolution * options.axisScale[a];
      weight_[a] = float(step * step);
    }
    rangeSquared_ = float(options.range * options.range);
  }

  void compute(const RegionKey& key, Region& target) {
    seedObstacles(key);
    envelopeAlong(0);
    envelopeAlong(1);
    envelopeAlong(2);
    std::span<float> clearance = target.values<float>(clearanceLayer());
    for (int z = 0; z < n_; ++z)
      for (int y = 0; y < n_; ++y)
        for (int x = 0; x < n_; ++x) {
          const float d2 = field_[index(x + pad_.x, y + pad_.y, z + pad_.z)];
          clearance[size_t(x + n_ * (y + n_ * z))] = gpu::clearanceOf(d2, rangeSquared_);
        }
  }

 private:
  size_t index(int x, int y, int z) const { return size_t(x) + size_t(size_.x) * (size_t(y) + size_t(size_.y) * size_t(z)); }

  // 0 on obstacles, far elsewhere. Regions the map lacks are unobserved.
  void seedObstacles(const RegionKey& key) {
    const float unknown = options_.unknownFree ? gpu::kFarSquared : 0.0f;
    std::fill(field_.begin(), field_.end(), unknown);
    const glm::ivec3 origin = glm::ivec3(key.x, key.y, key.z) * n_ - pad_;  // voxel of block (0,0,0)
    for (const RegionKey& k : regionsWithinRange(key, map_.model(), options_)) {
      const Region* region = map_.findRegion(k);
      if (!region) continue;
      const glm::ivec3 base = glm::ivec3(k.x, k.y, k.z) * n_;
      const glm::ivec3 lo = glm::max(base, origin), hi = glm::min(base + n_, origin + size_);  // [lo, hi)
      const std::span<const float> occupancy = region->occupancy();
      for (int z = lo.z; z < hi.z; ++z)
        for (int y = lo.y; y < hi.y; ++y)
          for (int x = lo.x; x < hi.x; ++x) {
            const float value = occupancy[size_t((x - base.x) + n_ * ((y - base.y) + n_ * (z - base.z)))];
            field_[index(x - origin.x, y - origin.y, z - origin.z)] = isObstacle(map_, value, options_) ? 0.0f : gpu::kFarSquared;
          }
    }
  }

  // Every line along axis a that the output needs (lines along y only at interior x, along z
  // only at interior x and y): the lower envelope of parabolas of weight w_a.
  void envelopeAlong(int a) {
    const int length = size_[a];
    const int u = (a + 1) % 3, v = (a + 2) % 3;  // the line's other two axes
    auto needed = [&](int axis, int c) {  // lines along y only at interior x; along z at interior x and y
      if (axis == 0 && a >= 1) return c >= pad_.x && c < pad_.x + n_;
      if (axis == 1 && a == 2) return c >= pad_.y && c < pad_.y + n_;
      return true;
    };
    for (int cv = 0; cv < size_[v]; ++cv)
      for (int cu = 0; cu < size_[u]; ++cu) {
        if (!needed(u, cu) || !needed(v, cv)) continue;
        glm::ivec3 p(0);
        p[u] = cu, p[v] = cv;
        for (int i = 0; i < length; ++i) {
          p[a] = i;
          line_[size_t(i)] = field_[index(p.x, p.y, p.z)];
        }
        distanceEnvelope(line_.data(), out_.data(), length, weight_[a], scratch_.data());
        for (int i = 0; i < length; ++i) {
          p[a] = i;
          field_[index(p.x, p.y, p.z)] = out_[size_t(i)];
        }
      }
  }

  const OccupancyMap& map_;
  const ClearanceOptions& options_;
  int n_;
  glm::ivec3 pad_, size_;
  float weight_[3];
  float rangeSquared_;
  std::vector<float> field_, line_, out_;
  std::vector<EnvelopeScratch> scratch_;
};

}  // namespace

ClearanceStats computeClearanceCpu(OccupancyMap& map, const ClearanceOptions& options, std::span<const RegionKey> targets) {
  options.validate(map.model());
  const auto start = std::chrono::steady_clock::now();
  prepareClearance(map, options);
  std::vector<RegionKey> keys(targets.begin(), targets.end());
  if (keys.empty())
    for (const auto& [key, region] : map.regions()) keys.push_back(key);
  std::sort(keys.begin(), keys.end());
  Block block(map, options);
  ClearanceStats stats;
  for (const RegionKey& key : keys) {
    Region* region = map.findRegion(key);
    if (!region) continue;
    block.compute(key, *region);
    map.markDerived(*region, clearanceLayer());
    ++stats.regions;
  }
  stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return stats;
}

ClearanceStats updateClearanceCpu(OccupancyMap& map, const ClearanceOptions& options) {
  options.validate(map.model());
  prepareClearance(map, options);
  const std::vector<RegionKey> dirty = clearanceDirtyRegions(map, options);
  if (dirty.empty()) return {};
  return computeClearanceCpu(map, options, dirty);
}

}  // namespace voxen
