// Thread indexing for Scheduler::dispatchThreads, which folds a long 1D launch into y
// once it passes the device's x limit (65,535 workgroups on many drivers).
#ifndef VOXEN_COMMON_DISPATCH_GLSL
#define VOXEN_COMMON_DISPATCH_GLSL

uint voxenThreadIndex() {
  return gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * (gl_NumWorkGroups.x * gl_WorkGroupSize.x);
}

#endif
