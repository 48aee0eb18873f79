// NDT-OM and NDT-TM (normal distributions transform occupancy maps, Saarinen et al. 2013, as
// OHM implements them): the parameters the passes read and the formulas, written once for
// the CPU reference (engine/occupancy/src/ndt_updates.cpp) and the shaders (ndt_miss.glsl,
// ndt_fold.comp). Plain scalar arithmetic only, so that both sides compute the same
// operations in the same order. The layers' layouts are the map's (map/ndt_layers.h).
//
// Frame: metres, relative to the lower corner of the voxel being updated. A voxel's
// Gaussian is its mean (from the voxel-mean layer: count and sums of sample offsets
// quantised to 1/1024 voxel) and its covariance P = S S^T, stored as the lower-triangular
// square-root factor S so that it stays positive definite and is never inverted: the
// likelihoods use triangular solves.
#ifndef VOXEN_OCCUPANCY_NDT_SHARED_H
#define VOXEN_OCCUPANCY_NDT_SHARED_H

#include "../common/shared.h"
#include "../map/ndt_layers.h"  // NdtCovariance, NdtIntensity

#ifdef __cplusplus
#include <algorithm>
#include <cmath>
#endif

VOXEN_SHARED_BEGIN

#ifdef __cplusplus
using std::abs;
using std::clamp;
using std::exp;
using std::log;
using std::max;
using std::min;
using std::sqrt;
#endif

// OccupancyPush::flags bits of the NDT passes.
VOXEN_CONST(uint, kPassNdt, 2048u)    // NDT-OM: Gaussian-aware misses, hits folded per voxel
VOXEN_CONST(uint, kPassNdtTm, 4096u)  // NDT-TM on top: intensity statistics, hit/miss counts by OHM's rule

// What the NDT passes read besides OccupancyPush (OccupancyPush::ndt points at it; written
// once per integrator).
struct NdtParams {
  float resolution;         // metres per voxel edge
  float sensorNoise;        // metres (standard deviation of a return's range)
  float eta;                // half the adaptation rate
  float resetValue;         // log-odds below which a voxel with resetSamples samples restarts
  float initialDeviation;   // metres: S = initialDeviation * I for a new (or restarted) voxel
  uint sampleThreshold;     // samples a voxel needs before misses use its Gaussian
  uint resetSamples;
  uint covarianceLayer;     // layer ids (the region cache's LayerTable entries)
  uint intensityLayer;      // NDT-TM only (0 otherwise)
  uint foldLimit;           // samples one invocation of the hit fold takes (a run's chunk)
  uint levels;              // chunk levels: runs longer than k * foldLimit are listed at level k
  uint slotKeys;            // word offset of the region key of each cache slot (ndtSlotKeys)
};
VOXEN_SHARED_ASSERT(sizeof(NdtParams) == 48)

// Position of a quantised sample offset (0..1023 per axis) or of a mean (sum / count of such
// offsets) in metres from the voxel's lower corner: the centre of the 1/1024 cell.
VOXEN_MATH float ndtOffsetMetres(float quantised, float resolution) { return (quantised + 0.5f) / 1024.0f * resolution; }

// Solves S x = (y0, y1, y2) for x by forward substitution; returns |x|^2 (the Mahalanobis
// distance squared of y when P = S S^T) and, through the struct, x itself.
struct NdtSolved {
  float x0;
  float x1;
  float x2;
};
VOXEN_MATH NdtSolved ndtSolveLower(NdtCovariance c, float y0, float y1, float y2) {
  NdtSolved r;
  r.x0 = y0 / c.s00;
  r.x1 = (y1 - c.s10 * r.x0) / c.s11;
  r.x2 = (y2 - c.s20 * r.x0 - c.s21 * r.x1) / c.s22;
  return r;
}

