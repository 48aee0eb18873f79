#pragma once
// The calling thread's own CPU time: what the thread ran, not what it waited for (a GPU
// fence, a full queue, another process on the core), so that host costs can be measured
// while the GPU, or lavapipe's worker threads, run beside it.
#include <cerrno>
#include <cstring>
#include <ctime>
#include <string>

#include "voxen/host/error.hpp"

namespace voxen {

// Seconds of CPU time the calling thread has used (CLOCK_THREAD_CPUTIME_ID, nanosecond
// resolution on Linux). It is a system call (the vDSO does not serve CPU-time clocks), a
// few hundred nanoseconds: read it per batch or per chunk, never per ray.
inline double threadCpuSeconds() {
  timespec t{};
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t) != 0)
    throw Error(std::string("clock_gettime(CLOCK_THREAD_CPUTIME_ID) failed: ") + std::strerror(errno));
  return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
}

}  // namespace voxen
