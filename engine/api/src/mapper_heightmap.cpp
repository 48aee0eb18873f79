// Mapper::heightmap: the heightmap of the Mapper's map, on its GPU or with the CPU reference.
#include "mapper_impl.hpp"
#include "voxen/heightmap/heightmap.hpp"

namespace voxen {

Heightmap Mapper::heightmap(const HeightmapOptions& options) {
  Impl& m = *impl_;
  m.sync();  // the host map must hold every ray integrated so far
  if (m.run.backend == MapperBackend::CpuReference) return computeHeightmap(m.map, options);
  return computeHeightmapGpu(m.scheduler(), m.map, options, m.run.gpu.cacheBytes);
}

}  // namespace voxen
