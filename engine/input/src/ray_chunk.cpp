#include "ray_chunk.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "voxen/host/thread_cpu_clock.hpp"

namespace voxen::detail {

namespace {

// The rows become rays; non-finite ones are skipped. A point with a NaN is never looked up
// in the trajectory, so it counts as non-finite only.
void raysFromRows(const std::vector<double>& rows, size_t count, const RayRowLayout& layout,
                  const std::optional<glm::dvec3>& fixedOrigin, RayChunk& chunk) {
  const size_t ncol = layout.columns;
  chunk.rays.reserve(count);
  for (size_t r = 0; r < count; ++r) {
    const double* v = rows.data() + r * ncol;
    ++chunk.stats.points;
    Ray ray;
    ray.sample = {v[0], v[1], v[2]};
    size_t c = 3;
    bool finite = std::isfinite(v[0]) && std::isfinite(v[1]) && std::isfinite(v[2]);
    if (layout.hasTime) {
      ray.time = v[c++];
      finite = finite && std::isfinite(ray.time);
    }
    if (layout.hasOrigin) {
      ray.origin = {v[c], v[c + 1], v[c + 2]};
      finite = finite && std::isfinite(v[c]) && std::isfinite(v[c + 1]) && std::isfinite(v[c + 2]);
      c += 3;
    } else if (fixedOrigin) {
      ray.origin = *fixedOrigin;
    }
    if (layout.hasIntensity) {
      const double intensity = v[c++];
      // Kept as read: the integrator decides (NDT-TM skips such a ray, other modes do not read
      // intensity). A double past a float's range is infinite as a float.
      if (std::abs(intensity) <= double(std::numeric_limits<float>::max())) {
        ray.intensity = float(intensity);
      } else {
        const float inf = std::numeric_limits<float>::infinity();
        ray.intensity = std::isnan(intensity) ? std::numeric_limits<float>::quiet_NaN() : intensity > 0 ? inf : -inf;
        if (finite) ++chunk.stats.nonFiniteIntensity;
      }
    }
    if (!finite) {
      ++chunk.stats.skippedNonFinite;
      continue;
    }
    chunk.rays.push_back(ray);
  }
}

// The ray's sample in the sensor's frame: relative to its origin, turned back by the
// trajectory's orientation where it has one.
glm::dvec3 sensorFramePoint(const Ray& ray, const Trajectory* trajectory) {
  const glm::dvec3 offset = ray.sample - ray.origin;
  if (!trajectory || !trajectory->hasOrientation()) return offset;
  return glm::conjugate(trajectory->orientationAt(ray.time)) * offset;
}

// Origins from the trajectory (rays outside its span dropped in place), returns from the
// robot dropped, and the time range.
void interpolateOrigins(const Trajectory* trajectory, const SensorExclusion* exclusion, RayChunk& chunk) {
  std::vector<Ray>& rays = chunk.rays;
  RayLoadStats& s = chunk.stats;
  size_t kept = 0;
  size_t segment = 0;  // the trajectory segment of the previous point: the next is usually there
  for (size_t i = 0; i < rays.size(); ++i) {
    Ray& ray = rays[i];
    if (trajectory) {
      const auto origin = trajectory->tryPositionAt(ray.time, segment);
      if (!origin) {
        ++s.skippedOutsideTrajectory;
        chunk.outsideMin = std::min(chunk.outsideMin, ray.time);
        chunk.outsideMax = std::max(chunk.outsideMax, ray.time);
        continue;
      }
      ray.origin = *origin;
    }
    if (exclusion) {
      const SensorExclusion::Verdict verdict = exclusion->judge(sensorFramePoint(ray, trajectory));
      if (verdict != SensorExclusion::Verdict::Kept) {
        ++(verdict == SensorExclusion::Verdict::InBox ? s.skippedInBox : s.skippedNearSensor);
        continue;
      }
    }
    if (s.rays == 0) {
      s.timeMin = s.timeMax = ray.time;
    } else {
      s.timeMin = std::min(s.timeMin, ray.time);
      s.timeMax = std::max(s.timeMax, ray.time);
    }
    ++s.rays;
    if (kept != i) rays[kept] = ray;  // only once a point was dropped: no copy per ray
    ++kept;
  }
  rays.resize(kept);
}

}  // namespace

void makeRayChunk(PointSource& source, uint64_t k, const RayRowLayout& layout, const ChunkRules& rules,
                  std::vector<double>& rows, RayChunk& chunk, std::unique_lock<std::mutex>* readLock) {
  chunk.rays.clear();
  chunk.stats = {};
  chunk.outsideMin = std::numeric_limits<double>::infinity();
  chunk.outsideMax = -std::numeric_limits<double>::infinity();
  chunk.times = {};
  chunk.error = nullptr;
  chunk.orderTime.reset();
  try {
    // Thread CPU time, read per chunk: what this thread ran, not what it waited for.
    const double readStart = threadCpuSeconds();
    size_t count = source.read(k, rows);
    if (readLock) readLock->unlock();  // the next chunk of a stream may be read from here on
    SourceSkips skips;
    count = source.finish(k, rows, count, skips);
    chunk.stats.points += skips.outsidePoses;
    chunk.stats.skippedOutsideTrajectory += skips.outsidePoses;
    chunk.stats.points += skips.inBox + skips.nearSensor;
    chunk.stats.skippedInBox += skips.inBox;
    chunk.stats.skippedNearSensor += skips.nearSensor;
    chunk.orderTime = skips.orderTime;
    chunk.outsideMin = skips.outsideMin;
    chunk.outsideMax = skips.outsideMax;
    raysFromRows(rows, count, layout, rules.fixedOrigin, chunk);
    const double originStart = threadCpuSeconds();
    chunk.times.readSeconds = originStart - readStart;
    interpolateOrigins(rules.trajectory, rules.exclusion, chunk);
    chunk.times.originSeconds = threadCpuSeconds() - originStart;
  } catch (...) {
    if (readLock && readLock->owns_lock()) readLock->unlock();
    chunk.rays.clear();
    chunk.stats = {};
    chunk.error = std::current_exception();
  }
}

void addChunkTotals(const RayChunk& chunk, RayLoadStats& stats, RayReadTimes& times, double& outsideMin,
                    double& outsideMax) {
  stats += chunk.stats;
  outsideMin = std::min(outsideMin, chunk.outsideMin);
  outsideMax = std::max(outsideMax, chunk.outsideMax);
  times += chunk.times;  // a chunk's waitSeconds is 0: the reader's wait is counted by the reader
}

}  // namespace voxen::detail
