// The TSDF (engine/tsdf, shaders/tsdf): a truncated signed distance per voxel from depth
// images, as the layer `tsdf` holds it, and the fixed-point camera math both the CPU
// reference and the GPU passes run: one definition of each formula below, so the two agree
// bit for bit on every device.
//
// Everything is an integer: positions in kTsdfFine units per voxel (1/65536 voxel), the
// camera's rotation in Q30, focal lengths and the principal point in Q16 pixels, weights in
// 1/kTsdfWeightUnit of one measurement. A voxel meets each frame once (projective
// integration: its own pixel), so the result does not depend on the order of the voxels;
// the frames are folded in order.
#ifndef VOXEN_TSDF_SHARED_H
#define VOXEN_TSDF_SHARED_H

#include "../common/shared.h"
#include "../map/tsdf_colour_layer.h"
#include "../map/tsdf_layer.h"

#ifdef __cplusplus
#include <cmath>
#endif

VOXEN_SHARED_BEGIN

#ifdef __cplusplus
using std::floor;
using std::sqrt;
#endif

// Rotation entries are round(r * 2^kTsdfRotationBits).
VOXEN_CONST(int, kTsdfRotationBits, 30)
// Depths (and band ends) beyond this many fine units are no measurement: 2^14 voxels, so that
// the products below stay inside 63 bits.
VOXEN_CONST(int64_t, kTsdfMaxDepthFine, 1073741824l)
// Voxels per block edge: the unit the GPU discovers from an image and integrates.
VOXEN_CONST(int, kTsdfBlock, 8)
VOXEN_CONST(uint, kTsdfBlockVoxels, 512u)

// Weighting of a measurement behind the surface (TsdfIntegratePush::weighting).
VOXEN_CONST(uint, kTsdfWeightConstant, 0u)        // every measurement weighs kTsdfWeightUnit
VOXEN_CONST(uint, kTsdfWeightLinearDropOff, 1u)   // behind the surface: falls linearly to 0 at -truncation

// Depth image pixel types (TsdfFramePush::encoding).
VOXEN_CONST(uint, kTsdfDepthUnsigned16, 0u)
VOXEN_CONST(uint, kTsdfDepthFloat32, 1u)

// A frame's camera as integers (engine/tsdf prepares it from doubles once per frame).
struct TsdfCamera {
  int64_t rotationCw[9];   // camera from world, row-major, Q30 (rows: camera x, y, z axes)
  int64_t rotationWc[9];   // its transpose (world from camera)
  int64_t centre[3];       // the camera's position, fine units (world voxel coordinates x 65536)
  int64_t fx, fy, cx, cy;  // Q16 pixels
  int width, height;       // pixels
  int64_t depthScaleQ32;   // Unsigned16: fine units per depth unit, Q16 (depthScale / resolution * 2^32)
  float depthFactor;       // Float32: fine units per metre (65536 / resolution), applied in float
  uint encoding;           // kTsdfDepthUnsigned16 or kTsdfDepthFloat32
  int64_t maxDepth;        // fine units: larger depths are no measurement
  int64_t truncation;      // fine units
};
VOXEN_SHARED_ASSERT(sizeof(TsdfCamera) == 8 * 9 * 2 + 8 * 3 + 8 * 4 + 8 + 8 + 8 + 8 + 8)

// floor(a / b) for b > 0, with non-negative operands only (C++ and SPIR-V agree on those).
VOXEN_FUNCTION int64_t tsdfFloorDiv(int64_t a, int64_t b) {
  return a >= 0 ? a / b : -((-a + b - 1) / b);
}

