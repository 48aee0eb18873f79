// The TSDF mesher (voxen/tsdf/tsdf_mesh.hpp): a sphere written into the TSDF exactly (closed,
// genus 0, on the true surface, normals outward, across regions and negative coordinates),
// the analytic scene's ball and wall seen by depth frames (vertices near the true surface,
// normals outward, no edge of more than two faces), the box, the weight threshold, the PLY's
// bytes, and the incremental tracker equal to a whole re-mesh after every frame.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <set>

#include "support/gpu_fixture.hpp"
#include "tsdf/tsdf_mesh_checks.hpp"
#include "tsdf/tsdf_scene.hpp"
#include "voxen/host/error.hpp"
#include "voxen/host/setting_error.hpp"
#include "voxen/map/map_file.hpp"
#include "voxen/map/region_cache.hpp"
#include "voxen/tsdf/gpu_tsdf_mesh.hpp"
#include "voxen/tsdf/tsdf.hpp"
#include "voxen/tsdf/tsdf_mesh.hpp"

namespace {

using namespace voxen;
using voxen::test::edgeUse;
using voxen::test::lookingAlongX;
using voxen::test::requireSameMesh;
using voxen::test::sceneFrame;

// A TSDF of the sphere |p - centre| = radius (metres) written exactly: every voxel of the
// cube [lo, hi) observed once, distance |p - centre| - radius clamped to 4 voxels.
OccupancyMap sphereMap(double resolution, int32_t regionSize, glm::dvec3 centre, double radius, int32_t lo, int32_t hi) {
  OccupancyModel model;
  model.resolution = resolution;
  model.regionSize = regionSize;
  OccupancyMap map(model, LayerSet{kTsdfLayer});
  for (int32_t z = lo; z < hi; ++z)
    for (int32_t y = lo; y < hi; ++y)
      for (int32_t x = lo; x < hi; ++x) {
        const VoxelCoord v{x, y, z};
        const double d = std::clamp((glm::length(map.voxelCentre(v) - centre) - radius) / resolution, -4.0, 4.0);
        map.region(map.regionOf(v)).values<gpu::TsdfVoxel>(kTsdfLayer)[map.localIndex(v)] =
            gpu::TsdfVoxel{int32_t(std::lround(d * double(gpu::kTsdfFine))), gpu::kTsdfWeightUnit};
      }
  return map;
}

// The analytic scene's distance (tsdf_scene.hpp: floor z = 0, wall x = 3, ball) and its normal.
double sceneDistance(const glm::dvec3& p, glm::dvec3* normal) {
  const glm::dvec3 c(2.0, 0.5, 0.6);
  const double ball = std::abs(glm::length(p - c) - 0.4), wall = std::abs(p.x - 3.0), floor = std::abs(p.z);
  if (ball <= wall && ball <= floor) {
    *normal = glm::normalize(p - c);
    return ball;
  }
  *normal = wall <= floor ? glm::dvec3(-1, 0, 0) : glm::dvec3(0, 0, 1);
  return std::min(wall, floor);
}

std::vector<DepthFrame> sceneFrames(int count) {
  std::vector<DepthFrame> frames;
  for (int f = 0; f < count; ++f)
    frames.push_back(sceneFrame(96, 72, 70.0, {0.6 + 0.1 * f, 0.2 + 0.15 * f, 0.9}, lookingAlongX(0.1 * f - 0.05, 0.25),
                                DepthEncoding::Float32));
  return frames;
}

// 16 x 12 pixels, 0.08 rad across, at the ball from 0.6 m: a few regions.
DepthFrame narrowFrame() { return sceneFrame(16, 12, 200.0, {1.0, 0.5, 0.6}, lookingAlongX(0, 0), DepthEncoding::Float32); }

}  // namespace

