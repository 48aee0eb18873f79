// The TSDF mesher's CPU reference: per block of 8^3 cells, the voxels the cells and their
// normals read (the block and a border of one voxel below, two above) gathered from the map,
// then marching cubes with the painter's table (tsdf_mesh.hpp has the model).
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <thread>

#include "tsdf_mesh_internal.hpp"
#include "voxen/gpu/tsdf/tsdf_mesh_shared.h"
#include "voxen/host/error.hpp"
#include "voxen/host/setting_error.hpp"
#include "voxen/painter/marching_cubes_table.hpp"

namespace voxen {

void TsdfMeshOptions::validate() const {
  if (!(minWeight >= 0.0 && minWeight <= 1.0e6))
    throw SettingError(SettingError::Kind::Invalid, "TsdfMeshOptions::minWeight", "the smallest weight",
                       "{} must be 0 to 1e6 measurements (got " + std::to_string(minWeight) + ")");
  if (box && !(box->min.x <= box->max.x && box->min.y <= box->max.y && box->min.z <= box->max.z &&
               std::isfinite(box->min.x + box->min.y + box->min.z + box->max.x + box->max.y + box->max.z)))
    throw SettingError(SettingError::Kind::Invalid, "TsdfMeshOptions::box", "the box",
                       "{} must have finite corners with min <= max on every axis");
}

namespace detail {

namespace {

constexpr int32_t kB = gpu::kTsdfBlock;
constexpr int32_t kSpan = kB + 3;  // voxels -1 .. kB + 1 of a block, per axis
constexpr int32_t kEdgeSpan = kB + 1;  // lower voxels of a block's cells' edges: 0 .. kB

int32_t boxIndex(int32_t x, int32_t y, int32_t z) { return (x + 1) + kSpan * ((y + 1) + kSpan * (z + 1)); }

// The voxels a block's cells read: distance, and whether the weight reaches the threshold;
// with a tsdf_colour layer (coloured), the colours too.
struct BlockVoxels {
  int32_t distance[kSpan * kSpan * kSpan];
  uint8_t counts[kSpan * kSpan * kSpan];
  bool coloured = false;
  gpu::TsdfColourVoxel colour[kSpan * kSpan * kSpan];
};

// Gathers the block's voxels; false when no voxel of the block itself counts (no cell can).
bool gather(const OccupancyMap& map, const TsdfBlock& block, uint32_t minWeight, BlockVoxels& out) {
  out.coloured = map.layout().has(kTsdfColourLayer);
  const int32_t n = map.regionSize();
  const int32_t lo[3] = {block.x * kB, block.y * kB, block.z * kB};
  // Per axis, each offset's region (at most 3 distinct, in order) and local coordinate.
  int32_t regionOf[3][kSpan], local[3][kSpan], firstRegion[3];
  for (int a = 0; a < 3; ++a) {
    firstRegion[a] = floorDiv(lo[a] - 1, n);
    for (int32_t o = -1; o <= kB + 1; ++o) {
      const int32_t r = floorDiv(lo[a] + o, n);
      regionOf[a][o + 1] = r - firstRegion[a];
      local[a][o + 1] = lo[a] + o - r * n;
    }
  }
  const gpu::TsdfVoxel* regions[3][3][3] = {};
  const gpu::TsdfColourVoxel* colours[3][3][3] = {};
  for (int z = 0; z <= regionOf[2][kSpan - 1]; ++z)
    for (int y = 0; y <= regionOf[1][kSpan - 1]; ++y)
      for (int x = 0; x <= regionOf[0][kSpan - 1]; ++x) {
        const Region* region = map.findRegion(RegionKey{firstRegion[0] + x, firstRegion[1] + y, firstRegion[2] + z});
        regions[z][y][x] = region ? region->values<gpu::TsdfVoxel>(kTsdfLayer).data() : nullptr;
        colours[z][y][x] = region && out.coloured ? region->values<gpu::TsdfColourVoxel>(kTsdfColourLayer).data() : nullptr;
      }
  bool any = false;
  for (int32_t z = 0; z < kSpan; ++z)
    for (int32_t y = 0; y < kSpan; ++y)
      for (int32_t x = 0; x < kSpan; ++x) {
        const gpu::TsdfVoxel* voxels = regions[regionOf[2][z]][regionOf[1][y]][regionOf[0][x]];
        const int32_t i = x + kSpan * (y + kSpan * z);
        if (!voxels) {
          out.distance[i] = 0, out.counts[i] = 0;
          out.colour[i] = {0, 0};
          continue;
        }
        const size_t at = size_t(local[0][x]) + size_t(n) * (size_t(local[1][y]) + size_t(n) * size_t(local[2][z]));
        const gpu::TsdfVoxel v = voxels[at];
        out.colour[i] = out.coloured ? colours[regionOf[2][z]][regionOf[1][y]][regionOf[0][x]][at] : gpu::TsdfColourVoxel{0, 0};
        out.distance[i] = v.distance;
        out.counts[i] = v.weight >= minWeight;
        any = any || (out.counts[i] && x >= 1 && x <= kB && y >= 1 && y <= kB && z >= 1 && z <= kB);
      }
  return any;
}

// The gradient's integer component along axis `a` at voxel (x, y, z) of the block (the model's g).
int64_t gradient(const BlockVoxels& v, int32_t x, int32_t y, int32_t z, int a) {
  const int32_t step = a == 0 ? 1 : a == 1 ? kSpan : kSpan * kSpan;
  const int32_t c = boxIndex(x, y, z), p = c + step, m = c - step;
  if (v.counts[p] && v.counts[m]) return int64_t(v.distance[p]) - v.distance[m];
  if (v.counts[p]) return 2 * (int64_t(v.distance[p]) - v.distance[c]);
  if (v.counts[m]) return 2 * (int64_t(v.distance[c]) - v.distance[m]);
  return 0;
}

TsdfMeshVertex edgeVertex(const BlockVoxels& v, const TsdfBlock& block, int32_t x, int32_t y, int32_t z, uint32_t axis) {
  const int32_t bx = x + (axis == 0), by = y + (axis == 1), bz = z + (axis == 2);
  const int64_t da = v.distance[boxIndex(x, y, z)], db = v.distance[boxIndex(bx, by, bz)];
  TsdfMeshVertex out;
  out.edge = {block.z * kB + z, block.y * kB + y, block.x * kB + x, axis};
  const int64_t num = std::llabs(da) * gpu::kTsdfFine, den = std::llabs(da - db);
  out.t = uint32_t((num + den / 2) / den);
  out.lowerInside = da < 0;
  for (int a = 0; a < 3; ++a)
    out.gradient[a] = gradient(v, x, y, z, a) * (gpu::kTsdfFine - int64_t(out.t)) + gradient(v, bx, by, bz, a) * int64_t(out.t);
  if (v.coloured) {
    const gpu::TsdfColourVoxel& ca = v.colour[boxIndex(x, y, z)];
    const gpu::TsdfColourVoxel& cb = v.colour[boxIndex(bx, by, bz)];
    out.colour = gpu::tsdfMeshVertexColour(ca.rgb, ca.weight, cb.rgb, cb.weight, out.t);
  }
  return out;
}

}  // namespace

// Whether any cell of the block can be crossed: a cell makes triangles only when its 8 corners
// count and their signs differ, so the voxels 0 .. kB of the block per axis (the cells'
// corners) must hold a counted voxel below 0 and a counted one at or above it. Most blocks of
// a TSDF's regions lie in free space (all +truncation) or are unobserved: this read of 9^3
// voxels, stopping at the first pair, spares them the gather of 11^3 voxels with colours.
bool blockMayHoldSurface(const OccupancyMap& map, const TsdfBlock& block, uint32_t minWeight) {
  const int32_t n = map.regionSize();
  const int32_t lo[3] = {block.x * kB, block.y * kB, block.z * kB};
  bool negative = false, nonNegative = false;
  // Per axis the corners lie in the block's region (0 .. kB - 1) and perhaps the next (kB).
  for (int32_t rz = 0; rz < 2; ++rz)
    for (int32_t ry = 0; ry < 2; ++ry)
      for (int32_t rx = 0; rx < 2; ++rx) {
        const int32_t from[3] = {rx ? kB : 0, ry ? kB : 0, rz ? kB : 0}, to[3] = {rx ? kB : kB - 1, ry ? kB : kB - 1, rz ? kB : kB - 1};
        const int32_t first[3] = {lo[0] + from[0], lo[1] + from[1], lo[2] + from[2]};
        const RegionKey key{floorDiv(first[0], n), floorDiv(first[1], n), floorDiv(first[2], n)};
        const Region* region = map.findRegion(key);
        if (!region) continue;
        const gpu::TsdfVoxel* voxels = region->values<gpu::TsdfVoxel>(kTsdfLayer).data();
        for (int32_t z = from[2]; z <= to[2]; ++z)
          for (int32_t y = from[1]; y <= to[1]; ++y) {
            const size_t row = size_t(n) * (size_t(lo[1] + y - key.y * n) + size_t(n) * size_t(lo[2] + z - key.z * n));
            for (int32_t x = from[0]; x <= to[0]; ++x) {
              const gpu::TsdfVoxel v = voxels[row + size_t(lo[0] + x - key.x * n)];
              if (v.weight < minWeight) continue;
              (v.distance < 0 ? negative : nonNegative) = true;
              if (negative && nonNegative) return true;
            }
          }
      }
  return false;
}

TsdfMeshLimits tsdfMeshLimits(const TsdfMeshOptions& options, double resolution) {
  options.validate();
  TsdfMeshLimits limits;
  limits.minWeight = std::max<uint32_t>(1, uint32_t(std::llround(options.minWeight * gpu::kTsdfWeightUnit)));
  if (options.box) {
    limits.boxed = true;
    const double mins[3] = {options.box->min.x, options.box->min.y, options.box->min.z};
    const double maxs[3] = {options.box->max.x, options.box->max.y, options.box->max.z};
    for (int a = 0; a < 3; ++a) {
      // Voxels whose centres (v + 0.5) r lie in [min, max].
      limits.lo[a] = int64_t(std::ceil(std::clamp(mins[a] / resolution - 0.5, -4.0e9, 4.0e9)));
      limits.hi[a] = int64_t(std::floor(std::clamp(maxs[a] / resolution - 0.5, -4.0e9, 4.0e9)));
    }
  }
  return limits;
}

void requireTsdfLayer(const OccupancyMap& map) {
  if (!map.layout().has(kTsdfLayer))
    throw Error("the map has no 'tsdf' layer: a mesh is made from a TSDF (depth images integrated into the map)");
}

TsdfBlockMesh meshTsdfBlockCpu(const OccupancyMap& map, const TsdfBlock& block, const TsdfMeshLimits& limits) {
  TsdfBlockMesh out;
  if (!blockMayHoldSurface(map, block, limits.minWeight)) return out;
  thread_local BlockVoxels v;
  if (!gather(map, block, limits.minWeight, v)) return out;
  const auto& cases = marchingCubesCases();
  // Vertex index per (lower voxel, axis) of the block's edges, -1 until made.
  thread_local int32_t vertexOf[kEdgeSpan * kEdgeSpan * kEdgeSpan * 3];
  std::fill(std::begin(vertexOf), std::end(vertexOf), -1);
  const int32_t lo[3] = {block.x * kB, block.y * kB, block.z * kB};
  for (int32_t z = 0; z < kB; ++z)
    for (int32_t y = 0; y < kB; ++y)
      for (int32_t x = 0; x < kB; ++x) {
        if (limits.boxed) {
          const int64_t c[3] = {int64_t(lo[0]) + x, int64_t(lo[1]) + y, int64_t(lo[2]) + z};
          bool inside = true;
          for (int a = 0; a < 3; ++a) inside = inside && c[a] >= limits.lo[a] && c[a] + 1 <= limits.hi[a];
          if (!inside) continue;
        }
        uint32_t caseIndex = 0;
        bool counted = true;
        for (uint32_t k = 0; k < 8 && counted; ++k) {
          const int32_t i = boxIndex(x + int32_t(k & 1u), y + int32_t((k >> 1) & 1u), z + int32_t((k >> 2) & 1u));
          counted = v.counts[i] != 0;
          caseIndex |= uint32_t(v.distance[i] < 0) << k;
        }
        if (!counted) continue;
        const McCase& mc = cases[caseIndex];
        for (uint32_t t = 0; t < mc.triangleCount; ++t) {
          std::array<TsdfEdge, 3> triangle;
          for (int j = 0; j < 3; ++j) {
            const uint32_t e = mc.triangles[t][size_t(j)], low = edgeLowCorner(e), axis = e / 4;
            const int32_t ex = x + int32_t(low & 1u), ey = y + int32_t((low >> 1) & 1u), ez = z + int32_t((low >> 2) & 1u);
            int32_t& slot = vertexOf[(ex + kEdgeSpan * (ey + kEdgeSpan * ez)) * 3 + int32_t(axis)];
            if (slot < 0) {
              slot = int32_t(out.vertices.size());
              out.vertices.push_back(edgeVertex(v, block, ex, ey, ez, axis));
            }
            triangle[size_t(j)] = out.vertices[size_t(slot)].edge;
          }
          out.triangles.push_back(triangle);
        }
      }
  std::sort(out.vertices.begin(), out.vertices.end(), [](const TsdfMeshVertex& a, const TsdfMeshVertex& b) { return a.edge < b.edge; });
  return out;
}

std::vector<TsdfBlock> tsdfMapBlocks(const OccupancyMap& map) {
  const int32_t perRegion = map.regionSize() / kB;
  std::vector<TsdfBlock> blocks;
  blocks.reserve(map.regions().size() * size_t(perRegion * perRegion * perRegion));
  for (const auto& [key, region] : map.regions())
    for (int32_t z = 0; z < perRegion; ++z)
      for (int32_t y = 0; y < perRegion; ++y)
        for (int32_t x = 0; x < perRegion; ++x) blocks.push_back({key.x * perRegion + x, key.y * perRegion + y, key.z * perRegion + z});
  std::sort(blocks.begin(), blocks.end());
  return blocks;
}

std::vector<TsdfBlockMesh> meshTsdfBlocksCpu(const OccupancyMap& map, std::span<const TsdfBlock> blocks, const TsdfMeshLimits& limits,
                                             uint32_t threads) {
  std::vector<TsdfBlockMesh> results(blocks.size());
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  threads = uint32_t(std::min<size_t>(threads, std::max<size_t>(1, blocks.size() / 16)));
  std::atomic<size_t> next{0};
  const auto work = [&] {
    for (size_t i; (i = next.fetch_add(1, std::memory_order_relaxed)) < blocks.size();)
      results[i] = meshTsdfBlockCpu(map, blocks[i], limits);
  };
  std::vector<std::jthread> workers;
  for (uint32_t t = 1; t < threads; ++t) workers.emplace_back(work);
  work();
  return results;
}

}  // namespace detail

TsdfMesh meshTsdfCpu(const OccupancyMap& map, const TsdfMeshOptions& options) {
  detail::requireTsdfLayer(map);
  const detail::TsdfMeshLimits limits = detail::tsdfMeshLimits(options, map.model().resolution);
  const std::vector<TsdfBlock> blocks = detail::tsdfMapBlocks(map);
  const std::vector<detail::TsdfBlockMesh> meshes = detail::meshTsdfBlocksCpu(map, blocks, limits, options.threads);
  std::vector<const detail::TsdfBlockMesh*> pointers;
  for (const detail::TsdfBlockMesh& m : meshes)
    if (!m.empty()) pointers.push_back(&m);
  return detail::weldTsdfMesh(pointers, map.model().resolution, map.layout().has(kTsdfColourLayer));
}

}  // namespace voxen
