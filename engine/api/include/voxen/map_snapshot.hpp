#pragma once
// voxen::MapSnapshot: a Mapper's map frozen at one moment (Mapper::snapshot(), or the latest
// one published with Mapper::latestSnapshot()), which any number of threads query while the
// mapping thread goes on integrating rays.
//
//   // mapping thread                         // planner threads, at the same time
//   mapper.integrateRays(origins, ends);       voxen::MapSnapshot s = mapper.latestSnapshot();
//   mapper.snapshot();  // publish the scan    auto free = s.occupancy(points);
//                                             auto hits = s.async([rays](const voxen::MapSnapshot& m) {
//                                               return m.raycast(rays); });   // std::future
//
// A snapshot never changes: it is a copy of the host map taken when it was published, so a
// query never sees a half-applied batch and never waits for mapping in progress. Answers are
// the CPU references' bit for bit (voxen/query/cpu_queries.hpp), on the GPU for large
// batches (the Mapper's query scheduler, separate from the one that maps) and on the calling
// thread for small ones (MapperRunOptions::hostQueryVoxels).
//
// Threads: every method may be called from any thread, on the same snapshot or on copies
// (copies share the map). GPU batches of the snapshots of one Mapper take turns on its one
// query scheduler; small batches run on the caller's thread without a lock. A snapshot stays
// valid after its Mapper is gone, as long as the Context lives.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <future>
#include <memory>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include "voxen/map/map.hpp"
#include "voxen/map/map_file.hpp"
#include "voxen/query/query_types.hpp"

namespace voxen {

class QueryLane;

class MapSnapshot {
 public:
  // No map: valid() is false and every query throws Error.
  MapSnapshot() = default;

  bool valid() const { return state_ != nullptr; }
  // The map as it was published (read-only).
  const OccupancyMap& map() const;
  // 1 for a Mapper's first snapshot, one more for each later one that differs from it.
  uint64_t version() const;

  // The batched queries of voxen/query (answers as there; the span forms write element i for
  // item i and throw QueryOutputError when the span is too small).
  std::vector<OccupancyAnswer> occupancy(std::span<const glm::dvec3> points) const;
  std::vector<RayHit> raycast(std::span<const QueryRay> rays, const RaycastOptions& options = {}) const;
  // Throws Error when the snapshot has no clearance layer (Mapper::computeClearance before it).
  std::vector<ClearanceSample> clearance(std::span<const glm::dvec3> points) const;
  BoxVoxels voxelsInBox(const QueryBox& box, VoxelClass voxelClass) const;
  void occupancy(std::span<const glm::dvec3> points, std::span<OccupancyAnswer> answers) const;
  void raycast(std::span<const QueryRay> rays, std::span<RayHit> hits, const RaycastOptions& options = {}) const;
  void clearance(std::span<const glm::dvec3> points, std::span<ClearanceSample> samples) const;

  // Runs `work(*this)` on the Mapper's query thread and returns its result as a std::future
  // (an exception it throws comes out of get()): a planner overlaps its own work with the
  // queries. `work` must own what it reads (capture vectors by value, not spans).
  template <class Work>
  auto async(Work work) const -> std::future<std::invoke_result_t<Work&, const MapSnapshot&>> {
    using Result = std::invoke_result_t<Work&, const MapSnapshot&>;
    auto task = std::make_shared<std::packaged_task<Result()>>(
        [self = *this, work = std::move(work)]() mutable -> Result { return work(self); });
    std::future<Result> result = task->get_future();
    post([task] { (*task)(); });
    return result;
  }

  // Writes the snapshot's map (atomically, as saveMap does).
  void save(const std::filesystem::path& path, const MapSaveOptions& options = {}) const;

  // For the Mapper.
  struct State;
  explicit MapSnapshot(std::shared_ptr<const State> state) : state_(std::move(state)) {}

 private:
  const State& state() const;
  // Queues `task` on the query thread.
  void post(std::function<void()> task) const;
  std::shared_ptr<const State> state_;
};

}  // namespace voxen
