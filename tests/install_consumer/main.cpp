// Includes the umbrella header voxen/voxen.hpp (the facade) and, for what the facade does not
// cover (a pass of its own on the scheduler, the integrator and the transform tree used
// directly, the CPU queries), the installed module headers, as an embedding program does. Runs
// selftest/fill_iota.comp from the SPIR-V embedded in the installed library on 1000
// elements and checks the result, then maps a few rays with the installed occupancy
// integrator, saves the map and loads it back; then maps with NDT through voxen::Mapper,
// computes clearance, runs the batched queries against their CPU references, renders, and
// runs the transform tree on the GPU. Exits non-zero on any mismatch, exception or
// validation message.
#include <cstdint>
#include <cstdio>
#include <exception>
#include <span>
#include <vector>

#include <filesystem>

#include "voxen/host/buffer.hpp"
#include "voxen/host/device.hpp"
#include "voxen/host/scheduler.hpp"
#include "voxen/host/shader_library.hpp"
#include "voxen/occupancy/gpu_integrator.hpp"
#include "voxen/query/cpu_queries.hpp"
#include "voxen/transform/gpu_transform_tree.hpp"
#include "voxen/transform/transform_tree.hpp"
#include "voxen/voxen.hpp"

namespace {
struct FillIotaPush {
  uint64_t dst;
  uint32_t count;
  uint32_t scale;
  uint32_t offset;
};
}  // namespace

int main() {
  try {
    voxen::DeviceOptions options;
    options.validation = true;
    voxen::Device device(options);
    voxen::ShaderLibrary library(device);
    voxen::SchedulerOptions schedulerOptions;
    schedulerOptions.stagingBytes = 1 << 20;
    schedulerOptions.transientBytes = 1 << 16;
    voxen::Scheduler scheduler(device, library, schedulerOptions);

    constexpr uint32_t kCount = 1000;
    voxen::Buffer out(device, "consumer-out", kCount * sizeof(uint32_t));
    auto kernel = library.kernel("selftest/fill_iota.comp");
    voxen::Pass pass;
    pass.name = "consumer-iota";
    pass.kernel = kernel.get();
    pass.push = FillIotaPush{out.address(), kCount, 7, 3};
    pass.uses = {voxen::writes(out)};
    scheduler.dispatchThreads(pass, kCount);
    const std::vector<uint32_t> values = scheduler.readback<uint32_t>(out).get();
    scheduler.finish();

    int wrong = 0;
    if (values.size() != kCount) {
      std::fprintf(stderr, "install consumer: read back %zu values, expected %u\n", values.size(), kCount);
      return 1;
    }
    for (uint32_t i = 0; i < kCount; ++i)
      if (values[i] != i * 7 + 3 && wrong++ < 5)
        std::fprintf(stderr, "install consumer: out[%u] = %u, expected %u\n", i, values[i], i * 7 + 3);
    if (wrong) return 1;

    // Rays from the origin to a wall 2 m away: voxels on the way free, the wall occupied.
    voxen::OccupancyMap map;
    std::vector<voxen::Ray> rays;
    for (int i = 0; i < 100; ++i) rays.push_back({{0.05, 0.05 + 0.01 * i, 0.05}, {2.05, 0.05 + 0.01 * i, 0.05}, 0.0});
    {
      voxen::GpuIntegrator gpu(scheduler, map);
      gpu.integrate(rays);
      gpu.finish();
    }
    if (map.classify(map.voxelAt({2.05, 0.5, 0.05})) != voxen::VoxelClass::Occupied ||
        map.classify(map.voxelAt({1.0, 0.5, 0.05})) != voxen::VoxelClass::Free) {
      std::fprintf(stderr, "install consumer: the occupancy map is wrong\n");
      return 1;
    }
    const std::filesystem::path file = std::filesystem::temp_directory_path() / "voxen-install-consumer.vxm";
    voxen::saveMap(map, file);
    const voxen::OccupancyMap loaded = voxen::loadMap(file);
    std::filesystem::remove(file);
    if (loaded.counts().occupied != map.counts().occupied || loaded.counts().free != map.counts().free ||
        loaded.counts().occupied == 0 || !(loaded.layout() == map.layout())) {
      std::fprintf(stderr, "install consumer: the saved map did not load back the same\n");
      return 1;
    }
    // The front door on the same scheduler: a Mapper with NDT-OM, clearance, the batched
    // queries against their CPU references, a rendered picture, and the transform tree on
    // the GPU against its CPU reference. (A pass of the program's own: samples/custom_layer,
    // built against this install by the same test.)
    {
      voxen::Context ctx(scheduler);
      voxen::MapperOptions ndtOptions;
      ndtOptions.run.integration.ndt.mode = voxen::NdtMode::Om;
      voxen::Mapper mapper(ctx, ndtOptions);
      mapper.integrate(rays);
      mapper.computeClearance({.range = 0.5});
      const std::vector<glm::dvec3> points = {{1.0, 0.5, 0.05}, {2.05, 0.5, 0.05}, {1.93, 0.52, 0.07}, {9.0, 9.0, 9.0}};
      const std::vector<voxen::QueryRay> queryRays = {{.origin = {0.05, 0.5, 0.05}, .direction = {1.0, 0.0, 0.0}, .maxRange = 5.0}};
      const std::vector<voxen::RayHit> hits = mapper.raycast(queryRays);
      const bool queriesRight = mapper.occupancy(points) == voxen::cpuOccupancy(mapper.map(), points) &&
                                mapper.clearance(points) == voxen::cpuClearance(mapper.map(), points) &&
                                hits == voxen::cpuRaycast(mapper.map(), queryRays) && hits[0].hit &&
                                hits[0].voxel.x == 20;
      const voxen::RenderImage image = mapper.render({.width = 64, .height = 48});
      if (!queriesRight || !mapper.map().layout().has(voxen::kNdtCovarianceLayer) || image.drawnTriangles == 0) {
        std::fprintf(stderr, "install consumer: Mapper: queries %s, NDT layer %s, %u triangles drawn\n",
                     queriesRight ? "right" : "wrong", mapper.map().layout().has(voxen::kNdtCovarianceLayer) ? "present" : "missing",
                     image.drawnTriangles);
        return 1;
      }
    }
    {
      voxen::TransformTree tree;
      glm::mat4 offset(1.0f);
      offset[3] = glm::vec4(1.0f, 2.0f, 3.0f, 1.0f);
      const uint32_t arm = tree.add(voxen::TransformTree::kRoot, offset);
      const uint32_t hand = tree.add(arm, offset);
      voxen::TransformTree onCpu = tree;  // process() clears the tree's dirty marks
      onCpu.processCpu();
      voxen::GpuTransformTree gpuTree(scheduler, tree);
      gpuTree.process();
      const glm::mat4 onGpu = gpuTree.world(hand);
      if (onGpu != onCpu.world(hand) || onGpu[3] != glm::vec4(2.0f, 4.0f, 6.0f, 1.0f)) {
        std::fprintf(stderr, "install consumer: the transform tree's world matrix is wrong\n");
        return 1;
      }
    }
    if (device.validationMessageCount() != 0) {
      std::fprintf(stderr, "install consumer: %llu validation messages\n",
                   static_cast<unsigned long long>(device.validationMessageCount()));
      return 1;
    }
    std::printf("install consumer: fill_iota on '%s' correct for %u elements\n", device.info().name.c_str(), kCount);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "install consumer: %s\n", e.what());
    return 1;
  }
}
