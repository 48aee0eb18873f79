// Mapper::integrateFile: a reader's rays into the integrator the way `voxen map` always fed
// it, so that the map is the same byte for byte whatever the threads.
#include <algorithm>
#include <functional>
#include <vector>

#include "mapper_impl.hpp"
#include "voxen/input/ray_source.hpp"
#include "voxen/occupancy/prepared_ray_stream.hpp"
#include "voxen/occupancy/prepared_rays.hpp"

namespace voxen {

namespace {

class Boundary final : public MapperChunkBoundary {
 public:
  Boundary(OccupancyMap& map, std::function<void()> sync) : map_(map), sync_(std::move(sync)) {}
  uint64_t raysTaken() const override { return rays; }
  bool last() const override { return done; }
  OccupancyMap& map() override { return map_; }
  void sync() override { sync_(); }
  uint64_t rays = 0;
  bool done = false;

 private:
  OccupancyMap& map_;
  std::function<void()> sync_;
};

// The reader's next rays after the first `skip` (which are read and dropped).
std::span<const Ray> nextAfter(RayReader& reader, uint64_t& skip) {
  for (;;) {
    const std::span<const Ray> rays = reader.next();
    if (skip == 0 || rays.empty()) return rays;
    if (rays.size() > skip) {
      const std::span<const Ray> rest = rays.subspan(size_t(skip));
      skip = 0;
      return rest;
    }
    skip -= rays.size();
  }
}

}  // namespace

void Mapper::atBoundary(uint64_t raysTaken, bool last, const std::function<void(MapperChunkBoundary&)>& work) {
  Boundary boundary(impl_->map, [this] { impl_->sync(); });
  boundary.rays = raysTaken;
  boundary.done = last;
  work(boundary);
  // The work may have dropped regions (a store's eviction): the next snapshot is a new one.
  impl_->queriesStale = true;
  impl_->changedSincePublished = true;
}

void Mapper::integrateFile(RayReader& reader, const FileIntegrationOptions& options) {
  impl_->queriesStale = true;
  impl_->changedSincePublished = true;
  auto progress = [&options](uint64_t points) {
    if (options.progress) options.progress(points);
  };
  Boundary boundary(impl_->map, [this] { impl_->sync(); });
  boundary.rays = options.skipRays;
  auto between = [&](uint64_t rays) {
    boundary.rays += rays;
    if (options.betweenChunks) options.betweenChunks(boundary);
  };
  uint64_t skip = options.skipRays;
  GpuIntegrator* gpu = impl_->gpu();
  // The local window after each chunk; it may retire the GPU integrator (and with it the
  // prepared stream's record pool), so a run with a window prepares on this thread.
  const bool window = impl_->run.window.has_value();
  auto applyWindow = [&](std::span<const Ray> rays) {
    applyMapperWindow(*this, impl_->map, rays, [this] { impl_->retireGpu(); });
  };
  // Occupancy decay (mapper_decay.cpp) forgets before and after each chunk; with it the GPU
  // takes the CPU reference's chunks below, so that both forget at the same cuts.
  const bool decay = impl_->run.decaySeconds.has_value();
  if (gpu && options.prepareThreads > 0 && !window && !decay) {
    // Workers prepare the rays (checks, the GPU's record) from the reader's chunks, straight
    // into the integrator's record pool, so the calling thread does no work per ray. The reader is the stream's alone until the
    // stream is gone.
    PreparedRayStream stream(
        [&reader, &skip](uint64_t& points) {
          const std::span<const Ray> rays = nextAfter(reader, skip);
          points = reader.stats().points;
          return rays;
        },
        impl_->map.model(), impl_->run.integration, impl_->run.gpu.maxCrossingsPerSegment, options.prepareThreads, 0,
        &gpu->recordPool());
    PreparedRays prepared;
    uint64_t points = 0;
    while (stream.next(prepared, points)) {
      gpu->integrate(prepared);
      impl_->unsynced = true;
      progress(points);
      between(prepared.inputRays);
    }
  } else if (gpu && !decay) {
    // The GPU cuts its own batches whatever it is handed: the reader's chunks in place.
    for (std::span<const Ray> rays; !(rays = nextAfter(reader, skip)).empty();) {
      gpu->integrate(rays);
      impl_->unsynced = true;
      if (window) {
        applyWindow(rays);
        gpu = impl_->gpu();  // a new one when the window retired it
      }
      progress(reader.stats().points);
      between(rays.size());
    }
  } else {
    // The CPU reference integrates each call as one batch (which the two-phase order depends
    // on): full chunks of the batch size (at least 4096 rays), as read() gives them. A
    // resumed run skips whole chunks (its checkpoints fall between them), so its batches are
    // those of the run it continues.
    const size_t chunk = std::max<size_t>(impl_->run.gpu.maxRaysPerBatch, 4096);
    std::vector<Ray> rays;
    while (skip > 0) {
      rays.clear();
      const size_t n = reader.read(rays, size_t(std::min<uint64_t>(skip, chunk)));
      if (n == 0) break;
      skip -= n;
    }
    for (;;) {
      rays.clear();
      if (reader.read(rays, chunk) == 0) break;
      impl_->noteRayTimes(rays);
      impl_->applyDecay();
      if (GpuIntegrator* decaying = impl_->gpu()) {  // a GPU Mapper with decay (its integrator may be new)
        decaying->integrate(rays);
        impl_->unsynced = true;
      } else {
        impl_->cpu().integrate(rays);
      }
      impl_->applyDecay();
      if (window) applyWindow(rays);
      progress(reader.stats().points);
      between(rays.size());
    }
  }
  boundary.done = true;
  between(0);
}

}  // namespace voxen
