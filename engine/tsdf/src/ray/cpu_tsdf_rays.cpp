// Lidar rays into the TSDF, the CPU reference (voxen/tsdf/tsdf_rays.hpp): the rays packed to
// integers, split into shares that each walk their rays' bands and sum w sdf and w per voxel in
// their own table of blocks (tsdf_ray_shared.h's walk and distance, the GPU passes' arithmetic),
// the shares' sums added (integers: any split, the same totals), and every measured voxel folded
// once on the machine's cores.
#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <map>
#include <memory>
#include <thread>
#include <unordered_map>

#include "../tsdf_block_regions.hpp"
#include "../tsdf_internal.hpp"
#include "voxen/host/parallel_for.hpp"
#include "voxen/tsdf/tsdf_rays.hpp"

namespace voxen {

namespace {

// A voxel's sums over the scan.
struct VoxelSums {
  int64_t sum = 0;      // w sdf
  uint64_t weight = 0;  // w
};
using BlockSums = std::array<VoxelSums, gpu::kTsdfBlockVoxels>;
using ShareSums = std::unordered_map<uint64_t, std::unique_ptr<BlockSums>>;

int64_t truncationFine(const TsdfOptions& options) { return std::llround(options.truncationVoxels * double(gpu::kTsdfFine)); }

uint32_t weightingOf(const TsdfOptions& options) {
  return options.weighting == TsdfWeighting::Constant ? gpu::kTsdfWeightConstant : gpu::kTsdfWeightLinearDropOff;
}

// One ray's band into a share's sums (tsdf_ray_accumulate.comp's loop).
void accumulateRay(const gpu::TsdfRay& ray, int64_t truncation, uint32_t weighting, ShareSums& sums) {
  const int64_t range = gpu::tsdfRayRange(ray);
  if (range == 0) return;
  gpu::TsdfRayWalk w = gpu::tsdfRayWalkOf(ray, range, truncation);
  uint64_t lastKey = 0;
  BlockSums* block = nullptr;
  for (;;) {
    const int64_t sdf = gpu::tsdfRaySdf(w.vx, w.vy, w.vz, ray, range);
    const uint32_t weight = gpu::tsdfRayWeightAt(sdf, truncation, weighting);
    if (weight > 0) {
      const uint64_t key = gpu::tsdfRayBlockKey(w.vx >> 3, w.vy >> 3, w.vz >> 3);
      if (key != lastKey) {
        std::unique_ptr<BlockSums>& slot = sums[key];
        if (!slot) slot = std::make_unique<BlockSums>();
        block = slot.get();
        lastKey = key;
      }
      VoxelSums& v = (*block)[size_t(w.vx & 7) | (size_t(w.vy & 7) << 3) | (size_t(w.vz & 7) << 6)];
      v.sum += int64_t(weight) * sdf;
      v.weight += weight;
    }
    const int axis = gpu::tsdfRayWalkAxis(w);
    if (axis < 0) break;
    w = gpu::tsdfRayWalkStep(w, axis);
  }
}

TsdfBlock unpackBlock(uint64_t key) {
  const auto axis = [&](int shift) { return int32_t((key >> shift) & 0x1FFFFFu) - (1 << 20); };
  return {axis(42), axis(21), axis(0)};
}

// 2^22 voxels from the map's origin, as the depth camera's limit (tsdf_camera.cpp): blocks pack
// into 21 bits per axis and every product stays in 63 bits.
constexpr double kMaxPositionVoxels = 4194304.0;

}  // namespace

TsdfScanStats& TsdfScanStats::operator+=(const TsdfScanStats& more) {
  rays += more.rays;
  raysSkipped += more.raysSkipped;
  blocks += more.blocks;
  voxelsUpdated += more.voxelsUpdated;
  regionsMade += more.regionsMade;
  chunks += more.chunks;
  discoveryRetries += more.discoveryRetries;
  return *this;
}

uint64_t tsdfPackRays(std::span<const Ray> rays, const TsdfOptions& options, double resolution, std::vector<gpu::TsdfRay>& out) {
  options.validate(resolution);
  const double scale = double(gpu::kTsdfFine) / resolution, far = kMaxPositionVoxels * double(gpu::kTsdfFine);
  // The band's far end stays within kTsdfMaxDepthFine (tsdf_shared.h's product bounds).
  const double longest =
      std::min(options.maxRange * scale, double(gpu::kTsdfMaxDepthFine - truncationFine(options) - 2 * gpu::kTsdfFine));
  uint64_t skipped = 0;
  out.reserve(out.size() + rays.size());
  for (const Ray& ray : rays) {
    const glm::dvec3 o = ray.origin * scale, h = ray.sample * scale;
    bool inside = true;
    for (int a = 0; a < 3; ++a) inside = inside && std::abs(o[a]) < far && std::abs(h[a]) < far;  // false for NaN
    const double length = inside ? std::sqrt((h.x - o.x) * (h.x - o.x) + (h.y - o.y) * (h.y - o.y) + (h.z - o.z) * (h.z - o.z)) : 0.0;
    if (!(length > 0.0 && length <= longest)) {
      ++skipped;
      continue;
    }
    out.push_back({std::llround(o.x), std::llround(o.y), std::llround(o.z), std::llround(h.x), std::llround(h.y), std::llround(h.z)});
  }
  return skipped;
}

TsdfScanStats integrateRaysTsdfCpu(OccupancyMap& map, std::span<const Ray> scan, const TsdfOptions& options, unsigned threads) {
  std::vector<gpu::TsdfRay> rays;
  TsdfScanStats stats;
  stats.raysSkipped = tsdfPackRays(scan, options, map.model().resolution, rays);  // validates the options first
  prepareTsdfMap(map, options);
  stats.rays = rays.size();
  const int64_t truncation = truncationFine(options);
  const uint32_t weighting = weightingOf(options), maxWeight = tsdfWeightUnits(options.maxWeight);
  if (threads == 0) threads = std::min(16u, std::max(1u, std::thread::hardware_concurrency()));
  const size_t shares = std::max<size_t>(1, std::min<size_t>(threads, rays.size()));
  std::vector<ShareSums> shareSums(shares);
  parallelFor(shares, [&](size_t s) {
    for (size_t i = rays.size() * s / shares; i < rays.size() * (s + 1) / shares; ++i)
      accumulateRay(rays[i], truncation, weighting, shareSums[s]);
  });
  // The shares' sums added, blocks in order.
  std::map<TsdfBlock, std::unique_ptr<BlockSums>> blocks;
  for (ShareSums& share : shareSums)
    for (auto& [key, sums] : share) {
      std::unique_ptr<BlockSums>& total = blocks[unpackBlock(key)];
      if (!total) {
        total = std::move(sums);
        continue;
      }
      for (size_t v = 0; v < sums->size(); ++v) {
        (*total)[v].sum += (*sums)[v].sum;
        (*total)[v].weight += (*sums)[v].weight;
      }
    }
  shareSums.clear();
  stats.blocks = blocks.size();
  // Regions first, on this thread; then the blocks on the machine's cores (tsdf_block_regions.hpp).
  const int32_t b = gpu::kTsdfBlock;
  std::vector<TsdfBlock> sortedBlocks;
  std::vector<const BlockSums*> list;
  for (const auto& [block, sums] : blocks) {
    sortedBlocks.push_back(block);
    list.push_back(sums.get());
  }
  detail::TsdfBlockRegions regions(map, sortedBlocks);
  std::atomic<uint64_t> updated{0};
  parallelFor(list.size(), [&](size_t i) {
    const TsdfBlock& block = sortedBlocks[i];
    const BlockSums* sums = list[i];
    uint64_t count = 0;
    for (uint32_t local = 0; local < gpu::kTsdfBlockVoxels; ++local) {
      const VoxelSums& v = (*sums)[local];
      if (v.weight == 0) continue;
      const int32_t vx = block.x * b + int32_t(local & 7u), vy = block.y * b + int32_t((local >> 3) & 7u),
                    vz = block.z * b + int32_t(local >> 6);
      const std::span<gpu::TsdfVoxel> voxels = regions.voxels(i);
      const size_t at = regions.localIndex(i, vx, vy, vz);
      voxels[at] = tsdfFold(voxels[at], gpu::tsdfScanMean(v.sum, v.weight), gpu::tsdfScanWeight(v.weight, maxWeight), maxWeight);
      ++count;
    }
    updated += count;
  });
  stats.voxelsUpdated = updated;
  stats.regionsMade = regions.finish();
  return stats;
}

}  // namespace voxen
