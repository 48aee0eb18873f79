#pragma once
// The one-dimensional step of the exact squared-distance transform (Felzenszwalb and
// Huttenlocher, "Distance transforms of sampled functions", 2012): d[q] = min over p of
// w (q - p)^2 + f[p], by the lower envelope of the parabolas rooted at the finite f[p].
// shaders/clearance/clearance_envelope.comp runs the same steps in the same order.
#include <cstdint>

#include "voxen/gpu/clearance/clearance_shared.h"

namespace voxen {

struct EnvelopeScratch {
  int root = 0;        // v: the parabolas of the envelope, by their roots
  float boundary = 0;  // z: where parabola k takes over from k - 1
};

// f and d hold n values (they may not overlap); scratch holds n + 1. Values of f at or
// above gpu::kFarSquared are "no obstacle"; a line without any gives kFarSquared everywhere.
inline void distanceEnvelope(const float* f, float* d, int n, float w, EnvelopeScratch* s) {
  int k = -1;
  for (int q = 0; q < n; ++q) {
    if (f[q] >= gpu::kFarSquared) continue;
    const float fq = f[q] + w * float(q) * float(q);
    float boundary = -gpu::kFarSquared;
    while (k >= 0) {
      const int r = s[k].root;
      boundary = (fq - (f[r] + w * float(r) * float(r))) / (2.0f * w * float(q - r));
      if (boundary > s[k].boundary) break;
      --k;
    }
    if (k < 0) boundary = -gpu::kFarSquared;
    ++k;
    s[k].root = q;
    s[k].boundary = boundary;
  }
  if (k < 0) {
    for (int q = 0; q < n; ++q) d[q] = gpu::kFarSquared;
    return;
  }
  int j = 0;
  for (int q = 0; q < n; ++q) {
    while (j < k && s[j + 1].boundary < float(q)) ++j;
    const int r = s[j].root;
    d[q] = w * float(q - r) * float(q - r) + f[r];
  }
}

// The same in voxel squares (voxel_squares.hpp): f and d hold n squared voxel distances,
// where any value above maxSquared is "no obstacle within the range" (d gets kNoVoxelSquare
// there). Every value and comparison is an integer: parabola q's intersection with the
// envelope's last parabola r lies at s = ((f[q] + q^2) - (f[r] + r^2)) / (2 (q - r)), and the
// envelope compares two such quotients by cross-multiplying (denominators positive), so no
// division is taken and d[q] is the exact minimum. Bounds: the padded block's edge is at
// most kMaxBlockEdge = 512 voxels, so values within the range are below 2^16, q^2 below 2^18,
// each numerator below 2^19 in magnitude and each product below 2^28: int32 throughout.
// shaders/clearance/clearance_common.glsl (squaredDistanceEnvelope) runs the same steps.
struct SquaresScratch {
  int32_t root = 0;      // v: the parabolas of the envelope, by their roots
  int32_t value = 0;     // f at the root
  int32_t numerator = 0; // where parabola k takes over from k - 1: numerator / (2 (root_k - root_k-1))
};

inline void squaredDistanceEnvelope(const uint32_t* f, uint32_t* d, int n, uint32_t maxSquared, SquaresScratch* s) {
  static_assert(gpu::kMaxBlockEdge <= 512, "the int32 bounds above assume blocks of at most 512 voxels");
  int k = -1;
  for (int q = 0; q < n; ++q) {
    if (f[q] > maxSquared) continue;
    const int32_t fq = int32_t(f[q]) + q * q;
    // Pop the parabolas that the new one hides: while its intersection with the last one lies
    // at or before where that one took over (the first one took over at minus infinity).
    while (k > 0) {
      const int32_t r = s[k].root;
      const int32_t numerator = fq - (s[k].value + r * r);
      if (numerator * (r - s[k - 1].root) > s[k].numerator * (q - r)) break;
      --k;
    }
    const int32_t numerator = k >= 0 ? fq - (s[k].value + s[k].root * s[k].root) : 0;
    ++k;
    s[k] = {q, int32_t(f[q]), numerator};
  }
  if (k < 0) {
    for (int q = 0; q < n; ++q) d[q] = gpu::kNoVoxelSquare;
    return;
  }
  int j = 0;
  for (int q = 0; q < n; ++q) {
    // Parabola j + 1 takes over before q: numerator / (2 (root_j+1 - root_j)) < q.
    while (j < k && s[j + 1].numerator < 2 * q * (s[j + 1].root - s[j].root)) ++j;
    const int32_t r = s[j].root;
    const uint32_t value = uint32_t((q - r) * (q - r) + s[j].value);
    d[q] = value <= maxSquared ? value : gpu::kNoVoxelSquare;
  }
}

}  // namespace voxen
