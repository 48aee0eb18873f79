#version 460
// Ray casts: one invocation per ray segment walks it with the engine's voxel walk
// (occupancy/ray_walk.glsl, the CPU reference's walk) and stops at the first voxel it can
// decide as a hit in this chunk: occupied, or unobserved with unknownBlocks (a region the
// map does not hold is unobserved). A voxel of a region resident in another chunk is
// skipped here; that chunk's dispatch decides it. Each segment keeps its earliest hit
// over the chunks (by ordinal, the voxel's place in the segment's walk), and every ray
// the lowest segment with a hit (query_ray_resolve.comp picks it).
#extension GL_GOOGLE_include_directive : require
#include "../common/dispatch.glsl"
#include "query_map.glsl"
#include "../occupancy/gpu_ray.glsl"

layout(local_size_x = 64) in;
layout(push_constant) uniform Push { QueryRaycastPush pc; };

int gRegionSize;
// The walk's region hooks: the queries find regions through their own lookup instead.
void beginRegion(ivec3 v) {}
void followRegion(ivec3 v) {}

#include "../occupancy/ray_walk.glsl"

QueryRaycastPush gP;
uint gOrdinal;
uint gBest;  // the segment's stored ordinal: only an earlier hit replaces it
bool gFound;
ivec3 gHitVoxel;
float gHitT;
uint gHitValue;

bool visitVoxel(ivec3 voxel, float tEnter, float tExit) {
  uint ordinal = gOrdinal++;
  if (ordinal >= gBest) return false;
  ivec3 region = regionOfVoxel(voxel, gRegionSize);
  int slot;
  int state = regionState(region, slot);
  if (state == kRegionElsewhere) return true;
  uint bits = state == kRegionResident ? gPool.v[voxelWord(voxel, region, slot)] : 0x7f800000u;
  float value = uintBitsToFloat(bits);
  bool unobserved = bits == 0x7f800000u;
  bool hit = unobserved ? gP.unknownBlocks != 0u : value >= gP.threshold;
  if (!hit) return true;
  gFound = true;
  gHitVoxel = voxel;
  gHitT = tEnter;
  gHitValue = bits;
  gBest = ordinal;
  return false;
}

void loadRay(uint r) {
  Uint64Array words = Uint64Array(gP.rays);
  uint base = r * 10u;
  uvec2 q0 = unpackUint2x32(words.v[base + 0u]);
  uvec2 q1 = unpackUint2x32(words.v[base + 1u]);
  uvec2 q2 = unpackUint2x32(words.v[base + 2u]);
  uvec2 q3 = unpackUint2x32(words.v[base + 3u]);
  uvec2 q4 = unpackUint2x32(words.v[base + 4u]);
  uvec2 q5 = unpackUint2x32(words.v[base + 5u]);
  uvec2 q6 = unpackUint2x32(words.v[base + 6u]);
  uvec2 q7 = unpackUint2x32(words.v[base + 7u]);
  uvec2 q8 = unpackUint2x32(words.v[base + 8u]);
  gRay.o = uintBitsToFloat(uvec3(q0, q1.x));
  gRay.d = uintBitsToFloat(uvec3(q2, q3.x));
  gRay.start = ivec3(q4, q5.x);
  gRay.flags = q5.y;
  gRay.end = ivec3(q6, q7.x);
  gRay.segments = q7.y;
  gRay.slotBase = q8.x;
  gRay.segmentBase = q8.y;
}

void main() {
  uint i = voxenThreadIndex();
  gP = pc;
  if (i >= gP.count) return;
  queryMapBegin(gP.map);
  gRegionSize = gP.map.regionSize;
  uvec2 segment = unpackUint2x32(Uint64Array(gP.segments).v[i]);
  loadRay(segment.x);
  Uvec4Array hits = Uvec4Array(gP.hits);
  gBest = hits.v[2u * i + 1u].x;
  gOrdinal = 0u;
  gFound = false;
  walkSegment(segment.y, gRay.segments, false);
  if (!gFound) return;
  hits.v[2u * i] = uvec4(uvec3(gHitVoxel), floatBitsToUint(gHitT));
  hits.v[2u * i + 1u] = uvec4(gBest, gHitValue, 0u, 0u);
  atomicMin(UintArray(gP.firstHit).v[segment.x], segment.y);
}
