// The software rasterizer's constants, one definition for shaders/painter/raster.glsl and
// its CPU twin engine/painter/src/cpu_rasterizer.cpp (raster.glsl's header comment states
// the arithmetic they take part in).
#ifndef VOXEN_PAINTER_RASTER_CONSTANTS_H
#define VOXEN_PAINTER_RASTER_CONSTANTS_H

#include "../common/shared.h"

VOXEN_SHARED_BEGIN

VOXEN_CONST(int, kRasterSubpixelBits, 8)          // vertices snap to 1/256 pixel
VOXEN_CONST(int, kRasterHalfPixel, 128)           // pixel centre, in subpixels
VOXEN_CONST(float, kRasterSubpixels, 256.0f)
VOXEN_CONST(float, kRasterGuard, 134217728.0f)    // 2^27 subpixels: edge products stay below 2^57
VOXEN_CONST(float, kRasterMinClipW, 1e-5f)        // vertices at w <= this drop their triangle
VOXEN_CONST(uint, kRasterChunkBits, 5u)           // large-triangle tiles are 32 x 32 pixels
VOXEN_CONST(uint, kRasterChunk, 1u << kRasterChunkBits)
VOXEN_CONST(float, kRasterAmbient, 0.25f)
VOXEN_CONST(float, kRasterDiffuse, 0.75f)
VOXEN_CONST(uint64_t, kRasterEmpty, 0xFFFFFFFFFFFFFFFFul)  // an empty framebuffer entry
// 1 / 32767 rounded to float (unpackSnorm2x16's scale), spelled as bits so that no compiler
// computes it differently on either side.
VOXEN_CONST(uint, kRasterInvSnormBits, 0x38000100u)

VOXEN_SHARED_END

#endif
