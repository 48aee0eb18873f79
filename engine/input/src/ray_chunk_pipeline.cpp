#include "ray_chunk_pipeline.hpp"

#include "voxen/host/thread_start.hpp"

#include <algorithm>
#include <chrono>
#include <utility>

namespace voxen::detail {

RayChunkPipeline::RayChunkPipeline(uint64_t chunks, unsigned threads, size_t capacity, bool inOrderRead, MakeChunk make)
    : chunks_(chunks), make_(std::move(make)), inOrderRead_(inOrderRead), slots_(std::max<size_t>(capacity, 1)),
      window_(slots_.size()) {
  // Only the threads the system grants run; the ring stays as deep as it was asked for (its
  // empty slots cost nothing), but workers run ahead by twice their number at most. (Lowering
  // the window wakes no one: a worker already ahead of it only finishes its chunk.)
  const unsigned started = startThreads(threads_, std::max(threads, 1u), "cloud reader", [this](unsigned) { work(); });
  std::lock_guard<std::mutex> lock(mutex_);
  window_ = std::min<size_t>(slots_.size(), std::max<size_t>(2 * size_t(started), 1));
}

RayChunkPipeline::~RayChunkPipeline() { stop(); }

void RayChunkPipeline::stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  space_.notify_all();
  for (auto& t : threads_)
    if (t.joinable()) t.join();
  threads_.clear();
}

void RayChunkPipeline::work() {
  std::vector<double> rows;  // this worker's scratch, reused chunk after chunk
  for (;;) {
    // An in-order source is claimed and read under readMutex_, so chunk k is read before
    // k + 1; makeRayChunk releases it once the rows are in, and the conversion overlaps.
    std::unique_lock<std::mutex> readLock(readMutex_, std::defer_lock);
    if (inOrderRead_) readLock.lock();
    uint64_t k = 0;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      space_.wait(lock, [&] { return stopping_ || claimed_ >= chunks_ || claimed_ < taken_ + window_; });
      if (stopping_ || claimed_ >= chunks_) return;
      k = claimed_++;
    }
    if (k + 1 == chunks_) space_.notify_all();  // the last claim: idle workers may leave
    // The slot is this worker's alone: the consumer has taken its previous chunk, and no
    // other worker can claim k + size before the consumer takes k.
    Slot& slot = slots_[k % slots_.size()];
    make_(k, slot.chunk, rows, inOrderRead_ ? &readLock : nullptr);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      slot.ready = true;
    }
    ready_.notify_one();
  }
}

bool RayChunkPipeline::next(RayChunk& out, double& waitSeconds) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (taken_ >= chunks_) return false;
  Slot& slot = slots_[taken_ % slots_.size()];
  if (!slot.ready) {
    const auto start = std::chrono::steady_clock::now();
    ready_.wait(lock, [&] { return slot.ready; });
    waitSeconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  std::swap(out, slot.chunk);
  slot.ready = false;
  ++taken_;
  lock.unlock();
  space_.notify_one();
  return true;
}

}  // namespace voxen::detail
