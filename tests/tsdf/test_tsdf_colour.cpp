// TSDF colour (the map's tsdf_colour layer, shaders/map/tsdf_colour_layer.h): the fold of two
// colours worked by hand, a frame without colour leaving colour alone, the GPU's distance and
// colour voxels equal to the CPU reference's byte for byte over coloured and colour-less
// frames, mesh vertices carrying the colour of the surface they lie on (one colour, two
// colours), the GPU mesher's colours equal to the CPU's (patterned colours), the PLY's red, green and blue read
// back, the merge's weighted mean and the layer's save, load and check; a colour image unlike its
// depth image refused with both maps as they were, and the tracker meshing everything again,
// with colours, when the map gains the layer.
#include <catch2/catch.hpp>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "support/gpu_fixture.hpp"
#include "tsdf/tsdf_mesh_checks.hpp"
#include "tsdf/tsdf_scene.hpp"
#include "voxen/host/error.hpp"
#include "voxen/map/layer_domain.hpp"
#include "voxen/map/layer_merge.hpp"
#include "voxen/map/map_file.hpp"
#include "voxen/gpu/tsdf/tsdf_mesh_shared.h"
#include "voxen/map/region_cache.hpp"
#include "voxen/tsdf/gpu_tsdf.hpp"
#include "voxen/tsdf/gpu_tsdf_mesh.hpp"
#include "voxen/tsdf/tsdf.hpp"
#include "voxen/tsdf/tsdf_mesh.hpp"

namespace {

using namespace voxen;
using voxen::test::lookingAlongX;
using voxen::test::requireSameMesh;
using voxen::test::sceneFrame;

constexpr uint32_t pack(uint32_t r, uint32_t g, uint32_t b) { return r | g << 8 | b << 16; }

OccupancyMap colourMap(double resolution) {
  OccupancyModel model;
  model.resolution = resolution;
  return OccupancyMap(model, LayerSet{kTsdfLayer, kTsdfColourLayer});
}

// The frame's colour image: every pixel `rgb`.
void paint(DepthFrame& frame, uint32_t rgb) {
  ColourImage c{frame.depth.width, frame.depth.height, {}};
  for (size_t i = 0; i < frame.depth.pixels(); ++i)
    for (uint32_t k = 0; k < 3; ++k) c.rgb.push_back(uint8_t(gpu::tsdfColourChannel(rgb, k)));
  frame.colour = std::move(c);
}

// A colour per pixel that differs from pixel to pixel and frame to frame.
void paintPattern(DepthFrame& frame, uint32_t seed) {
  ColourImage c{frame.depth.width, frame.depth.height, {}};
  for (uint32_t v = 0; v < c.height; ++v)
    for (uint32_t u = 0; u < c.width; ++u)
      for (uint32_t k = 0; k < 3; ++k) c.rgb.push_back(uint8_t((u * 37 + v * 91 + k * 53 + seed * 17) * 2654435761u >> 24));
  frame.colour = std::move(c);
}

// The scene's ball red, the floor and wall blue (tsdf_scene.hpp), by where each pixel's ray lands.
void paintBySurface(DepthFrame& frame) {
  ColourImage c{frame.depth.width, frame.depth.height, {}};
  const glm::dmat3 r = glm::mat3_cast(frame.orientation);
  for (uint32_t v = 0; v < c.height; ++v)
    for (uint32_t u = 0; u < c.width; ++u) {
      const glm::dvec3 dir =
          r * glm::dvec3((u - frame.intrinsics.cx) / frame.intrinsics.fx, (v - frame.intrinsics.cy) / frame.intrinsics.fy, 1.0);
      const double depth = voxen::test::castScene(frame.position, dir);
      const glm::dvec3 p = frame.position + dir * depth;
      const bool ball = std::isfinite(depth) && std::abs(glm::length(p - glm::dvec3(2.0, 0.5, 0.6)) - 0.4) < 1e-6;
      const uint32_t rgb = ball ? pack(220, 40, 30) : pack(20, 50, 230);
      for (uint32_t k = 0; k < 3; ++k) c.rgb.push_back(uint8_t(gpu::tsdfColourChannel(rgb, k)));
    }
  frame.colour = std::move(c);
}

template <class T>
T valueAt(const OccupancyMap& map, LayerId layer, const VoxelCoord& v) {
  const Region* region = map.findRegion(map.regionOf(v));
  return region ? region->values<T>(layer)[map.localIndex(v)] : T{};
}

// Both layers of two maps, byte for byte; returns the voxels with colour.
size_t requireSameLayers(const OccupancyMap& a, const OccupancyMap& b) {
  REQUIRE(a.regions().size() == b.regions().size());
  size_t differ = 0, coloured = 0;
  for (const auto& [key, region] : a.regions()) {
    const Region* other = b.findRegion(key);
    REQUIRE(other != nullptr);
    for (const LayerId layer : {kTsdfLayer, kTsdfColourLayer}) {
      const auto x = std::as_bytes(region.values<uint64_t>(layer)), y = std::as_bytes(other->values<uint64_t>(layer));
      REQUIRE(x.size() == y.size());
      for (size_t i = 0; i < x.size(); i += 8) differ += std::memcmp(x.data() + i, y.data() + i, 8) != 0;
    }
    for (const auto& c : region.values<gpu::TsdfColourVoxel>(kTsdfColourLayer)) coloured += c.weight > 0;
  }
  INFO("voxels differing: " << differ << ", coloured: " << coloured);
  CHECK(differ == 0);
  return coloured;
}

}  // namespace

