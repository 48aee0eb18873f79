// `voxen bench tsdf [--frames N] [--resolution R...]`: the TSDF (voxen/tsdf/tsdf.hpp) of the
// synthetic building seen by the depth camera (voxen/testdata/depth_camera.hpp: 640 x 480
// frames along the scene's path), per resolution on the GPU (GpuTsdfIntegrator) beside the CPU
// reference (integrateDepthCpu) in the same run, the two maps' tsdf layers compared byte for
// byte (exit 1 when they differ); then the final map's mesh (meshTsdfGpu beside meshTsdfCpu,
// compared vertex for vertex and face for face).
//
// What is timed, per frame: the GPU's integrate(frame) followed by Scheduler::finish() (the
// frame's upload, its block discovery and readback, the regions made resident, the folding
// pass, and the wait for the GPU to finish it: a caller's latency per frame, the regions left
// resident on the GPU as a live mapper keeps them), after one untimed frame into a scratch map
// that makes the pipelines; the CPU's integrateDepthCpu(frame). The
// GPU's final sync() (regions back to the host map) is timed apart. The frames are rendered
// before any timing. Meshing: one meshTsdfGpu call (regions to the GPU, the pass, the welding)
// and one meshTsdfCpu call (the machine's cores), after one untimed GPU mesh that makes the
// pipelines.
//
// Lidar scans (--scans N, default 4; 0: none): the building's spinning lidar (64 x 1024 rays a
// scan, no-returns dropped) into a TSDF by ray integration (voxen/tsdf/tsdf_rays.hpp) per
// resolution, GpuTsdfRayIntegrator::integrate(scan) and Scheduler::finish() per scan (packing,
// upload, discovery and its readback, the regions made resident, the sums and the fold, the
// wait) beside integrateRaysTsdfCpu(scan), after one untimed scan into a scratch map; the two
// maps compared byte for byte.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include "bench/bench_stats.hpp"
#include "bench/bench_table.hpp"
#include "commands.hpp"
#include "option_checks.hpp"
#include "report/json_output.hpp"
#include "report/text_format.hpp"
#include "stopwatch.hpp"
#include "voxen/host/device.hpp"
#include "voxen/host/scheduler.hpp"
#include "voxen/host/shader_library.hpp"
#include "voxen/testdata/depth_camera.hpp"
#include "voxen/testdata/synthetic_lidar.hpp"
#include "voxen/tsdf/gpu_tsdf.hpp"
#include "voxen/tsdf/gpu_tsdf_mesh.hpp"
#include "voxen/tsdf/gpu_tsdf_rays.hpp"
#include "voxen/tsdf/tsdf.hpp"
#include "voxen/tsdf/tsdf_mesh.hpp"

