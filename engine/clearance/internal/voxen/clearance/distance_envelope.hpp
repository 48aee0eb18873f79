#pragma once
// The one-dimensional step of the exact squared-distance transform (Felzenszwalb and
// Huttenlocher, "Distance transforms of sampled functions", 2012): d[q] = min over p of
// w (q - p)^2 + f[p], by the lower envelope of the parabolas rooted at the finite f[p].
// shaders/clearance/clearance_envelope.comp runs the same steps in the same order.
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

}  // namespace voxen