TEST_CASE("TSDF colour folds as a weighted mean, worked by hand", "[tsdf_colour]") {
  // Equal weights: (100 + 200) / 2 = 150, (0 + 50) / 2 = 25, 255 / 2 = 127.5 rounds up to 128.
  CHECK(gpu::tsdfColourMean(pack(100, 0, 255), 16, pack(200, 50, 0), 16) == pack(150, 25, 128));
  // Weight 48 against 16: (100 48 + 200 16) / 64 = 125, (0 + 50 16) / 64 = 12.5 -> 13, 255 48 / 64 = 191.25 -> 191.
  CHECK(gpu::tsdfColourMean(pack(100, 0, 255), 48, pack(200, 50, 0), 16) == pack(125, 13, 191));
  // An empty voxel takes the measurement as it is.
  CHECK(gpu::tsdfColourMean(0, 0, pack(1, 2, 3), 5) == pack(1, 2, 3));
  // Mesh vertices: halfway (t = 32768) is the mean, the ends are the voxels' colours, a voxel
  // without colour gives way to the other.
  CHECK(gpu::tsdfMeshVertexColour(pack(0, 100, 255), 16, pack(255, 100, 0), 16, 32768) == pack(128, 100, 128));
  CHECK(gpu::tsdfMeshVertexColour(pack(0, 100, 255), 16, pack(255, 100, 0), 16, 0) == pack(0, 100, 255));
  CHECK(gpu::tsdfMeshVertexColour(pack(0, 100, 255), 16, pack(255, 100, 0), 16, 65536) == pack(255, 100, 0));
  CHECK(gpu::tsdfMeshVertexColour(0, 0, pack(7, 8, 9), 16, 100) == pack(7, 8, 9));
  CHECK(gpu::tsdfMeshVertexColour(0, 0, 0, 0, 100) == 0);

  // Through the integrator: a wall seen head-on twice, red then blue, then once without colour.
  OccupancyMap map = colourMap(0.05);
  DepthFrame frame = sceneFrame(32, 24, 30.0, {0.5, 0.2, 1.0}, lookingAlongX(0, 0), DepthEncoding::Unsigned16);
  const VoxelCoord onWall = map.voxelAt({2.98, 0.22, 1.02});
  paint(frame, pack(200, 0, 10));
  integrateDepthCpu(map, frame, TsdfOptions{});
  CHECK(valueAt<gpu::TsdfColourVoxel>(map, kTsdfColourLayer, onWall).rgb == pack(200, 0, 10));
  CHECK(valueAt<gpu::TsdfColourVoxel>(map, kTsdfColourLayer, onWall).weight == gpu::kTsdfWeightUnit);
  paint(frame, pack(0, 101, 255));
  integrateDepthCpu(map, frame, TsdfOptions{});
  CHECK(valueAt<gpu::TsdfColourVoxel>(map, kTsdfColourLayer, onWall).rgb == pack(100, 51, 133));  // 50.5 -> 51, 132.5 -> 133
  CHECK(valueAt<gpu::TsdfColourVoxel>(map, kTsdfColourLayer, onWall).weight == 2 * gpu::kTsdfWeightUnit);
  frame.colour.reset();
  integrateDepthCpu(map, frame, TsdfOptions{});
  CHECK(valueAt<gpu::TsdfVoxel>(map, kTsdfLayer, onWall).weight == 3 * gpu::kTsdfWeightUnit);
  CHECK(valueAt<gpu::TsdfColourVoxel>(map, kTsdfColourLayer, onWall).rgb == pack(100, 51, 133));
  CHECK(valueAt<gpu::TsdfColourVoxel>(map, kTsdfColourLayer, onWall).weight == 2 * gpu::kTsdfWeightUnit);

  // A map without the layer folds a coloured frame's depth only; a colour image of another size is refused.
  OccupancyModel model;
  model.resolution = 0.05;
  OccupancyMap plain(model, LayerSet{kTsdfLayer});
  paint(frame, pack(1, 2, 3));
  integrateDepthCpu(plain, frame, TsdfOptions{});
  CHECK_FALSE(plain.layout().has(kTsdfColourLayer));
  CHECK(valueAt<gpu::TsdfVoxel>(plain, kTsdfLayer, onWall).weight == gpu::kTsdfWeightUnit);
  frame.colour->width = 31;
  CHECK_THROWS_WITH(integrateDepthCpu(map, frame, TsdfOptions{}), Catch::Contains("colour image is 31 x 24"));
  frame.colour->width = 32;
  frame.colour->rgb.pop_back();
  CHECK_THROWS_WITH(integrateDepthCpu(map, frame, TsdfOptions{}), Catch::Contains("3 bytes each"));
}

