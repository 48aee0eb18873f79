// `voxen check`'s TSDF rows: depth frames of the procedural building (the depth-camera
// generator) into a TSDF on the GPU against the CPU reference, voxel for voxel and bit for
// bit (every value is an integer and a voxel meets each frame once: the order of the GPU's
// work cannot change it), through a cache smaller than the frames' regions; and the GPU's mesh
// of that TSDF against the CPU mesher's, vertex for vertex and face for face; and lidar scans of
// the building into a TSDF by ray integration on the GPU against the CPU reference, bit for bit
// (a scan's sums are integers: the order of the GPU's atomics cannot change them). The depth
// frames carry colour (the generator's surface colours) into the tsdf_colour layer, compared
// the same way, and the mesh's vertex colours with it.
#include <cstring>

#include "check_row.hpp"
#include "voxen/map/region_cache.hpp"
#include "voxen/testdata/depth_camera.hpp"
#include "voxen/testdata/synthetic_lidar.hpp"
#include "voxen/tsdf/gpu_tsdf.hpp"
#include "voxen/tsdf/gpu_tsdf_mesh.hpp"
#include "voxen/tsdf/gpu_tsdf_rays.hpp"
#include "voxen/tsdf/tsdf.hpp"
#include "voxen/tsdf/tsdf_mesh.hpp"

