#version 460
// Occupancy answers from the gathered value bits: each point's value and its class as
// OccupancyMap::classify decides it (unobserved where the value is kUnobserved, occupied at
// or above the threshold, free below) and status (outside the map where the gather left the
// host's kQueryOutsideMapBits), written in the host's OccupancyAnswer layout so the
// answers are read back straight into the caller's memory, with no host work per point.
#extension GL_GOOGLE_include_directive : require
#include "../common/buffers.glsl"
#include "../common/dispatch.glsl"
#include "query_shared.h"

layout(local_size_x = 64) in;
layout(push_constant) uniform Push { QueryClassifyPush pc; };

const uint kUnobservedBits = 0x7f800000u;  // +infinity, the map's kUnobserved
const uint kClassUnobserved = 0u, kClassFree = 1u, kClassOccupied = 2u;  // VoxelClass

void main() {
  uint i = voxenThreadIndex();
  QueryClassifyPush p = pc;
  if (i >= p.count) return;
  uint bits = UintArray(p.values).v[i];
  uint status = bits == kQueryOutsideMapBits ? kQueryStatusOutsideMap
                : bits == kUnobservedBits    ? kQueryStatusUnobserved
                                             : kQueryStatusObserved;
  if (status == kQueryStatusOutsideMap) bits = kUnobservedBits;
  uint voxelClass = bits == kUnobservedBits ? kClassUnobserved
                    : uintBitsToFloat(bits) >= p.threshold ? kClassOccupied : kClassFree;
  UintArray answers = UintArray(p.answers);
  answers.v[3u * i] = bits;
  answers.v[3u * i + 1u] = voxelClass;
  answers.v[3u * i + 2u] = status;
}