TEST_CASE("The GPU TSDF's colour equals the CPU reference byte for byte", "[tsdf_colour][gpu]") {
  voxen::Scheduler& scheduler = vt::gpu().scheduler;
  const bool dropOff = GENERATE(false, true);
  INFO("linear drop-off: " << dropOff);
  TsdfOptions options;
  options.weighting = dropOff ? TsdfWeighting::LinearDropOff : TsdfWeighting::Constant;
  options.maxWeight = 3;  // reached within the frames: the cap applies to colour too
  options.truncationVoxels = 3.5;
  OccupancyMap cpu = colourMap(0.04), gpuMap = colourMap(0.04);
  {
    GpuTsdfIntegrator gpu(scheduler, gpuMap, options, 6 * RegionCache::bytesPerRegion(gpuMap));
    for (int f = 0; f < 6; ++f) {
      // Odd image sizes (the rgb bytes end mid-uint), negative coordinates; frame 3 without colour.
      DepthFrame frame = sceneFrame(71, 53, 55.0, {-0.3 + 0.2 * f, -0.4, 0.9}, lookingAlongX(0.15 * f - 0.3, 0.1 * f - 0.2),
                                    f % 2 ? DepthEncoding::Float32 : DepthEncoding::Unsigned16);
      if (f != 3) paintPattern(frame, uint32_t(f));
      integrateDepthCpu(cpu, frame, options);
      gpu.integrate(frame);
    }
    gpu.sync();
  }
  CHECK(requireSameLayers(cpu, gpuMap) > 1000);
  // The meshes of those mixed colours: the GPU mesher's interpolated colours equal the CPU's.
  const TsdfMesh mesh = meshTsdfCpu(cpu);
  REQUIRE(mesh.colours.size() == mesh.positions.size());
  REQUIRE(mesh.positions.size() > 1000);
  requireSameMesh(mesh, meshTsdfGpu(scheduler, gpuMap));
}

