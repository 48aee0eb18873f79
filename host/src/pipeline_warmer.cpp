#include "voxen/host/pipeline_warmer.hpp"

#include "voxen/host/freed_heap.hpp"
#include "voxen/host/shader_library.hpp"
#include "voxen/host/thread_start.hpp"

namespace voxen {

PipelineWarmer::PipelineWarmer(unsigned threads) : threads_(threads) {}

PipelineWarmer::~PipelineWarmer() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    waiting_.clear();
  }
  changed_.notify_all();
  for (std::thread& worker : workers_) worker.join();
}

void PipelineWarmer::add(std::shared_ptr<Kernel> kernel) {
  {
    std::lock_guard lock(mutex_);
    waiting_.push_back(std::move(kernel));
  }
  // Started on demand: a library whose runs create nothing ahead has no threads. With none
  // started, pipeline() creates every pipeline at its first dispatch as before.
  if (workers_.empty() && threads_ > 0) startThreads(workers_, threads_, "pipeline creation", [this](unsigned) { work(); });
  changed_.notify_one();
}

void PipelineWarmer::drain() {
  std::unique_lock lock(mutex_);
  waiting_.clear();
  changed_.wait(lock, [this] { return busy_ == 0; });
}

void PipelineWarmer::work() {
  std::unique_lock lock(mutex_);
  for (;;) {
    changed_.wait(lock, [this] { return stopping_ || !waiting_.empty(); });
    if (stopping_) return;
    std::shared_ptr<Kernel> kernel = std::move(waiting_.back());
    waiting_.pop_back();
    ++busy_;
    lock.unlock();
    try {
      kernel->createAhead();
    } catch (...) {
      // The recording thread meets the same failure at the kernel's first dispatch and
      // reports it there, where the caller can catch it.
    }
    kernel.reset();
    lock.lock();
    --busy_;
    // The driver's compiler leaves this thread's malloc arena holding tens of megabytes it
    // has freed (measured: +20 MB peak resident on lavapipe): give them back once the
    // list is done.
    if (waiting_.empty() && busy_ == 0) returnFreedHeap();
    changed_.notify_all();
  }
}

}  // namespace voxen
