#pragma once
// A Mapper's query lane: where its snapshots' GPU queries run. It has a scheduler of its own
// (Context::makeScheduler()), so queries record and submit beside the mapping thread instead
// of waiting for it; the GPU queries loaded with the snapshot asked last (a batch on another
// snapshot loads that one); and one worker thread for MapSnapshot::async, started at the
// first task.
//
// Threads: everything here may be called from any thread. GPU batches take turns under the
// lane's lock (a scheduler records on one thread at a time); tasks run in the order posted.
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

#include "voxen/map/map.hpp"
#include "voxen/query/gpu_queries.hpp"

namespace voxen {

class Context;
class Scheduler;

struct QueryLaneSettings {
  uint64_t cacheBytes = 0;       // the query cache's device memory at most
  uint64_t hostQueryVoxels = 0;  // batches reading at most this many voxels run on the host
  bool cpuOnly = false;          // the CPU reference backend: every batch on the host
};

class QueryLane {
 public:
  QueryLane(Context& context, QueryLaneSettings settings);
  ~QueryLane();
  QueryLane(const QueryLane&) = delete;
  QueryLane& operator=(const QueryLane&) = delete;

  const QueryLaneSettings& settings() const { return settings_; }
  // Whether a batch reading `voxels` voxels runs on the calling thread's CPU.
  bool onHost(uint64_t voxels) const;

  // use(queries) with the GPU queries loaded with `map`, under the lane's lock.
  template <class Use>
  auto withGpu(const std::shared_ptr<const OccupancyMap>& map, Use&& use) {
    const std::lock_guard lock(gpuMutex_);
    return use(queriesFor(map));
  }

  // Runs `task` on the lane's worker thread, after the tasks posted before it.
  void post(std::function<void()> task);

 private:
  GpuQueries& queriesFor(const std::shared_ptr<const OccupancyMap>& map);

  Context& context_;
  QueryLaneSettings settings_;
  std::mutex gpuMutex_;
  // Destroyed in reverse: the queries (which record on the scheduler and read the map)
  // first, then the map they loaded, then the scheduler.
  std::unique_ptr<Scheduler> scheduler_;
  std::shared_ptr<const OccupancyMap> loaded_;
  std::unique_ptr<GpuQueries> queries_;

  // The worker's queue, shared with the worker: a task that drops the last snapshot destroys
  // the lane on the worker thread, which then must touch nothing of the lane.
  struct Tasks {
    std::mutex mutex;
    std::condition_variable wake;
    std::deque<std::function<void()>> queue;
    bool stopping = false;
  };
  static void work(Tasks& tasks);
  std::shared_ptr<Tasks> tasks_ = std::make_shared<Tasks>();
  std::thread worker_;
};

}  // namespace voxen
