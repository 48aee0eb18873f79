#version 460
// The hardware rasterizer's fragment stage: a pixel's value is the index of the nearest
// triangle covering it (hardware_raster.vert).
layout(location = 0) flat in uint triangleId;
layout(location = 0) out uint id;

void main() { id = triangleId; }
