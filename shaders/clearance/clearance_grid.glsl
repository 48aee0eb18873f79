// The key grid of a propagation technique (push `axis`: 0 the padded block, for neighbour
// propagation and the open list; 1 the region alone, for ROI propagation): its size, where
// it sits in the block, and a voxel's index in the batch's key buffers.
#ifndef VOXEN_CLEARANCE_GRID_GLSL
#define VOXEN_CLEARANCE_GRID_GLSL

bool regionGrid() { return pc.p.axis == 1u; }
ivec3 gridSize() { return regionGrid() ? ivec3(pc.p.regionSize) : blockSize(); }
ivec3 gridOrigin() { return regionGrid() ? padding() : ivec3(0); }  // grid (0,0,0) in block coordinates
uint gridVoxels() { ivec3 s = gridSize(); return uint(s.x * s.y * s.z); }
uint gridIndex(uint block, ivec3 g) {
  ivec3 s = gridSize();
  return uint(g.x) + uint(s.x) * (uint(g.y) + uint(s.y) * (uint(g.z) + uint(s.z) * block));
}
bool inGrid(ivec3 g) { return all(greaterThanEqual(g, ivec3(0))) && all(lessThan(g, gridSize())); }

#endif
