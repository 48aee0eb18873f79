#pragma once
// Batched map queries on the GPU: occupancy and clearance at N points, N ray casts, and the
// voxels of a class in a box. Each batch is a few passes over the map's regions in a
// read-only region cache (a map larger than the cache is queried in chunks of regions);
// answers equal the CPU references' (voxen/query/cpu_queries.hpp) bit for bit.
//
// The map is read when first needed and kept resident: after the map changes, call
// refresh() (the answers would otherwise describe the map as it was). The map must outlive
// the object. Not thread-safe (one scheduler records on one thread).
#include <memory>
#include <span>
#include <vector>

#include "voxen/query/collision_types.hpp"
#include "voxen/host/buffer.hpp"
#include "voxen/query/query_types.hpp"

namespace voxen {

class Scheduler;
struct GpuCollisionState;
struct QueryMapAccess;

class GpuQueries {
 public:
  GpuQueries(Scheduler& scheduler, const OccupancyMap& map, QueryOptions options = {});
  ~GpuQueries();
  GpuQueries(const GpuQueries&) = delete;
  GpuQueries& operator=(const GpuQueries&) = delete;

  std::vector<OccupancyAnswer> occupancy(std::span<const glm::dvec3> points);
  std::vector<RayHit> raycast(std::span<const QueryRay> rays, const RaycastOptions& options = {});
  // Throws Error when the map has no clearance layer (compute it first: voxen/clearance).
  std::vector<ClearanceSample> clearance(std::span<const glm::dvec3> points);

  // The same queries with the answers written into the caller's memory: answer i of item i
  // into element i of the span, which must hold at least one per item (QueryOutputError
  // otherwise, before any work; elements past the items are left as they were). Occupancy
  // and clearance answers are read back from the GPU straight into the span (the GPU
  // classifies the voxels and interpolates the samples: no host work per answer); a ray's
  // answer is finished on the host from the GPU's hit (its metres in double). Memory the
  // caller reuses across calls is not faulted in again.
  void occupancy(std::span<const glm::dvec3> points, std::span<OccupancyAnswer> answers);
  void raycast(std::span<const QueryRay> rays, std::span<RayHit> hits, const RaycastOptions& options = {});
  void clearance(std::span<const glm::dvec3> points, std::span<ClearanceSample> samples);

  // For an embedder that keeps working on the GPU: the answers written into a device buffer
  // range of its own (answer i at byte offset i * sizeof(OccupancyAnswer) or
  // sizeof(ClearanceSample), the same layout as on the host; at least that many bytes, with a
  // device address, on this scheduler's device; QueryOutputError otherwise, before any work).
  // The passes are recorded and submitted on this scheduler, nothing is read back and
  // nothing is waited for: the caller's later passes on the same scheduler that declare
  // reads of the range are ordered after them (the scheduler places the barrier); work on
  // another scheduler must wait for this one's timeline first.
  void occupancy(std::span<const glm::dvec3> points, const BufferRange& answers);
  void clearance(std::span<const glm::dvec3> points, const BufferRange& samples);
  BoxVoxels voxelsInBox(const QueryBox& box, VoxelClass voxelClass);

  // Collision and distance queries for planners (semantics and statuses:
  // voxen/query/collision_types.hpp), equal to the CPU twins (cpu_queries.hpp) bit for bit.
  // Spheres of one radius (metres) at points; yawed boxes of one size at poses; spheres
  // swept along paths, path i being points[offsets[i] .. offsets[i + 1]) (offsets: paths + 1
  // ascending entries from 0 to points.size(), each path at least two points); and the
  // nearest occupied voxel centre within maxRange metres. Bad input throws QueryInputError
  // naming the item (index 0 for a bad radius, size or range).
  std::vector<CollisionAnswer> sphereCollisions(std::span<const glm::dvec3> points, double radius,
                                                UnknownSpace unknown = UnknownSpace::Occupied);
  std::vector<PathAnswer> pathCollisions(std::span<const glm::dvec3> points, std::span<const uint64_t> offsets,
                                         double radius, UnknownSpace unknown = UnknownSpace::Occupied);
  std::vector<CollisionAnswer> boxCollisions(std::span<const BoxPose> poses, const glm::dvec3& size,
                                             UnknownSpace unknown = UnknownSpace::Occupied);
  std::vector<NearestAnswer> nearestObstacles(std::span<const glm::dvec3> points, double maxRange);

  // Forgets what was loaded, so the next query reads the map as it is now.
  void refresh();
  // Regions per chunk (the cache's slots) and chunks a query takes for this map.
  size_t regionsPerChunk() const;
  size_t chunkCount() const;

 private:
  struct Impl;
  // One round of answers recorded into `out` (the host and device outputs share them).
  void recordOccupancyRound(std::span<const glm::dvec3> points, size_t first, uint32_t count, const BufferRange& out);
  void recordClearanceRound(std::span<const glm::dvec3> points, size_t first, uint32_t count, const BufferRange& out);
  std::unique_ptr<Impl> impl_;
  // The collision queries' kernels and buffers (gpu_collision.cpp), made on first use, and
  // what they need of the region cache.
  std::shared_ptr<GpuCollisionState> collision_;
  GpuCollisionState& collision();
  QueryMapAccess mapAccess();
};

}  // namespace voxen