TEST_CASE("A uniformly coloured surface's mesh vertices all carry its colour, on CPU and GPU alike", "[tsdf_colour][gpu]") {
  OccupancyMap map = colourMap(0.04);
  for (int f = 0; f < 3; ++f) {
    DepthFrame frame = sceneFrame(96, 72, 70.0, {0.6 + 0.1 * f, 0.2 + 0.15 * f, 0.9}, lookingAlongX(0.1 * f - 0.05, 0.25),
                                  DepthEncoding::Float32);
    paint(frame, pack(90, 180, 45));
    integrateDepthCpu(map, frame, TsdfOptions{});
  }
  const TsdfMesh mesh = meshTsdfCpu(map);
  REQUIRE(mesh.positions.size() > 1000);
  REQUIRE(mesh.colours.size() == mesh.positions.size());
  size_t other = 0;
  for (const glm::u8vec3& c : mesh.colours) other += c != glm::u8vec3(90, 180, 45);
  CHECK(other == 0);
  const TsdfMesh gpuMesh = meshTsdfGpu(vt::gpu().scheduler, map);
  requireSameMesh(mesh, gpuMesh);
  CHECK(gpuMesh.colours == mesh.colours);
  // A map without the layer meshes without colours.
  OccupancyModel model;
  model.resolution = 0.04;
  OccupancyMap plain(model, LayerSet{kTsdfLayer});
  integrateDepthCpu(plain, sceneFrame(48, 36, 35.0, {0.6, 0.2, 0.9}, lookingAlongX(0, 0.25), DepthEncoding::Float32), TsdfOptions{});
  CHECK(meshTsdfCpu(plain).colours.empty());
  CHECK(meshTsdfGpu(vt::gpu().scheduler, plain).colours.empty());
}

TEST_CASE("A two-coloured scene's mesh colours follow the surface each vertex lies on", "[tsdf_colour][gpu]") {
  OccupancyMap map = colourMap(0.03);
  TsdfMeshTracker tracker(vt::gpu().scheduler);
  for (int f = 0; f < 4; ++f) {
    DepthFrame frame = sceneFrame(128, 96, 90.0, {0.5 + 0.1 * f, 0.1 + 0.15 * f, 0.9}, lookingAlongX(0.1 * f - 0.05, 0.25),
                                  DepthEncoding::Float32);
    paintBySurface(frame);
    integrateDepthCpu(map, frame, TsdfOptions{});
    tracker.update(map);
  }
  const TsdfMesh mesh = meshTsdfCpu(map);
  requireSameMesh(mesh, tracker.mesh());
  CHECK(tracker.mesh().colours == mesh.colours);
  // Vertices on the ball (and at least 3 voxels from the floor and wall) red, on the floor or
  // wall (3 voxels from the ball) blue; by the dominant channel.
  size_t ball = 0, ballRed = 0, rest = 0, restBlue = 0;
  for (size_t i = 0; i < mesh.positions.size(); ++i) {
    const glm::dvec3 p(mesh.positions[i]);
    const double toBall = std::abs(glm::length(p - glm::dvec3(2.0, 0.5, 0.6)) - 0.4), toRest = std::min(std::abs(p.x - 3.0), std::abs(p.z));
    const glm::u8vec3 c = mesh.colours[i];
    if (toBall < 0.5 * 0.03 && toRest > 3 * 0.03) ++ball, ballRed += c.r > c.b;
    if (toRest < 0.5 * 0.03 && toBall > 3 * 0.03) ++rest, restBlue += c.b > c.r;
  }
  INFO("ball vertices " << ball << " (red " << ballRed << "), floor and wall " << rest << " (blue " << restBlue << ")");
  REQUIRE(ball > 200);
  REQUIRE(rest > 1000);
  CHECK(double(ballRed) >= 0.99 * double(ball));
  CHECK(double(restBlue) >= 0.99 * double(rest));
}

