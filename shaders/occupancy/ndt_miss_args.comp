#version 460
// NDT free-space updates, after the miss pass and the list sizes (ordered_miss_args.comp):
// one invocation counts the listed updates for the sort and sizes level 0 of
// ndt_miss_apply.comp (one invocation per sorted position; x folds into y past 65,535
// workgroups, as Scheduler::dispatchThreads does). Where each update goes in the gathered
// arrays is ndt_miss_gather.comp's counting sort by ray.
#extension GL_GOOGLE_include_directive : require
#include "map_access.glsl"
#include "ndt_miss_order.h"

layout(local_size_x = 1) in;

bool visitVoxel(ivec3 v, float tEnter, float tExit) { return false; }  // no walk here

void main() {
  loadPushConstants();
  uint base = ndtMissBase(gNdt.levels, gOrderCapacity, gNdt.foldLimit, pc.p.slotCount);
  uint total = 0u;
  for (uint stripe = 0u; stripe < kDeferredStripes; ++stripe)
    total += min(gOrdered.v[gMissHeader + deferredCountOffset(stripe)], gStripeCapacity);
  gNdtWords.v[base + kNdtMissTotal] = total;
  uint groups = (total + 63u) / 64u;
  uint x = min(groups, 65535u);
  gNdtWords.v[base + kNdtMissApplyArgs] = x;
  gNdtWords.v[base + kNdtMissApplyArgs + 1u] = x == 0u ? 1u : (groups + x - 1u) / x;
  gNdtWords.v[base + kNdtMissApplyArgs + 2u] = 1u;
}