TEST_CASE("A TSDF sphere meshes closed, on the surface, with outward normals", "[tsdf][mesh]") {
  // Centre near the origin: the sphere spans 8 regions of 16 voxels and negative coordinates.
  const double r = 0.1, radius = 0.77;
  const glm::dvec3 centre(0.013, -0.021, 0.034);
  const OccupancyMap map = sphereMap(r, 16, centre, radius, -13, 13);
  const TsdfMesh mesh = meshTsdfCpu(map);
  REQUIRE(mesh.faces.size() > 500);
  // Welded: one vertex per edge, no two at one position.
  CHECK(std::adjacent_find(mesh.edges.begin(), mesh.edges.end(), [](auto& a, auto& b) { return !(a < b); }) == mesh.edges.end());
  std::set<std::tuple<float, float, float>> distinct;
  for (const glm::vec3& p : mesh.positions) distinct.insert({p.x, p.y, p.z});
  CHECK(distinct.size() == mesh.positions.size());
  // Closed and oriented: every edge in two faces running opposite ways; V - E + F = 2.
  const auto use = edgeUse(mesh);
  CHECK(use.degenerate == 0);
  CHECK(use.once == 0);
  CHECK(use.more == 0);
  CHECK(use.misoriented == 0);
  CHECK(int64_t(mesh.positions.size()) - int64_t(use.edges) + int64_t(mesh.faces.size()) == 2);
  // On the sphere within 0.05 voxel (linear interpolation of an exact distance: h^2 / 8R is
  // 0.016 voxel here), normals within 5 degrees of the radial direction.
  double worst = 0, worstDot = 1;
  for (size_t i = 0; i < mesh.positions.size(); ++i) {
    const glm::dvec3 p(mesh.positions[i]);
    worst = std::max(worst, std::abs(glm::length(p - centre) - radius));
    worstDot = std::min(worstDot, glm::dot(glm::dvec3(mesh.normals[i]), glm::normalize(p - centre)));
    CHECK(std::abs(glm::length(glm::dvec3(mesh.normals[i])) - 1.0) < 1e-6);
  }
  CHECK(worst < 0.05 * r);
  CHECK(worstDot > std::cos(5.0 * 3.14159265358979 / 180.0));
  // Faces wind counter-clockwise seen from outside: the enclosed volume is positive, near 4/3 pi R^3.
  double volume = 0;
  for (const glm::uvec3& f : mesh.faces)
    volume += glm::dot(glm::dvec3(mesh.positions[f.x]) - centre,
                       glm::cross(glm::dvec3(mesh.positions[f.y]) - centre, glm::dvec3(mesh.positions[f.z]) - centre)) / 6.0;
  CHECK(volume == Approx(4.0 / 3.0 * 3.14159265358979 * radius * radius * radius).epsilon(0.02));
  // The same mesh on one thread and on several, and from regions of 32 voxels.
  TsdfMeshOptions one;
  one.threads = 1;
  requireSameMesh(meshTsdfCpu(map, one), mesh);
  requireSameMesh(meshTsdfCpu(sphereMap(r, 32, centre, radius, -13, 13)), mesh);
}

TEST_CASE("A TSDF mesh keeps to its box and its weight threshold", "[tsdf][mesh]") {
  const glm::dvec3 centre(0.013, -0.021, 0.034);
  OccupancyMap map = sphereMap(0.1, 16, centre, 0.77, -13, 13);
  const TsdfMesh whole = meshTsdfCpu(map);
  TsdfMeshOptions boxed;
  boxed.box = TsdfMeshBox{{-1.0, -1.0, 0.0}, {1.0, 1.0, 1.0}};
  const TsdfMesh upper = meshTsdfCpu(map, boxed);
  CHECK(upper.faces.size() > whole.faces.size() / 3);
  CHECK(upper.faces.size() < whole.faces.size() * 2 / 3);
  for (const glm::vec3& p : upper.positions) CHECK(p.z >= 0.0f);
  // Every vertex of the boxed mesh is the whole mesh's vertex of the same edge, bit for bit.
  for (size_t i = 0; i < upper.edges.size(); ++i) {
    const auto it = std::lower_bound(whole.edges.begin(), whole.edges.end(), upper.edges[i]);
    REQUIRE(it != whole.edges.end());
    CHECK(whole.positions[size_t(it - whole.edges.begin())] == upper.positions[i]);
  }
  // Voxels of weight 1 measurement: a threshold of 2 meshes nothing, of 1 everything.
  TsdfMeshOptions two;
  two.minWeight = 2;
  CHECK(meshTsdfCpu(map, two).faces.empty());
  two.minWeight = 1;
  CHECK(meshTsdfCpu(map, two).faces.size() == whole.faces.size());
  two.minWeight = -1;
  CHECK_THROWS_AS(meshTsdfCpu(map, two), SettingError);
  OccupancyMap plain;
  CHECK_THROWS_WITH(meshTsdfCpu(plain), Catch::Contains("no 'tsdf' layer"));
}