TEST_CASE("A colour image unlike its depth image is refused before either integrator changes the map", "[tsdf_colour][gpu]") {
  // tsdf.hpp and tsdf_colour.hpp promise the map unchanged: a frame already folded, then the
  // refused ones, leave both maps as the good frame made them (and the GPU's equal to the CPU's).
  OccupancyMap cpu = colourMap(0.05), gpuMap = colourMap(0.05);
  DepthFrame frame = sceneFrame(32, 24, 30.0, {0.5, 0.2, 1.0}, lookingAlongX(0, 0), DepthEncoding::Unsigned16);
  paintPattern(frame, 4);
  integrateDepthCpu(cpu, frame, TsdfOptions{});
  DepthFrame narrow = frame, short_ = frame;
  narrow.colour = ColourImage{31, 24, std::vector<uint8_t>(31 * 24 * 3, 7)};
  short_.colour = ColourImage{32, 24, std::vector<uint8_t>(32 * 24 * 3 - 1, 7)};
  {
    GpuTsdfIntegrator gpu(vt::gpu().scheduler, gpuMap, TsdfOptions{});
    gpu.integrate(frame);
    CHECK_THROWS_WITH(gpu.integrate(narrow), Catch::Contains("colour image is 31 x 24"));
    CHECK_THROWS_WITH(gpu.integrate(short_), Catch::Contains("3 bytes each"));
    gpu.sync();
  }
  const OccupancyMap before = cpu;
  CHECK_THROWS_WITH(integrateDepthCpu(cpu, narrow, TsdfOptions{}), Catch::Contains("colour image is 31 x 24"));
  CHECK_THROWS_WITH(integrateDepthCpu(cpu, short_, TsdfOptions{}), Catch::Contains("3 bytes each"));
  CHECK(cpu.changeCounter() == before.changeCounter());
  CHECK(requireSameLayers(before, cpu) > 100);
  requireSameLayers(cpu, gpuMap);
}

TEST_CASE("A GPU integrator made before the map gained its colour layer refuses coloured frames, never drops them",
          "[tsdf_colour][gpu]") {
  OccupancyModel model;
  model.resolution = 0.05;
  OccupancyMap map(model, LayerSet{kTsdfLayer});
  DepthFrame frame = sceneFrame(32, 24, 30.0, {0.5, 0.2, 1.0}, lookingAlongX(0, 0), DepthEncoding::Unsigned16);
  GpuTsdfIntegrator gpu(vt::gpu().scheduler, map, TsdfOptions{});
  gpu.integrate(frame);  // no colour: fine
  map.addLayer(kTsdfColourLayer);
  paint(frame, pack(1, 2, 3));
  CHECK_THROWS_WITH(gpu.integrate(frame), Catch::Contains("gained its tsdf_colour layer after this GPU TSDF integrator"));
  gpu.sync();
  // A new integrator folds the colour, as the CPU reference does.
  OccupancyMap cpu = map;
  GpuTsdfIntegrator fresh(vt::gpu().scheduler, map, TsdfOptions{});
  fresh.integrate(frame);
  fresh.sync();
  integrateDepthCpu(cpu, frame, TsdfOptions{});
  CHECK(requireSameLayers(cpu, map) > 100);
}

