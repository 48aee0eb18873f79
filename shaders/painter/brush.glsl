// The brush phase of the frame megakernel: find where the stroke lands (param 0, one
// workgroup), then add or erase a sphere there (param 1, one invocation per sample of the
// brush's box, brushBoxSide^3 of them, spread over as many workgroups as the host launched).
//
// The sphere is written as a clamped signed distance with a two-voxel ramp,
// density = clamp(0.5 + (radius - distance) / (2 voxel), 0, 1), so the surface (density 0.5)
// lies on the sphere, and the central differences the mesher takes for normals (one sample
// either side) stay on the ramp: a one-voxel ramp tilts the normals by about 8 degrees.
// Add takes the maximum with the grid, erase the minimum with 1 - that.
// The outermost layer of samples is never written, which keeps every mesh closed. Every
// changed sample marks the blocks whose cells read it (as a corner or through a normal) dirty.

uint sampleIndex(ivec3 s) {
  FrameConstants f = frameConstants();
  return uint(s.x) + f.gridX * (uint(s.y) + f.gridY * uint(s.z));
}

bool insideGrid(ivec3 s) {
  FrameConstants f = frameConstants();
  return all(greaterThanEqual(s, ivec3(0))) && all(lessThan(s, ivec3(f.gridX, f.gridY, f.gridZ)));
}

// The stroke's density at sample s, operation for operation as voxen::brushValue
// (engine/painter/src/cpu_brush.cpp), so the CPU reference reproduces the GPU's grid exactly.
float brushValue(ivec3 s, vec3 centre, float radius, float voxel) {
  vec4 grid = frameConstants().gridOrigin;
  precise float px = grid.x + float(s.x) * voxel;
  precise float py = grid.y + float(s.y) * voxel;
  precise float pz = grid.z + float(s.z) * voxel;
  precise float dx = px - centre.x, dy = py - centre.y, dz = pz - centre.z;
  precise float squared = dx * dx + dy * dy + dz * dz;
  precise float ramp = 0.5 + exactDiv(radius - exactSqrt(squared), 2.0 * voxel);
  return clamp(ramp, 0.0, 1.0);
}

// The sample nearest a world point.
ivec3 nearestSample(vec3 p) {
  vec4 grid = frameConstants().gridOrigin;
  precise vec3 local = exactDiv(p - grid.xyz, grid.w) + 0.5;
  return ivec3(floor(local));
}

// Param 0: invocation 0 marches the ray sample by sample (a step of half a voxel, at most
// brushRayDir.w long and never more than kMaxIterationsPerInvocation steps) to the
// first point whose nearest sample has density >= 0.5, and stores that point as the centre.
void findStroke() {
  if (gl_LocalInvocationIndex != 0u || painterGroupIndex() != 0u) return;
  FrameConstants f = frameConstants();
  uint mode = f.brushMode;
  vec4 state = vec4(0.0);
  if ((mode & kBrushOperationMask) != kBrushNone) {
    if ((mode & kBrushAtRayHit) == 0u) {
      state = vec4(f.brushRayOrigin.xyz, 1.0);
    } else {
      // vec4 members are read whole: reading .xyz and then .w of the same member through a
      // buffer reference gave .x for .w on lavapipe (Mesa 22.3).
      float voxel = f.gridOrigin.w;
      vec3 origin = f.brushRayOrigin.xyz;
      vec4 ray = f.brushRayDir;
      vec3 dir = ray.xyz;
      float step = 0.5 * voxel;
      uint steps = uint(min(exactDiv(ray.w, step), float(kMaxIterationsPerInvocation)));
      for (uint i = 0u; i < steps; ++i) {
        precise vec3 p = origin + dir * (float(i) * step);
        ivec3 s = nearestSample(p);
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
  FrameConstants f = frameConstants();
  // Cells s - 1 and s have sample s as a corner, and the vertex normals of cells s - 2 and
  // s + 1 read it through their central differences (mesh.glsl): all four re-mesh.
  ivec3 lo = max(s - 2, ivec3(0)) / int(kBlockCells);
  ivec3 hi = min(s + 1, ivec3(f.gridX, f.gridY, f.gridZ) - 2) / int(kBlockCells);
  for (int z = lo.z; z <= hi.z; ++z)
    for (int y = lo.y; y <= hi.y; ++y)
      for (int x = lo.x; x <= hi.x; ++x)
        f.blocks.v[uint(x) + f.blocksX * (uint(y) + f.blocksY * uint(z))].dirty = 1u;
}

void applyStroke() {
  FrameConstants f = frameConstants();
  uint side = f.brushBoxSide;
  uint i = painterGroupIndex() * 64u + gl_LocalInvocationIndex;
  uint changed = 0u;
  vec4 state = f.brushState.v[0];
  if (i < side * side * side && state.w > 0.0) {
    float voxel = f.gridOrigin.w;
    float radius = f.brushRayOrigin.w;
    ivec3 centre = nearestSample(state.xyz);
    ivec3 s = centre - ivec3(side / 2u) + ivec3(i % side, (i / side) % side, i / (side * side));
    ivec3 n = ivec3(f.gridX, f.gridY, f.gridZ);
    if (all(greaterThanEqual(s, ivec3(1))) && all(lessThan(s, n - 1))) {
      float b = brushValue(s, state.xyz, radius, voxel);
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
