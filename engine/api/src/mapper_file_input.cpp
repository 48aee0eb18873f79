// Mapper::integrateFile: a reader's rays into the integrator the way `voxen map` always fed
// it, so that the map is the same byte for byte whatever the threads.
#include <algorithm>
#include <vector>

#include "mapper_impl.hpp"
#include "voxen/io/ray_source.hpp"
#include "voxen/occupancy/prepared_ray_stream.hpp"
#include "voxen/occupancy/prepared_rays.hpp"

namespace voxen {

void Mapper::integrateFile(RayReader& reader, const FileIntegrationOptions& options) {
  impl_->queriesStale = true;
  auto progress = [&options](uint64_t points) {
    if (options.progress) options.progress(points);
  };
  GpuIntegrator* gpu = impl_->gpu();
  if (gpu && options.prepareThreads > 0) {
    // Workers prepare the rays (checks, the GPU's record) from the reader's chunks, so the
    // calling thread only copies records. The reader is the stream's alone until the
    // stream is gone.
    PreparedRayStream stream(
        [&reader](uint64_t& points) {
          const std::span<const Ray> rays = reader.next();
          points = reader.stats().points;
          return rays;
        },
        impl_->map.model(), impl_->run.integration, impl_->run.gpu.maxCrossingsPerSegment, options.prepareThreads);
    PreparedRays prepared;
    uint64_t points = 0;
    while (stream.next(prepared, points)) {
      gpu->integrate(prepared);
      impl_->unsynced = true;
      progress(points);
    }
  } else if (gpu) {
    // The GPU cuts its own batches whatever it is handed: the reader's chunks in place.
    for (std::span<const Ray> rays; !(rays = reader.next()).empty();) {
      gpu->integrate(rays);
      impl_->unsynced = true;
      progress(reader.stats().points);
    }
  } else {
    // The CPU reference integrates each call as one batch (which the two-phase order depends
    // on): full chunks of the batch size (at least 4096 rays), as read() gives them.
    const size_t chunk = std::max<size_t>(impl_->run.gpu.maxRaysPerBatch, 4096);
    CpuIntegrator& cpu = impl_->cpu();
    std::vector<Ray> rays;
    for (;;) {
      rays.clear();
      if (reader.read(rays, chunk) == 0) break;
      cpu.integrate(rays);
      progress(reader.stats().points);
    }
  }
}

}  // namespace voxen
