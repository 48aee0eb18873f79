// Includes only the umbrella header voxen/voxen.hpp, as an embedding program does. Runs
// selftest/fill_iota.comp from the SPIR-V embedded in the installed library on 1000
// elements and checks the result, then maps a few rays with the installed occupancy
// integrator (which brings glm, zlib and libpng through the package config), saves the map
// and loads it back. Exits non-zero on any mismatch, exception or validation message.
#include <cstdint>
#include <cstdio>
#include <exception>
#include <span>
#include <vector>

#include <filesystem>

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
