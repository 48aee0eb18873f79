#pragma once
// The TSDF mesher's GPU runner (shaders/tsdf/tsdf_mesh.comp): meshes a list of blocks on the
// GPU and returns each block's result as the CPU reference's integers. A block's result holds
// its cells' triangles and the vertices it owns (edges whose lower voxel lies in the block),
// so the union over any set of blocks welds to the same mesh as the CPU's (whose blocks hold
// the vertices their triangles use).
#include <memory>
#include <span>
#include <vector>

#include "tsdf_mesh_internal.hpp"
#include "voxen/tsdf/gpu_tsdf_mesh.hpp"

namespace voxen::detail {

class GpuTsdfMeshRunner {
 public:
  // Throws SettingError naming GpuTsdfMesh::cacheBytes when a region's 27-neighbourhood does
  // not fit `cacheBytes`.
  GpuTsdfMeshRunner(Scheduler& scheduler, const OccupancyMap& map, uint64_t cacheBytes);
  ~GpuTsdfMeshRunner();
  // `blocks` sorted, each in a region the map holds. Reads the map's regions as they are now
  // (regions read by an earlier call are read again).
  std::vector<TsdfBlockMesh> mesh(std::span<const TsdfBlock> blocks, const TsdfMeshLimits& limits, GpuTsdfMeshStats& stats);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace voxen::detail
