// The heightmap's cell array (heightmap_shared.h: level-major, 40 bytes a cell) as a buffer
// reference, for both passes.
#ifndef VOXEN_HEIGHTMAP_CELLS_GLSL
#define VOXEN_HEIGHTMAP_CELLS_GLSL

#extension GL_EXT_buffer_reference : require

layout(buffer_reference, std430, buffer_reference_align = 4) buffer HeightmapCellArray { HeightmapCell v[]; };

uint heightmapCellIndex(uint level, uint x, uint y, uint width, uint height) { return (level * height + y) * width + x; }

#endif
