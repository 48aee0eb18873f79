// Instanced boxes as painter triangles (box_instances.comp, engine/painter's BoxInstances and
// its CPU reference): the push constant and the box's corner and face conventions, one
// definition for GLSL and C++.
//
// An instance is an id with a world matrix (mat4, column-major, per id, or where a slot per
// id says: the transform tree stores its worlds by level order), a local box (vec4
// lo, vec4 hi per id: gpu layout of the transform tree's boxes) and a colour (RGBA8 per id).
// Listed instance k (the k-th entry of `instances`) writes triangles [12k, 12k + 12): face f
// (kBoxFace*) as triangles 2f (corners a, b, c) and 2f + 1 (a, c, d). Corner i of a box is
// (i & 1 ? hi.x : lo.x, i & 2 ? hi.y : lo.y, i & 4 ? hi.z : lo.z). Every face is wound
// counter-clockwise seen from outside (front-facing for the rasterizer); under a mirroring
// world matrix (negative determinant) b and d swap so that it stays so. The three normals
// of a face are its world-space normal, cross(b - a, c - a) of the written corners.
// Triangle::cell holds the instance id (picking, tests).
#ifndef VOXEN_PAINTER_BOX_INSTANCES_SHARED_H
#define VOXEN_PAINTER_BOX_INSTANCES_SHARED_H

#include "../common/shared.h"

VOXEN_SHARED_BEGIN

VOXEN_CONST(uint, kBoxTriangles, 12u)
VOXEN_CONST(uint, kBoxGroupSize, 64u)  // invocations per workgroup: one per listed instance

// Face corners a | b << 4 | c << 8 | d << 12 for the faces -x, +x, -y, +y, -z, +z.
VOXEN_FUNCTION uint boxFaceCorners(uint face) {
  return face == 0u   ? (0u | 4u << 4 | 6u << 8 | 2u << 12)
         : face == 1u ? (1u | 3u << 4 | 7u << 8 | 5u << 12)
         : face == 2u ? (0u | 1u << 4 | 5u << 8 | 4u << 12)
         : face == 3u ? (2u | 6u << 4 | 7u << 8 | 3u << 12)
         : face == 4u ? (0u | 2u << 4 | 3u << 8 | 1u << 12)
                      : (4u | 5u << 4 | 7u << 8 | 6u << 12);
}

struct BoxInstancesPush {
  VOXEN_ADDRESS worlds;         // mat4 per instance id, or per slot when worldSlots is set
  VOXEN_ADDRESS worldSlots;     // 0, or uint per instance id: the index of its matrix in worlds
  VOXEN_ADDRESS boxes;          // vec4 lo, vec4 hi per instance id (local frame)
  VOXEN_ADDRESS colors;         // uint RGBA8 per instance id
  VOXEN_ADDRESS instances;      // uint instance ids; count[0] of them are listed
  VOXEN_ADDRESS count;          // uint
  VOXEN_ADDRESS triangles;      // Triangle output: kBoxTriangles per listed instance that fits
  VOXEN_ADDRESS triangleCount;  // uint[2] output (count pass): triangles written, instances dropped
  uint maxTriangles;            // capacity of `triangles`
  uint unused;
};
VOXEN_SHARED_ASSERT(sizeof(BoxInstancesPush) == 72)

VOXEN_SHARED_END

#endif