TEST_CASE("The mesh tracker meshes everything again, with colours, when the map gains the tsdf_colour layer", "[tsdf_colour][gpu]") {
  // Adding a layer changes no region stamp: without the tracker's own check the old blocks'
  // colour-less vertices would be kept and the mesh would have no colours.
  const bool onGpu = GENERATE(false, true);
  INFO("GPU tracker: " << onGpu);
  OccupancyModel model;
  model.resolution = 0.05;
  OccupancyMap map(model, LayerSet{kTsdfLayer});
  DepthFrame frame = sceneFrame(48, 36, 35.0, {0.6, 0.2, 0.9}, lookingAlongX(0, 0.25), DepthEncoding::Float32);
  integrateDepthCpu(map, frame, TsdfOptions{});
  TsdfMeshTracker tracker = onGpu ? TsdfMeshTracker(vt::gpu().scheduler) : TsdfMeshTracker();
  tracker.update(map);
  REQUIRE(tracker.mesh().positions.size() > 100);
  CHECK(tracker.mesh().colours.empty());
  CHECK_FALSE(tracker.update(map).whole);
  map.addLayer(kTsdfColourLayer);
  CHECK(tracker.update(map).whole);
  REQUIRE(tracker.mesh().colours.size() == tracker.mesh().positions.size());
  CHECK(tracker.mesh().colours == std::vector<glm::u8vec3>(tracker.mesh().positions.size(), glm::u8vec3(0)));  // no colour yet
  paint(frame, pack(10, 200, 30));
  integrateDepthCpu(map, frame, TsdfOptions{});
  tracker.update(map);
  const TsdfMesh mesh = meshTsdfCpu(map);
  requireSameMesh(mesh, tracker.mesh());
  CHECK(tracker.mesh().colours == mesh.colours);
  size_t painted = 0;
  for (const glm::u8vec3& c : mesh.colours) painted += c == glm::u8vec3(10, 200, 30);
  CHECK(painted == mesh.colours.size());
}

TEST_CASE("A coloured TSDF mesh's PLY has red, green and blue per vertex, read back", "[tsdf_colour]") {
  OccupancyMap map = colourMap(0.05);
  DepthFrame frame = sceneFrame(48, 36, 35.0, {0.6, 0.2, 0.9}, lookingAlongX(0, 0.25), DepthEncoding::Float32);
  paintPattern(frame, 3);
  integrateDepthCpu(map, frame, TsdfOptions{});
  const TsdfMesh mesh = meshTsdfCpu(map);
  REQUIRE(mesh.colours.size() == mesh.positions.size());
  REQUIRE(mesh.positions.size() > 100);
  const std::filesystem::path path = std::filesystem::temp_directory_path() / "voxen_tsdf_colour_test.ply";
  writeTsdfMeshPly(mesh, path);
  std::ifstream in(path, std::ios::binary);
  std::string line, header;
  while (std::getline(in, line) && line != "end_header") header += line + "\n";
  const std::string expected = "element vertex " + std::to_string(mesh.positions.size()) +
                               "\nproperty float x\nproperty float y\nproperty float z\nproperty float nx\nproperty float ny\n"
                               "property float nz\nproperty uchar red\nproperty uchar green\nproperty uchar blue\nelement face " +
                               std::to_string(mesh.faces.size()) + "\nproperty list uchar uint vertex_indices\n";
  CHECK(header.find(expected) != std::string::npos);
  for (size_t i = 0; i < mesh.positions.size(); ++i) {
    char record[27];
    REQUIRE(in.read(record, sizeof record));
    float x;
    std::memcpy(&x, record, 4);
    CHECK(x == mesh.positions[i].x);
    CHECK(glm::u8vec3(uint8_t(record[24]), uint8_t(record[25]), uint8_t(record[26])) == mesh.colours[i]);
  }
  // The first face follows the vertices.
  uint8_t count = 0;
  uint32_t first = 0;
  in.read(reinterpret_cast<char*>(&count), 1);
  in.read(reinterpret_cast<char*>(&first), 4);
  CHECK(count == 3);
  CHECK(first == mesh.faces.at(0).x);
  in.close();
  // Without colour: no colour properties.
  TsdfMesh plain = mesh;
  plain.colours.clear();
  writeTsdfMeshPly(plain, path);
  std::ifstream again(path, std::ios::binary);
  std::stringstream text;
  text << again.rdbuf();
  CHECK(text.str().find("property uchar red") == std::string::npos);
  again.close();
  std::filesystem::remove(path);
}

