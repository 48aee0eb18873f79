#pragma once
// Worker threads that make a RayReader's chunks in parallel and hand them to one consumer
// (the integration thread) in input order, through a bounded ring.
//
// Workers claim chunk numbers 0, 1, 2, ... in order and make each in the ring slot of its
// number; a worker waits while its chunk would be `capacity` or more ahead of the consumer,
// which bounds the memory and lets a slow consumer hold the workers back. The consumer takes
// chunk k only once it is finished, whatever order the workers finish in, so the rays, the
// counts and the first error it sees do not depend on the thread count. A stream that can
// only be read in order (ASCII) is claimed and read under one lock; the conversion of its
// rows still runs in parallel.
//
// Stopping: the destructor wakes every waiting worker, lets the ones making a chunk finish it
// (one chunk's work at most) and joins them all; a consumer that stops early, or unwinds from
// an exception, never leaves a thread behind or waiting.
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "ray_chunk.hpp"

namespace voxen::detail {

class RayChunkPipeline {
 public:
  // Makes chunk k into the given chunk with the worker's scratch rows; `readLock` is non-null
  // for an in-order source, held on entry, and must be released once the rows are read
  // (makeRayChunk's contract). Must not throw (errors travel in the chunk).
  using MakeChunk = std::function<void(uint64_t k, RayChunk& chunk, std::vector<double>& rows,
                                       std::unique_lock<std::mutex>* readLock)>;

  // Starts `threads` (>= 1) workers over chunks [0, chunks), or as many as the system grants
  // (startThreads): check started(), a pipeline without workers never makes a chunk.
  RayChunkPipeline(uint64_t chunks, unsigned threads, size_t capacity, bool inOrderRead, MakeChunk make);
  ~RayChunkPipeline();
  RayChunkPipeline(const RayChunkPipeline&) = delete;
  RayChunkPipeline& operator=(const RayChunkPipeline&) = delete;

  // Waits for the next chunk in order and swaps it into `out` (whose old contents go back to
  // the ring, so their memory is reused); false once every chunk has been taken. The wall
  // time spent waiting is added to `waitSeconds`.
  bool next(RayChunk& out, double& waitSeconds);
  unsigned started() const { return unsigned(threads_.size()); }

 private:
  void work();
  void stop();

  struct Slot {
    RayChunk chunk;
    bool ready = false;
  };

  const uint64_t chunks_;
  const MakeChunk make_;
  const bool inOrderRead_;
  std::vector<Slot> slots_;  // chunk k lives in slots_[k % size]
  size_t window_;            // how far ahead of the consumer workers may claim (<= slots)
  std::mutex mutex_;         // guards the counters and the ready flags
  std::condition_variable space_;  // workers: a slot came free, or stop
  std::condition_variable ready_;  // the consumer: a chunk is finished
  std::mutex readMutex_;           // in-order sources: claiming and reading a chunk
  uint64_t claimed_ = 0;           // chunks handed to workers
  uint64_t taken_ = 0;             // chunks the consumer has taken (their slots are free)
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace voxen::detail
