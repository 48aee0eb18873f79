#pragma once
// What the map benchmarks (bench map, bench ndt) decide before they run: how the memory
// budget is split between the rays they hold, the GPU region cache and the host maps (a
// default run fits any budget, with what was reduced said), and how long the run will take,
// said up front when that is long (from a short trial, after the warm-up).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>

#include "cli_options.hpp"
#include "report/text_format.hpp"
#include "voxen/map/memory_budget.hpp"

namespace voxen::cli {

struct BenchMemoryRequest {
  uint64_t budgetBytes = 0;
  std::string budgetHint;       // ends the errors ("raise --memory-budget (now 512 MB)")
  uint64_t rays = 0;            // wanted
  bool raysGiven = false;       // --rays was given: never reduced, refused when it does not fit
  uint64_t raysPerScan = 1;     // rays come in whole scans
  uint64_t bytesPerRay = 0;     // held in host memory
  uint64_t cacheBytes = 0;      // the GPU region cache wanted
  uint64_t minCacheBytes = 0;   // the smallest cache the run works with
  unsigned maps = 1;            // host maps held at once
};

struct BenchMemoryPlan {
  uint64_t rays = 0;
  uint64_t cacheBytes = 0;
  uint64_t mapBytes = 0;        // each host map's share
  std::string reduced;          // what was made smaller than asked, for the user; empty when nothing
};

// The rays first (they are the benchmark), then the cache takes at most a third of what is
// left (512 MiB of the 2 GiB default budget), so that the host maps keep the rest: they are
// the larger share where voxels are large (NDT).
inline BenchMemoryPlan planBenchMemory(const BenchMemoryRequest& r) {
  const uint64_t floor = r.minCacheBytes + (uint64_t(16) << 20);  // the smallest cache, and a little for the maps
  BenchMemoryPlan plan;
  plan.rays = r.rays;
  if (r.budgetBytes < floor + plan.rays * r.bytesPerRay) {
    const uint64_t rays = r.raysGiven ? r.rays : r.raysPerScan;  // without --rays, one scan is the least
    if (r.raysGiven || r.budgetBytes < floor + rays * r.bytesPerRay) {
      const uint64_t bytes = floor + rays * r.bytesPerRay;
      throw UsageError((r.raysGiven ? "--rays " + std::to_string(rays) : "even one scan of " + withCommas(rays) + " rays") +
                       " held in memory beside a GPU cache and host maps of at least " + mebibytes(floor) + " needs " +
                       mebibytes(bytes) + " (" + std::to_string(bytes) + " bytes), more than the memory budget of " +
                       mebibytes(r.budgetBytes) + ": " + r.budgetHint + (r.raysGiven ? " or lower --rays" : ""));
    }
    plan.rays = (r.budgetBytes - floor) / r.bytesPerRay / r.raysPerScan * r.raysPerScan;
    plan.reduced = withCommas(plan.rays) + " rays instead of the default " + withCommas(r.rays) + ", which with a GPU " +
                   "cache and host maps do not fit the memory budget of " + mebibytes(r.budgetBytes);
  }
  const uint64_t left = r.budgetBytes - plan.rays * r.bytesPerRay;
  plan.cacheBytes = std::max(r.minCacheBytes, std::min(r.cacheBytes, left / 3));
  plan.mapBytes = (left - plan.cacheBytes) / std::max(r.maps, 1u);
  if (plan.cacheBytes < r.cacheBytes)
    plan.reduced += (plan.reduced.empty() ? "" : "; ") + std::string("a GPU region cache of ") +
                    mebibytes(plan.cacheBytes) + " instead of " + mebibytes(r.cacheBytes) +
                    " (a third of what the rays leave of the memory budget of " + mebibytes(r.budgetBytes) +
                    "; the host maps get the rest, " + mebibytes(plan.mapBytes) + " each)";
  return plan;
}

// The smallest GPU cache for rays of `maxRange` metres: the regions one can cross (a ray
// crosses at most range / edge + 1 region boundaries along each axis), and 16 MiB at least.
inline uint64_t minimumBenchCache(double maxRange, double resolution, int regionSize, uint64_t bytesPerRegion) {
  const double edge = resolution * regionSize;
  const uint64_t crossed = uint64_t(3.0 * (std::ceil(maxRange / edge) + 1.0) + 1.0);
  return std::max<uint64_t>(uint64_t(16) << 20, crossed * bytesPerRegion);
}

inline std::string durationText(double seconds) {
  char text[64];
  if (seconds < 120) std::snprintf(text, sizeof text, "%.0f s", seconds);
  else if (seconds < 7200) std::snprintf(text, sizeof text, "%.0f min", seconds / 60);
  else std::snprintf(text, sizeof text, "%.1f hours", seconds / 3600);
  return text;
}

// Says on stderr, before a long run starts, how long it will take and why.
inline void announceLongRun(const char* command, double seconds, const std::string& why) {
  constexpr double kLong = 60.0;
  if (!(seconds > kLong)) return;
  std::fprintf(stderr, "voxen %s: this run will take about %s: %s\n", command, durationText(seconds).c_str(), why.c_str());
  std::fflush(stderr);
}

// After the timed runs: pipelines dispatched for the first time while timing (lavapipe compiles
// them then) mean the warm-up missed them, and the figures hold compile time.
inline void warnColdPipelines(const char* command, uint64_t pipelines) {
  if (pipelines == 0) return;
  std::fprintf(stderr,
               "voxen %s: warning: %llu pipeline(s) were first used during the timed runs, so their compile time is "
               "in the figures (the warm-up did not run them)\n",
               command, (unsigned long long)pipelines);
}

}  // namespace voxen::cli
