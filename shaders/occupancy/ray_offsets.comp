#version 460
// The last step of a batch's assembly (batch_assembly_shared.h): one invocation per record
// of a part adds the part's offsets to its slotBase and segmentBase, which the preparing
// thread counted from its chunk's first record. A GpuRay is 80 bytes (asserted in
// occupancy_shared.h); the two words are at offset 64, read and written as one uvec2.
#extension GL_GOOGLE_include_directive : require
#include "../common/buffers.glsl"
#include "../common/dispatch.glsl"
#include "batch_assembly_shared.h"

layout(local_size_x = 64) in;

layout(push_constant) uniform Push { RayOffsetsPush p; } pc;

void main() {
  const uint ray = voxenThreadIndex();
  if (ray >= pc.p.rayCount) return;
  Uvec2Array bases = Uvec2Array(pc.p.rays + uint64_t(ray) * 80ul + 64ul);
  bases.v[0] = bases.v[0] + uvec2(pc.p.slotBaseAdd, pc.p.segmentBaseAdd);
}
