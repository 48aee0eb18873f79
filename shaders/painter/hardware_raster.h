// The hardware rasterizer's push constant (engine/painter/src/hardware_rasterizer.cpp and
// hardware_raster.vert): the graphics pipeline that the software rasterizer is compared
// with draws the painter's Triangle list as it is, three vertices per triangle.
//
// GLSL includers include frame_types.glsl first (TriangleArray).
#ifndef VOXEN_PAINTER_HARDWARE_RASTER_H
#define VOXEN_PAINTER_HARDWARE_RASTER_H

#include "../common/shared.h"
#include "frame_layout.h"

VOXEN_SHARED_BEGIN

struct HardwareRasterPush {
  vec4 viewProj[4];                            // columns (GLM), world -> clip, as FrameConstants::viewProj
  VOXEN_PAINTER_REF(TriangleArray) triangles;  // the Triangle list drawn
};
// std430 rounds the size up to the 16-byte alignment of viewProj, as C++ does.
VOXEN_SHARED_ASSERT(offsetof(HardwareRasterPush, triangles) == 64 && sizeof(HardwareRasterPush) == 80)

VOXEN_SHARED_END

#endif
