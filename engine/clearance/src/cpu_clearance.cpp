#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <vector>

#include "voxen/clearance/clearance.hpp"
#include "voxen/clearance/distance_envelope.hpp"
#include "voxen/clearance/voxel_squares.hpp"

namespace voxen {

namespace {

int64_t floorDiv64(int64_t a, int64_t b) { return a >= 0 ? a / b : (a + 1) / b - 1; }

// One target region's padded block: the squared distances along x at the x inside the region
// (the y and z passes need no other), then the y and z envelope passes. Voxel coordinates are
// 64-bit: a block at either end of the int32 voxel range reaches past it, and the voxels
// there are unobserved (no map holds them). With one scale on every axis the field holds
// squared voxel distances in integers and the clearance comes from the VoxelSquares table;
// otherwise it holds weighted squared distances in float (metres^2).
// shaders/clearance/clearance_seed.comp and clearance_envelope.comp do the same steps in the
// same order, so the GPU's exact technique gives the same bits.
class Block {
 public:
  Block(const OccupancyMap& map, const ClearanceOptions& options)
      : map_(map), options_(options), n_(map.regionSize()), pad_(options.padding(map.model())), size_(glm::ivec3(n_) + 2 * pad_),
        band_(options.band(map.model())), squares_(voxelSquares(map.model(), options)),
        field_(squares_ ? 0 : size_t(n_) * size_t(size_.y) * size_t(size_.z)),
        squareField_(squares_ ? size_t(n_) * size_t(size_.y) * size_t(size_.z) : 0),
        nearestX_(size_t(n_)), line_(size_t(std::max(size_.y, size_.z))), out_(line_.size()), scratch_(line_.size() + 1),
        squareLine_(line_.size()), squareOut_(line_.size()), squareScratch_(line_.size() + 1) {
    for (int a = 0; a < 3; ++a) {
      const double step = map.model().resolution * options.axisScale[a];
      weight_[a] = float(step * step);
    }
    rangeSquared_ = float(options.range * options.range);
  }

  void compute(const RegionKey& key, Region& target) {
    gatherRegions(key);
    alongX();
    envelopeAlong(1);
    envelopeAlong(2);
    std::span<float> clearance = target.values<float>(clearanceLayer());
    for (int z = 0; z < n_; ++z)
      for (int y = 0; y < n_; ++y)
        for (int x = 0; x < n_; ++x) {
          const size_t i = index(x, y + pad_.y, z + pad_.z);
          clearance[size_t(x + n_ * (y + n_ * z))] = squares_ ? metresOf(squareField_[i]) : gpu::clearanceOf(field_[i], rangeSquared_);
        }
  }

 private:
  // The compact field: x inside the region (0 to n - 1), y and z over the whole block.
  size_t index(int x, int y, int z) const { return size_t(x) + size_t(n_) * (size_t(y) + size_t(size_.y) * size_t(z)); }

  // The map's regions over the block, found once (nullptr: none, or past the voxel range).
  void gatherRegions(const RegionKey& key) {
    for (int a = 0; a < 3; ++a) {
      origin_[a] = int64_t((&key.x)[a]) * n_ - pad_[a];
      regionLo_[a] = floorDiv64(origin_[a], n_);
      regions_[a] = int(floorDiv64(origin_[a] + size_[a] - 1, n_) - regionLo_[a] + 1);
    }
    grid_.assign(size_t(regions_[0]) * regions_[1] * regions_[2], nullptr);
    for (int z = 0; z < regions_[2]; ++z)
      for (int y = 0; y < regions_[1]; ++y)
        for (int x = 0; x < regions_[0]; ++x) {
          const int64_t k[3] = {regionLo_[0] + x, regionLo_[1] + y, regionLo_[2] + z};
          bool representable = true;
          for (int64_t c : k) representable = representable && c >= INT32_MIN && c <= INT32_MAX;
          if (!representable) continue;
          const RegionKey rk{int32_t(k[0]), int32_t(k[1]), int32_t(k[2])};
          if (regionKeyInRange(rk, n_)) grid_[size_t(x + regions_[0] * (y + regions_[1] * z))] = map_.findRegion(rk);
        }
  }

  // Whether block voxel (x, y, z) is an obstacle.
  bool obstacle(int x, int y, int z) const {
    const int64_t v[3] = {origin_[0] + x, origin_[1] + y, origin_[2] + z};
    if (!band_.contains(v[2])) return false;
    int64_t r[3], local[3];
    for (int a = 0; a < 3; ++a) {
      r[a] = floorDiv64(v[a], n_);
      local[a] = v[a] - r[a] * n_;
    }
    const Region* region = grid_[size_t((r[0] - regionLo_[0]) + regions_[0] * ((r[1] - regionLo_[1]) + regions_[1] * (r[2] - regionLo_[2])))];
    if (!region) return !options_.unknownFree;  // a region the map lacks, or past the voxel range: unobserved
    return isObstacle(map_, region->occupancy()[size_t(local[0] + n_ * (local[1] + n_ * local[2]))], options_);
  }

  // A clearance from a squared voxel distance (the VoxelSquares table within the range).
  float metresOf(uint32_t squared) const {
    return squared <= squares_->maxSquared ? squares_->metres[squared] : kNoObstacleInRange;
  }

