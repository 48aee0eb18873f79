// The Mapper's local window (MapperRunOptions::window, issue 38 item 5): after each
// integrate call, the regions whose box lies farther than the window from the latest sensor
// origin (the last ray's) leave the map, as a moving robot needs a map of where it is. A
// region the Mapper's region source holds unchanged since it was saved is paged out (evicted:
// the source gives it back when a ray or a read needs it); one the source lacks, or holds in
// an older state, stays until the source's owner has saved it (a store mapping run's next
// checkpoint: paged out, not lost); without a source a region is dropped for good
// (OccupancyMap::dropRegion, so the clearance near it sees the change).
//
// Called from Mapper::integrate and, between the reader's chunks, Mapper::integrateFile. The GPU integrator's cache may hold
// regions the host map does not have yet, and would copy a dropped region back when it
// evicts it, so on the GPU the map is synced first and, when something leaves, the
// integrator is retired (the next rays get a new one, which loads only what they touch).
#include <cmath>
#include <functional>
#include <span>
#include <vector>

#include "mapper_impl.hpp"
#include "voxen/mapper.hpp"

namespace voxen {

namespace {

// Euclidean distance in metres from `point` to the region's box (0 inside it).
double distanceToRegion(const glm::dvec3& point, const RegionKey& key, double edge) {
  double squared = 0.0;
  const double lo[3] = {key.x * edge, key.y * edge, key.z * edge};
  for (int a = 0; a < 3; ++a) {
    const double p = point[a], low = lo[a], high = lo[a] + edge;
    const double d = p < low ? low - p : p > high ? p - high : 0.0;
    squared += d * d;
  }
  return std::sqrt(squared);
}

}  // namespace

// The regions of `map` whose box is farther than `window` metres from `origin`.
std::vector<RegionKey> regionsOutsideWindow(const OccupancyMap& map, const glm::dvec3& origin, double window) {
  const double edge = map.model().resolution * map.regionSize();
  std::vector<RegionKey> outside;
  for (const auto& [key, region] : map.regions())
    if (distanceToRegion(origin, key, edge) > window) outside.push_back(key);
  return outside;
}

void applyMapperWindow(Mapper& mapper, OccupancyMap& map, std::span<const Ray> rays, const std::function<void()>& retireGpu) {
  const std::optional<double>& window = mapper.runOptions().window;
  if (!window || rays.empty()) return;
  const glm::dvec3 origin = rays.back().origin;
  const bool gpu = mapper.runOptions().backend == MapperBackend::Gpu;
  if (gpu) mapper.sync();  // every region the rays made or changed is in the host map now
  std::vector<RegionKey> outside = regionsOutsideWindow(map, origin, *window);
  RegionSource* source = map.regionSource();
  if (source)  // only what the source holds as it is here leaves; the rest waits for its save
    std::erase_if(outside, [&](const RegionKey& key) { return map.needsCopyBack(key) || !source->holds(key); });
  if (outside.empty()) return;
  if (gpu) retireGpu();  // its cache holds copies of what leaves
  for (const RegionKey& key : outside) {
    if (source)
      map.evictRegion(key);
    else
      map.dropRegion(key);
  }
}

}  // namespace voxen
