#pragma once
// The voxel walk shared by the CPU reference and the GPU (shaders/occupancy/ray_walk.glsl
// mirrors this file operation for operation, so both visit exactly the same voxels).
//
// A ray runs from its origin voxel S to its sample voxel E. In voxel units relative to S's
// lower corner it starts at o (each component in [0,1)) and moves by d. Along axis a it
// crosses |E_a - S_a| voxel faces; face j (0-based) lies at p = j + 1 when stepping up or
// p = -j when stepping down, and is crossed at t = (p - o_a) * invD_a, where invD_a is 1/d_a
// rounded once per ray (crossingReciprocal). Every crossing is computed in float from
// scratch (never accumulated), so the same crossing has the same t in every walk; it takes a
// subtraction and a multiplication, both correctly rounded on every Vulkan device, so the
// GPU's inner loop divides nowhere and needs no double (shaders/occupancy/crossing_time.glsl
// says why that matters). Along one axis the crossings are monotone in j (p - o grows with
// j, invD has one sign), which the merge, the segments and regionsOnRay rely on. The walk
// is the crossings of all axes merged by (t, axis); the voxel entered at each crossing is
// updated. Reverse walks take the same crossings in the opposite order, so they visit the
// same voxels. Because every crossing's t is known in closed form, a walk can start
// anywhere: long rays are cut into segments of the t range, one GPU invocation each.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "voxen/gpu/occupancy/occupancy_shared.h"
#include <glm/vec3.hpp>

#include "voxen/map/map.hpp"
#include "voxen/occupancy/integration_options.hpp"

