// The GPU integrator's host CPU time by stage (HostStageTimes, issue 14): every stage is
// measured, and the stages account for the host thread's CPU time around integrate() and
// finish(), which the test reads itself with the same thread CPU clock.
#include <catch2/catch.hpp>

#include <span>

#include "support/occupancy_runs.hpp"
#include "voxen/host/thread_cpu_clock.hpp"
#include "voxen/occupancy/ndt_integrators.hpp"

namespace {

using namespace voxen;

// Feeds the rays in calls of `chunk` rays (several integrate() calls, flushes inside and
// between them), finishes, and returns the thread CPU seconds that took.
template <class Integrator>
double integrateInChunks(Integrator& integrator, const std::vector<Ray>& rays, size_t chunk) {
  const double start = threadCpuSeconds();
  for (size_t i = 0; i < rays.size(); i += chunk)
    integrator.integrate(std::span<const Ray>(rays).subspan(i, std::min(chunk, rays.size() - i)));
  integrator.finish();
  return threadCpuSeconds() - start;
}

// What the stages must satisfy against the measured total. What they leave out is a few
// clock reads and function entries per call (microseconds), so they add up to the total
// within 5 % plus 0.5 ms; they can never exceed it, beyond the clock's rounding.
void requireStagesAccountFor(const HostStageTimes& t, double measured, uint64_t rays) {
  INFO("prepare " << t.prepareSeconds << " s, discovery " << t.discoverySeconds << " s, residency "
                  << t.residencySeconds << " s, upload " << t.uploadSeconds << " s, readback " << t.readbackSeconds
                  << " s; stages " << t.totalSeconds() << " s of measured " << measured << " s");
  CHECK(t.rays == rays);
  CHECK(t.prepareSeconds > 0.0);
  CHECK(t.discoverySeconds > 0.0);
  CHECK(t.residencySeconds > 0.0);
  CHECK(t.uploadSeconds > 0.0);
  CHECK(t.readbackSeconds > 0.0);
  CHECK(t.totalSeconds() <= measured + 1e-6);
  CHECK(t.totalSeconds() >= 0.95 * measured - 0.5e-3);
  // The host walks no ray: preparation is the only per-ray stage; discovery is per batch
  // (recording, submitting and reading back the GPU's list), measured above like the others.
  CHECK(t.nsPerRay(t.totalSeconds()) == Approx(t.totalSeconds() * 1e9 / double(rays)));
}

}  // namespace

TEST_CASE("GPU integrator: host stage times are filled and add up to the host thread's CPU time",
          "[occupancy][gpu][host-times]") {
  const std::vector<Ray> rays = vt::occupancy::smallLidarRun(2);  // 32,768 rays
  OccupancyMap map;
  GpuIntegrator gpu(vt::gpu().scheduler, map, {}, {.cacheBytes = 64ull << 20, .maxRaysPerBatch = 4096});
  CHECK(gpu.hostStageTimes().totalSeconds() == 0.0);  // nothing measured before any ray
  const double measured = integrateInChunks(gpu, rays, 5000);
  CHECK(gpu.stats().batches >= 8);
  requireStagesAccountFor(gpu.hostStageTimes(), measured, rays.size());
}

TEST_CASE("NDT integrator: host stage times are filled and add up to the host thread's CPU time",
          "[occupancy][ndt][gpu][host-times]") {
  const std::vector<Ray> rays = vt::occupancy::smallLidarRun(1);
  OccupancyModel model;
  OccupancyMap map(model, ndtLayout(NdtMode::Om));
  GpuNdtIntegrator ndt(vt::gpu().scheduler, map, {.mode = NdtMode::Om}, {},
                       {.cacheBytes = 64ull << 20, .maxRaysPerBatch = 4096});
  const double measured = integrateInChunks(ndt, rays, 3000);
  requireStagesAccountFor(ndt.hostStageTimes(), measured, rays.size());
}