TEST_CASE("Merged coloured TSDF maps hold the weighted mean colour; the layer saves, loads and is checked", "[tsdf_colour]") {
  OccupancyMap a = colourMap(0.05), b = colourMap(0.05);
  DepthFrame frame = sceneFrame(48, 36, 35.0, {0.6, 0.2, 0.9}, lookingAlongX(0, 0.25), DepthEncoding::Unsigned16);
  paintPattern(frame, 1);
  integrateDepthCpu(a, frame, TsdfOptions{});
  integrateDepthCpu(a, frame, TsdfOptions{});  // weight 2 in a, against 1 (another colour) in b
  paintPattern(frame, 2);
  integrateDepthCpu(b, frame, TsdfOptions{});
  const RegionKey key = a.regions().begin()->first;
  const Region* inputs[2] = {a.findRegion(key), b.findRegion(key)};
  const Region* reversed[2] = {inputs[1], inputs[0]};
  const Region ab = mergeRegions(a.layout(), a.model(), inputs), ba = mergeRegions(a.layout(), a.model(), reversed);
  const auto merged = ab.values<gpu::TsdfColourVoxel>(kTsdfColourLayer);
  const auto ca = inputs[0]->values<gpu::TsdfColourVoxel>(kTsdfColourLayer), cb = inputs[1]->values<gpu::TsdfColourVoxel>(kTsdfColourLayer);
  CHECK(std::memcmp(merged.data(), ba.values<gpu::TsdfColourVoxel>(kTsdfColourLayer).data(), merged.size_bytes()) == 0);
  size_t both = 0, wrong = 0;
  for (size_t i = 0; i < merged.size(); ++i) {
    const uint64_t w = uint64_t(ca[i].weight) + cb[i].weight;
    uint32_t expected = 0;
    for (uint32_t k = 0; k < 3 && w > 0; ++k)
      expected |= uint32_t((ca[i].weight * gpu::tsdfColourChannel(ca[i].rgb, k) + cb[i].weight * gpu::tsdfColourChannel(cb[i].rgb, k) + w / 2) / w)
                  << (8 * k);
    both += ca[i].weight > 0 && cb[i].weight > 0;
    wrong += merged[i].rgb != expected || merged[i].weight != w;
  }
  INFO("voxels coloured in both: " << both);
  CHECK(both > 100);
  CHECK(wrong == 0);

  // Save and load keep the layer's bytes; a voxel with colour but no weight is impossible.
  const std::filesystem::path path = std::filesystem::temp_directory_path() / "voxen_tsdf_colour_test.vxm";
  saveMap(a, path);
  const OccupancyMap loaded = loadMap(path);
  std::filesystem::remove(path);
  REQUIRE(loaded.layout().has(kTsdfColourLayer));
  requireSameLayers(a, loaded);
  std::vector<gpu::TsdfColourVoxel> bad(ca.begin(), ca.end());
  CHECK(checkLayerValues(a.model(), kTsdfColourLayer, std::as_bytes(std::span(bad))).voxels == 0);
  bad[5] = {pack(1, 0, 0), 0};
  const RegionValueFaults faults = checkLayerValues(a.model(), kTsdfColourLayer, std::as_bytes(std::span(bad)));
  CHECK(faults.voxels == 1);
  CHECK_THAT(faults.why, Catch::Contains("with weight 0"));
}
