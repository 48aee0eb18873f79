// A recording mapped in one call: voxen::MappingRun reads a file (any input `voxen map`
// reads), maps it and saves it into a region store as it grows, checkpoint by checkpoint, or
// into a map file at the end; a store run that stopped is continued with resume = true.
#include <cmath>
#include <cstdio>
#include <vector>

#include <voxen/voxen.hpp>

int main() {
  // A ray cloud to map: a sensor turning 1.5 m above the floor, rays to walls 1.95 m away.
  std::vector<voxen::Ray> rays;
  for (int i = 0; i < 20000; ++i) {
    const double angle = i * 0.0031;
    rays.push_back({.origin = {0.0, 0.0, 1.5},
                    .sample = {1.95 * std::cos(angle), 1.95 * std::sin(angle), 0.2 + std::fmod(i * 0.013, 2.6)},
                    .time = i * 1e-4});
  }
  voxen::writeRayCloud("scan.ply", rays);

  voxen::MappingRunOptions options;
  options.input = "scan.ply";
  options.store = "scan.vxs";                     // an SQLite store; or options.output = "scan.vxm"
  options.storeMapping.checkpointSeconds = 0.0;  // a checkpoint after every chunk read
  options.mapper.model.resolution = 0.1;
  voxen::Context ctx;
  const voxen::MappingRunStats stats = voxen::MappingRun::map(ctx, options);
  std::printf("%s\n", stats.toJson().c_str());
  return stats.counts.occupied > 0 && stats.store->mapping.checkpoints > 0 ? 0 : 1;
}
