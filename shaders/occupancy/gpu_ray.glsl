// The ray record the host prepares for the occupancy passes.
#ifndef VOXEN_OCCUPANCY_GPU_RAY_GLSL
#define VOXEN_OCCUPANCY_GPU_RAY_GLSL

#include "occupancy_shared.h"  // struct GpuRay

// The ray this invocation works on.
GpuRay gRay;
uint gRayRegions = 0u;  // regions on its walk (the length of its region list)
// Index into the ray's region list of the region the walk is in, and the walk direction:
// set by walkSegment, followed by voxelIndex() (map_access.glsl).
int gRegionIndex = 0;
int gRegionStep = 1;

#endif