// The ray from `sensor` to `sample` against a voxel's Gaussian (mean m): the point x on the
// segment most likely under the Gaussian (the unconstrained optimum clamped to the segment),
// its likelihood pVoxel = exp(-|S^-1 (x - m)|^2 / 2) and pSample = exp(-|x - sample|^2 /
// (2 noise^2)), the likelihood that x is the return itself.
struct NdtRayLikelihood {
  float pVoxel;
  float pSample;
};
VOXEN_MATH NdtRayLikelihood ndtRayLikelihood(NdtCovariance c, float mx, float my, float mz, float sx, float sy,
                                             float sz, float ex, float ey, float ez, float noise) {
  float dx = ex - sx, dy = ey - sy, dz = ez - sz;
  NdtSolved a = ndtSolveLower(c, dx, dy, dz);          // S^-1 d
  NdtSolved b = ndtSolveLower(c, sx - mx, sy - my, sz - mz);  // S^-1 (sensor - mean)
  float aa = a.x0 * a.x0 + a.x1 * a.x1 + a.x2 * a.x2;
  float ab = a.x0 * b.x0 + a.x1 * b.x1 + a.x2 * b.x2;
  float t = aa > 0.0f ? clamp(-ab / aa, 0.0f, 1.0f) : 1.0f;
  // S^-1 (x - m) = b + t a: no third solve.
  float m0 = b.x0 + t * a.x0, m1 = b.x1 + t * a.x1, m2 = b.x2 + t * a.x2;
  float gx = (1.0f - t) * dx, gy = (1.0f - t) * dy, gz = (1.0f - t) * dz;  // sample - x
  NdtRayLikelihood r;
  r.pVoxel = exp(-0.5f * (m0 * m0 + m1 * m1 + m2 * m2));
  r.pSample = exp(-0.5f * (gx * gx + gy * gy + gz * gz) / (noise * noise));
  return r;
}

// The log-odds a ray passing through a voxel with a Gaussian applies (Saarinen eq. 24):
// p = 1/2 - eta pVoxel (1 - pSample), as log-odds (at most 0: a ray never raises occupancy).
VOXEN_MATH float ndtMissValue(NdtRayLikelihood l, float eta) {
  float p = 0.5f - eta * l.pVoxel * (1.0f - l.pSample);
  return log(p / (1.0f - p));
}

// NDT-TM, OHM's rule: a ray through the voxel counts as a miss when it misses the Gaussian
// clearly (pVoxel (1 - pSample) below eta); a return in the voxel counts as a hit when it is
// consistent with the Gaussian (pVoxel pSample at least eta), as a miss when the ray passes
// through the Gaussian but the return is elsewhere.
VOXEN_MATH bool ndtTmMissCounts(NdtRayLikelihood l, float eta) { return l.pVoxel * (1.0f - l.pSample) < eta; }
VOXEN_MATH bool ndtTmHitCounts(NdtRayLikelihood l, float eta) { return l.pVoxel * l.pSample >= eta; }
VOXEN_MATH bool ndtTmHitIsMiss(NdtRayLikelihood l, float eta) {
  return l.pVoxel * l.pSample < eta && l.pVoxel >= eta;
}

VOXEN_MATH NdtCovariance ndtInitialCovariance(float deviation) {
  NdtCovariance c;
  c.s00 = deviation;
  c.s10 = 0.0f;
  c.s11 = deviation;
  c.s20 = 0.0f;
  c.s21 = 0.0f;
  c.s22 = deviation;
  return c;
}

// Folds sample z into a voxel with n samples and mean m:
//   P' = n/(n+1) P + n/(n+1)^2 (z - m)(z - m)^T
// in square-root form, as a rank-one Cholesky update of a S by b (z - m) with a = sqrt(n/(n+1))
// and b = sqrt(n)/(n+1) (rotations that keep the diagonal positive; no square root of a
// difference, so S stays valid). n = 0 keeps S (the initial covariance) as OHM does.
VOXEN_MATH NdtCovariance ndtFoldCovariance(NdtCovariance c, float n, float mx, float my, float mz, float zx, float zy,
                                           float zz) {
  float a = n > 0.0f ? sqrt(n / (n + 1.0f)) : 1.0f;
  float b = sqrt(n) / (n + 1.0f);
  float l00 = a * c.s00, l10 = a * c.s10, l11 = a * c.s11, l20 = a * c.s20, l21 = a * c.s21, l22 = a * c.s22;
  float x0 = b * (zx - mx), x1 = b * (zy - my), x2 = b * (zz - mz);
  // Column 0.
  float r = sqrt(l00 * l00 + x0 * x0);
  float cs = r / l00, sn = x0 / l00;
  l00 = r;
  l10 = (l10 + sn * x1) / cs;
  x1 = cs * x1 - sn * l10;
  l20 = (l20 + sn * x2) / cs;
  x2 = cs * x2 - sn * l20;
  // Column 1.
  r = sqrt(l11 * l11 + x1 * x1);
  cs = r / l11;
  sn = x1 / l11;
  l11 = r;
  l21 = (l21 + sn * x2) / cs;
  x2 = cs * x2 - sn * l21;
  // Column 2.
  l22 = sqrt(l22 * l22 + x2 * x2);
  NdtCovariance o;
  o.s00 = l00;
  o.s10 = l10;
  o.s11 = l11;
  o.s20 = l20;
  o.s21 = l21;
  o.s22 = l22;
  return o;
}

