#include "voxen/occupancy/prepared_ray_stream.hpp"

#include <algorithm>

#include "voxen/host/thread_cpu_clock.hpp"
#include "voxen/host/thread_start.hpp"

namespace voxen {

PreparedRayStream::PreparedRayStream(Source source, const OccupancyModel& model, const IntegrationOptions& options,
                                     uint32_t maxCrossingsPerSegment, unsigned workers, size_t depth,
                                     RayRecordPool* pool)
    : source_(std::move(source)), model_(model), options_(options), maxCrossings_(maxCrossingsPerSegment), pool_(pool) {
  workers = std::max(workers, 1u);
  slots_.resize(std::max<size_t>(depth, 2 * size_t(workers) + 1));
  window_ = slots_.size();
  // Only the workers the system grants run, and they run ahead by as much as they would
  // have been given for their number; with none, next() prepares each chunk itself.
  // (Lowering the window wakes no one: a worker already ahead of it only finishes its chunk.)
  const unsigned started = startThreads(workers_, workers, "ray preparing", [this](unsigned) { work(); });
  std::lock_guard lock(mutex_);
  window_ = std::min<size_t>(slots_.size(), std::max<size_t>(depth, 2 * size_t(started) + 1));
}

PreparedRayStream::~PreparedRayStream() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  space_.notify_all();
  for (std::thread& worker : workers_) worker.join();
}

void PreparedRayStream::work() {
  const double start = threadCpuSeconds();
  std::vector<Ray> rays;  // this worker's copy of its chunk
  for (;;) {
    std::unique_lock lock(mutex_);
    // Claim the next chunk once its slot is free: at most window_ chunks ahead of the consumer.
    space_.wait(lock, [&] { return stop_ || claimed_ >= end_ || claimed_ < consumed_ + window_; });
    if (stop_ || claimed_ >= end_) break;
    const uint64_t k = claimed_++;
    Slot& slot = slots_[k % slots_.size()];
    std::exception_ptr error;
    // The source in chunk order, under the lock: its view is copied before another worker calls it.
    try {
      const std::span<const Ray> chunk = source_(slot.progress);
      if (chunk.empty()) {
        end_ = k;
        lock.unlock();
        ready_.notify_all();
        space_.notify_all();
        break;
      }
      rays.assign(chunk.begin(), chunk.end());
    } catch (...) {
      error = std::current_exception();
      end_ = k + 1;  // nothing after a failed read
    }
    lock.unlock();
    if (!error) {
      try {
        prepareRays(rays, model_, options_, maxCrossings_, slot.rays, pool_);
      } catch (...) {
        error = std::current_exception();
      }
    }
    lock.lock();
    slot.error = error;
    slot.ready = true;
    lock.unlock();
    ready_.notify_all();
    space_.notify_all();
  }
  {
    std::lock_guard lock(mutex_);
    workerSeconds_ += threadCpuSeconds() - start;
    ++exited_;
  }
  ready_.notify_all();
}

bool PreparedRayStream::nextInline(PreparedRays& out, uint64_t& progress) {
  if (consumed_ >= end_) return false;
  const double start = threadCpuSeconds();
  const std::span<const Ray> chunk = source_(progress);
  if (chunk.empty()) {
    end_ = consumed_;
  } else {
    ++consumed_;
    prepareRays(chunk, model_, options_, maxCrossings_, out, pool_);
  }
  workerSeconds_ += threadCpuSeconds() - start;
  return !chunk.empty();
}

bool PreparedRayStream::next(PreparedRays& out, uint64_t& progress) {
  if (workers_.empty()) return nextInline(out, progress);
  std::unique_lock lock(mutex_);
  Slot& slot = slots_[consumed_ % slots_.size()];
  ready_.wait(lock, [&] { return slot.ready || consumed_ >= end_; });
  if (!slot.ready) {  // the end: once every worker has left, their CPU times are complete
    ready_.wait(lock, [&] { return exited_ == workers_.size(); });
    return false;
  }
  slot.ready = false;
  ++consumed_;
  if (slot.error) {
    const std::exception_ptr error = slot.error;
    slot.error = nullptr;
    lock.unlock();
    space_.notify_all();
    std::rethrow_exception(error);
  }
  std::swap(out, slot.rays);  // the consumer's previous chunk goes back to the ring for reuse
  progress = slot.progress;
  lock.unlock();
  space_.notify_all();
  return true;
}

double PreparedRayStream::workerCpuSeconds() const {
  std::lock_guard lock(mutex_);
  return workerSeconds_;
}

}  // namespace voxen
