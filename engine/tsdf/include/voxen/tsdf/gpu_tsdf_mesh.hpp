#pragma once
// The TSDF mesher on the GPU (voxen/tsdf/tsdf_mesh.hpp has the model): the map's regions go
// to a read-only region cache in chunks, one pass over every cell of every block appends the
// cells' triangles and the crossed edges' vertices as exact integers (crossing t, gradient G),
// and the host sorts and welds them. The mesh equals meshTsdfCpu's: the same vertices bit for
// bit, the same faces in the same order.
//
//   voxen::TsdfMesh mesh = voxen::meshTsdfGpu(scheduler, map, voxen::TsdfMeshOptions{});
//
// Threads: one thread at a time, the one that records on `scheduler`; the map is only read.
#include <cstdint>

#include "voxen/tsdf/tsdf_mesh.hpp"

namespace voxen {

class Scheduler;

struct GpuTsdfMeshStats {
  uint64_t blocks = 0;    // blocks whose cells the pass meshed
  uint64_t chunks = 0;    // dispatches (groups of regions whose neighbourhoods fit the cache)
  uint64_t retries = 0;   // chunks run again with larger output lists
};

// Throws as meshTsdfCpu, and SettingError naming GpuTsdfMesh::cacheBytes when one region's
// neighbourhood (27 regions) does not fit `cacheBytes`.
TsdfMesh meshTsdfGpu(Scheduler& scheduler, const OccupancyMap& map, const TsdfMeshOptions& options = {},
                     uint64_t cacheBytes = 256ull << 20, GpuTsdfMeshStats* stats = nullptr);

}  // namespace voxen
