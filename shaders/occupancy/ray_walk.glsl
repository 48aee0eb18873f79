// The voxel walk, operation for operation the same as
// engine/occupancy/internal/voxen/occupancy/ray_walk.hpp (read that file's comment first), so
// that the CPU reference and the GPU visit exactly the same voxels.
//
// Included by map_access.glsl after its push constants and region helpers (it calls
// beginRegion and followRegion there, and reads gRegionSize). The including shader defines
//   bool visitVoxel(ivec3 voxel, float tEnter, float tExit);   // false: stop the walk
// and sets gRay before walking.
#ifndef VOXEN_OCCUPANCY_RAY_WALK_GLSL
#define VOXEN_OCCUPANCY_RAY_WALK_GLSL

#include "../common/exact_math.glsl"
#include "crossing_time.glsl"

#define kInf uintBitsToFloat(0x7f800000u)

bool visitVoxel(ivec3 voxel, float tEnter, float tExit);

// Everything below works on scalars and vector selects, never on a vector indexed by a
// variable: on SIMD drivers (lavapipe) a per-lane index into a vector becomes memory
// traffic, and the walk is the inner loop of the whole mapper.

// 1/d of gRay per axis (crossing_time.glsl): set once per walk by walkBegin and
// sampleEnterT, so that a voxel step multiplies instead of dividing.
vec3 gInvD;

void prepareCrossings() { gInvD = crossingReciprocal(gRay.d); }

// How many of the n faces along one axis are crossed at t < T.
int crossingsBeforeAxis(float o, float d, float invD, int step, int n, float T) {
  if (n == 0 || T == -kInf) return 0;
  if (T == kInf) return n;
  float guess = step > 0 ? ceil(o + T * d - 1.0) : ceil(T * -d - o);
  int count = int(clamp(guess, 0.0, float(n)));
  // A few steps at most: the guess is off only by rounding.
  for (int i = 0; i < 8 && count > 0 && crossingAt(o, invD, step, count - 1) >= T; ++i) --count;
  for (int i = 0; i < 8 && count < n && crossingAt(o, invD, step, count) < T; ++i) ++count;
  return count;
}

ivec3 crossingsBefore(ivec3 stepV, ivec3 n, float T) {
  return ivec3(crossingsBeforeAxis(gRay.o.x, gRay.d.x, gInvD.x, stepV.x, n.x, T),
               crossingsBeforeAxis(gRay.o.y, gRay.d.y, gInvD.y, stepV.y, n.y, T),
               crossingsBeforeAxis(gRay.o.z, gRay.d.z, gInvD.z, stepV.z, n.z, T));
}

float segmentBound(uint s, uint m) {
  if (s == 0u) return -kInf;
  if (s >= m) return kInf;
  precise float b = exactDiv(float(s), float(m));
  return b;
}

// t of crossing j along every axis (kInf where j is past the last face).
vec3 crossingsAt(ivec3 stepV, ivec3 n, ivec3 j) {
  return vec3(j.x < n.x ? crossingAt(gRay.o.x, gInvD.x, stepV.x, j.x) : kInf,
              j.y < n.y ? crossingAt(gRay.o.y, gInvD.y, stepV.y, j.y) : kInf,
              j.z < n.z ? crossingAt(gRay.o.z, gInvD.z, stepV.z, j.z) : kInf);
}

// The crossing of axis `axis` at index j (one subtraction and one multiplication, operands
// chosen by selects).
float crossingOnAxis(int axis, ivec3 stepV, int j) {
  float o = axis == 0 ? gRay.o.x : (axis == 1 ? gRay.o.y : gRay.o.z);
  float invD = axis == 0 ? gInvD.x : (axis == 1 ? gInvD.y : gInvD.z);
  int step = axis == 0 ? stepV.x : (axis == 1 ? stepV.y : stepV.z);
  return crossingAt(o, invD, step, j);
}

int pick(int axis, ivec3 values) { return axis == 0 ? values.x : (axis == 1 ? values.y : values.z); }
float pickF(int axis, vec3 values) { return axis == 0 ? values.x : (axis == 1 ? values.y : values.z); }

// How many region faces the walk has crossed once it crossed count[a] faces along each axis:
// the index of its region in the ray's region list (the host's regionsOnRay order).
int regionFacesBefore(ivec3 count) {
  int size = gRegionSize;
  // Power-of-two region sizes (the default) use masks and shifts: integer division and
  // remainder run lane by lane on SIMD drivers such as lavapipe.
  bool pow2 = (size & (size - 1)) == 0;
  ivec3 stepV = sign(gRay.end - gRay.start);
  ivec3 within = offsetInRegion(gRay.start, size);
  // Index of the first face per axis that is a region face (see regionsOnRay in ray_walk.cpp).
  ivec3 first = mix(within, ivec3(size - 1) - within, greaterThan(stepV, ivec3(0)));
  // >= 0 wherever it is used below; clamped so that no lane divides a negative value
  // (region_table.glsl's floorDivide says why).
  ivec3 after = max(count - first - 1, ivec3(0));
  ivec3 later = pow2 ? (after >> findLSB(size)) : after / size;
  ivec3 faces = mix(ivec3(0), later + 1, greaterThan(count, first));
  faces = mix(faces, ivec3(0), equal(stepV, ivec3(0)));
  return faces.x + faces.y + faces.z;
}

