// Mapper::integrateDepth: depth frames into the map's TSDF layer, on the Mapper's GPU through
// a GpuTsdfIntegrator kept between frames (retired before rays, whose integrator keeps its
// own copies of the regions), or with the CPU reference; Mapper::integrateCloudTsdf: a lidar
// scan's rays into the same layer (a GpuTsdfRayIntegrator kept between scans, or the CPU
// reference; each kind's GPU integrator is synced and retired before the other's runs);
// Mapper::mesh: the TSDF's mesh, kept by a TsdfMeshTracker between calls with the same options.
#include "mapper_impl.hpp"
#include "voxen/host/error.hpp"
#include "voxen/tsdf/gpu_tsdf_rays.hpp"
#include "voxen/tsdf/tsdf.hpp"

namespace voxen {

TsdfFrameStats Mapper::integrateDepth(const DepthFrame& frame, const TsdfOptions& options) {
  Impl& m = *impl_;
  // Colour is kept only where the map was made with a place for it: never dropped silently.
  if (frame.colour && !m.map.layout().has(kTsdfColourLayer))
    throw Error("a depth frame with colour, but the map has no tsdf_colour layer: make the Mapper with it (extraLayers) to keep "
                "the colour, or integrate the frame without its colour");
  TsdfFrameStats stats;
  if (m.run.backend == MapperBackend::CpuReference) {
    stats = integrateDepthCpu(m.map, frame, options);
  } else {
    m.retireRayGpu();  // their caches would copy stale tsdf voxels back over these frames'
    m.retireTsdfRayGpu();
    if (m.tsdfIntegrator && !(m.tsdfIntegrator->options() == options)) m.retireTsdfGpu();
    if (!m.tsdfIntegrator) m.tsdfIntegrator = std::make_unique<GpuTsdfIntegrator>(m.scheduler(), m.map, options, m.run.gpu.cacheBytes);
    stats.blocks = m.tsdfIntegrator->integrate(frame).blocks;
    m.tsdfUnsynced = true;
  }
  m.changedSincePublished = true;
  m.queriesStale = true;
  return stats;
}

TsdfScanStats Mapper::integrateCloudTsdf(std::span<const Ray> scan, const TsdfOptions& options) {
  Impl& m = *impl_;
  TsdfScanStats stats;
  if (m.run.backend == MapperBackend::CpuReference) {
    stats = integrateRaysTsdfCpu(m.map, scan, options);
  } else {
    // The other integrators' caches would copy stale tsdf voxels back over this scan's.
    m.retireRayGpu();
    m.retireTsdfGpu();
    if (m.tsdfRayIntegrator && !(m.tsdfRayIntegrator->options() == options)) m.retireTsdfRayGpu();
    if (!m.tsdfRayIntegrator)
      m.tsdfRayIntegrator = std::make_unique<GpuTsdfRayIntegrator>(m.scheduler(), m.map, options, m.run.gpu.cacheBytes);
    stats = m.tsdfRayIntegrator->integrate(scan);
    m.tsdfRaysUnsynced = true;
  }
  m.changedSincePublished = true;
  m.queriesStale = true;
  return stats;
}

TsdfMesh Mapper::mesh(const TsdfMeshOptions& options) {
  Impl& m = *impl_;
  m.sync();  // the host map must hold every frame integrated so far
  if (!m.meshTracker || !(m.meshTracker->options() == options)) {
    m.meshTracker = m.run.backend == MapperBackend::CpuReference
                        ? std::make_unique<TsdfMeshTracker>(options)
                        : std::make_unique<TsdfMeshTracker>(m.scheduler(), options, m.run.gpu.cacheBytes);
  }
  m.meshTracker->update(m.map);
  return m.meshTracker->mesh();
}

}  // namespace voxen
