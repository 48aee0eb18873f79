// The ray record the host prepares for the occupancy passes.
#ifndef VOXEN_OCCUPANCY_GPU_RAY_GLSL
#define VOXEN_OCCUPANCY_GPU_RAY_GLSL

// Mirrors GpuRay in engine/occupancy/src/gpu_integrator.cpp: 80 bytes, std430.
struct GpuRay {
  vec3 o;           // origin in voxel units relative to the start voxel's lower corner
  float time;       // seconds after the map's time origin
  vec3 d;           // origin to sample, in voxel units
  uint meanPacked;  // sample offset in its voxel, 10 bits per axis
  ivec3 start;      // origin voxel
  uint flags;       // PreparedRayFlag
  ivec3 end;        // sample voxel
  uint segments;    // how many segments the walk is cut into
  uint slotBase;    // first entry of this ray's region slots (in walk order)
  uint regionCount; // regions on the walk
  uvec2 unused;
};

// The ray this invocation works on.
GpuRay gRay;
// Index into the ray's region list of the region the walk is in, and the walk direction:
// set by walkSegment, followed by voxelIndex() (map_access.glsl).
int gRegionIndex = 0;
int gRegionStep = 1;

#endif