// floor(a / b) for b > 0 and |a| < 2^62, exactly, from multiplies: a float estimate of the
// quotient, then float estimates of the remainder's quotient (each step leaves an error about
// 2^-22 of the last), then unit steps until the remainder lies in [0, b). A 64-bit integer
// division is a long software routine on GPUs (and a scalar one per lane on lavapipe), and
// the integration pass needs several per voxel; the floats only choose where to start, so
// the result is the integer quotient on every device, whatever its float rounding.
VOXEN_MATH int64_t tsdfFloorDivExact(int64_t a, int64_t b) {
  const float fb = float(b);
  int64_t q = int64_t(floor(float(a) / fb));
  int64_t r = a - q * b;
  for (int i = 0; i < 4 && (r < 0 || r >= b); ++i) {
    q += int64_t(floor(float(r) / fb));
    r = a - q * b;
  }
  while (r < 0) {
    q -= 1;
    r += b;
  }
  while (r >= b) {
    q += 1;
    r -= b;
  }
  return q;
}

// a / b rounded half away from zero (tsdfRoundDiv's rounding), for b > 0 and |a| < 2^61.
VOXEN_MATH int64_t tsdfRoundDivExact(int64_t a, int64_t b) {
  return a >= 0 ? tsdfFloorDivExact(a + b / 2, b) : -tsdfFloorDivExact(-a + b / 2, b);
}

// Depth in fine units of a 16-bit depth value (0: none).
VOXEN_FUNCTION int64_t tsdfDepth16(uint raw, int64_t depthScaleQ32) {
  return (int64_t(raw) * depthScaleQ32) >> 16;
}

// Depth in fine units of a float depth (metres) times depthFactor, already floored, or 0.
VOXEN_MATH int64_t tsdfDepthFromScaled(float scaled) {
  return (scaled > 0.0f && scaled < 4.0e18f) ? int64_t(scaled) : int64_t(0);
}

// Row r of a Q30 rotation times a vector of fine units, floored back to fine units.
VOXEN_FUNCTION int64_t tsdfRotateRow(int64_t r0, int64_t r1, int64_t r2, int64_t x, int64_t y, int64_t z) {
  return (r0 * x + r1 * y + r2 * z) >> kTsdfRotationBits;
}

// The pixel coordinate (rounded: pixel centres at integers) where camera-frame x (or y) at
// depth z > 0 lands, for focal length f and principal point c (Q16).
VOXEN_MATH int64_t tsdfPixelOf(int64_t x, int64_t z, int64_t f, int64_t c) {
  return (tsdfFloorDivExact(f * x, z) + c + 32768) >> 16;
}

// Camera-frame x (or y) of pixel coordinate p at depth z: (p - c) z / f, fine units.
VOXEN_MATH int64_t tsdfBackProject(int p, int64_t z, int64_t f, int64_t c) {
  return tsdfFloorDivExact(((int64_t(p) << 16) - c) * z, f);
}

// floor(sqrt(n)), exactly on every device: the float root (within about 2^9 of the true one),
// one Newton step on the integer remainder n - x^2 in float (then within a few units), and
// unit steps until x^2 <= n < (x + 1)^2. No 64-bit division (Newton's integer steps from a
// power of two took five or six); the floats choose the start, never the result.
VOXEN_MATH uint64_t tsdfIsqrt(uint64_t n) {
  if (n == 0) return 0;
  const uint64_t largest = 4294967295ul;  // 2^32 - 1: every root of a uint64, its square exact
  uint64_t x = uint64_t(sqrt(float(n)));
  x = x < 1 ? 1 : (x > largest ? largest : x);
  const uint64_t square = x * x;
  if (square > n) {
    const uint64_t down = uint64_t(float(square - n) / float(2 * x));
    x = down < x ? x - down : 1;
  } else {
    const uint64_t up = uint64_t(float(n - square) / float(2 * x));
    x = up < largest - x ? x + up : largest;
  }
  while (x * x > n) x -= 1;
  while (x < largest && (x + 1) * (x + 1) <= n) x += 1;
  return x;
}

