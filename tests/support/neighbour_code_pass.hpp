#pragma once
// A program's own map pass for the tests of map passes (test_map_pass.cpp: bindMapPass by
// hand; test_mapper_pass.cpp: Mapper::runPass): each voxel's code, 16 x its class (0
// unobserved, 1 free, 2 occupied) + its occupied face neighbours, read across region faces
// (a halo of 1 voxel) and written only into the voxel's own element of a layer registered
// here; with its CPU reference.
#include <array>
#include <cstdint>

#include "voxen/gpu/map/map_binding.h"
#include "voxen/map/layer.hpp"
#include "voxen/map/map.hpp"

namespace vt {

inline const char* kNeighbourCodeShader = R"(#version 460
#extension GL_GOOGLE_include_directive : require
#include "map/map_pass.glsl"
layout(local_size_x = 64) in;
layout(push_constant) uniform Push { MapBinding map; float threshold; uint layer; } pc;

uint classOf(float v) { return !mapObserved(v) ? 0u : (v >= pc.threshold ? 2u : 1u); }

void main() {
  uint voxels = mapVoxelsPerRegion(pc.map);
  uint thread = gl_GlobalInvocationID.x;
  if (thread >= pc.map.regionCount * voxels) return;
  ivec4 region = mapPassRegion(pc.map, thread / voxels);
  uint local = thread % voxels;
  ivec3 voxel = mapVoxelOf(pc.map, region.xyz, local);
  uint occupied = 0u;
  for (int i = 0; i < 6; ++i) {
    ivec3 d = ivec3(0);
    d[i / 2] = (i % 2 == 0) ? 1 : -1;
    uint nLocal;
    int slot = mapFindVoxel(pc.map, voxel + d, nLocal);
    if (slot >= 0 && classOf(mapOccupancy(pc.map, slot, nLocal)) == 2u) ++occupied;
  }
  uint self = classOf(mapOccupancy(pc.map, region.w, local));
  UintArray(mapLayerPool(pc.map, pc.layer)).v[mapElement(pc.map, region.w, local)] = self * 16u + occupied;
}
)";

// The shader's push constants (its Push block).
struct NeighbourCodePush {
  voxen::gpu::MapBinding map;
  float threshold;
  uint32_t layer;
};

// The layer the pass writes, "test_neighbour_code" (u32, 0 to 38), registered once.
inline voxen::LayerId neighbourCodeLayer() {
  static const voxen::LayerId id = [] {
    voxen::LayerType type;
    type.name = "test_neighbour_code";
    type.bytesPerVoxel = 4;
    type.elementBytes = 4;
    type.description = "16 x class + occupied face neighbours (tests/support/neighbour_code_pass.hpp)";
    voxen::LayerField field;
    field.name = "code";
    field.type = voxen::FieldType::U32;
    field.min = 0;
    field.max = 38;
    type.fields = {field};
    return voxen::registerLayer(type);
  }();
  return id;
}

inline uint32_t classCode(const voxen::OccupancyMap& map, const voxen::VoxelCoord& v) {
  switch (map.classify(v)) {
    case voxen::VoxelClass::Unobserved: return 0;
    case voxen::VoxelClass::Free: return 1;
    case voxen::VoxelClass::Occupied: return 2;
  }
  return 0;
}

// The CPU reference: the code of voxel `v` (a region the map lacks reads as unobserved);
// `occupied` gets its occupied face neighbours.
inline uint32_t expectedNeighbourCode(const voxen::OccupancyMap& map, const voxen::VoxelCoord& v, uint32_t& occupied) {
  const std::array<voxen::VoxelCoord, 6> faces{{{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}}};
  occupied = 0;
  for (const voxen::VoxelCoord& d : faces) occupied += classCode(map, {v.x + d.x, v.y + d.y, v.z + d.z}) == 2;
  return classCode(map, v) * 16 + occupied;
}

}  // namespace vt