// The largest float: NDT-TM's intensity variance saturates there.
VOXEN_CONST(float, kNdtFloatMax, 3.40282347e38f)

// Running intensity mean and variance, the same weights as the covariance:
//   mean' = mean + delta / (n+1),  variance' = n/(n+1) variance + n/(n+1)^2 delta^2,
// delta = value - mean, in a form that stays finite for every finite intensity and never
// forms an infinity (shader compilers may assume there is none). The difference is taken at
// half scale (exact above the subnormals, so ordinary values give the same bits as the
// formula above); the mean moves by a convex step, which cannot leave the float range; a
// variance past it (intensities beyond about 1.8e19 apart) saturates at the largest float.
// The first sample (n = 0) sets the mean to its value and the variance to 0, whatever the
// voxel held before its restart.
VOXEN_MATH NdtIntensity ndtFoldIntensity(NdtIntensity s, float n, float value) {
  NdtIntensity o;
  if (n <= 0.0f) {
    o.mean = value;
    o.variance = 0.0f;
    return o;
  }
  float halfDelta = 0.5f * value - 0.5f * s.mean;  // delta / 2
  o.mean = s.mean + 2.0f * (halfDelta / (n + 1.0f));  // |delta / (n+1)| <= |delta| / 2 <= the largest float
  float kept = n / (n + 1.0f) * s.variance;
  float w = n / ((n + 1.0f) * (n + 1.0f));  // at most 1/4
  float p = w * halfDelta;
  // (w delta) delta = 4 (p halfDelta), unless that passes 0.24 of the largest float.
  float added = (abs(halfDelta) > 1.0f && abs(p) > 0.24f * kNdtFloatMax / abs(halfDelta)) ? kNdtFloatMax : 4.0f * (p * halfDelta);
  if (kept <= 0.5f * kNdtFloatMax && added <= 0.5f * kNdtFloatMax) {
    o.variance = kept + added;
  } else {
    float halfSum = 0.5f * kept + 0.5f * added;
    o.variance = halfSum >= 0.5f * kNdtFloatMax ? kNdtFloatMax : 2.0f * halfSum;
  }
  return o;
}


// Everything the NDT updates read and write of one voxel, gathered from its layers.
struct NdtVoxel {
  float occupancy;  // log-odds, or +inf when unobserved
  uint count;       // voxel-mean layer: samples, and the sums of their quantised offsets
  uint sumX;
  uint sumY;
  uint sumZ;
  NdtCovariance cov;
  uint hits;        // NDT-TM: the hit-miss layer, counted by OHM's rule
  uint misses;
  NdtIntensity intensity;  // NDT-TM
};

// A log-odds update as every integrator applies it: unobserved (+inf) starts from 0, then
// add and clamp (voxen::updatedValue).
VOXEN_MATH float ndtUpdatedValue(float value, float delta, float lo, float hi) {
  float base = value > 3.0e38f ? 0.0f : value;
  return min(max(base + delta, lo), hi);
}

// The ray's end points in the frame of a voxel: the ray as the walk holds it (origin o in
// voxel units from the start voxel's lower corner, direction d in voxel units) and the start
// voxel minus this voxel (r, exact integers).
struct NdtSegment {
  float sx;
  float sy;
  float sz;
  float ex;
  float ey;
  float ez;
};
VOXEN_MATH NdtSegment ndtSegmentInVoxel(float ox, float oy, float oz, float dx, float dy, float dz, int rx, int ry,
                                        int rz, float resolution) {
  NdtSegment g;
  g.sx = (ox + float(rx)) * resolution;
  g.sy = (oy + float(ry)) * resolution;
  g.sz = (oz + float(rz)) * resolution;
  g.ex = (ox + float(rx) + dx) * resolution;
  g.ey = (oy + float(ry) + dy) * resolution;
  g.ez = (oz + float(rz) + dz) * resolution;
  return g;
}

