#include "voxen/occupancy/prepared_ray_stream.hpp"

#include "voxen/host/thread_cpu_clock.hpp"

namespace voxen {

PreparedRayStream::PreparedRayStream(Source source, const OccupancyModel& model, const IntegrationOptions& options,
                                     uint32_t maxCrossingsPerSegment, size_t depth)
    : source_(std::move(source)),
      model_(model),
      options_(options),
      maxCrossings_(maxCrossingsPerSegment),
      depth_(depth == 0 ? 1 : depth),
      worker_([this] { work(); }) {}

PreparedRayStream::~PreparedRayStream() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  space_.notify_all();
  worker_.join();
}

void PreparedRayStream::work() {
  const double start = threadCpuSeconds();
  try {
    for (;;) {
      Item item;
      {
        std::unique_lock lock(mutex_);
        space_.wait(lock, [&] { return stop_ || queue_.size() < depth_; });
        if (stop_) break;
        if (!spare_.empty()) {
          item.rays = std::move(spare_.back());
          spare_.pop_back();
        }
      }
      const std::span<const Ray> chunk = source_(item.progress);
      if (chunk.empty()) break;
      prepareRays(chunk, model_, options_, maxCrossings_, item.rays);
      {
        std::lock_guard lock(mutex_);
        queue_.push_back(std::move(item));
        workerSeconds_ = threadCpuSeconds() - start;
      }
      ready_.notify_one();
    }
  } catch (...) {
    std::lock_guard lock(mutex_);
    error_ = std::current_exception();
  }
  {
    std::lock_guard lock(mutex_);
    done_ = true;
    workerSeconds_ = threadCpuSeconds() - start;
  }
  ready_.notify_all();
}

bool PreparedRayStream::next(PreparedRays& out, uint64_t& progress) {
  std::unique_lock lock(mutex_);
  ready_.wait(lock, [&] { return !queue_.empty() || done_; });
  if (queue_.empty()) {
    if (error_) std::rethrow_exception(error_);
    return false;
  }
  std::swap(out, queue_.front().rays);
  progress = queue_.front().progress;
  spare_.push_back(std::move(queue_.front().rays));  // the consumer's previous chunk, for reuse
  queue_.pop_front();
  lock.unlock();
  space_.notify_one();
  return true;
}

double PreparedRayStream::workerCpuSeconds() const {
  std::lock_guard lock(mutex_);
  return workerSeconds_;
}

}  // namespace voxen