namespace voxen {

namespace {

OccupancyMap tsdfMap(bool colour = false) {
  OccupancyModel model;
  model.resolution = 0.05;
  return OccupancyMap(model, colour ? LayerSet{kTsdfLayer, kTsdfColourLayer} : LayerSet{kTsdfLayer});
}

// The maps' tsdf_colour voxels that differ (the GPU's map has every region the CPU's has:
// compareTsdf counts a missing one).
uint64_t compareColour(const OccupancyMap& cpu, const OccupancyMap& gpu) {
  uint64_t differ = 0;
  for (const auto& [key, region] : cpu.regions()) {
    const Region* other = gpu.findRegion(key);
    if (!other) continue;
    const auto a = region.values<gpu::TsdfColourVoxel>(kTsdfColourLayer), b = other->values<gpu::TsdfColourVoxel>(kTsdfColourLayer);
    for (size_t i = 0; i < a.size(); ++i) differ += std::memcmp(&a[i], &b[i], sizeof a[i]) != 0;
  }
  return differ;
}

// The maps' tsdf voxels compared: (observed in the CPU's, differing).
std::pair<uint64_t, uint64_t> compareTsdf(const OccupancyMap& cpu, const OccupancyMap& gpu) {
  uint64_t observed = 0, differ = 0;
  for (const auto& [key, region] : cpu.regions()) {
    const Region* other = gpu.findRegion(key);
    const auto a = region.values<gpu::TsdfVoxel>(kTsdfLayer);
    for (size_t i = 0; i < a.size(); ++i) {
      observed += a[i].weight > 0;
      const bool same = other && std::memcmp(&a[i], &other->values<gpu::TsdfVoxel>(kTsdfLayer)[i], sizeof a[i]) == 0;
      differ += !same;
    }
  }
  return {observed, differ + (gpu.regions().size() > cpu.regions().size() ? 1 : 0)};
}

}  // namespace

void checkTsdf(CheckContext& context) {
  DepthCameraConfig camera;
  camera.width = uint32_t(context.sized(160, 640));
  camera.height = uint32_t(context.sized(120, 480));
  camera.frames = context.sized(3, 12);
  camera.colour = true;
  OccupancyMap cpu = tsdfMap(true), gpuMap = tsdfMap(true);
  TsdfOptions options;
  options.weighting = TsdfWeighting::LinearDropOff;
  runRow(context, "tsdf", "coloured depth frames into a TSDF, bit for bit, in chunks", [&](RowResult& row) {
    uint64_t chunks = 0, frames = 0;
    {
      GpuTsdfIntegrator gpu(context.scheduler, gpuMap, options, 12 * RegionCache::bytesPerRegion(gpuMap));
      generateDepthFrames(SyntheticScene::generate(5), camera, [&](const GeneratedDepthFrame& f) {
        integrateDepthCpu(cpu, f.frame, options);
        chunks += gpu.integrate(f.frame).chunks;
        ++frames;
      });
      gpu.sync();
    }
    if (context.breakReferences() && !cpu.regions().empty()) {  // one voxel's distance and colour off: both comparisons must see it
      Region& first = *cpu.findRegion(cpu.regions().begin()->first);
      first.values<gpu::TsdfVoxel>(kTsdfLayer)[0].distance += 1;
      first.values<gpu::TsdfColourVoxel>(kTsdfColourLayer)[0].rgb ^= 1u;
    }
    const auto [observed, differ] = compareTsdf(cpu, gpuMap);
    const uint64_t colours = compareColour(cpu, gpuMap);
    row.figure("frames", double(frames), "{} frames");
    row.figure("observed_voxels", double(observed), "{} voxels observed");
    row.figure("chunks", double(chunks), "{} chunks");
    row.figure("differing_voxels", double(differ), "{} differ from the CPU");
    row.require(observed > 10000, "only " + std::to_string(observed) + " voxels observed");
    row.require(chunks > frames, "one chunk per frame: the cache held every region, so chunking went untested");
    row.figure("differing_colours", double(colours), "{} colours differ");
    row.require(differ == 0, std::to_string(differ) + " voxels differ from the CPU reference");
    row.require(colours == 0, std::to_string(colours) + " voxels' colours differ from the CPU reference");
  });
  runRow(context, "tsdf", "lidar rays into a TSDF, bit for bit, in chunks", [&](RowResult& row) {
    LidarConfig lidar;
    lidar.rings = context.sized(16, 64);
    lidar.columns = context.sized(256, 1024);
    lidar.scans = context.sized(3, 10);
    TsdfOptions rayOptions = options;
    rayOptions.maxRange = lidar.maxRange;
    OccupancyMap cpuRays = tsdfMap(), gpuRays = tsdfMap();
    uint64_t chunks = 0, scans = 0;
    {
      // A cache of 12 regions and accumulators of 128 blocks: every scan in several chunks.
      GpuTsdfRayIntegrator gpu(context.scheduler, gpuRays, rayOptions, 12 * RegionCache::bytesPerRegion(gpuRays), 128 * 8192);
      std::vector<Ray> hits;
      generateLidarScans(SyntheticScene::generate(5), lidar, [&](const LidarScan& scan) {
        hits.clear();
        for (size_t i = 0; i < scan.rays.size(); ++i)
          if (!scan.noReturn[i]) hits.push_back(scan.rays[i]);
        integrateRaysTsdfCpu(cpuRays, hits, rayOptions);
        chunks += gpu.integrate(hits).chunks;
        ++scans;
      });
      gpu.sync();
    }
    if (context.breakReferences()) {  // one voxel's weight one unit off: the comparison must see it
      if (!cpuRays.regions().empty()) cpuRays.findRegion(cpuRays.regions().begin()->first)->values<gpu::TsdfVoxel>(kTsdfLayer)[0].weight += 1;
    }
    const auto [observed, differ] = compareTsdf(cpuRays, gpuRays);
    row.figure("scans", double(scans), "{} scans");
    row.figure("observed_voxels", double(observed), "{} voxels observed");
    row.figure("chunks", double(chunks), "{} chunks");
    row.figure("differing_voxels", double(differ), "{} differ from the CPU");
    row.require(observed > 10000, "only " + std::to_string(observed) + " voxels observed");
    row.require(chunks > scans, "one chunk per scan: the cache held every region, so chunking went untested");
    row.require(differ == 0, std::to_string(differ) + " voxels differ from the CPU reference");
  });
  runRow(context, "tsdf", "the TSDF's coloured mesh, vertex for vertex", [&](RowResult& row) {
    TsdfMesh reference = meshTsdfCpu(cpu);
    const TsdfMesh mesh = meshTsdfGpu(context.scheduler, cpu);
    if (context.breakReferences() && !reference.positions.empty()) reference.positions[0].x += 1e-3f;
    const bool samePositions = reference.positions.size() == mesh.positions.size() &&
                               std::memcmp(reference.positions.data(), mesh.positions.data(),
                                           mesh.positions.size() * sizeof(mesh.positions[0])) == 0;
    const bool sameFaces = reference.faces == mesh.faces && reference.normals == mesh.normals && reference.colours == mesh.colours;
    row.figure("vertices", double(mesh.positions.size()), "{} vertices");
    row.figure("faces", double(mesh.faces.size()), "{} faces");
    row.require(mesh.faces.size() > 1000, "only " + std::to_string(mesh.faces.size()) + " faces");
    row.require(mesh.colours.size() == mesh.positions.size(), "the mesh has no colours");
    row.require(samePositions && sameFaces, "the GPU's mesh differs from the CPU mesher's");
  });
}

}  // namespace voxen
