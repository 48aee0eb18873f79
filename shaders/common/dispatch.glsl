// Thread indexing for Scheduler::dispatchThreads, which folds a long 1D launch into y
// once it passes the device's x limit (65,535 workgroups on many drivers).
#ifndef VOXEN_COMMON_DISPATCH_GLSL
#define VOXEN_COMMON_DISPATCH_GLSL

// A macro, not a function: shaders include this before their local_size layout, and a
// function compiled there would see gl_WorkGroupSize as (1,1,1).
#define voxenThreadIndex() \
  (gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * (gl_NumWorkGroups.x * gl_WorkGroupSize.x))

#endif