namespace voxen {

// Per-ray flags after preparation (what the sample voxel receives): the GPU's GpuRay::flags,
// defined in shaders/occupancy/occupancy_shared.h.
enum PreparedRayFlag : uint32_t {
  kSampleHit = gpu::kSampleHit,
  kSkipSample = gpu::kSkipSample,
  kSkipOrigin = gpu::kSkipOrigin,
};

struct PreparedRay {
  VoxelCoord start, end;
  float o[3] = {0, 0, 0};
  float d[3] = {0, 0, 0};
  float invD[3] = {0, 0, 0};    // crossingReciprocal(d)
  int32_t n[3] = {0, 0, 0};     // faces crossed per axis
  int32_t step[3] = {0, 0, 0};  // -1, 0 or +1
  double touchTime = 0.0;       // the ray's time in seconds, at least 0 (the touch-time layer's value)
  uint32_t flags = 0;
  uint32_t meanPacked = 0;      // sample offset in its voxel, 10 bits per axis (x lowest)
  float intensity = 0.0f;       // the return's intensity (NDT-TM)
  uint32_t crossings() const { return uint32_t(n[0] + n[1] + n[2]); }
};

// Largest |voxel coordinate| a ray's origin or (clipped) sample may have. Region keys times
// the region size (at most 128), the per-axis face counts |E - S|, the crossing totals and
// the GPU's int32 voxel arithmetic all stay well inside int32 below it. At 0.1 m this is
// about 53,000 km from the map's origin.
inline constexpr double kMaxVoxelCoordinate = double(int64_t(1) << 29);

// Why a ray cannot be walked. Both integrators skip such rays and count them
// (IntegrationStats::rejectedRays), so the GPU and CPU maps stay equal.
enum class RayFault { None, NonFinite, TooFar, NonFiniteIntensity };
// NDT-TM folds each return's intensity into its voxel's statistics, which one NaN or
// infinity would spoil for good: such rays are skipped (other modes do not read intensity).
inline bool intensityUsable(const Ray& ray, const IntegrationOptions& options) {
  return options.ndt.mode != NdtMode::Tm || std::isfinite(ray.intensity);
}
RayFault checkRay(const Ray& ray, const OccupancyModel& model, const IntegrationOptions& options);
const char* rayFaultText(RayFault fault);

// The sample after clipping at options.maxRange (prepareRay's end point).
glm::dvec3 clippedSample(const Ray& ray, const IntegrationOptions& options, bool* clipped = nullptr);

// Regions the walk of r enters, computed from its end points without walking: each region
// face crossed adds one (regionsOnRay returns exactly this many keys).
inline uint64_t regionCountOnRay(const PreparedRay& r, int32_t regionSize) {
  uint64_t count = 1;
  const int32_t s[3] = {r.start.x, r.start.y, r.start.z}, e[3] = {r.end.x, r.end.y, r.end.z};
  // Power-of-two sizes (the default 32) take an arithmetic shift, which rounds towards -inf
  // as floorDiv does: the GPU integrator counts every ray's regions, and six integer
  // divisions cost more than the rest of its per-ray work.
  if ((regionSize & (regionSize - 1)) == 0) {
    const int shift = std::countr_zero(uint32_t(regionSize));
    for (int a = 0; a < 3; ++a) count += uint64_t(std::abs(int64_t(e[a] >> shift) - (s[a] >> shift)));
    return count;
  }
  for (int a = 0; a < 3; ++a) count += uint64_t(std::abs(int64_t(floorDiv(e[a], regionSize)) - floorDiv(s[a], regionSize)));
  return count;
}

// Converts a ray (double, metres) for walking: clips it at options.maxRange (a clipped
// ray's end is free), applies the flags. `clipped` reports whether clipping happened.
PreparedRay prepareRay(const Ray& ray, const OccupancyModel& model, const IntegrationOptions& options,
                       bool* clipped = nullptr);

// checkRay and prepareRay in one: the voxel coordinates are divided once and checked where
// prepareRay computes them (the same values checkRay tests, so the same rays are refused).
// `out` is filled only when the ray can be walked (RayFault::None).
RayFault checkAndPrepareRay(const Ray& ray, const OccupancyModel& model, const IntegrationOptions& options,
                            PreparedRay& out, bool* clipped = nullptr);

// 1/d rounded once (IEEE float division is exactly rounded, as exactDiv on the GPU), 0 where
// d is 0: such an axis has no faces to cross, and a length that rounds to 0 in float then
// crosses at t = 0 instead of NaN. shaders/occupancy/crossing_time.glsl is its GPU twin.
inline float crossingReciprocal(float d) { return d != 0.0f ? 1.0f / d : 0.0f; }

// t of face j along axis a (crossingAt in crossing_time.glsl).
inline float crossingT(const PreparedRay& r, int a, int32_t j) {
  const float p = r.step[a] > 0 ? float(j + 1) : float(-j);
  return (p - r.o[a]) * r.invD[a];
}

// How many faces along axis a are crossed at t < T.
inline int32_t crossingsBefore(const PreparedRay& r, int a, float T) {
  const int32_t n = r.n[a];
  if (n == 0 || T == -INFINITY) return 0;
  if (T == INFINITY) return n;
  const float guess = r.step[a] > 0 ? std::ceil(r.o[a] + T * r.d[a] - 1.0f) : std::ceil(T * -r.d[a] - r.o[a]);
  int32_t count = int32_t(std::clamp(guess, 0.0f, float(n)));
  while (count > 0 && crossingT(r, a, count - 1) >= T) --count;
  while (count < n && crossingT(r, a, count) < T) ++count;
  return count;
}

// Number of segments so that none has more than `maxCrossings` crossings (+3 at most from
// the per-axis rounding of the t boundaries).
inline uint32_t segmentCount(const PreparedRay& r, uint32_t maxCrossings) {
  const uint32_t c = r.crossings();
  return c <= maxCrossings ? 1u : (c + maxCrossings - 1) / maxCrossings;
}

// Lower t bound of segment s of m (segment 0 starts at -inf, segment m at +inf).
inline float segmentBound(uint32_t s, uint32_t m) {
  if (s == 0) return -INFINITY;
  if (s >= m) return INFINITY;
  return float(s) / float(m);
}

// Calls visit(voxel, tEnter, tExit) for every voxel of segment s (of m) in walk order. The
// origin voxel belongs to segment 0 (tEnter 0); each other voxel to the segment holding the
// crossing that enters it. tExit is the next crossing's t, or 1 past the last voxel.
template <class Visit>
void walkSegment(const PreparedRay& r, uint32_t s, uint32_t m, bool reverse, Visit&& visit) {
  const float lo = segmentBound(s, m), hi = segmentBound(s + 1, m);
  int32_t next[3], last[3];  // per axis: first crossing index >= lo, first index >= hi
  for (int a = 0; a < 3; ++a) {
    next[a] = crossingsBefore(r, a, lo);
    last[a] = crossingsBefore(r, a, hi);
  }
  auto tOf = [&](int a, int32_t j) { return j < r.n[a] ? crossingT(r, a, j) : INFINITY; };
  // The first crossing at or after `hi` (exit of the segment's last voxel).
  float tBeyond = std::min({tOf(0, last[0]), tOf(1, last[1]), tOf(2, last[2])});
  tBeyond = std::min(tBeyond, 1.0f);
  // The next (forward) or previous (reverse) crossing's t per axis, recomputed only for the
  // axis that stepped: the same closed-form values, a third of the work.
  if (!reverse) {
    VoxelCoord v{r.start.x + r.step[0] * next[0], r.start.y + r.step[1] * next[1], r.start.z + r.step[2] * next[2]};
    float tn[3];
    for (int a = 0; a < 3; ++a) tn[a] = next[a] < last[a] ? crossingT(r, a, next[a]) : 0.0f;
    float tEnter = 0.0f;
    bool pending = s == 0;  // the origin voxel is visited before the first crossing
    for (;;) {
      int best = -1;
      for (int a = 0; a < 3; ++a)
        if (next[a] < last[a] && (best < 0 || tn[a] < tn[best])) best = a;
      if (best < 0) break;
      const float bestT = tn[best];
      if (pending) visit(v, std::max(tEnter, 0.0f), std::min(bestT, 1.0f));
      (&v.x)[best] += r.step[best];
      ++next[best];
      if (next[best] < last[best]) tn[best] = crossingT(r, best, next[best]);
      tEnter = bestT;
      pending = true;
    }
    if (pending) visit(v, std::clamp(tEnter, 0.0f, 1.0f), tBeyond);
  } else {
    VoxelCoord v{r.start.x + r.step[0] * last[0], r.start.y + r.step[1] * last[1], r.start.z + r.step[2] * last[2]};
    float tp[3];
    for (int a = 0; a < 3; ++a) tp[a] = last[a] > next[a] ? crossingT(r, a, last[a] - 1) : 0.0f;
    float tExit = tBeyond;
    for (;;) {
      int best = -1;
      for (int a = 2; a >= 0; --a)  // ties: the reverse of the forward order
        if (last[a] > next[a] && (best < 0 || tp[a] > tp[best])) best = a;
      if (best < 0) break;
      const float bestT = tp[best];
      visit(v, std::clamp(bestT, 0.0f, 1.0f), std::max(tExit, 0.0f));
      (&v.x)[best] -= r.step[best];
      --last[best];
      if (last[best] > next[best]) tp[best] = crossingT(r, best, last[best] - 1);
      tExit = bestT;
    }
    if (s == 0) visit(v, 0.0f, std::clamp(tExit, 0.0f, 1.0f));
  }
}

// The record the GPU passes read (occupancy_shared.h GpuRay): the prepared ray, its segment
// count, and where its region list and segments start in the batch's arrays.
inline gpu::GpuRay toGpuRay(const PreparedRay& r, uint32_t segments, uint32_t slotBase, uint32_t segmentBase) {
  gpu::GpuRay g{};
  g.o = {r.o[0], r.o[1], r.o[2]};
  g.intensity = r.intensity;
  g.d = {r.d[0], r.d[1], r.d[2]};
  static_assert(sizeof(g.touchTime) == sizeof(r.touchTime));
  std::memcpy(&g.touchTime, &r.touchTime, sizeof(double));
  g.meanPacked = r.meanPacked;
  g.start = {r.start.x, r.start.y, r.start.z};
  g.end = {r.end.x, r.end.y, r.end.z};
  g.flags = r.flags;
  g.segments = segments;
  g.slotBase = slotBase;
  g.segmentBase = segmentBase;
  return g;
}

// Every region the walk touches, in walk order (forward), each once per entry.
std::vector<RegionKey> regionsOnRay(const PreparedRay& r, int32_t regionSize);
// The same into `out` (cleared first), so a caller walking many rays reuses one buffer.
void regionsOnRay(const PreparedRay& r, int32_t regionSize, std::vector<RegionKey>& out);

}  // namespace voxen
