#pragma once
// Worker threads that prepare rays for the GPU integrator ahead of it: they pull chunks of
// rays from a source, prepare each (prepareRays), into the integrator's record pool when
// given one, and hand them to the integration thread in input order through a bounded ring,
// so that the integration thread does no work per ray
// (GpuIntegrator::integrate(const PreparedRays&)). The map is the one integrate(span)
// builds from the same rays, whatever the number of workers. A stream preparing into a pool
// is destroyed before the pool's integrator.
//
// The source is called by one worker at a time, in chunk order, under a lock, and its rays
// are copied before the lock is released: a reader that is not thread-safe and hands out
// views valid only until its next call may be the source. What it reports (progress)
// travels with each chunk. Workers claim chunk numbers in order and wait while their chunk
// would be `depth` or more ahead of the consumer. An exception from the source or the
// preparation is rethrown by next() when the consumer reaches that chunk, after the chunks
// before it. The destructor stops the workers and joins them, also when the consumer stops
// early or unwinds. When the system grants fewer threads than asked for (an address-space or
// thread limit), the stream runs with those it got, and with none next() prepares each chunk
// on the calling thread: the records are the same either way.
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <span>
#include <thread>
#include <vector>

#include "voxen/occupancy/prepared_rays.hpp"

namespace voxen {

class PreparedRayStream {
 public:
  // The next rays, valid until the source is called again (a reader's chunk in place, a
  // slice of an array), and `progress` (whatever the caller wants back with the chunk,
  // e.g. points read); an empty span at the end.
  using Source = std::function<std::span<const Ray>(uint64_t& progress)>;

  PreparedRayStream(Source source, const OccupancyModel& model, const IntegrationOptions& options,
                    uint32_t maxCrossingsPerSegment, unsigned workers = 1, size_t depth = 0,
                    RayRecordPool* pool = nullptr);
  ~PreparedRayStream();
  PreparedRayStream(const PreparedRayStream&) = delete;
  PreparedRayStream& operator=(const PreparedRayStream&) = delete;

  // Waits for the next chunk and swaps it into `out` (its old memory is reused); false once
  // the source is exhausted. `progress` is the source's value for this chunk.
  bool next(PreparedRays& out, uint64_t& progress);
  // The workers' CPU time (copying from the source and preparing), thread CPU clock, summed
  // over the workers (the calling thread's preparing when none started): complete once next()
  // has returned false.
  double workerCpuSeconds() const;

 private:
  struct Slot {
    PreparedRays rays;
    uint64_t progress = 0;
    std::exception_ptr error;
    bool ready = false;
  };
  void work();
  bool nextInline(PreparedRays& out, uint64_t& progress);  // no worker started

  Source source_;
  OccupancyModel model_;
  IntegrationOptions options_;
  uint32_t maxCrossings_;
  RayRecordPool* pool_;
  std::vector<Slot> slots_;  // chunk k lives in slots_[k % size] from its claim to its hand-over
  mutable std::mutex mutex_;
  std::condition_variable ready_, space_;
  uint64_t claimed_ = 0;              // chunks claimed by workers
  uint64_t consumed_ = 0;             // chunks handed to the consumer
  uint64_t end_ = UINT64_MAX;         // the number of chunks, once the source is exhausted or failed
  size_t window_ = 0;                 // how far ahead of the consumer workers may claim (<= slots)
  bool stop_ = false;
  double workerSeconds_ = 0.0;
  unsigned exited_ = 0;  // workers that have left their loop (and added their CPU time)
  std::vector<std::thread> workers_;
};

}  // namespace voxen
