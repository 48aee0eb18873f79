// The TSDF mesher's GPU runner: regions in chunks whose 27-neighbourhoods fit a read-only
// region cache, a block list with each block's neighbourhood slots, the pass
// (shaders/tsdf/tsdf_mesh.comp) appending exact-integer records, read back, sorted into the
// canonical order and welded by the CPU reference's code.
#include "voxen/tsdf/gpu_tsdf_mesh.hpp"

#include <algorithm>
#include <climits>
#include <map>
#include <optional>
#include <set>

#include "gpu_tsdf_mesh_runner.hpp"
#include "voxen/gpu/tsdf/tsdf_mesh_shared.h"
#include "voxen/host/buffer.hpp"
#include "voxen/host/scheduler.hpp"
#include "voxen/host/setting_error.hpp"
#include "voxen/host/shader_library.hpp"
#include "voxen/map/region_cache.hpp"
#include "voxen/painter/marching_cubes_table.hpp"

namespace voxen {

namespace {

std::vector<RegionKey> neighbourhood(const OccupancyMap& map, const RegionKey& key) {
  std::vector<RegionKey> out;
  for (int32_t z = -1; z <= 1; ++z)
    for (int32_t y = -1; y <= 1; ++y)
      for (int32_t x = -1; x <= 1; ++x) {
        const RegionKey k{key.x + x, key.y + y, key.z + z};
        if (map.regions().contains(k)) out.push_back(k);
      }
  return out;
}


void ensure(Scheduler& scheduler, Buffer& buffer, const char* name, uint64_t bytes) {
  if (buffer.handle() != VK_NULL_HANDLE && buffer.size() >= bytes) return;
  if (buffer.handle() != VK_NULL_HANDLE) scheduler.wait(scheduler.submit());
  buffer = Buffer(scheduler.device(), name, std::max<uint64_t>(bytes, 256));
}

// A chunk's regions, in order, and the blocks of them to mesh (indices into the caller's list).
struct Chunk {
  std::set<RegionKey> resident;     // the regions and their neighbours the map holds
  std::vector<uint32_t> blocks;
};

// The pass's block list: per block its key, its index in the caller's list and its region's
// 27-neighbourhood's slots (-1: no region).
std::vector<int32_t> blockEntries(const OccupancyMap& map, const RegionCache& cache, const Chunk& chunk,
                                  std::span<const TsdfBlock> blocks) {
  const int32_t n = map.regionSize(), b = gpu::kTsdfBlock;
  std::vector<int32_t> entries;
  entries.reserve(chunk.blocks.size() * gpu::kTsdfMeshBlockInts);
  for (const uint32_t index : chunk.blocks) {
    const TsdfBlock& block = blocks[index];
    const RegionKey key{floorDiv(block.x * b, n), floorDiv(block.y * b, n), floorDiv(block.z * b, n)};
    entries.insert(entries.end(), {block.x, block.y, block.z, int32_t(index)});
    for (int32_t z = -1; z <= 1; ++z)
      for (int32_t y = -1; y <= 1; ++y)
        for (int32_t x = -1; x <= 1; ++x) {
          const RegionKey k{key.x + x, key.y + y, key.z + z};
          entries.push_back(chunk.resident.contains(k) ? int32_t(cache.slotOf(k)) : -1);
        }
    entries.push_back(0);
  }
  return entries;
}

// The blocks grouped by region in chunks whose regions' neighbourhoods fit `slots`.
std::vector<Chunk> planChunks(const OccupancyMap& map, std::span<const TsdfBlock> blocks, size_t slots, uint32_t minWeight) {
  const int32_t n = map.regionSize(), b = gpu::kTsdfBlock;
  std::map<RegionKey, std::vector<uint32_t>> byRegion;
  // Only blocks that can make a triangle go to the GPU, so regions of free or unobserved space
  // are not made resident at all (their blocks' results stay empty, as the CPU reference's).
  for (uint32_t i = 0; i < blocks.size(); ++i)
    if (detail::blockMayHoldSurface(map, blocks[i], minWeight))
      byRegion[{floorDiv(blocks[i].x * b, n), floorDiv(blocks[i].y * b, n), floorDiv(blocks[i].z * b, n)}].push_back(i);
  std::vector<Chunk> chunks(1);
  for (const auto& [key, indices] : byRegion) {
    std::set<RegionKey> grown = chunks.back().resident;
    for (const RegionKey& k : neighbourhood(map, key)) grown.insert(k);
    if (grown.size() > slots) {
      chunks.emplace_back();
      grown.clear();
      for (const RegionKey& k : neighbourhood(map, key)) grown.insert(k);
    }
    chunks.back().resident = std::move(grown);
    chunks.back().blocks.insert(chunks.back().blocks.end(), indices.begin(), indices.end());
  }
  if (chunks.back().blocks.empty()) chunks.pop_back();
  return chunks;
}

}  // namespace

namespace detail {

struct GpuTsdfMeshRunner::State {
  State(Scheduler& s, const OccupancyMap& m, uint64_t bytes)
      : scheduler(s), map(m), cache(s, m, bytes), caseTable(uploadCaseTable(s)), kernel(s.library().kernel("tsdf/tsdf_mesh.comp")) {}
  // Runs the pass over one chunk's block list, into the records (larger lists again until they fit).
  void run(const std::vector<int32_t>& entries, const TsdfMeshLimits& limits, GpuTsdfMeshStats& stats);