// The walk one voxel per call (walkBegin, then walkForward or walkReverse until wAlive is
// false), so that a shader can batch the memory work of several voxels: on lavapipe a
// voxel's load stalls for the memory latency, and loads of several voxels issued together
// overlap. walkSegment below is the one-voxel-at-a-time loop over it.
ivec3 wStep, wNext, wLast, wV;
vec3 wT;        // next crossing per axis (forward) or previous (reverse)
float wTEdge;   // tEnter of the voxel at wV (forward) or its tExit (reverse)
float wTBeyond;
bool wPending;  // forward: wV is still to visit; reverse: the origin voxel is (segment 0)
bool wAlive = false;

void walkBegin(uint s, uint m, bool reverse) {
  prepareCrossings();
  wStep = sign(gRay.end - gRay.start);
  ivec3 n = abs(gRay.end - gRay.start);
  float lo = segmentBound(s, m), hi = segmentBound(s + 1u, m);
  wNext = crossingsBefore(wStep, n, lo);
  wLast = crossingsBefore(wStep, n, hi);
  gRegionIndex = regionFacesBefore(reverse ? wLast : wNext);
  gRegionStep = reverse ? -1 : 1;
  vec3 beyond = crossingsAt(wStep, n, wLast);
  wTBeyond = min(min(beyond.x, beyond.y), min(beyond.z, 1.0));
  wPending = s == 0u;
  wAlive = true;
  beginRegion(gRay.start + wStep * (reverse ? wLast : wNext));
  if (!reverse) {
    wV = gRay.start + wStep * wNext;
    wT = crossingsAt(wStep, wLast, wNext);
    wTEdge = 0.0;
  } else {
    wV = gRay.start + wStep * wLast;
    wT = crossingsAt(wStep, n, max(wLast - 1, ivec3(0)));
    wTEdge = wTBeyond;
  }
}

// The next voxel of a forward walk (false: none this call; the walk is over once wAlive
// is false).
bool walkForward(out ivec3 v, out float tEnter, out float tExit) {
  v = wV;
  tEnter = 0.0;
  tExit = 0.0;
  if (!wAlive) return false;
  bvec3 act = lessThan(wNext, wLast);
  int best = -1;
  if (act.x && (!act.y || wT.x <= wT.y) && (!act.z || wT.x <= wT.z)) best = 0;
  else if (act.y && (!act.z || wT.y <= wT.z)) best = 1;
  else if (act.z) best = 2;
  bool emit = wPending;
  if (best < 0) {
    wAlive = false;
    tEnter = clamp(wTEdge, 0.0, 1.0);
    tExit = wTBeyond;
  } else {
    float bestT = pickF(best, wT);
    tEnter = max(wTEdge, 0.0);
    tExit = min(bestT, 1.0);
    ivec3 sel = ivec3(equal(ivec3(best), ivec3(0, 1, 2)));
    wV += sel * wStep;
    wNext += sel;
    int j = pick(best, wNext);
    if (j < pick(best, wLast)) wT = mix(wT, vec3(crossingOnAxis(best, wStep, j)), bvec3(sel));
    wTEdge = bestT;
    wPending = true;
  }
  if (emit) followRegion(v);
  return emit;
}

bool walkReverse(out ivec3 v, out float tEnter, out float tExit) {
  v = wV;
  tEnter = 0.0;
  tExit = 0.0;
  if (!wAlive) return false;
  bvec3 act = greaterThan(wLast, wNext);
  int best = -1;
  if (act.z && (!act.y || wT.z >= wT.y) && (!act.x || wT.z >= wT.x)) best = 2;
  else if (act.y && (!act.x || wT.y >= wT.x)) best = 1;
  else if (act.x) best = 0;
  bool emit = true;
  if (best < 0) {
    wAlive = false;
    emit = wPending;
    tExit = clamp(wTEdge, 0.0, 1.0);
  } else {
    float bestT = pickF(best, wT);
    tEnter = clamp(bestT, 0.0, 1.0);
    tExit = max(wTEdge, 0.0);
    ivec3 sel = ivec3(equal(ivec3(best), ivec3(0, 1, 2)));
    wV -= sel * wStep;
    wLast -= sel;
    int j = pick(best, wLast);
    if (j > pick(best, wNext)) wT = mix(wT, vec3(crossingOnAxis(best, wStep, j - 1)), bvec3(sel));
    wTEdge = bestT;
  }
  if (emit) followRegion(v);
  return emit;
}

// Visits the voxels of segment s of m in walk order (see ray_walk.hpp walkSegment), calling
// visitVoxel for each until it returns false. Each step is one crossing of this segment:
// bounded by the segment size the host chose, well under lavapipe's per-invocation loop cap.
void walkSegment(uint s, uint m, bool reverse) {
  walkBegin(s, m, reverse);
  while (wAlive) {
    ivec3 v;
    float tEnter, tExit;
    bool emit = reverse ? walkReverse(v, tEnter, tExit) : walkForward(v, tEnter, tExit);
    if (emit && !visitVoxel(v, tEnter, tExit)) return;
  }
}

// t at which the walk enters the sample voxel.
float sampleEnterT() {
  prepareCrossings();
  ivec3 stepV = sign(gRay.end - gRay.start);
  ivec3 n = abs(gRay.end - gRay.start);
  vec3 t = crossingsAt(stepV, n, n - 1);  // the last face of each axis
  float enter = 0.0;
  if (n.x > 0) enter = max(enter, t.x);
  if (n.y > 0) enter = max(enter, t.y);
  if (n.z > 0) enter = max(enter, t.z);
  return clamp(enter, 0.0, 1.0);
}

#endif
