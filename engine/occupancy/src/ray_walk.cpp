#include "voxen/occupancy/ray_walk.hpp"

#include <bit>

#include <glm/geometric.hpp>

namespace voxen {

glm::dvec3 clippedSample(const Ray& ray, const IntegrationOptions& options, bool* clipped) {
  glm::dvec3 sample = ray.sample;
  bool clip = false;
  if (options.maxRange > 0.0) {
    const double length = glm::length(sample - ray.origin);
    clip = length > options.maxRange;
    if (clip) sample = ray.origin + (sample - ray.origin) * (options.maxRange / length);
  }
  if (clipped) *clipped = clip;
  return sample;
}

RayFault checkRay(const Ray& ray, const OccupancyModel& model, const IntegrationOptions& options) {
  auto finite = [](const glm::dvec3& p) { return std::isfinite(p.x) && std::isfinite(p.y) && std::isfinite(p.z); };
  // A non-finite sample is refused before clipping: clipping would turn it into NaN.
  if (!finite(ray.origin) || !finite(ray.sample)) return RayFault::NonFinite;
  if (!intensityUsable(ray, options)) return RayFault::NonFiniteIntensity;
  const glm::dvec3 sample = clippedSample(ray, options);
  auto near = [&](const glm::dvec3& p) {
    for (int a = 0; a < 3; ++a)
      if (!(std::abs(p[a] / model.resolution) < kMaxVoxelCoordinate)) return false;
    return true;
  };
  return near(ray.origin) && near(sample) ? RayFault::None : RayFault::TooFar;
}

const char* rayFaultText(RayFault fault) {
  switch (fault) {
    case RayFault::None: return "none";
    case RayFault::NonFinite: return "a non-finite coordinate";
    case RayFault::TooFar: return "a voxel coordinate beyond +-2^29 (too far from the map origin at this resolution)";
    case RayFault::NonFiniteIntensity: return "a NaN or infinite intensity (NDT-TM)";
  }
  return "?";
}

namespace {

// floor() of a voxel coordinate (|x| < kMaxVoxelCoordinate, checked before): truncation and
// a correction, the same integer as std::floor without a libm call (x86-64 without SSE4.1
// has no rounding instruction, and every ray takes six of these).
inline int32_t floorToInt(double x) {
  const int32_t i = int32_t(x);
  return x < double(i) ? i - 1 : i;
}

// prepareRay from the voxel coordinates of the origin and the (clipped) sample.
PreparedRay prepareFrom(const Ray& ray, const glm::dvec3& from, const glm::dvec3& to, bool clip,
                        const IntegrationOptions& options) {
  PreparedRay r;
  r.start = {floorToInt(from.x), floorToInt(from.y), floorToInt(from.z)};
  r.end = {floorToInt(to.x), floorToInt(to.y), floorToInt(to.z)};
  const int32_t s[3] = {r.start.x, r.start.y, r.start.z}, e[3] = {r.end.x, r.end.y, r.end.z};
  uint32_t packed = 0;
  for (int a = 0; a < 3; ++a) {
    r.o[a] = float(from[a] - s[a]);
    r.d[a] = float(to[a] - from[a]);
    r.invD[a] = crossingReciprocal(r.d[a]);
    r.n[a] = std::abs(e[a] - s[a]);
    r.step[a] = e[a] > s[a] ? 1 : e[a] < s[a] ? -1 : 0;
    const double offset = std::clamp(to[a] - e[a], 0.0, 1.0);
    packed |= std::min<uint32_t>(1023u, uint32_t(offset * VoxelMean::kScale)) << (10 * a);
  }
  r.meanPacked = packed;
  r.intensity = std::isfinite(ray.intensity) ? ray.intensity : 0.0f;
  // Absolute seconds, so that the touch-time layer (a maximum) does not depend on which ray
  // came first; times before 0 (or NaN) count as 0, which also marks "never touched".
  r.touchTime = ray.time > 0.0 ? ray.time : 0.0;
  const bool endFree = (options.flags.has(RayFlag::EndPointAsFree)) || clip;
  if (options.flags.has(RayFlag::ExcludeSample))
    r.flags |= kSkipSample;
  else if (!endFree)
    r.flags |= kSampleHit;
  if (options.flags.has(RayFlag::ExcludeOrigin)) r.flags |= kSkipOrigin;
  return r;
}

}  // namespace

PreparedRay prepareRay(const Ray& ray, const OccupancyModel& model, const IntegrationOptions& options,
                       bool* clipped) {
  bool clip = false;
  const glm::dvec3 sample = clippedSample(ray, options, &clip);
  if (clipped) *clipped = clip;
  return prepareFrom(ray, ray.origin / model.resolution, sample / model.resolution, clip, options);
}

RayFault checkAndPrepareRay(const Ray& ray, const OccupancyModel& model, const IntegrationOptions& options,
                            PreparedRay& out, bool* clipped) {
  auto finite = [](const glm::dvec3& p) { return std::isfinite(p.x) && std::isfinite(p.y) && std::isfinite(p.z); };
  if (!finite(ray.origin) || !finite(ray.sample)) return RayFault::NonFinite;
  if (!intensityUsable(ray, options)) return RayFault::NonFiniteIntensity;
  bool clip = false;
  const glm::dvec3 sample = clippedSample(ray, options, &clip);
  const glm::dvec3 from = ray.origin / model.resolution, to = sample / model.resolution;
  // checkRay's test on the same quotients.
  for (int a = 0; a < 3; ++a)
    if (!(std::abs(from[a]) < kMaxVoxelCoordinate) || !(std::abs(to[a]) < kMaxVoxelCoordinate)) return RayFault::TooFar;
  if (clipped) *clipped = clip;
  out = prepareFrom(ray, from, to, clip, options);
  return RayFault::None;
}

std::vector<RegionKey> regionsOnRay(const PreparedRay& r, int32_t regionSize) {
  std::vector<RegionKey> keys;
  regionsOnRay(r, regionSize, keys);
  return keys;
}

void regionsOnRay(const PreparedRay& r, int32_t regionSize, std::vector<RegionKey>& keys) {
  // Only faces that are region boundaries matter; they are merged exactly as the voxel
  // walk merges all faces, so the region sequence is the one the voxel walk passes through.
  const int32_t n = regionSize;
  const int32_t s[3] = {r.start.x, r.start.y, r.start.z};
  // Power-of-two sizes (the default 32) take a mask and an arithmetic shift, which round
  // towards -inf as the floor division must: the host walks every ray, so divisions count.
  const bool pow2 = (n & (n - 1)) == 0;
  const int shift = pow2 ? std::countr_zero(uint32_t(n)) : 0;
  int32_t within[3];  // the start voxel's offset inside its region
  RegionKey key;
  for (int a = 0; a < 3; ++a) {
    within[a] = pow2 ? (s[a] & (n - 1)) : ((s[a] % n) + n) % n;
    (&key.x)[a] = pow2 ? (s[a] >> shift) : floorDiv(s[a], n);
  }
  int32_t next[3];  // index of the next region face per axis
  for (int a = 0; a < 3; ++a) {
    // Stepping up, face j lies at global coordinate s + j + 1: the first multiple of n above
    // s. Stepping down, face j lies at s - j: the first multiple of n at or below s.
    next[a] = r.step[a] > 0 ? (n - 1) - within[a] : within[a];
  }
  keys.clear();
  keys.push_back(key);
  for (;;) {
    int best = -1;
    float bestT = INFINITY;
    for (int a = 0; a < 3; ++a)
      if (r.step[a] != 0 && next[a] < r.n[a]) {
        const float t = crossingT(r, a, next[a]);
        if (best < 0 || t < bestT) best = a, bestT = t;
      }
    if (best < 0) break;
    (&key.x)[best] += r.step[best];
    next[best] += n;
    keys.push_back(key);
  }
}

}  // namespace voxen