TEST_CASE("The scene's TSDF meshes near the true surface, and the tracker equals a whole re-mesh", "[tsdf][mesh]") {
  OccupancyModel model;
  model.resolution = 0.03;
  OccupancyMap map(model, LayerSet{kTsdfLayer});
  TsdfMeshTracker tracker;
  size_t frameIndex = 0;
  for (const DepthFrame& frame : sceneFrames(4)) {
    integrateDepthCpu(map, frame, TsdfOptions{});
    const TsdfMeshUpdate update = tracker.update(map);
    INFO("frame " << frameIndex);
    CHECK(update.whole == (frameIndex == 0));
    requireSameMesh(tracker.mesh(), meshTsdfCpu(map));
    ++frameIndex;
  }
  // Nothing changed: nothing meshed again. A narrow frame: its regions' blocks and their ring only.
  CHECK(tracker.update(map).blocksMeshed == 0);
  integrateDepthCpu(map, narrowFrame(), TsdfOptions{});
  const TsdfMeshUpdate narrow = tracker.update(map);
  CHECK(narrow.blocksMeshed > 0);
  CHECK(narrow.blocksKept > 0);
  requireSameMesh(tracker.mesh(), meshTsdfCpu(map));
  const TsdfMesh& mesh = tracker.mesh();
  REQUIRE(mesh.faces.size() > 1000);
  // Vertices near the true surface, normals outward. A projective TSDF is exact where a ray
  // meets the surface head-on; at silhouettes (the ball's rim against the wall) the band's
  // front of one surface meets another's back and makes a skirt a voxel or two off: so most
  // vertices (99%), not all, within a quarter voxel, and 99% of normals within 25 degrees.
  size_t near = 0, aligned = 0;
  for (size_t i = 0; i < mesh.positions.size(); ++i) {
    glm::dvec3 normal;
    const double d = sceneDistance(glm::dvec3(mesh.positions[i]), &normal);
    near += d <= 0.25 * model.resolution;
    aligned += glm::dot(glm::dvec3(mesh.normals[i]), normal) > 0.9;
  }
  const double nearFraction = double(near) / mesh.positions.size(), alignedFraction = double(aligned) / mesh.positions.size();
  INFO("vertices " << mesh.positions.size() << ", within a quarter voxel " << nearFraction << ", normals within 25 degrees "
                   << alignedFraction);
  CHECK(nearFraction > 0.99);  // 0.9967 measured
  CHECK(alignedFraction > 0.99);  // 0.9985 measured
  const auto use = edgeUse(mesh);
  CHECK(use.more == 0);
  CHECK(use.misoriented == 0);
  CHECK(use.twice > 10 * use.once);
}

