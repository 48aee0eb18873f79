#pragma once
// What a query pass outside gpu_queries.cpp (the collision queries, gpu_collision.cpp) needs
// of GpuQueries' region cache: the scheduler, the map, and a walk over the chunks of regions
// that makes each resident in turn and hands the pass its map push constants and the
// buffers it reads.
#include <functional>
#include <vector>

#include "voxen/gpu/query/query_shared.h"
#include "voxen/host/scheduler.hpp"
#include "voxen/map/map.hpp"

namespace voxen {

struct QueryMapPass {
  gpu::QueryMapPush push;
  std::vector<BufferUse> uses;
};

struct QueryMapAccess {
  Scheduler& scheduler;
  const OccupancyMap& map;
  std::function<void(LayerId, const std::function<void(const QueryMapPass&)>&)> forEachChunk;
};

}  // namespace voxen
