// The brush phase of the frame megakernel: find where the stroke lands (param 0, one
// workgroup), then add or erase a sphere there (param 1, one invocation per sample of the
// brush's box, brushBoxSide^3 of them, spread over as many workgroups as the host launched).
//
// The sphere is written as a clamped signed distance with a one-voxel ramp,
// density = clamp(0.5 + (radius - distance) / voxel, 0, 1), so the surface (density 0.5)
// lies on the sphere. Add takes the maximum with the grid, erase the minimum with 1 - that.
// The outermost layer of samples is never written, which keeps every mesh closed. Every
// changed sample marks the blocks whose cells read it as dirty.

uint sampleIndex(ivec3 s) {
  FrameConstantsRef f = pc.frame;
  return uint(s.x) + f.gridX * (uint(s.y) + f.gridY * uint(s.z));
}

bool insideGrid(ivec3 s) {
  FrameConstantsRef f = pc.frame;
  return all(greaterThanEqual(s, ivec3(0))) && all(lessThan(s, ivec3(f.gridX, f.gridY, f.gridZ)));
}

// Param 0: invocation 0 marches the ray sample by sample (a step of half a voxel, at most
// brushRayDir.w long and never more than VOXEN_MAX_ITERATIONS_PER_INVOCATION steps) to the
// first point whose nearest sample has density >= 0.5, and stores that point as the centre.
void findStroke() {
  if (gl_LocalInvocationIndex != 0u || painterGroupIndex() != 0u) return;
  FrameConstantsRef f = pc.frame;
  uint mode = f.brushMode;
  vec4 state = vec4(0.0);
  if ((mode & kBrushOperationMask) != kBrushNone) {
    if ((mode & kBrushAtRayHit) == 0u) {
      state = vec4(f.brushRayOrigin.xyz, 1.0);
    } else {
      float voxel = f.gridOrigin.w;
      vec3 origin = f.brushRayOrigin.xyz;
      vec3 dir = f.brushRayDir.xyz;
      float step = 0.5 * voxel;
      uint steps = uint(min(f.brushRayDir.w / step, float(VOXEN_MAX_ITERATIONS_PER_INVOCATION)));
      for (uint i = 0u; i < steps; ++i) {
        vec3 p = origin + dir * (float(i) * step);
        ivec3 s = ivec3(floor((p - f.gridOrigin.xyz) / voxel + 0.5));
        if (insideGrid(s) && f.density.v[sampleIndex(s)] >= kIsoLevel) {
          state = vec4(p, 1.0);
          break;
        }
      }
    }
  }
  f.brushState.v[0] = state;
}

void markDirty(ivec3 s) {
  FrameConstantsRef f = pc.frame;
  // Sample s is a corner of cells s - 1 and s along each axis.
  ivec3 lo = max(s - 1, ivec3(0)) / int(kBlockCells);
  ivec3 hi = min(s, ivec3(f.gridX, f.gridY, f.gridZ) - 2) / int(kBlockCells);
  for (int z = lo.z; z <= hi.z; ++z)
    for (int y = lo.y; y <= hi.y; ++y)
      for (int x = lo.x; x <= hi.x; ++x)
        f.blocks.v[uint(x) + f.blocksX * (uint(y) + f.blocksY * uint(z))].dirty = 1u;
}

void applyStroke() {
  FrameConstantsRef f = pc.frame;
  uint side = f.brushBoxSide;
  uint i = painterGroupIndex() * 64u + gl_LocalInvocationIndex;
  uint changed = 0u;
  vec4 state = f.brushState.v[0];
  if (i < side * side * side && state.w > 0.0) {
    float voxel = f.gridOrigin.w;
    float radius = f.brushRayOrigin.w;
    ivec3 centre = ivec3(floor((state.xyz - f.gridOrigin.xyz) / voxel + 0.5));
    ivec3 s = centre - ivec3(side / 2u) + ivec3(i % side, (i / side) % side, i / (side * side));
    ivec3 n = ivec3(f.gridX, f.gridY, f.gridZ);
    if (all(greaterThanEqual(s, ivec3(1))) && all(lessThan(s, n - 1))) {
      vec3 p = f.gridOrigin.xyz + vec3(s) * voxel;
      float b = clamp(0.5 + (radius - distance(p, state.xyz)) / voxel, 0.0, 1.0);
      uint index = sampleIndex(s);
      float old = f.density.v[index];
      uint oldColor = f.color.v[index];
      float value = old;
      uint color = oldColor;
      if ((f.brushMode & kBrushOperationMask) == kBrushAdd) {
        value = max(old, b);
        if (b > 0.0) color = f.brushColor;
      } else if ((f.brushMode & kBrushOperationMask) == kBrushErase) {
        value = min(old, 1.0 - b);
      }
      if (value != old || color != oldColor) {
        f.density.v[index] = value;
        f.color.v[index] = color;
        markDirty(s);
        changed = 1u;
      }
    }
  }
  uint total = subgroupAdd(changed);
  if (subgroupElect() && total > 0u) atomicAdd(f.counters.v[kCounterBrushVoxels], total);
}

void phaseBrush() {
  if (pc.param == 0u) findStroke();
  else applyStroke();
}