TEST_CASE("A TSDF mesh's PLY holds its header, vertices and faces", "[tsdf][mesh]") {
  const OccupancyMap map = sphereMap(0.1, 16, {0.013, -0.021, 0.034}, 0.33, -6, 6);
  const TsdfMesh mesh = meshTsdfCpu(map);
  REQUIRE(!mesh.faces.empty());
  const std::filesystem::path path = std::filesystem::temp_directory_path() / "voxen_test_tsdf_mesh.ply";
  writeTsdfMeshPly(mesh, path);
  std::ifstream in(path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::filesystem::remove(path);
  const std::string header = "ply\nformat binary_little_endian 1.0\ncomment written by voxen: a TSDF's surface (marching cubes)\n"
                             "element vertex " + std::to_string(mesh.positions.size()) +
                             "\nproperty float x\nproperty float y\nproperty float z\nproperty float nx\nproperty float ny\n"
                             "property float nz\nelement face " + std::to_string(mesh.faces.size()) +
                             "\nproperty list uchar uint vertex_indices\nend_header\n";
  REQUIRE(bytes.size() == header.size() + mesh.positions.size() * 24 + mesh.faces.size() * 13);
  CHECK(bytes.compare(0, header.size(), header) == 0);
  float first[6];
  std::memcpy(first, bytes.data() + header.size(), sizeof first);
  CHECK(first[0] == mesh.positions[0].x);
  CHECK(first[5] == mesh.normals[0].z);
  const char* face = bytes.data() + header.size() + mesh.positions.size() * 24;
  uint32_t corners[3];
  std::memcpy(corners, face + 1, sizeof corners);
  CHECK(face[0] == 3);
  CHECK(corners[2] == mesh.faces[0].z);
}

// Also the maps cli_mesh (tests/cli/mesh/mesh.sh) runs voxen mesh on: with VOXEN_TSDF_MESH_MAPS
// set to a folder, scene.vxm (this TSDF) and plain.vxm (a map without a tsdf layer) stay there.
TEST_CASE("A TSDF map saved and loaded meshes the same", "[tsdf][mesh]") {
  OccupancyModel model;
  model.resolution = 0.03;
  OccupancyMap map(model, LayerSet{kTsdfLayer});
  for (const DepthFrame& frame : sceneFrames(2)) integrateDepthCpu(map, frame, TsdfOptions{});
  const char* keep = std::getenv("VOXEN_TSDF_MESH_MAPS");
  const std::filesystem::path folder = keep ? std::filesystem::path(keep) : std::filesystem::temp_directory_path();
  const std::filesystem::path path = folder / (keep ? "scene.vxm" : "voxen_test_tsdf_mesh.vxm");
  saveMap(map, path);
  const OccupancyMap loaded = loadMap(path);
  requireSameMesh(meshTsdfCpu(loaded), meshTsdfCpu(map));
  if (keep) {
    OccupancyMap plain(model);
    plain.region({0, 0, 0});
    saveMap(plain, folder / "plain.vxm");
  } else {
    std::filesystem::remove(path);
  }
}

TEST_CASE("The GPU TSDF mesh equals the CPU reference's", "[tsdf][mesh][gpu]") {
  voxen::Scheduler& scheduler = vt::gpu().scheduler;
  SECTION("a sphere across regions, in chunks of a small cache, boxed and not") {
    const OccupancyMap map = sphereMap(0.1, 8, {0.013, -0.021, 0.034}, 0.77, -13, 13);
    GpuTsdfMeshStats stats;
    requireSameMesh(meshTsdfGpu(scheduler, map, {}, 30 * RegionCache::bytesPerRegion(map), &stats), meshTsdfCpu(map));
    CHECK(stats.chunks > 2);
    TsdfMeshOptions boxed;
    boxed.box = TsdfMeshBox{{-1.0, -0.4, 0.0}, {0.5, 1.0, 1.0}};
    requireSameMesh(meshTsdfGpu(scheduler, map, boxed), meshTsdfCpu(map, boxed));
  }
  SECTION("the scene's TSDF, with a weight threshold") {
    OccupancyModel model;
    model.resolution = 0.03;
    OccupancyMap map(model, LayerSet{kTsdfLayer});
    for (const DepthFrame& frame : sceneFrames(3)) integrateDepthCpu(map, frame, TsdfOptions{.weighting = TsdfWeighting::LinearDropOff});
    const TsdfMesh cpu = meshTsdfCpu(map);
    REQUIRE(cpu.faces.size() > 1000);
    requireSameMesh(meshTsdfGpu(scheduler, map), cpu);
    TsdfMeshOptions heavy;
    heavy.minWeight = 1.5;
    requireSameMesh(meshTsdfGpu(scheduler, map, heavy), meshTsdfCpu(map, heavy));
  }
  SECTION("the tracker on the GPU after every frame") {
    OccupancyModel model;
    model.resolution = 0.03;
    OccupancyMap map(model, LayerSet{kTsdfLayer});
    TsdfMeshTracker tracker(scheduler);
    uint64_t meshed = 0;
    for (const DepthFrame& frame : sceneFrames(4)) {
      integrateDepthCpu(map, frame, TsdfOptions{});
      const TsdfMeshUpdate update = tracker.update(map);
      meshed += update.whole ? 0 : update.blocksMeshed;
      requireSameMesh(tracker.mesh(), meshTsdfCpu(map));
    }
    CHECK(tracker.update(map).blocksMeshed == 0);
    CHECK(meshed > 0);
    integrateDepthCpu(map, narrowFrame(), TsdfOptions{});
    const TsdfMeshUpdate narrow = tracker.update(map);
    CHECK(narrow.blocksMeshed > 0);
    CHECK(narrow.blocksKept > 0);
    requireSameMesh(tracker.mesh(), meshTsdfCpu(map));
  }
  vt::flushGpu();
}

// Not run by default: `voxen_tests "[.tsdf-mesh-bench]"`. Wall times (medians of 5) of a whole
// mesh (CPU on 1 thread and on every core, GPU) and of the tracker's update (the update alone)
// after a narrow frame and after a full one (CPU and GPU), on the analytic scene at 2 cm from 8
// frames; both trackers equal a whole mesh at the end.
TEST_CASE("TSDF meshing and incremental updates: speed", "[.tsdf-mesh-bench]") {
  voxen::Scheduler& scheduler = vt::gpu().scheduler;
  OccupancyModel model;
  model.resolution = 0.02;
  OccupancyMap map(model, LayerSet{kTsdfLayer});
  for (const DepthFrame& frame : sceneFrames(8)) integrateDepthCpu(map, frame, TsdfOptions{});
  // The median of 5 runs of `run`, each after an untimed `prepare`.
  const auto median = [](auto&& prepare, auto&& run) {
    std::vector<double> ms;
    for (int i = 0; i < 5; ++i) {
      prepare();
      const auto start = std::chrono::steady_clock::now();
      run();
      ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    }
    std::sort(ms.begin(), ms.end());
    return ms[2];
  };
  const auto nothing = [] {};
  const auto narrow = [&] { integrateDepthCpu(map, narrowFrame(), TsdfOptions{}); };
  const auto full = [&] { integrateDepthCpu(map, sceneFrames(1)[0], TsdfOptions{}); };
  TsdfMeshOptions one;
  one.threads = 1;
  const TsdfMesh mesh = meshTsdfCpu(map);
  const double cpu1 = median(nothing, [&] { meshTsdfCpu(map, one); }), cpuAll = median(nothing, [&] { meshTsdfCpu(map); });
  const double gpu = median(nothing, [&] { meshTsdfGpu(scheduler, map); });
  TsdfMeshTracker cpuTracker, gpuTracker(scheduler);
  cpuTracker.update(map);
  gpuTracker.update(map);
  uint64_t narrowBlocks = 0, fullBlocks = 0;
  const double cpuNarrow = median(narrow, [&] { narrowBlocks = cpuTracker.update(map).blocksMeshed; });
  gpuTracker.update(map);  // the CPU tracker's frames
  const double gpuNarrow = median(narrow, [&] { gpuTracker.update(map); });
  cpuTracker.update(map);
  const double cpuFull = median(full, [&] { fullBlocks = cpuTracker.update(map).blocksMeshed; });
  gpuTracker.update(map);
  const double gpuFull = median(full, [&] { gpuTracker.update(map); });
  // Each tracker saw the other's frames at its next update: both current now, and equal to a whole mesh.
  cpuTracker.update(map);
  gpuTracker.update(map);
  const TsdfMesh now = meshTsdfCpu(map);
  requireSameMesh(cpuTracker.mesh(), now);
  requireSameMesh(gpuTracker.mesh(), now);
  WARN("TSDF mesh of " << mesh.faces.size() << " triangles, " << map.regions().size() << " regions: CPU 1 thread " << cpu1
                       << " ms, every core " << cpuAll << " ms, GPU " << gpu << " ms; tracker after a narrow frame (" << narrowBlocks
                       << " blocks) CPU " << cpuNarrow << " ms, GPU " << gpuNarrow << " ms; after a full frame ("
                       << fullBlocks << " blocks) CPU " << cpuFull << " ms, GPU " << gpuFull << " ms");
  vt::flushGpu();
}
