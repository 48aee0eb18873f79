#pragma once
// A thread that prepares rays for the GPU integrator ahead of it: it pulls chunks of rays
// from a source, prepares each (prepareRays) and hands them to the integration thread in
// input order through a bounded queue, so that the integration thread only copies records
// (GpuIntegrator::integrate(const PreparedRays&)). One worker, so the order is the
// source's; the map is the one integrate(span) builds from the same rays.
//
// The source runs on the worker thread (and only there), so a reader that is not
// thread-safe may be the source; what it reports (progress) travels with each chunk. An
// exception from the source or the preparation is rethrown by next() in order, after the
// chunks before it. The destructor stops the worker and joins it, also when the consumer
// stops early or unwinds.
#include <condition_variable>
#include <cstdint>
#include <deque>
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
                    uint32_t maxCrossingsPerSegment, size_t depth = 3);
  ~PreparedRayStream();
  PreparedRayStream(const PreparedRayStream&) = delete;
  PreparedRayStream& operator=(const PreparedRayStream&) = delete;

  // Waits for the next chunk and swaps it into `out` (its old memory is reused); false once
  // the source is exhausted. `progress` is the source's value for this chunk.
  bool next(PreparedRays& out, uint64_t& progress);
  // The worker's own CPU time so far (reading from the source and preparing), thread CPU clock.
  double workerCpuSeconds() const;

 private:
  struct Item {
    PreparedRays rays;
    uint64_t progress = 0;
  };
  void work();

  Source source_;
  OccupancyModel model_;
  IntegrationOptions options_;
  uint32_t maxCrossings_;
  size_t depth_;
  mutable std::mutex mutex_;
  std::condition_variable ready_, space_;
  std::deque<Item> queue_;
  std::vector<PreparedRays> spare_;  // consumed chunks' memory, for the worker to reuse
  std::exception_ptr error_;
  bool done_ = false, stop_ = false;
  double workerSeconds_ = 0.0;
  std::thread worker_;
};

}  // namespace voxen
