// The voxel walk, operation for operation the same as
// engine/include/voxen/engine/occupancy/ray_walk.hpp (read that file's comment first), so
// that the CPU reference and the GPU visit exactly the same voxels.
//
// The including shader defines
//   bool visitVoxel(ivec3 voxel, float tEnter, float tExit);   // false: stop the walk
// and sets gRay before calling walkSegment().
#ifndef VOXEN_OCCUPANCY_RAY_WALK_GLSL
#define VOXEN_OCCUPANCY_RAY_WALK_GLSL

// Mirrors voxen::GpuRay (engine/occupancy/gpu_ray.hpp): 64 bytes, std430.
struct GpuRay {
  vec3 o;           // origin in voxel units relative to the start voxel's lower corner
  float time;       // seconds after the map's time origin
  vec3 d;           // origin to sample, in voxel units
  uint meanPacked;  // sample offset in its voxel, 10 bits per axis
  ivec3 start;      // origin voxel
  uint flags;       // PreparedRayFlag
  ivec3 end;        // sample voxel
  uint segments;    // how many segments the walk is cut into
};

const uint kSampleHit = 1u;
const uint kSkipSample = 2u;
const uint kSkipOrigin = 4u;
#define kInf uintBitsToFloat(0x7f800000u)

GpuRay gRay;

bool visitVoxel(ivec3 voxel, float tEnter, float tExit);

int stepOf(int a) { return sign(gRay.end[a] - gRay.start[a]); }
int facesOf(int a) { return abs(gRay.end[a] - gRay.start[a]); }

float crossingT(int a, int j) {
  precise float p = stepOf(a) > 0 ? float(j + 1) : float(-j);
  precise float t = (p - gRay.o[a]) / gRay.d[a];
  return t;
}

int crossingsBefore(int a, float T) {
  int n = facesOf(a);
  if (n == 0 || T == -kInf) return 0;
  if (T == kInf) return n;
  float guess = stepOf(a) > 0 ? ceil(gRay.o[a] + T * gRay.d[a] - 1.0) : ceil(T * -gRay.d[a] - gRay.o[a]);
  int count = int(clamp(guess, 0.0, float(n)));
  // A few steps at most: the guess is off only by rounding.
  for (int i = 0; i < 8 && count > 0 && crossingT(a, count - 1) >= T; ++i) --count;
  for (int i = 0; i < 8 && count < n && crossingT(a, count) < T; ++i) ++count;
  return count;
}

float segmentBound(uint s, uint m) {
  if (s == 0u) return -kInf;
  if (s >= m) return kInf;
  precise float b = float(s) / float(m);
  return b;
}

float tOf(int a, int j) { return j < facesOf(a) ? crossingT(a, j) : kInf; }

// Visits the voxels of segment s of m in walk order (see ray_walk.hpp walkSegment).
void walkSegment(uint s, uint m, bool reverse) {
  float lo = segmentBound(s, m), hi = segmentBound(s + 1u, m);
  ivec3 next, last;
  for (int a = 0; a < 3; ++a) {
    next[a] = crossingsBefore(a, lo);
    last[a] = crossingsBefore(a, hi);
  }
  float tBeyond = min(min(tOf(0, last[0]), tOf(1, last[1])), min(tOf(2, last[2]), 1.0));
  ivec3 stepV = ivec3(stepOf(0), stepOf(1), stepOf(2));
  // Each loop runs once per crossing of this segment: bounded by the segment size the host
  // chose, well under lavapipe's per-invocation loop cap.
  if (!reverse) {
    ivec3 v = gRay.start + stepV * next;
    float tEnter = 0.0;
    bool pending = s == 0u;
    for (;;) {
      int best = -1;
      float bestT = kInf;
      for (int a = 0; a < 3; ++a)
        if (next[a] < last[a]) {
          float t = crossingT(a, next[a]);
          if (best < 0 || t < bestT) { best = a; bestT = t; }
        }
      if (best < 0) break;
      if (pending && !visitVoxel(v, max(tEnter, 0.0), min(bestT, 1.0))) return;
      v[best] += stepV[best];
      next[best] += 1;
      tEnter = bestT;
      pending = true;
    }
    if (pending) visitVoxel(v, clamp(tEnter, 0.0, 1.0), tBeyond);
  } else {
    ivec3 v = gRay.start + stepV * last;
    float tExit = tBeyond;
    for (;;) {
      int best = -1;
      float bestT = -kInf;
      for (int a = 2; a >= 0; --a)
        if (last[a] > next[a]) {
          float t = crossingT(a, last[a] - 1);
          if (best < 0 || t > bestT) { best = a; bestT = t; }
        }
      if (best < 0) break;
      if (!visitVoxel(v, clamp(bestT, 0.0, 1.0), max(tExit, 0.0))) return;
      v[best] -= stepV[best];
      last[best] -= 1;
      tExit = bestT;
    }
    if (s == 0u) visitVoxel(v, 0.0, clamp(tExit, 0.0, 1.0));
  }
}

// t at which the walk enters the sample voxel.
float sampleEnterT() {
  float t = 0.0;
  for (int a = 0; a < 3; ++a)
    if (facesOf(a) > 0) t = max(t, crossingT(a, facesOf(a) - 1));
  return clamp(t, 0.0, 1.0);
}

#endif
