#version 460
// NDT free-space updates, after the miss pass and the list sizes (ordered_miss_args.comp):
// one invocation counts the listed updates for the sort and sizes level 0 of
// ndt_miss_apply.comp (one invocation per sorted position; x folds into y past 65,535
// workgroups, as Scheduler::dispatchThreads does). Where each update goes in the gathered
// arrays is ndt_miss_gather.comp's counting sort by ray. A stripe counts every update offered
// to it, listed or not, so the list overflowed exactly when some stripe's count passes its
// capacity (the same in every run: each stripe's offers are its workgroups' segments'); then
// nothing listed is sorted or applied, and the overflow's passes run instead: the sums
// cleared (only before the first overflow), every segment walked again to sum its updates
// (OccupancyPush::itemCount: the chunk's segments), and the sums applied over every pool voxel.
#extension GL_GOOGLE_include_directive : require
#include "map_access.glsl"
#include "ndt_miss_order.h"

layout(local_size_x = 1) in;

bool visitVoxel(ivec3 v, float tEnter, float tExit) { return false; }  // no walk here

// An indirect dispatch (x, y, z) at word `at` of workgroups of 64 for `threads` invocations.
void setThreads(uint at, uint threads) {
  uint groups = (threads + 63u) / 64u;
  uint x = min(groups, 65535u);
  gNdtWords.v[at] = x;
  gNdtWords.v[at + 1u] = x == 0u ? 1u : (groups + x - 1u) / x;
  gNdtWords.v[at + 2u] = 1u;
}

void main() {
  loadPushConstants();
  uint base = ndtMissBase(gNdt.levels, gOrderCapacity, gNdt.foldLimit, pc.p.slotCount);
  uint total = 0u;
  bool overflow = false;
  for (uint stripe = 0u; stripe < kDeferredStripes; ++stripe) {
    uint offered = gOrdered.v[gMissHeader + deferredCountOffset(stripe)];
    total += min(offered, gStripeCapacity);
    overflow = overflow || offered > gStripeCapacity;
  }
  if (overflow) total = 0u;
  gNdtWords.v[base + kNdtMissTotal] = total;
  gNdtWords.v[base + kNdtMissOverflow] = overflow ? 1u : 0u;
  setThreads(base + kNdtMissApplyArgs, total);
  uint poolVoxels = pc.p.slotCount * uint(gRegionSize * gRegionSize * gRegionSize);
  bool clear = overflow && gNdtWords.v[base + kNdtMissSumsReady] == 0u;
  setThreads(base + kNdtMissClearArgs, clear ? (poolVoxels + 3u) / 4u : 0u);
  if (clear) gNdtWords.v[base + kNdtMissSumsReady] = 1u;  // cleared by the next pass
  setThreads(base + kNdtMissSumWalkArgs, overflow ? pc.p.itemCount : 0u);
  setThreads(base + kNdtMissSumArgs, overflow ? poolVoxels : 0u);
}
