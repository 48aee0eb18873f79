// The propagation techniques' shared parts: an obstacle's key (its weighted squared
// distance and its offset, clearance_shared.h), a block voxel's obstacle, and a block
// voxel's index. Included after clearance_common.glsl.
#ifndef VOXEN_CLEARANCE_KEYS_GLSL
#define VOXEN_CLEARANCE_KEYS_GLSL

uint packOffset(ivec3 d) {
  return uint(d.x + kOffsetBias) | (uint(d.y + kOffsetBias) << 10) | (uint(d.z + kOffsetBias) << 20);
}

ivec3 unpackOffset(uint p) {
  return ivec3(int(p & 1023u), int((p >> 10) & 1023u), int((p >> 20) & 1023u)) - ivec3(kOffsetBias);
}

// The weighted squared distance of an offset (metres^2), the same operations as the exact
// transform's output uses for one obstacle.
float offsetSquared(ivec3 d) {
  precise float s = pc.p.weightX * float(d.x) * float(d.x) + pc.p.weightY * float(d.y) * float(d.y) +
                    pc.p.weightZ * float(d.z) * float(d.z);
  return s;
}

uint64_t keyOf(ivec3 d) { return (uint64_t(floatBitsToUint(offsetSquared(d))) << 32) | uint64_t(packOffset(d)); }

// The obstacle this key names, relative to voxel `v` of the key, seen from voxel `u`.
uint64_t keyFrom(uint64_t key, ivec3 v, ivec3 u) {
  if (key == kNoKey) return kNoKey;
  ivec3 d = unpackOffset(uint(key & 0xFFFFFFFFul)) + v - u;
  if (any(greaterThan(abs(d), ivec3(kOffsetBias - 1)))) return kNoKey;
  return offsetSquared(d) <= pc.p.rangeSquared ? keyOf(d) : kNoKey;
}

float clearanceOfKey(uint64_t key) {
  return key == kNoKey ? kNoObstacleInRange : clearanceOf(uintBitsToFloat(uint(key >> 32)), pc.p.rangeSquared);
}

// Whether block b's voxel c (block coordinates) is an obstacle (clearance_common.glsl).
bool blockObstacle(uint block, ivec3 c) {
  ivec3 cachedKey = ivec3(0x7fffffff);
  int cachedSlot = -1;
  return obstacleAt(blockOrigin(block) + i64vec3(c), cachedKey, cachedSlot);
}

ivec3 blockCoord(uint index, ivec3 size) {
  return ivec3(int(index % uint(size.x)), int((index / uint(size.x)) % uint(size.y)), int(index / uint(size.x * size.y)));
}

#endif
