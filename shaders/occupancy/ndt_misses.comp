#version 460
// NDT free-space updates of the voxels with a Gaussian, listed by the miss pass
// (integrate_miss.comp) and dispatched indirectly over that list (ordered_miss_args.comp:
// workgroup y is the stripe): one invocation per (voxel, ray) evaluates the ray against the
// voxel's Gaussian (ndtMissUpdate, ndt_shared.h) and applies it by compare-and-swap. The
// Gaussians do not change until the hit fold, so the order of these updates matters only
// through their float sums and the clamp, as in the miss pass.
#extension GL_GOOGLE_include_directive : require
#include "map_access.glsl"
#include "ndt_access.glsl"

layout(local_size_x = 64) in;

bool visitVoxel(ivec3 v, float tEnter, float tExit) { return false; }  // no walk here

void main() {
  loadPushConstants();
  uint stripe = gl_WorkGroupID.y;
  uint i = gl_GlobalInvocationID.x;
  if (i < min(gOrdered.v[gMissHeader + deferredCountOffset(stripe)], gStripeCapacity)) {
    uvec2 miss = unpackUint2x32(gMissList.v[stripe * gStripeCapacity + i]);  // (pool index, ray)
    // The ray's origin, direction and start voxel: words 0-5 of GpuRay (64-bit loads; see
    // loadRayForWalk).
    Uint64Array words = Uint64Array(pc.p.rays);
    uint r = miss.y * 10u;
    uvec2 q0 = unpackUint2x32(words.v[r]), q1 = unpackUint2x32(words.v[r + 1u]), q2 = unpackUint2x32(words.v[r + 2u]);
    uvec2 q3 = unpackUint2x32(words.v[r + 3u]), q4 = unpackUint2x32(words.v[r + 4u]), q5 = unpackUint2x32(words.v[r + 5u]);
    gRay.o = uintBitsToFloat(uvec3(q0, q1.x));
    gRay.d = uintBitsToFloat(uvec3(q2, q3.x));
    gRay.start = ivec3(q4, q5.x);
    // The voxel's coordinates from its pool index: its slot's region key and its index there.
    uint n = uint(gRegionSize);
    uint slot = miss.x / (n * n * n);
    uint local = miss.x - slot * (n * n * n);
    ivec3 key = ivec3(Uvec4Array(pc.p.ndt + uint64_t(gNdt.slotKeys) * 4u).v[slot].xyz);
    ivec3 v = key * int(n) + ivec3(local % n, (local / n) % n, local / (n * n));
    applyNdtMiss(v, miss.x, gMeanWords.v[miss.x * 4u], pc.p.missValue);
  }
  flushCounters();
}
