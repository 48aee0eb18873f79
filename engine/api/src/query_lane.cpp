#include "query_lane.hpp"

#include "voxen/context.hpp"
#include "voxen/host/scheduler.hpp"

namespace voxen {

QueryLane::QueryLane(Context& context, QueryLaneSettings settings) : context_(context), settings_(settings) {}

QueryLane::~QueryLane() {
  {
    const std::lock_guard lock(tasks_->mutex);
    tasks_->stopping = true;
  }
  tasks_->wake.notify_all();
  if (!worker_.joinable()) return;
  // Every queued task holds a snapshot, and so this lane: none is left. The last one may be
  // dropped by the worker itself, which cannot join itself; it is let go and ends.
  if (worker_.get_id() == std::this_thread::get_id())
    worker_.detach();
  else
    worker_.join();
}

bool QueryLane::onHost(uint64_t voxels) const {
  return settings_.cpuOnly || (settings_.hostQueryVoxels > 0 && voxels <= settings_.hostQueryVoxels);
}

GpuQueries& QueryLane::queriesFor(const std::shared_ptr<const OccupancyMap>& map) {
  if (!scheduler_) scheduler_ = context_.makeScheduler();
  if (!queries_ || loaded_ != map) {
    queries_.reset();
    loaded_ = map;
    QueryOptions options;
    options.cacheBytes = settings_.cacheBytes;
    queries_ = std::make_unique<GpuQueries>(*scheduler_, *loaded_, options);
  }
  return *queries_;
}

void QueryLane::post(std::function<void()> task) {
  {
    const std::lock_guard lock(tasks_->mutex);
    tasks_->queue.push_back(std::move(task));
    // Started at the first task; the thread owns a share of the queue.
    if (!worker_.joinable()) worker_ = std::thread([tasks = tasks_] { work(*tasks); });
  }
  tasks_->wake.notify_one();
}

void QueryLane::work(Tasks& tasks) {
  for (;;) {
    std::function<void()> task;
    {
      std::unique_lock lock(tasks.mutex);
      tasks.wake.wait(lock, [&] { return tasks.stopping || !tasks.queue.empty(); });
      if (tasks.queue.empty()) return;
      task = std::move(tasks.queue.front());
      tasks.queue.pop_front();
    }
    // A packaged_task keeps its exception for the future: nothing escapes here. Dropping it
    // may destroy the lane (see ~QueryLane); `tasks` stays alive through the thread's share.
    task();
  }
}

}  // namespace voxen
