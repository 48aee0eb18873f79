// The brush phase of the frame megakernel: find where the stroke lands and set it up (param 0,
// one invocation), then add or erase a sphere there (param 1, one invocation per sample of
// the brush's box, brushBoxSide^3 of them, spread over as many workgroups as the host launched).
//
// The sphere is written as a clamped ramp in the squared distance, with r and d the radius
// and the distance in samples (voxels):
//   density = clamp(0.5 + (r^2 - d^2) / (4 r), 0, 1).
// (r^2 - d^2) / (2 r) = (r - d) (r + d) / (2 r) is the signed distance r - d to first order
// at the surface (equal on it, slope 1 across it), so this is the two-voxel ramp
// 0.5 + (r - d) / 2 there: the surface (density 0.5) lies on the sphere, and the central
// differences the mesher takes for normals (one sample either side) stay on the ramp (a
// one-voxel ramp tilts the normals by about 8 degrees). Away from the surface it departs
// by (r - d)^2 / (4 r): one voxel inside the density is 1 - 1 / (4 r) (0.95 at r = 5), and it
// reaches 0 at d = sqrt(r^2 + 2 r), a little short of r + 1. Why not the signed distance
// itself: it needs a correctly rounded square root per sample, and the division by the
// voxel size another, which is float64 (or integer emulation) per sample (issue 37, item
// 5). Here findStroke divides once per stroke (the centre and r in sample units, r^2 and
// 1 / (4 r): kBrushState*), and a sample costs subtractions, multiplications and additions,
// which Vulkan rounds correctly on every device (`precise`: no fused multiply-add).
// Add takes the maximum with the grid, erase the minimum with 1 - that.
// The outermost layer of samples is never written, which keeps every mesh closed. Every
// changed sample marks the blocks whose cells read it (as a corner or through a normal) dirty.
// engine/painter/src/cpu_brush.cpp is the CPU reference, operation for operation.

uint sampleIndex(ivec3 s) {
  FrameConstants f = frameConstants();
  return uint(s.x) + f.gridX * (uint(s.y) + f.gridY * uint(s.z));
}

bool insideGrid(ivec3 s) {
  FrameConstants f = frameConstants();
  return all(greaterThanEqual(s, ivec3(0))) && all(lessThan(s, ivec3(f.gridX, f.gridY, f.gridZ)));
}

// Per-stroke set-up, the brush's only exact divisions (float64 in that shader flavour):
// a world point in sample units, (p - origin) / voxel.
vec3 strokeSampleUnits(vec3 p, vec4 grid) { return exactDiv(p - grid.xyz, grid.w); }

// Per-stroke set-up: how many half-voxel steps the hit search takes.
uint strokeSearchSteps(float distance, float voxel) {
  return uint(min(exactDiv(distance, 0.5 * voxel), float(kMaxIterationsPerInvocation)));
}

// Per-stroke set-up: (r^2, 1 / (4 r)), r the radius in samples (clamped: frame_layout.h).
vec2 strokeRamp(float radius, float voxel) {
  float r = min(max(exactDiv(radius, voxel), kBrushMinRadius), kBrushMaxRadius);
  precise float squared = r * r;
  return vec2(squared, exactDiv(0.25, r));
}

// The sample nearest a point in sample units.
ivec3 nearestSample(vec3 local) {
  precise vec3 shifted = local + 0.5;
  return ivec3(floor(shifted));
}

// The stroke's density at sample s, from its centre in sample units and strokeRamp's terms.
float brushValue(ivec3 s, vec3 centre, float radiusSquared, float rampScale) {
  precise float dx = float(s.x) - centre.x, dy = float(s.y) - centre.y, dz = float(s.z) - centre.z;
  precise float squared = dx * dx + dy * dy + dz * dz;
  precise float ramp = 0.5 + (radiusSquared - squared) * rampScale;
  return clamp(ramp, 0.0, 1.0);
}

// Param 0: where the stroke lands, and its set-up (kBrushStateVec4s vec4s, frame_layout.h).
// At a ray hit, invocation 0 marches the ray in sample units (a step of half a voxel, at
// most brushRayDir.w long and never more than kMaxIterationsPerInvocation steps) to the
// first point whose nearest sample has density >= 0.5: that point is the centre, and the
// world point of the same step is what Painter::readStrokeCentre reports.
void findStroke() {
  if (gl_LocalInvocationIndex != 0u || painterGroupIndex() != 0u) return;
  FrameConstants f = frameConstants();
  uint mode = f.brushMode;
  // vec4 members are read whole: reading .xyz and then .w of the same member through a
  // buffer reference gave .x for .w on lavapipe (Mesa 22.3).
  vec4 grid = f.gridOrigin;
  vec4 rayOrigin = f.brushRayOrigin;
  vec4 world = vec4(0.0);
  vec3 centre = vec3(0.0);
  if ((mode & kBrushOperationMask) != kBrushNone) {
    if ((mode & kBrushAtRayHit) == 0u) {
      world = vec4(rayOrigin.xyz, 1.0);
      centre = strokeSampleUnits(rayOrigin.xyz, grid);
    } else {
      vec4 ray = f.brushRayDir;
      vec3 dir = ray.xyz;
      vec3 start = strokeSampleUnits(rayOrigin.xyz, grid);
      uint steps = strokeSearchSteps(ray.w, grid.w);
      for (uint i = 0u; i < steps; ++i) {
        precise vec3 p = start + dir * (float(i) * 0.5);
        ivec3 s = nearestSample(p);
        if (insideGrid(s) && f.density.v[sampleIndex(s)] >= kIsoLevel) {
          precise vec3 hit = rayOrigin.xyz + dir * (float(i) * (0.5 * grid.w));
          world = vec4(hit, 1.0);
          centre = p;
          break;
        }
      }
    }
  }
  vec2 ramp = world.w > 0.0 ? strokeRamp(rayOrigin.w, grid.w) : vec2(0.0);
  f.brushState.v[0] = world;
  f.brushState.v[1] = vec4(centre, ramp.x);
  f.brushState.v[2] = vec4(vec3(nearestSample(centre)), ramp.y);
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
  vec4 world = f.brushState.v[0];
  if (i < side * side * side && world.w > 0.0) {
    vec4 centre = f.brushState.v[1];   // xyz in sample units, w = r^2
    vec4 nearest = f.brushState.v[2];  // the middle of the box, w = 1 / (4 r)
    ivec3 s = ivec3(nearest.xyz) - ivec3(side / 2u) + ivec3(i % side, (i / side) % side, i / (side * side));
    ivec3 n = ivec3(f.gridX, f.gridY, f.gridZ);
    if (all(greaterThanEqual(s, ivec3(1))) && all(lessThan(s, n - 1))) {
      float b = brushValue(s, centre.xyz, centre.w, nearest.w);
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
