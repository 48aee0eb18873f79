// The painter's data layout on the GPU: mirrors engine/painter/include/voxen/painter/
// frame_layout.hpp (read its comment for the grid, cell, block and triangle conventions).
#ifndef VOXEN_PAINTER_COMMON_GLSL
#define VOXEN_PAINTER_COMMON_GLSL

#extension GL_GOOGLE_include_directive : require
#include "../common/buffers.glsl"

const uint kBlockCells = 8u;
const float kIsoLevel = 0.5;

const uint kPhaseBrush = 0u;
const uint kPhaseMeshList = 1u;
const uint kPhaseMeshCount = 2u;
const uint kPhaseMeshScan = 3u;
const uint kPhaseMeshCopy = 4u;
const uint kPhaseMeshEmit = 5u;
const uint kPhaseRasterClear = 6u;
const uint kPhaseRasterSmall = 7u;
const uint kPhaseRasterLarge = 8u;
const uint kPhaseResolve = 9u;

const uint kCounterLargeTriangles = 0u;
const uint kCounterLargeTiles = 1u;
const uint kCounterDrawnTriangles = 2u;
const uint kCounterOverflow = 3u;
const uint kCounterBrushVoxels = 4u;
const uint kCounterDirtyBlocks = 5u;
const uint kCounterCopyBlocks = 6u;

const uint kNoOffset = 0xFFFFFFFFu;

const uint kRasterShaded = 0u;
const uint kRasterTriangleId = 1u;

struct Triangle {
  vec4 p0n;  // xyz position, w = uintBitsToFloat(octahedral normal)
  vec4 p1n;
  vec4 p2n;
  uvec4 extra;  // x colour (RGBA8), y emitting cell, zw unused
};

struct BlockInfo {
  uint triangleCount;
  uint offset;
  uint previousOffset;
  uint dirty;
  uint olderOffset;
  uint unused0, unused1, unused2;
};

layout(buffer_reference, std430, buffer_reference_align = 16) buffer TriangleArray { Triangle v[]; };
layout(buffer_reference, std430, buffer_reference_align = 16) buffer BlockArray { BlockInfo v[]; };

const uint kBrushNone = 0u;
const uint kBrushAdd = 1u;
const uint kBrushErase = 2u;
const uint kBrushOperationMask = 3u;
const uint kBrushAtRayHit = 4u;

layout(buffer_reference, std430, buffer_reference_align = 16) buffer FrameConstantsRef {
  mat4 viewProj;
  vec4 cameraPos;
  vec4 lightDir;
  vec4 gridOrigin;      // w = voxel size
  vec4 brushRayOrigin;  // w = radius
  vec4 brushRayDir;     // w = search distance
  uint brushColor;
  uint brushMode;
  uint brushBoxSide;
  uint gridX, gridY, gridZ;
  uint blocksX, blocksY, blocksZ;
  uint width, height;
  uint tilesX, tilesY;
  uint rasterMode;
  uint maxTriangles;
  uint backgroundColor;
  uint cullBackFaces;
  uint largeTriangleArea;
  uint maxLargeTiles;
  uint unusedU32a, unusedU32b, unusedU32c;
  FloatArray density;
  UintArray color;
  BlockArray blocks;
  TriangleArray triangles;
  TriangleArray previousTriangles;
  UintArray counters;
  Uint64Array framebuffer;
  Uvec2Array largeQueue;
  UintArray image;
  UintArray fragmentCounts;
  UintArray blockTotal;
  Vec4Array brushState;
  UintArray caseTable;
  UintArray blockLists;
};

// The frame's one push constant: where its constants are. `param` is a per-dispatch value
// some phases use (documented at each phase).
layout(push_constant) uniform PainterPush {
  FrameConstantsRef frame;
  uint param;
  uint unusedParam;
} pc;

// The workgroup's index in a dispatch of engine/painter's dispatchPhase, which folds long
// launches into y like Scheduler::dispatchThreads: a folded launch has a few groups past
// the count asked for, and every phase skips them.
#define painterGroupIndex() (gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x)

// Octahedral normal encoding (the same arithmetic as engine/painter/include/voxen/painter/normal_encoding.hpp).
uint encodeNormal(vec3 n) {
  precise vec3 a = abs(n);
  precise float l1 = a.x + a.y + a.z;
  vec2 p = l1 > 0.0 ? n.xy / l1 : vec2(0.0);
  if (n.z < 0.0) {
    vec2 s = vec2(p.x >= 0.0 ? 1.0 : -1.0, p.y >= 0.0 ? 1.0 : -1.0);
    p = (vec2(1.0) - abs(p.yx)) * s;
  }
  return packSnorm2x16(p);
}

vec3 decodeNormal(uint bits) {
  vec2 p = unpackSnorm2x16(bits);
  vec3 n = vec3(p, 1.0 - abs(p.x) - abs(p.y));
  if (n.z < 0.0) {
    vec2 s = vec2(n.x >= 0.0 ? 1.0 : -1.0, n.y >= 0.0 ? 1.0 : -1.0);
    n.xy = (vec2(1.0) - abs(n.yx)) * s;
  }
  return normalize(n);
}

#endif