// The signed distance along the pixel's ray of a voxel at camera-frame (x, y, z), z > 0, whose
// depth differs from the pixel's by sdfZ = depth - z (fine units, |sdfZ| <= the truncation):
// sdfZ |p| / z, rounded, as Open3D and KinectFusion measure it (the band behind a surface seen
// at a slant is then as thick as one seen head-on).
VOXEN_MATH int64_t tsdfRayDistance(int64_t sdfZ, int64_t x, int64_t y, int64_t z) {
  uint64_t length = tsdfIsqrt(uint64_t(x * x) + uint64_t(y * y) + uint64_t(z * z));
  return tsdfRoundDivExact(sdfZ * int64_t(length), z);
}

// The weight (kTsdfWeightUnit units) of a measurement at signed distance sdf (fine units,
// within [-truncation, truncation]).
VOXEN_FUNCTION uint tsdfWeightOf(int64_t sdf, int64_t truncation, uint weighting) {
  if (weighting == kTsdfWeightConstant || sdf >= 0) return kTsdfWeightUnit;
  return uint((int64_t(kTsdfWeightUnit) * (truncation + sdf)) / truncation);
}

// The fold of one measurement (sdf, weight w > 0) into a voxel: the new distance, then the
// new weight (the sum, capped at maxWeight).
VOXEN_MATH int tsdfFoldDistance(int distance, uint weight, int64_t sdf, uint w) {
  return int(tsdfRoundDivExact(int64_t(weight) * int64_t(distance) + int64_t(w) * sdf, int64_t(weight) + int64_t(w)));
}
VOXEN_FUNCTION uint tsdfFoldWeight(uint weight, uint w, uint maxWeight) {
  return weight + w > maxWeight ? maxWeight : weight + w;
}

// Discovery: one thread per pixel; each valid pixel marks the blocks of its band
// [depth - truncation, depth + truncation] along its ray (the box of the blocks of the two
// band ends) in a hash set of packed block keys (21 bits per axis, offset by 2^20; 0: empty),
// listing each new one once.
struct TsdfDiscoverPush {
  VOXEN_ADDRESS camera;     // TsdfCamera
  VOXEN_ADDRESS depth;      // the image: uint16 pairs packed in uints, or floats
  VOXEN_ADDRESS table;      // uint64_t[tableMask + 1]
  VOXEN_ADDRESS list;       // uint64_t[listCapacity]: the new keys, in no particular order
  VOXEN_ADDRESS counters;   // uint[2]: keys found (may pass listCapacity), 1 when a key found no free slot
  uint tableMask;           // capacity - 1 (a power of two)
  uint listCapacity;
  uint maxProbe;
  uint pad;
};
VOXEN_SHARED_ASSERT(sizeof(TsdfDiscoverPush) == 56)

// Integration: kTsdfBlockVoxels threads per listed block, one per voxel; the host gives each
// block its region's cache slot. A frame with colour, into a map with the tsdf_colour layer,
// runs the pipeline whose specialisation constant kTsdfIntegrateColourId is 1, which also folds
// the voxel's pixel's colour (tsdfColourMean, with the distance's weight w, the same cap);
// the colour-less pipeline (0) compiles without that code, so frames without colour cost
// nothing more.
VOXEN_CONST(uint, kTsdfIntegrateColourId, 0u)
struct TsdfIntegratePush {
  VOXEN_ADDRESS camera;     // TsdfCamera
  VOXEN_ADDRESS depth;
  VOXEN_ADDRESS blocks;     // ivec4 per block: block key x, y, z, and the region's cache slot
  VOXEN_ADDRESS tsdf;       // the cache's tsdf pool: TsdfVoxel[slot * voxelsPerRegion + voxel]
  VOXEN_ADDRESS colourImage;  // coloured frames: the rgb bytes (ColourImage::rgb), in uints, zero-padded
  VOXEN_ADDRESS colour;     // coloured frames: the cache's tsdf_colour pool, TsdfColourVoxel[as tsdf]
  uint blockCount;
  int regionSize;
  uint weighting;
  uint maxWeight;           // weight units
};
VOXEN_SHARED_ASSERT(sizeof(TsdfIntegratePush) == 64)

VOXEN_SHARED_END

#endif
