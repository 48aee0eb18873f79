// Mapper::integrateDepth: depth frames into the map's TSDF layer, on the Mapper's GPU through
// a GpuTsdfIntegrator kept between frames (retired before rays, whose integrator keeps its
// own copies of the regions), or with the CPU reference.
#include "mapper_impl.hpp"
#include "voxen/tsdf/tsdf.hpp"

namespace voxen {

TsdfFrameStats Mapper::integrateDepth(const DepthFrame& frame, const TsdfOptions& options) {
  Impl& m = *impl_;
  TsdfFrameStats stats;
  if (m.run.backend == MapperBackend::CpuReference) {
    stats = integrateDepthCpu(m.map, frame, options);
  } else {
    m.retireRayGpu();  // its cache would copy stale tsdf voxels back over these frames'
    if (m.tsdfIntegrator && !(m.tsdfIntegrator->options() == options)) m.retireTsdfGpu();
    if (!m.tsdfIntegrator) m.tsdfIntegrator = std::make_unique<GpuTsdfIntegrator>(m.scheduler(), m.map, options, m.run.gpu.cacheBytes);
    stats.blocks = m.tsdfIntegrator->integrate(frame).blocks;
    m.tsdfUnsynced = true;
  }
  m.changedSincePublished = true;
  m.queriesStale = true;
  return stats;
}

}  // namespace voxen