  Scheduler& scheduler;
  const OccupancyMap& map;
  RegionCache cache;
  Buffer caseTable, blockBuffer, vertices, triangles, counters;
  uint32_t vertexCapacity = 1u << 16, triangleCapacity = 1u << 16;
  std::shared_ptr<Kernel> kernel;
  std::vector<gpu::TsdfMeshVertexRecord> vertexRecords;
  std::vector<gpu::TsdfMeshTriangleRecord> triangleRecords;
  uint64_t batch = 0;
};

GpuTsdfMeshRunner::GpuTsdfMeshRunner(Scheduler& scheduler, const OccupancyMap& map, uint64_t cacheBytes) {
  const uint64_t perRegion = RegionCache::bytesPerRegion(map);
  if (cacheBytes < 27 * perRegion)
    throw SettingError(SettingError::Kind::Change, "GpuTsdfMesh::cacheBytes", "the GPU region cache",
                       "{} must hold a region's 27-neighbourhood (" + std::to_string((27 * perRegion + (1u << 20) - 1) >> 20) +
                           " MiB): raise it",
                       std::to_string(cacheBytes >> 20) + " MiB");
  const uint64_t wanted = uint64_t(map.regions().size()) * perRegion;
  state_ = std::make_unique<State>(scheduler, map, std::max<uint64_t>(27 * perRegion, std::min(cacheBytes, wanted)));
}

GpuTsdfMeshRunner::~GpuTsdfMeshRunner() = default;

void GpuTsdfMeshRunner::State::run(const std::vector<int32_t>& entries, const TsdfMeshLimits& limits, GpuTsdfMeshStats& stats) {
  const uint32_t blockCount = uint32_t(entries.size() / gpu::kTsdfMeshBlockInts);
  ensure(scheduler, blockBuffer, "tsdf mesh blocks", entries.size() * 4);
  const BufferRange blockRange = blockBuffer.range(0, entries.size() * 4);
  scheduler.upload(blockRange, entries.data(), blockRange.size);
  const BufferRange pool = *cache.poolRange(kTsdfLayer);
  const std::optional<BufferRange> colourPool = cache.poolRange(kTsdfColourLayer);  // none: the map has no colour
  for (;;) {
    const uint64_t vertexBytes = uint64_t(vertexCapacity) * sizeof(gpu::TsdfMeshVertexRecord);
    const uint64_t triangleBytes = uint64_t(triangleCapacity) * sizeof(gpu::TsdfMeshTriangleRecord);
    ensure(scheduler, vertices, "tsdf mesh vertices", vertexBytes);
    ensure(scheduler, triangles, "tsdf mesh triangles", triangleBytes);
    ensure(scheduler, counters, "tsdf mesh counters", 16);
    const BufferRange vertexRange = vertices.range(0, vertexBytes), triangleRange = triangles.range(0, triangleBytes);
    scheduler.fill(counters.range(), 0);
    gpu::TsdfMeshPush push{};
    push.blocks = blockRange.address;
    push.tsdf = pool.address;
    push.caseTable = caseTable.address();
    push.vertices = vertexRange.address;
    push.triangles = triangleRange.address;
    push.counters = counters.address();
    push.colour = colourPool ? colourPool->address : 0;
    push.blockCount = blockCount;
    push.regionSize = map.regionSize();
    push.minWeight = limits.minWeight;
    push.vertexCapacity = vertexCapacity;
    push.triangleCapacity = triangleCapacity;
    for (int a = 0; a < 3; ++a) {
      push.boxLo[a] = limits.boxed ? int32_t(std::clamp<int64_t>(limits.lo[a], INT_MIN, INT_MAX)) : INT_MIN;
      push.boxHi[a] = limits.boxed ? int32_t(std::clamp<int64_t>(limits.hi[a], INT_MIN, INT_MAX)) : INT_MAX;
    }
    std::vector<BufferUse> uses{reads(blockRange),    reads(pool),           reads(caseTable.range()),
                                writes(vertexRange), writes(triangleRange), readsWrites(counters.range())};
    if (colourPool) uses.push_back(reads(*colourPool));
    scheduler.dispatchThreads({"tsdf mesh", kernel.get(), {}, push, std::move(uses)}, uint64_t(blockCount) * gpu::kTsdfMeshThreads);
    const std::vector<uint32_t> counts = scheduler.readback<uint32_t>(counters.range(0, 8)).get();
    if (counts[0] <= vertexCapacity && counts[1] <= triangleCapacity) {
      if (counts[0] > 0) {
        const auto v = scheduler.readback<gpu::TsdfMeshVertexRecord>(vertices.range(0, uint64_t(counts[0]) * sizeof(gpu::TsdfMeshVertexRecord))).get();
        vertexRecords.insert(vertexRecords.end(), v.begin(), v.end());
      }
      if (counts[1] > 0) {
        const auto t = scheduler.readback<gpu::TsdfMeshTriangleRecord>(triangles.range(0, uint64_t(counts[1]) * sizeof(gpu::TsdfMeshTriangleRecord))).get();
        triangleRecords.insert(triangleRecords.end(), t.begin(), t.end());
      }
      return;
    }
    while (vertexCapacity < counts[0]) vertexCapacity *= 2;
    while (triangleCapacity < counts[1]) triangleCapacity *= 2;
    ++stats.retries;
  }
}

std::vector<TsdfBlockMesh> GpuTsdfMeshRunner::mesh(std::span<const TsdfBlock> blocks, const TsdfMeshLimits& limits, GpuTsdfMeshStats& stats) {
  State& s = *state_;
  s.vertexRecords.clear();
  s.triangleRecords.clear();
  s.cache.release();  // the map may have changed since the last call
  for (const Chunk& chunk : planChunks(s.map, blocks, s.cache.slotCount(), limits.minWeight)) {
    s.cache.makeResident(std::vector<RegionKey>(chunk.resident.begin(), chunk.resident.end()), ++s.batch);
    s.run(blockEntries(s.map, s.cache, chunk, blocks), limits, stats);
    stats.blocks += chunk.blocks.size();
    ++stats.chunks;
  }
  // Records to blocks: vertices by their owner (the block holding its lower voxel), triangles in order.
  std::vector<TsdfBlockMesh> results(blocks.size());
  for (const auto& r : s.vertexRecords) {
    TsdfMeshVertex v;
    v.edge = TsdfEdge{r.z, r.y, r.x, r.packed & 3u};
    v.lowerInside = (r.packed & 4u) != 0;
    v.t = r.packed >> 3;
    for (int a = 0; a < 3; ++a) v.gradient[a] = r.gradient[a];
    v.colour = r.colour;
    results[size_t(r.owner)].vertices.push_back(v);
  }
  std::sort(s.triangleRecords.begin(), s.triangleRecords.end(), [](const auto& a, const auto& b) { return a.order < b.order; });
  for (const auto& t : s.triangleRecords) {
    std::array<TsdfEdge, 3> tri;
    for (int j = 0; j < 3; ++j)
      tri[size_t(j)] = TsdfEdge{t.edges[j * 4 + 2], t.edges[j * 4 + 1], t.edges[j * 4], uint32_t(t.edges[j * 4 + 3])};
    results[size_t(t.order >> 12)].triangles.push_back(tri);
  }
  for (TsdfBlockMesh& r : results)
    std::sort(r.vertices.begin(), r.vertices.end(), [](const TsdfMeshVertex& a, const TsdfMeshVertex& b) { return a.edge < b.edge; });
  return results;
}

}  // namespace detail

TsdfMesh meshTsdfGpu(Scheduler& scheduler, const OccupancyMap& map, const TsdfMeshOptions& options, uint64_t cacheBytes,
                     GpuTsdfMeshStats* statsOut) {
  detail::requireTsdfLayer(map);
  const detail::TsdfMeshLimits limits = detail::tsdfMeshLimits(options, map.model().resolution);
  detail::GpuTsdfMeshRunner runner(scheduler, map, cacheBytes);
  GpuTsdfMeshStats stats;
  const std::vector<TsdfBlock> blocks = detail::tsdfMapBlocks(map);
  const std::vector<detail::TsdfBlockMesh> meshes = runner.mesh(blocks, limits, stats);
  std::vector<const detail::TsdfBlockMesh*> pointers;
  for (const detail::TsdfBlockMesh& m : meshes)
    if (!m.empty()) pointers.push_back(&m);
  if (statsOut) *statsOut = stats;
  return detail::weldTsdfMesh(pointers, map.model().resolution, map.layout().has(kTsdfColourLayer));
}

}  // namespace voxen
