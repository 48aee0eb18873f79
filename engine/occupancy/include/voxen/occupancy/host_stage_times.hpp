#pragma once
// Where the GPU integrator's host thread spent its own CPU time, by stage (thread CPU clock:
// waiting for the GPU does not count). This is the host's cost per ray, the ceiling on the
// rays per second any GPU can be fed from one thread (issue 14 measures it first).
#include <cstdint>

namespace voxen {

struct HostStageTimes {
  uint64_t rays = 0;  // rays passed to integrate(), rejected ones included
  // Per ray, the integration thread's only per-ray work: checking and preparing each ray
  // and writing its record into the record pool (integrate(span)); for rays prepared on
  // other threads (PreparedRays), handing runs of records to the batches, which is no work
  // per ray when they were prepared into the integrator's record pool (one block copy when not).
  // integrate(span)'s helper threads (spanPrepareThreads) prepare on their own clocks: only
  // the calling thread's share is here.
  double prepareSeconds = 0.0;
  // Per batch: recording and submitting region discovery on the GPU, and taking its list
  // of distinct regions (sorted) back.
  double discoverySeconds = 0.0;
  // Per batch (per region chunk): making the regions resident in the cache (loads,
  // evictions) and marking them changed in the map.
  double residencySeconds = 0.0;
  // Per batch (per region chunk), the rest of flush(): the slot tables, push constants,
  // recording and submit.
  double uploadSeconds = 0.0;
  // finish(): copying the cache back into the map and reading the counters (its last flush
  // counts as residency and upload).
  double readbackSeconds = 0.0;

  // Adds every stage's time and the rays of `more` (another integrator's, or an earlier one's).
  HostStageTimes& operator+=(const HostStageTimes& more) {
    rays += more.rays;
    prepareSeconds += more.prepareSeconds;
    discoverySeconds += more.discoverySeconds;
    residencySeconds += more.residencySeconds;
    uploadSeconds += more.uploadSeconds;
    readbackSeconds += more.readbackSeconds;
    return *this;
  }

  double totalSeconds() const {
    return prepareSeconds + discoverySeconds + residencySeconds + uploadSeconds + readbackSeconds;
  }
  // A stage's (or the total's) nanoseconds per ray; 0 without rays.
  double nsPerRay(double seconds) const { return rays > 0 ? seconds * 1e9 / double(rays) : 0.0; }
};

}  // namespace voxen
