#version 460
// Neighbour and ROI propagation, between steps: the next step's indirect dispatch (at the
// `lists` address: x, y, z, then the changed flag): every workgroup (push `iteration`: their
// number) while the last step changed a key, none once it did not; then clears the flag.
#extension GL_GOOGLE_include_directive : require
#include "clearance_common.glsl"

layout(local_size_x = 1) in;

void main() {
  UintArray words = UintArray(pc.p.lists);
  words.v[0] = words.v[3] != 0u ? pc.p.iteration : 0u;
  words.v[1] = 1u;
  words.v[2] = 1u;
  words.v[3] = 0u;
}
