// Mapper::heightmap: the heightmap of the Mapper's map, kept by a HeightmapTracker between
// calls with the same options (only the changed region columns are computed again, on the
// host); whole heightmaps on the GPU, or with the CPU reference.
#include "mapper_impl.hpp"
#include "voxen/heightmap/heightmap.hpp"
#include "voxen/heightmap/heightmap_tracker.hpp"

namespace voxen {

Heightmap Mapper::heightmap(const HeightmapOptions& options) {
  Impl& m = *impl_;
  m.sync();  // the host map must hold every ray integrated so far
  if (!m.heightmapTracker || !(m.heightmapTracker->options() == options)) {
    HeightmapCompute whole = computeHeightmap;
    if (m.run.backend != MapperBackend::CpuReference)
      whole = [&m](const OccupancyMap& map, const HeightmapOptions& o) {
        return computeHeightmapGpu(m.scheduler(), map, o, m.run.gpu.cacheBytes);
      };
    m.heightmapTracker = std::make_unique<HeightmapTracker>(options, std::move(whole));
  }
  m.heightmapTracker->update(m.map);
  return m.heightmapTracker->heightmap();
}

}  // namespace voxen