namespace voxen::cli {

namespace {

struct BenchTsdfArgs {
  int frames = 30;
  int scans = 4;  // lidar scans for the ray integration rows (0: none)
  std::vector<double> resolutions{0.02, 0.05};
  bool noMesh = false;
};

struct Result {
  double resolution = 0;
  uint64_t regions = 0, observedVoxels = 0, differingVoxels = 0;
  bool exact = false;
  std::vector<double> gpuMs, cpuMs;  // per frame
  std::vector<uint64_t> blocks;      // per frame
  double syncMs = 0;
  bool meshed = false, meshExact = false;
  double gpuMeshMs = 0, cpuMeshMs = 0;
  size_t meshVertices = 0, meshFaces = 0;
};

// Voxels whose bytes differ between the two maps' tsdf layers (a region one map lacks counts
// every voxel of the other's); `observed` counts the CPU map's voxels with weight.
uint64_t differingTsdfVoxels(const OccupancyMap& cpu, const OccupancyMap& gpu, uint64_t& observed) {
  uint64_t differ = 0;
  observed = 0;
  for (const auto& [key, region] : cpu.regions()) {
    const auto a = region.values<gpu::TsdfVoxel>(kTsdfLayer);
    for (const gpu::TsdfVoxel& v : a) observed += v.weight > 0;
    const Region* other = gpu.findRegion(key);
    if (!other) {
      differ += a.size();
      continue;
    }
    const auto b = other->values<gpu::TsdfVoxel>(kTsdfLayer);
    for (size_t i = 0; i < a.size(); ++i) differ += std::memcmp(&a[i], &b[i], sizeof a[i]) != 0;
  }
  for (const auto& [key, region] : gpu.regions())
    if (!cpu.findRegion(key)) differ += region.values<gpu::TsdfVoxel>(kTsdfLayer).size();
  return differ;
}

bool sameMesh(const TsdfMesh& a, const TsdfMesh& b) {
  auto same = [](const auto& x, const auto& y) {
    return x.size() == y.size() && (x.empty() || std::memcmp(x.data(), y.data(), x.size() * sizeof x[0]) == 0);
  };
  return same(a.positions, b.positions) && same(a.normals, b.normals) && same(a.faces, b.faces) && a.edges == b.edges;
}

OccupancyMap tsdfMap(double resolution) {
  OccupancyModel model;
  model.resolution = resolution;
  return OccupancyMap(model, LayerSet{kTsdfLayer});
}

Result run(Scheduler& scheduler, const std::vector<DepthFrame>& frames, double resolution, bool mesh) {
  Result r;
  r.resolution = resolution;
  const TsdfOptions options;  // 4 voxels, weight cap 64, constant weights, 10 m
  if (!frames.empty()) {  // the pipelines made on a scratch map, untimed (the first dispatch compiles them on some drivers)
    OccupancyMap scratch = tsdfMap(resolution);
    GpuTsdfIntegrator warmUp(scheduler, scratch, options);
    warmUp.integrate(frames.front());
    scheduler.finish();
  }
  OccupancyMap cpu = tsdfMap(resolution), gpuMap = tsdfMap(resolution);
  {
    GpuTsdfIntegrator gpu(scheduler, gpuMap, options);
    for (const DepthFrame& frame : frames) {
      auto start = Clock::now();
      const GpuTsdfFrameStats stats = gpu.integrate(frame);
      scheduler.finish();
      r.gpuMs.push_back(secondsSince(start) * 1e3);
      r.blocks.push_back(stats.blocks);
      start = Clock::now();
      integrateDepthCpu(cpu, frame, options);
      r.cpuMs.push_back(secondsSince(start) * 1e3);
    }
    const auto start = Clock::now();
    gpu.sync();
    r.syncMs = secondsSince(start) * 1e3;
  }
  r.regions = cpu.regions().size();
  r.differingVoxels = differingTsdfVoxels(cpu, gpuMap, r.observedVoxels);
  r.exact = r.differingVoxels == 0;
  if (mesh) {
    r.meshed = true;
    meshTsdfGpu(scheduler, gpuMap);  // makes the pipelines: untimed
    auto start = Clock::now();
    const TsdfMesh g = meshTsdfGpu(scheduler, gpuMap);
    r.gpuMeshMs = secondsSince(start) * 1e3;
    start = Clock::now();
    const TsdfMesh c = meshTsdfCpu(cpu);
    r.cpuMeshMs = secondsSince(start) * 1e3;
    r.meshExact = sameMesh(g, c);
    r.meshVertices = c.positions.size();
    r.meshFaces = c.faces.size();
  }
  return r;
}

// Ray integration of lidar scans at one resolution, GPU beside the CPU reference.
struct RayResult {
  double resolution = 0;
  uint64_t observedVoxels = 0, differingVoxels = 0;
  bool exact = false;
  std::vector<double> gpuMs, cpuMs, rays, blocks;  // per scan
};

RayResult runRays(Scheduler& scheduler, const std::vector<std::vector<Ray>>& scans, double resolution) {
  RayResult r;
  r.resolution = resolution;
  TsdfOptions options;  // 4 voxels, weight cap 64, constant weights
  options.maxRange = LidarConfig{}.maxRange;
  if (!scans.empty()) {  // the pipelines made on a scratch map, untimed
    OccupancyMap scratch = tsdfMap(resolution);
    GpuTsdfRayIntegrator warmUp(scheduler, scratch, options);
    warmUp.integrate(scans.front());
    scheduler.finish();
  }
  OccupancyMap cpu = tsdfMap(resolution), gpuMap = tsdfMap(resolution);
  {
    GpuTsdfRayIntegrator gpu(scheduler, gpuMap, options);
    for (const std::vector<Ray>& scan : scans) {
      auto start = Clock::now();
      const TsdfScanStats stats = gpu.integrate(scan);
      scheduler.finish();
      r.gpuMs.push_back(secondsSince(start) * 1e3);
      r.rays.push_back(double(stats.rays));
      r.blocks.push_back(double(stats.blocks));
      start = Clock::now();
      integrateRaysTsdfCpu(cpu, scan, options);
      r.cpuMs.push_back(secondsSince(start) * 1e3);
    }
    gpu.sync();
  }
  r.differingVoxels = differingTsdfVoxels(cpu, gpuMap, r.observedVoxels);
  r.exact = r.differingVoxels == 0;
  return r;
}

// The lidar's scans of the building with their returns only.
std::vector<std::vector<Ray>> lidarScans(int count) {
  std::vector<std::vector<Ray>> scans;
  if (count <= 0) return scans;
  LidarConfig lidar;
  lidar.scans = count;
  generateLidarScans(SyntheticScene::generate(1), lidar, [&](const LidarScan& scan) {
    std::vector<Ray>& hits = scans.emplace_back();
    for (size_t i = 0; i < scan.rays.size(); ++i)
      if (!scan.noReturn[i]) hits.push_back(scan.rays[i]);
  });
  return scans;
}

double perSecond(double ms) { return ms > 0 ? 1e3 / ms : 0.0; }

Json rayRunsJson(const std::vector<RayResult>& results) {
  return jsonArray(results, [](const RayResult& r) -> Json {
    const double g = median(r.gpuMs), c = median(r.cpuMs), rays = median(r.rays);
    return {{"resolution", r.resolution},
            {"rays_exact", r.exact},
            {"rays_differing_voxels", r.differingVoxels},
            {"observed_voxels", r.observedVoxels},
            {"rays_per_scan", rounded(rays, 0)},
            {"blocks_per_scan", rounded(median(r.blocks), 1)},
            {"gpu_ms_per_scan", rounded(g, 3)},
            {"cpu_ms_per_scan", rounded(c, 3)},
            {"gpu_rays_per_s", rounded(g > 0 ? rays * 1e3 / g : 0.0, 0)},
            {"cpu_rays_per_s", rounded(c > 0 ? rays * 1e3 / c : 0.0, 0)},
            {"gpu_ms", roundedList(r.gpuMs, 3)},
            {"cpu_ms", roundedList(r.cpuMs, 3)}};
  });
}

void printRayTable(const std::vector<RayResult>& results, int scans) {
  if (results.empty()) return;
  std::printf("\nLidar scans into the TSDF by ray integration (%d scans of the building, 64 x 1024 rays, returns only), "
              "medians per scan:\n",
              scans);
  const TextTable table({{"resolution", 11}, {"rays/scan", 11}, {"blocks/scan", 12}, {"GPU ms/scan", 12}, {"GPU Mrays/s", 12},
                         {"CPU ms/scan", 12}, {"CPU Mrays/s", 12}, {"GPU/CPU", 8}, {"exact", 6}});
  table.printHead();
  for (const RayResult& r : results) {
    const double g = median(r.gpuMs), c = median(r.cpuMs), rays = median(r.rays);
    table.printRow({fixed(r.resolution, 2, " m"), fixed(rays, 0), fixed(median(r.blocks), 0), fixed(g, 2, " ms"),
                    fixed(g > 0 ? rays / g / 1e3 : 0.0, 2), fixed(c, 2, " ms"), fixed(c > 0 ? rays / c / 1e3 : 0.0, 2),
                    fixed(g > 0 ? c / g : 0.0, 2, "x"), r.exact ? "yes" : "NO"});
  }
  std::printf("GPU ms/scan: GpuTsdfRayIntegrator::integrate(scan) and Scheduler::finish(); CPU ms/scan: "
              "integrateRaysTsdfCpu (the machine's cores); exact: the two maps' tsdf layers equal byte for byte.\n");
}

int benchTsdf(const CommonOptions& options, const BenchTsdfArgs& args) {
  // The frames first, untimed: rendering them is the test data's work, not the TSDF's.
  const SyntheticScene scene = SyntheticScene::generate(1);
  DepthCameraConfig camera;
  camera.frames = args.frames;
  std::vector<DepthFrame> frames;
  uint64_t validPixels = 0;
  generateDepthFrames(scene, camera, [&](const GeneratedDepthFrame& f) {
    frames.push_back(f.frame);
    validPixels += f.validPixels;
  });
  Device device(options.device);
  ShaderLibrary library(device, options.libraryOptions());
  Scheduler scheduler(device, library);
  std::vector<Result> results;
  for (double resolution : args.resolutions) results.push_back(run(scheduler, frames, resolution, !args.noMesh));
  const std::vector<std::vector<Ray>> scans = lidarScans(args.scans);
  std::vector<RayResult> rayResults;
  if (!scans.empty())
    for (double resolution : args.resolutions) rayResults.push_back(runRays(scheduler, scans, resolution));
  bool exact = true;
  for (const Result& r : results) exact = exact && r.exact && (!r.meshed || r.meshExact);
  for (const RayResult& r : rayResults) exact = exact && r.exact;
  if (options.json) {
    printJson(benchSummary(
        device, {{"frames", args.frames},
                 {"width", camera.width},
                 {"height", camera.height},
                 {"valid_pixels_per_frame", frames.empty() ? 0.0 : double(validPixels) / double(frames.size())},
                 {"exact", exact},
                 {"runs", jsonArray(results, [](const Result& r) -> Json {
                    Json run = {{"resolution", r.resolution},
                                {"exact", r.exact},
                                {"differing_voxels", r.differingVoxels},
                                {"observed_voxels", r.observedVoxels},
                                {"regions", r.regions},
                                {"gpu_ms_per_frame", rounded(median(r.gpuMs), 3)},
                                {"cpu_ms_per_frame", rounded(median(r.cpuMs), 3)},
                                {"gpu_frames_per_s", rounded(perSecond(median(r.gpuMs)), 2)},
                                {"cpu_frames_per_s", rounded(perSecond(median(r.cpuMs)), 2)},
                                {"blocks_per_frame", rounded(median(std::vector<double>(r.blocks.begin(), r.blocks.end())), 1)},
                                {"gpu_sync_ms", rounded(r.syncMs, 3)},
                                {"gpu_ms", roundedList(r.gpuMs, 3)},
                                {"cpu_ms", roundedList(r.cpuMs, 3)},
                                {"blocks", r.blocks}};
                    if (r.meshed)
                      run["mesh"] = {{"exact", r.meshExact},
                                     {"vertices", r.meshVertices},
                                     {"faces", r.meshFaces},
                                     {"gpu_ms", rounded(r.gpuMeshMs, 3)},
                                     {"cpu_ms", rounded(r.cpuMeshMs, 3)}};
                    return run;
                  })},
                 {"scans", args.scans},
                 {"ray_runs", rayRunsJson(rayResults)}}));
    return exact ? 0 : 1;
  }
  std::printf("voxen bench tsdf on %s: %d frames of %u x %u (the building, %.0f valid pixels a frame), medians per frame\n\n",
              device.info().name.c_str(), args.frames, camera.width, camera.height,
              frames.empty() ? 0.0 : double(validPixels) / double(frames.size()));
  const TextTable table({{"resolution", 11}, {"blocks/frame", 13}, {"GPU ms/frame", 13}, {"GPU frames/s", 13}, {"CPU ms/frame", 13},
                         {"CPU frames/s", 13}, {"GPU/CPU", 8}, {"exact", 6}});
  table.printHead();
  for (const Result& r : results) {
    const double g = median(r.gpuMs), c = median(r.cpuMs);
    table.printRow({fixed(r.resolution, 2, " m"), fixed(median(std::vector<double>(r.blocks.begin(), r.blocks.end())), 0),
                    fixed(g, 2, " ms"), fixed(perSecond(g), 2), fixed(c, 2, " ms"), fixed(perSecond(c), 2),
                    fixed(g > 0 ? c / g : 0.0, 2, "x"), r.exact ? "yes" : "NO"});
  }
  if (!args.noMesh) {
    std::printf("\nThe final map's mesh:\n");
    const TextTable meshTable({{"resolution", 11}, {"vertices", 11}, {"faces", 11}, {"GPU mesh", 11}, {"CPU mesh", 11}, {"GPU/CPU", 8},
                               {"exact", 6}});
    meshTable.printHead();
    for (const Result& r : results)
      meshTable.printRow({fixed(r.resolution, 2, " m"), withCommas(r.meshVertices), withCommas(r.meshFaces), fixed(r.gpuMeshMs, 2, " ms"),
                          fixed(r.cpuMeshMs, 2, " ms"), fixed(r.gpuMeshMs > 0 ? r.cpuMeshMs / r.gpuMeshMs : 0.0, 2, "x"),
                          r.meshExact ? "yes" : "NO"});
  }
  std::printf("\nGPU ms/frame: GpuTsdfIntegrator::integrate(frame) and Scheduler::finish() (upload, block discovery, regions "
              "made resident, folding, and the wait for the GPU); the final sync to the host map is apart (--json: gpu_sync_ms). "
              "CPU ms/frame: integrateDepthCpu. exact: the two maps' tsdf layers equal byte for byte after the last frame; "
              "meshes: meshTsdfGpu and meshTsdfCpu (the machine's cores) once each, the same vertices and faces.\n");
  printRayTable(rayResults, args.scans);
  return exact ? 0 : 1;
}

CommandRun setupBenchTsdf(CLI::App& command) {
  auto args = std::make_shared<BenchTsdfArgs>();
  command.add_option("--frames", args->frames, "depth frames of 640 x 480 along the building's path")
      ->check(integerIn(1, 10000))
      ->capture_default_str();
  command.add_option("--resolution", args->resolutions, "voxel sizes in metres (default 0.02 0.05)")->check(numberIn(0.005, 1.0, "metres"));
  command.add_option("--scans", args->scans, "lidar scans (64 x 1024 rays) of the building for the ray integration rows (0: none)")
      ->check(integerIn(0, 1000))
      ->capture_default_str();
  command.add_flag("--no-mesh", args->noMesh, "skip meshing the final maps");
  return [args](const CommonOptions& options) { return benchTsdf(options, *args); };
}

}  // namespace

static CommandRegistration registration{"bench tsdf",
                                        "TSDF of a depth camera's frames of the building, GPU beside the CPU reference, and its mesh",
                                        &setupBenchTsdf, Uses::Gpu | Uses::Json};

}  // namespace voxen::cli