// Whether the voxel's Gaussian may be used: enough samples, and a valid factor (a map built
// without NDT and continued with it has means but no covariance yet).
VOXEN_MATH bool ndtHasGaussian(NdtVoxel v, NdtParams p) { return v.count >= p.sampleThreshold && v.cov.s00 > 0.0f; }

// The free-space update of a voxel the ray passes through (not its sample voxel): the plain
// miss value without a Gaussian, else Saarinen's. Returns the log-odds delta; tmMiss says
// whether NDT-TM counts a miss.
struct NdtMissUpdate {
  float delta;
  bool tmMiss;
};
VOXEN_MATH NdtMissUpdate ndtMissUpdate(NdtVoxel v, NdtParams p, NdtSegment g, float missValue) {
  NdtMissUpdate u;
  u.delta = missValue;
  u.tmMiss = true;
  if (ndtHasGaussian(v, p)) {
    float n = float(v.count);
    NdtRayLikelihood l = ndtRayLikelihood(v.cov, ndtOffsetMetres(float(v.sumX) / n, p.resolution),
                                          ndtOffsetMetres(float(v.sumY) / n, p.resolution),
                                          ndtOffsetMetres(float(v.sumZ) / n, p.resolution), g.sx, g.sy, g.sz, g.ex,
                                          g.ey, g.ez, p.sensorNoise);
    u.delta = ndtMissValue(l, p.eta);
    u.tmMiss = ndtTmMissCounts(l, p.eta);
  }
  return u;
}

// Folds one sample into its voxel (the hit pass, in input order per voxel): restart the
// Gaussian when the voxel is new or was freed (below resetValue after resetSamples), NDT-TM's
// counts and intensity, the covariance from the mean before this sample, then the mean, then
// the hit log-odds. `packed` is the sample's quantised offset (10 bits per axis); g the ray
// in this voxel's frame (its end is the exact sample).
VOXEN_MATH NdtVoxel ndtFoldSample(NdtVoxel v, NdtParams p, uint packed, NdtSegment g, float intensity, float hitValue,
                                  float lo, float hi, bool tm) {
  bool unobserved = v.occupancy > 3.0e38f;
  bool restart = v.count == 0u || v.cov.s00 <= 0.0f || (v.count >= p.resetSamples && v.occupancy < p.resetValue);
  if (tm) {
    if (unobserved || restart) {
      v.hits = 0u;
      v.misses = 0u;
    } else if (v.count < p.sampleThreshold) {
      v.hits += 1u;
    } else {
      float n = float(v.count);
      NdtRayLikelihood l = ndtRayLikelihood(v.cov, ndtOffsetMetres(float(v.sumX) / n, p.resolution),
                                            ndtOffsetMetres(float(v.sumY) / n, p.resolution),
                                            ndtOffsetMetres(float(v.sumZ) / n, p.resolution), g.sx, g.sy, g.sz, g.ex,
                                            g.ey, g.ez, p.sensorNoise);
      if (ndtTmHitCounts(l, p.eta)) v.hits += 1u;
      if (ndtTmHitIsMiss(l, p.eta)) v.misses += 1u;
    }
  }
  if (restart) {
    v.cov = ndtInitialCovariance(p.initialDeviation);
    v.count = 0u;
    v.sumX = 0u;
    v.sumY = 0u;
    v.sumZ = 0u;
  }
  uint qx = packed & 1023u, qy = (packed >> 10u) & 1023u, qz = (packed >> 20u) & 1023u;
  float n = float(v.count);
  float mx = 0.0f, my = 0.0f, mz = 0.0f;
  if (v.count > 0u) {
    mx = ndtOffsetMetres(float(v.sumX) / n, p.resolution);
    my = ndtOffsetMetres(float(v.sumY) / n, p.resolution);
    mz = ndtOffsetMetres(float(v.sumZ) / n, p.resolution);
  }
  v.cov = ndtFoldCovariance(v.cov, n, mx, my, mz, ndtOffsetMetres(float(qx), p.resolution),
                            ndtOffsetMetres(float(qy), p.resolution), ndtOffsetMetres(float(qz), p.resolution));
  if (tm) v.intensity = ndtFoldIntensity(v.intensity, n, intensity);
  v.count += 1u;
  v.sumX += qx;
  v.sumY += qy;
  v.sumZ += qz;
  v.occupancy = ndtUpdatedValue(v.occupancy, hitValue, lo, hi);
  return v;
}

VOXEN_SHARED_END

#endif
