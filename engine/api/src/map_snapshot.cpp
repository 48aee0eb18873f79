#include "voxen/map_snapshot.hpp"

#include <algorithm>

#include "query_reads.hpp"
#include "snapshot_state.hpp"
#include "voxen/host/error.hpp"
#include "voxen/query/cpu_queries.hpp"

namespace voxen {

const MapSnapshot::State& MapSnapshot::state() const {
  if (!state_) throw Error("MapSnapshot: an empty snapshot (default-constructed) holds no map");
  return *state_;
}

const OccupancyMap& MapSnapshot::map() const { return *state().map; }

uint64_t MapSnapshot::version() const { return state().version; }

void MapSnapshot::post(std::function<void()> task) const { state().lane->post(std::move(task)); }

// Each query: on the calling thread's CPU when small (or the CPU reference backend), else on
// the lane's GPU queries loaded with this snapshot's map; the answers are the same bit for bit.
std::vector<OccupancyAnswer> MapSnapshot::occupancy(std::span<const glm::dvec3> points) const {
  const State& s = state();
  if (s.lane->onHost(pointReads(points.size(), 1, s.lane->settings().hostQueryVoxels))) return cpuOccupancy(*s.map, points);
  return s.lane->withGpu(s.map, [&](GpuQueries& q) { return q.occupancy(points); });
}

std::vector<RayHit> MapSnapshot::raycast(std::span<const QueryRay> rays, const RaycastOptions& options) const {
  const State& s = state();
  if (s.lane->onHost(raycastReads(s.map->model().resolution, rays, s.lane->settings().hostQueryVoxels)))
    return cpuRaycast(*s.map, rays, options);
  return s.lane->withGpu(s.map, [&](GpuQueries& q) { return q.raycast(rays, options); });
}

std::vector<ClearanceSample> MapSnapshot::clearance(std::span<const glm::dvec3> points) const {
  const State& s = state();
  if (s.lane->onHost(pointReads(points.size(), 8, s.lane->settings().hostQueryVoxels))) return cpuClearance(*s.map, points);
  return s.lane->withGpu(s.map, [&](GpuQueries& q) { return q.clearance(points); });
}

BoxVoxels MapSnapshot::voxelsInBox(const QueryBox& box, VoxelClass voxelClass) const {
  const State& s = state();
  if (s.lane->onHost(boxReads(s.map->model().resolution, box, s.lane->settings().hostQueryVoxels)))
    return cpuVoxelsInBox(*s.map, box, voxelClass);
  return s.lane->withGpu(s.map, [&](GpuQueries& q) { return q.voxelsInBox(box, voxelClass); });
}

void MapSnapshot::occupancy(std::span<const glm::dvec3> points, std::span<OccupancyAnswer> answers) const {
  checkAnswerRoom("MapSnapshot", "occupancy", "points", points.size(), answers.size());
  const State& s = state();
  if (!s.lane->onHost(pointReads(points.size(), 1, s.lane->settings().hostQueryVoxels)))
    return s.lane->withGpu(s.map, [&](GpuQueries& q) { q.occupancy(points, answers); });
  const std::vector<OccupancyAnswer> host = cpuOccupancy(*s.map, points);
  std::copy(host.begin(), host.end(), answers.begin());
}

void MapSnapshot::raycast(std::span<const QueryRay> rays, std::span<RayHit> hits, const RaycastOptions& options) const {
  checkAnswerRoom("MapSnapshot", "raycast", "rays", rays.size(), hits.size());
  const State& s = state();
  if (!s.lane->onHost(raycastReads(s.map->model().resolution, rays, s.lane->settings().hostQueryVoxels)))
    return s.lane->withGpu(s.map, [&](GpuQueries& q) { q.raycast(rays, hits, options); });
  const std::vector<RayHit> host = cpuRaycast(*s.map, rays, options);
  std::copy(host.begin(), host.end(), hits.begin());
}

void MapSnapshot::clearance(std::span<const glm::dvec3> points, std::span<ClearanceSample> samples) const {
  checkAnswerRoom("MapSnapshot", "clearance", "points", points.size(), samples.size());
  const State& s = state();
  if (!s.lane->onHost(pointReads(points.size(), 8, s.lane->settings().hostQueryVoxels)))
    return s.lane->withGpu(s.map, [&](GpuQueries& q) { q.clearance(points, samples); });
  const std::vector<ClearanceSample> host = cpuClearance(*s.map, points);
  std::copy(host.begin(), host.end(), samples.begin());
}

void MapSnapshot::save(const std::filesystem::path& path, const MapSaveOptions& options) const {
  saveMap(map(), path, options);
}

}  // namespace voxen
