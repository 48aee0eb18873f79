// The sample voxel a ray's hit goes to, shared by integrate_hit.comp (two-phase order),
// integrate_miss.comp (one-pass order) and hit_keys.comp (sequential order). Included after
// map_access.glsl.
#ifndef VOXEN_OCCUPANCY_HIT_SAMPLE_GLSL
#define VOXEN_OCCUPANCY_HIT_SAMPLE_GLSL

// Whether ray i gives its sample voxel a hit (not when it has no hit, nor when the stop
// search stopped it before that voxel); if so, the voxel's cache slot, its index in the
// region and the t at which the walk enters it. Loads gRay (whole only when the layers or
// the stop need it).
bool hitSampleOfRay(uint i, out uint slot, out uint local, out float tEnter) {
  slot = 0u;
  local = 0u;
  tEnter = 0.0;
  // Read only what the hit needs: on lavapipe every component of a buffer load is a loop
  // over the lanes, and the default case needs 4 of the ray's 20 words, in three 64-bit
  // loads: (start.z, flags) and (end.x, end.y) and (end.z, segments).
  Uint64Array words = Uint64Array(pc.p.rays);
  gRay.flags = unpackUint2x32(words.v[i * 10u + 5u]).y;
  if ((gRay.flags & kSampleHit) == 0u) return false;
  gRay.end = ivec3(unpackUint2x32(words.v[i * 10u + 6u]), unpackUint2x32(words.v[i * 10u + 7u]).x);
  // The layers whose hit updates need the whole ray (under NDT the fold reads the ray
  // itself for the voxel mean and NDT-TM's counts).
  const uint kLayers = kLayerVoxelMean | kLayerTraversal | kLayerHitMiss | kLayerTouchTime;
  const uint kFoldedLayers = (gFlags & kPassNdt) != 0u ? kLayerVoxelMean : 0u;
  const uint kFoldedTm = (gFlags & kPassNdtTm) != 0u ? kLayerHitMiss : 0u;
  if ((gFlags & ((kLayers & ~(kFoldedLayers | kFoldedTm)) | kPassStopOnOccupied)) != 0u) {
    gRay = RayArray(pc.p.rays).v[i];
    tEnter = sampleEnterT();
    if ((gFlags & kPassStopOnOccupied) != 0u && tEnter > uintBitsToFloat(UintArray(pc.p.stop).v[i])) return false;
  }
  return sampleVoxelSlot(i, slot, local);
}

uint regionVoxels() { return uint(gRegionSize * gRegionSize * gRegionSize); }

// Ray i's hit, applied at once (the two-phase and one-pass orders): the occupancy and the
// optional layers' hit updates.
void applyRayHit(uint i) {
  uint slot, local;
  float tEnter;
  if (hitSampleOfRay(i, slot, local, tEnter)) {
    uint index = slot * regionVoxels() + local;
    applyDelta(index, pc.p.hitValue);
    applyLayers(index, true, tEnter, 1.0);
  }
}

#endif
