#version 460
// NDT hit pass, after the hit keys are sorted (hit_keys.comp, then the radix sort, which
// keeps each voxel's samples in input order): one invocation per sorted position flags the
// first position of each voxel's run for the stream compaction that lists the runs for
// ndt_fold.comp, and lists a run longer than k * foldLimit samples at chunk level k, whose
// fold pass continues it.
#extension GL_GOOGLE_include_directive : require
#include "map_access.glsl"
#include "../common/dispatch.glsl"

layout(local_size_x = 64) in;

bool visitVoxel(ivec3 v, float tEnter, float tExit) { return false; }  // no walk here

void main() {
  uint p = voxenThreadIndex();
  if (p >= pc.p.rayCount) return;
  loadPushConstants();
  uint rayCount = pc.p.rayCount;
  uint key = ordered(kOrderedKeys, p);
  bool head = key != pc.p.noHitKey && (p == 0u || ordered(kOrderedKeys, p - 1u) != key);
  setOrdered(kOrderedLeading, p, head ? 1u : 0u);  // the compaction's flags
  // Most runs fit one chunk: one probe tells (keys are sorted, so the run is longer than
  // foldLimit exactly when position p + foldLimit still holds its key).
  if (!head || p + gNdt.foldLimit >= rayCount || ordered(kOrderedKeys, p + gNdt.foldLimit) != key) return;
  // The run's end: keys are sorted, so "equals key" holds on [p, end) and nowhere after.
  uint lo = p + 1u, hi = rayCount;
  for (uint i = 0u; i < 32u && lo < hi; ++i) {
    uint mid = (lo + hi) / 2u;
    if (ordered(kOrderedKeys, mid) == key) lo = mid + 1u;
    else hi = mid;
  }
  uint length = lo - p;
  for (uint level = 1u; level * gNdt.foldLimit < length; ++level) {
    uint header = ndtLevelHeader(level, gOrderCapacity, gNdt.foldLimit);
    uint slot = atomicAdd(gNdtWords.v[header + 3u], 1u);
    gNdtWords.v[header + 4u + slot] = p;
    if (slot % 64u == 0u) atomicAdd(gNdtWords.v[header], 1u);  // workgroups of the level's fold pass
  }
}
