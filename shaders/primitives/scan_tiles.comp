#version 460
// Tiles of the multi-workgroup exclusive scan and of the stream compaction
// (engine/primitives/exclusive_scan.cpp, stream_compaction.cpp); see scan_tiles.h. A tile is
// one workgroup of kTileThreads invocations, each owning kTileItemsPerThread consecutive
// items (so the scan is safe in place: an invocation reads its items before writing them).
// Tiles are numbered across x and y (Scheduler::dispatchThreads folds long launches into y);
// tiles past numTiles return at once. Loops are unrolled and constant: a few dozen steps per
// invocation whatever the count.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "../common/buffers.glsl"
#include "scan_tiles.h"

layout(local_size_x = 256) in;  // kTileThreads

layout(push_constant) uniform Push { TileScanPush pc; };
layout(constant_id = 0) const bool kApply = false;  // kTileApplyId
layout(constant_id = 1) const bool kFlags = false;  // kTileFlagsId

shared uint sums[2][kTileThreads];

void main() {
  const uint tid = gl_LocalInvocationID.x;
  const uint tile = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
  const uint count = pc.count;
  if (kApply && kFlags && tile == 0u && tid == 0u && pc.args != 0ul) {
    const uint total = UintArray(pc.total).v[0];
    const uint groupSize = pc.groupSize;
    UintArray args = UintArray(pc.args);
    // Past 65,535 workgroups (the least maxComputeWorkGroupCount Vulkan allows) the groups
    // fold into y; consumers index with voxenThreadIndex() and skip the few past the total.
    const uint groups = total / groupSize + (total % groupSize != 0u ? 1u : 0u);
    const uint rows = (groups + 65534u) / 65535u;
    args.v[0] = rows > 1u ? (groups + rows - 1u) / rows : groups;
    args.v[1] = max(rows, 1u);
    args.v[2] = 1u;
  }
  if (tile >= pc.numTiles) return;  // the same for the whole workgroup

  const uint first = tile * kTileItems + tid * kTileItemsPerThread;
  uint item[kTileItemsPerThread];
  if (first + kTileItemsPerThread <= count && (pc.src & 15ul) == 0ul) {
    Uvec4Array src4 = Uvec4Array(pc.src);
    [[unroll]] for (uint q = 0u; q < kTileItemsPerThread / 4u; ++q) {
      const uvec4 v = src4.v[first / 4u + q];
      [[unroll]] for (uint c = 0u; c < 4u; ++c) item[4u * q + c] = v[c];
    }
  } else {
    UintArray src = UintArray(pc.src);
    [[unroll]] for (uint j = 0u; j < kTileItemsPerThread; ++j) item[j] = first + j < count ? src.v[first + j] : 0u;
  }
  uint sum = 0u;
  [[unroll]] for (uint j = 0u; j < kTileItemsPerThread; ++j) {
    if (kFlags) item[j] = item[j] != 0u ? 1u : 0u;
    sum += item[j];
  }

  if (!kApply) {
    // Tree reduction of the invocations' sums.
    sums[0][tid] = sum;
    barrier();
    [[unroll]] for (uint step = kTileThreads / 2u; step > 0u; step >>= 1u) {
      if (tid < step) sums[0][tid] += sums[0][tid + step];
      barrier();
    }
    if (tid == 0u) UintArray(pc.tileSums).v[tile] = sums[0][0];
    return;
  }

  // Inclusive scan of the invocations' sums (Hillis-Steele, double-buffered).
  sums[0][tid] = sum;
  barrier();
  uint from = 0u;
  [[unroll]] for (uint step = 1u; step < kTileThreads; step <<= 1u) {
    uint v = sums[from][tid];
    if (tid >= step) v += sums[from][tid - step];
    sums[1u - from][tid] = v;
    from = 1u - from;
    barrier();
  }
  uint running = UintArray(pc.tileSums).v[tile] + sums[from][tid] - sum;
  UintArray dst = UintArray(pc.dst);
  if (kFlags) {
    [[unroll]] for (uint j = 0u; j < kTileItemsPerThread; ++j) {
      if (item[j] != 0u) dst.v[running] = first + j;  // items past count are 0
      running += item[j];
    }
  } else if (first + kTileItemsPerThread <= count && (pc.dst & 15ul) == 0ul) {
    Uvec4Array dst4 = Uvec4Array(pc.dst);
    [[unroll]] for (uint q = 0u; q < kTileItemsPerThread / 4u; ++q) {
      uvec4 v;
      [[unroll]] for (uint c = 0u; c < 4u; ++c) {
        v[c] = running;
        running += item[4u * q + c];
      }
      dst4.v[first / 4u + q] = v;
    }
  } else {
    [[unroll]] for (uint j = 0u; j < kTileItemsPerThread; ++j) {
      if (first + j < count) dst.v[first + j] = running;
      running += item[j];
    }
  }
}
