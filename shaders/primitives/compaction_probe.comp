#version 460
// Test probe of the stream compaction's dispatch command (tests/engine/test_stream_compaction.cpp):
// dispatched indirectly, it counts its invocations and marks the kept items it is given.
#extension GL_GOOGLE_include_directive : require
#include "../common/buffers.glsl"
#include "../common/dispatch.glsl"
#include "scan_tiles.h"

layout(local_size_x = 64) in;

layout(push_constant) uniform Push { CompactionProbePush pc; };

void main() {
  const uint i = voxenThreadIndex();
  UintArray counters = UintArray(pc.counters);
  atomicAdd(counters.v[0], 1u);
  if (i < UintArray(pc.total).v[0]) {
    atomicAdd(counters.v[1], 1u);
    atomicAdd(UintArray(pc.seen).v[UintArray(pc.indices).v[i]], 1u);
  }
}
