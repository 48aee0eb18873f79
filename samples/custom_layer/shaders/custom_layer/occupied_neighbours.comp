// The sample's own pass: for every voxel of the regions it is given, how many of its six
// face neighbours are occupied, written into the sample's layer. Neighbours in other
// regions are looked up in the region cache; a region that is not resident counts as
// unobserved, as the CPU reference in main.cpp counts a region the map does not have.
#version 460
#extension GL_GOOGLE_include_directive : require
// Found in the library's built-in GLSL at run time, and under voxen_GLSL_INCLUDE_DIR by
// glslangValidator in the sample's build.
#include "map/map_pass.glsl"

layout(local_size_x = 64) in;

layout(push_constant) uniform Push {
  MapBinding map;    // from voxen::bindMapPass
  float threshold;   // log-odds at or above which a voxel is occupied
  uint layer;        // the sample's layer id (registered at run time)
} pc;

bool occupiedAt(ivec3 voxel) {
  uint local;
  int slot = mapFindVoxel(pc.map, voxel, local);
  if (slot < 0) return false;
  float value = mapOccupancy(pc.map, slot, local);
  return mapObserved(value) && value >= pc.threshold;
}

void main() {
  uint voxels = mapVoxelsPerRegion(pc.map);
  uint thread = gl_GlobalInvocationID.x;
  if (thread >= pc.map.regionCount * voxels) return;
  ivec4 region = mapPassRegion(pc.map, thread / voxels);
  uint local = thread % voxels;
  ivec3 v = mapVoxelOf(pc.map, region.xyz, local);
  uint count = uint(occupiedAt(v + ivec3(1, 0, 0))) + uint(occupiedAt(v - ivec3(1, 0, 0))) +
               uint(occupiedAt(v + ivec3(0, 1, 0))) + uint(occupiedAt(v - ivec3(0, 1, 0))) +
               uint(occupiedAt(v + ivec3(0, 0, 1))) + uint(occupiedAt(v - ivec3(0, 0, 1)));
  UintArray(mapLayerPool(pc.map, pc.layer)).v[mapElement(pc.map, region.w, local)] = count;
}