  // Along x the obstacles are 0 and everything else is far, so the lower envelope at a voxel
  // is the nearest obstacle's w d^2 (in voxel squares d^2 within the range): only the
  // obstacles inside the region and the nearest one on either side of it matter, searched
  // outwards from the region.
  void alongX() {
    const float w = weight_[0];
    for (int z = 0; z < size_.z; ++z)
      for (int y = 0; y < size_.y; ++y) {
        nearestAlongX(y, z);
        for (int i = 0; i < n_; ++i) {
          const int d = nearestX_[size_t(i)];
          if (squares_) {
            const uint32_t squared = uint32_t(d) * uint32_t(d);
            squareField_[index(i, y, z)] = d >= 0 && squared <= squares_->maxSquared ? squared : gpu::kNoVoxelSquare;
          } else {
            field_[index(i, y, z)] = d >= 0 ? w * float(d) * float(d) : gpu::kFarSquared;
          }
        }
      }
  }

  // nearestX_[i]: the distance in voxels from block voxel (pad_x + i, y, z) to the nearest
  // obstacle along its x line, -1 for none.
  void nearestAlongX(int y, int z) {
    int left = -1;  // the last obstacle so far (block x)
    for (int x = pad_.x - 1; x >= 0 && left < 0; --x)
      if (obstacle(x, y, z)) left = x;
    for (int i = 0; i < n_; ++i) {  // distances to the left, -1: none
      const int x = pad_.x + i;
      if (obstacle(x, y, z)) left = x;
      nearestX_[size_t(i)] = left >= 0 ? x - left : -1;
    }
    int right = -1;
    for (int x = pad_.x + n_; x < size_.x && right < 0; ++x)
      if (obstacle(x, y, z)) right = x;
    for (int i = n_ - 1; i >= 0; --i) {
      const int x = pad_.x + i;
      int& d = nearestX_[size_t(i)];
      if (d == 0) right = x;
      if (right >= 0 && (d < 0 || right - x < d)) d = right - x;
    }
  }

  // Every line along axis a (1 or 2) that the output needs (along y at the region's x; along
  // z at its x and y): the lower envelope of parabolas of weight w_a.
  void envelopeAlong(int a) {
    const int length = size_[a];
    const int lines = a == 1 ? size_.z : n_;  // the other axis' extent: z (along y), or y inside the region (along z)
    for (int c = 0; c < lines; ++c)
      for (int x = 0; x < n_; ++x) {
        auto at = [&](int i) { return a == 1 ? index(x, i, c) : index(x, pad_.y + c, i); };
        if (squares_) {
          for (int i = 0; i < length; ++i) squareLine_[size_t(i)] = squareField_[at(i)];
          squaredDistanceEnvelope(squareLine_.data(), squareOut_.data(), length, squares_->maxSquared, squareScratch_.data());
          for (int i = 0; i < length; ++i) squareField_[at(i)] = squareOut_[size_t(i)];
          continue;
        }
        for (int i = 0; i < length; ++i) line_[size_t(i)] = field_[at(i)];
        distanceEnvelope(line_.data(), out_.data(), length, weight_[a], scratch_.data());
        for (int i = 0; i < length; ++i) field_[at(i)] = out_[size_t(i)];
      }
  }

  const OccupancyMap& map_;
  const ClearanceOptions& options_;
  int n_;
  glm::ivec3 pad_, size_;
  ObstacleBand band_;
  float weight_[3];
  float rangeSquared_;
  int64_t origin_[3] = {}, regionLo_[3] = {};
  int regions_[3] = {};
  std::vector<const Region*> grid_;
  std::optional<VoxelSquares> squares_;  // set where every axis has the same scale
  std::vector<float> field_;             // weighted squares (metres^2) without it
  std::vector<uint32_t> squareField_;    // squared voxel distances with it
  std::vector<int> nearestX_;
  std::vector<float> line_, out_;
  std::vector<EnvelopeScratch> scratch_;
  std::vector<uint32_t> squareLine_, squareOut_;
  std::vector<SquaresScratch> squareScratch_;
};

}  // namespace

ClearanceStats computeClearanceCpu(OccupancyMap& map, const ClearanceOptions& requested, std::span<const RegionKey> targets,
                                   const ClearanceProgress& progress) {
  ClearanceOptions options = requested;
  options.technique = ClearanceTechnique::Exact;  // what the layer then holds
  options.validate(map.model());
  const auto start = std::chrono::steady_clock::now();
  prepareClearance(map, options);
  std::vector<RegionKey> keys(targets.begin(), targets.end());
  if (keys.empty())
    for (const auto& [key, region] : map.regions()) keys.push_back(key);
  std::sort(keys.begin(), keys.end());
  Block block(map, options);
  ClearanceStats stats;
  for (size_t i = 0; i < keys.size(); ++i) {
    Region* region = map.findRegion(keys[i]);
    if (region) {
      block.compute(keys[i], *region);
      map.markDerived(*region, clearanceLayer());
      ++stats.regions;
    }
    if (progress) progress(i + 1, keys.size());
  }
  stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return stats;
}

ClearanceStats updateClearanceCpu(OccupancyMap& map, const ClearanceOptions& requested, const ClearanceProgress& progress) {
  ClearanceOptions options = requested;
  options.technique = ClearanceTechnique::Exact;
  options.validate(map.model());
  prepareClearance(map, options);
  const std::vector<RegionKey> dirty = clearanceDirtyRegions(map, options);
  if (dirty.empty()) return {};
  return computeClearanceCpu(map, options, dirty, progress);
}

}  // namespace voxen
