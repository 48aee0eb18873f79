// The painter's rasterizer keeps float64 out of its per-pixel work, and the brush out of its
// per-sample work (issue 37, item 5): in the
// float64 flavour of the frame megakernel (shaders/common/exact_math.glsl: exactDiv and
// exactSqrt in double, which consumer GPUs run at 1/32-1/64 of the float rate), only the
// per-triangle set-up (rasterSetup: projection, unit normals, 1 / area) touches a double.
// The pixel walk, the shading and the clear and resolve phases are float and integer only.
// And both flavours draw the same frame, bit for bit.
#include <catch2/catch.hpp>

#include <cstring>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "support/gpu_fixture.hpp"
#include "support/plain_flavour_gpu.hpp"
#include "voxen/host/embedded_shaders.hpp"
#include "voxen/painter/cpu_mesher.hpp"
#include "voxen/painter/painter.hpp"
#include "voxen/testdata/demo_scene.hpp"

namespace {

// The functions of a SPIR-V module, by the names glslang gives them ("rasterPixel(struct-..."),
// with what each calls and whether any of its instructions yields or holds a double.
struct SpirvFunctions {
  std::map<uint32_t, std::string> names;
  std::map<uint32_t, std::set<uint32_t>> calls;
  std::set<uint32_t> usesDouble;

  explicit SpirvFunctions(const voxen::EmbeddedFile& file) {
    std::vector<uint32_t> w(file.size / 4);
    std::memcpy(w.data(), file.data, w.size() * 4);
    constexpr uint32_t kOpName = 5, kOpTypeFloat = 22, kOpTypeVector = 23, kOpTypeMatrix = 24, kOpTypePointer = 32,
                       kOpFunction = 54, kOpFunctionEnd = 56, kOpFunctionCall = 57;
    std::set<uint32_t> doubleTypes;  // double scalars, vectors and matrices of them, pointers to those
    std::map<uint32_t, std::string> allNames;
    uint32_t current = 0;
    for (size_t i = 5; i < w.size();) {
      const uint32_t count = w[i] >> 16, op = w[i] & 0xffffu;
      REQUIRE(count > 0);
      REQUIRE(i + count <= w.size());
      if (op == kOpName) allNames[w[i + 1]] = reinterpret_cast<const char*>(&w[i + 2]);
      if (op == kOpTypeFloat && w[i + 2] == 64) doubleTypes.insert(w[i + 1]);
      if ((op == kOpTypeVector || op == kOpTypeMatrix) && doubleTypes.count(w[i + 2])) doubleTypes.insert(w[i + 1]);
      if (op == kOpTypePointer && doubleTypes.count(w[i + 3])) doubleTypes.insert(w[i + 1]);
      if (op == kOpFunction) {
        current = w[i + 2];
        names[current] = allNames[current];
        calls[current];
      } else if (op == kOpFunctionEnd) {
        current = 0;
      } else if (current != 0 && count > 1) {
        // Ids are unique across types and values, so word 1 naming a double type means the
        // instruction's result (or, for OpFunctionParameter and OpVariable, what it holds)
        // is one; no instruction in a function body has a literal there.
        if (doubleTypes.count(w[i + 1])) usesDouble.insert(current);
        if (op == kOpFunctionCall) calls[current].insert(w[i + 3]);
      }
      i += count;
    }
  }

  uint32_t find(const std::string& prefix) const {
    for (const auto& [id, name] : names)
      if (name.rfind(prefix, 0) == 0) return id;
    FAIL("no function " << prefix << " in the module");
    return 0;
  }

  // The names of the functions reachable from `roots` (themselves included), not looking
  // into the functions in `stops`.
  std::vector<std::string> reachable(const std::vector<std::string>& roots, const std::vector<std::string>& stops) const {
    return reachableWhere(roots, stops, [](uint32_t) { return true; });
  }

  // The names of the functions reachable from `roots` (themselves included) that use a
  // double, not looking into the functions in `stops`.
  std::vector<std::string> doublesReachable(const std::vector<std::string>& roots, const std::vector<std::string>& stops) const {
    return reachableWhere(roots, stops, [this](uint32_t f) { return usesDouble.count(f) > 0; });
  }

  template <typename Pick>
  std::vector<std::string> reachableWhere(const std::vector<std::string>& roots, const std::vector<std::string>& stops,
                                          Pick pick) const {
    std::set<uint32_t> stopIds, seen;
    for (const std::string& s : stops) stopIds.insert(find(s));
    std::vector<uint32_t> todo;
    for (const std::string& r : roots) todo.push_back(find(r));
    std::vector<std::string> found;
    while (!todo.empty()) {
      const uint32_t f = todo.back();
      todo.pop_back();
      if (stopIds.count(f) || !seen.insert(f).second) continue;
      if (pick(f)) found.push_back(names.at(f).substr(0, names.at(f).find('(')));
      for (uint32_t callee : calls.at(f)) todo.push_back(callee);
    }
    return found;
  }
};

}  // namespace

TEST_CASE("The painter's raster phases use float64 only in per-triangle set-up", "[painter][shaders][logic]") {
  const voxen::EmbeddedFile* frame = voxen::detail::findEmbeddedFlavour("painter/frame.comp", {}, true);
  REQUIRE(frame);
  // The brush and the mesher divide exactly, so the megakernel has a float64 flavour.
  REQUIRE(std::string(frame->path) == "painter/frame.comp?VOXEN_FLOAT64=1");
  const SpirvFunctions functions(*frame);
  // The detector sees the set-up's exact division (1 / w, unit normals, 1 / area).
  CHECK(!functions.doublesReachable({"rasterSetup("}, {}).empty());
  // Everything else the raster and resolve phases run: the pixel test, depth, shading, the
  // walks over boxes and tiles. (Before issue 37 the shading normalised the interpolated
  // normal per pixel with exactSqrt and exactDiv: rasterPixel -> rasterShade -> exactDiv.)
  const std::vector<std::string> perPixel = functions.doublesReachable(
      {"rasterPixel(", "rasterShade(", "phaseRasterClear(", "phaseRasterSmall(", "phaseRasterLarge(", "phaseResolve("},
      {"rasterSetup("});
  std::string names;
  for (const std::string& name : perPixel) names += " " + name;
  INFO("functions with a double outside rasterSetup:" << names);
  CHECK(perPixel.empty());
}

TEST_CASE("The painter's brush divides and takes roots only in its per-stroke set-up", "[painter][shaders][logic]") {
  // The brush's per-sample dispatch (applyStroke) and the hit search's per-step loop
  // (findStroke) call no exactDiv or exactSqrt, in either flavour: float64 in one, integer
  // emulation in the other, and either per sample is what issue 37 item 5 removes. Only
  // the per-stroke set-up divides: the centre and the radius in sample units, r^2 and
  // 1 / (4 r), the search's step count. (Before, every sample took an exact square root and
  // three exact divisions: applyStroke -> brushValue -> exactSqrt, -> nearestSample -> exactDiv.)
  const std::vector<std::string> setUp{"strokeSampleUnits(", "strokeSearchSteps(", "strokeRamp("};
  const std::vector<std::string> perSample{"applyStroke(", "findStroke("};
  for (const bool float64 : {true, false}) {
    INFO((float64 ? "float64 flavour" : "plain flavour"));
    const voxen::EmbeddedFile* frame = voxen::detail::findEmbeddedFlavour("painter/frame.comp", {}, float64);
    REQUIRE(frame);
    const SpirvFunctions functions(*frame);
    std::string exact;
    for (const std::string& name : functions.reachable(perSample, setUp))
      if (name.rfind("exact", 0) == 0) exact += " " + name;
    INFO("exact-math functions reached per sample or per search step:" << exact);
    CHECK(exact.empty());
    // The detector sees the set-up's divisions.
    bool setUpDivides = false;
    for (const std::string& name : functions.reachable({"strokeRamp("}, {})) setUpDivides |= name == "exactDiv";
    CHECK(setUpDivides);
    if (float64) {
      CHECK(!functions.doublesReachable({"strokeRamp("}, {}).empty());
      std::string doubles;
      for (const std::string& name : functions.doublesReachable(perSample, setUp)) doubles += " " + name;
      INFO("functions with a double per sample:" << doubles);
      CHECK(doubles.empty());
    }
  }
}

TEST_CASE("The painter draws the same frames in the float64 and the plain shader flavour", "[painter][gpu]") {
  vt::PlainFlavourGpu plain;
  voxen::ShaderLibrary& plainLibrary = plain.library;
  voxen::Scheduler& plainScheduler = plain.scheduler;
  REQUIRE_FALSE(plainLibrary.float64());
  // lavapipe has shaderFloat64: the shared device runs the float64 flavour.
  REQUIRE(vt::gpu().library.float64() == vt::gpu().device.info().capabilities.shaderFloat64);

  for (voxen::RasterMode mode : {voxen::RasterMode::Shaded, voxen::RasterMode::TriangleId}) {
    INFO((mode == voxen::RasterMode::Shaded ? "shaded" : "triangle-id"));
    voxen::PainterOptions options;
    options.gridX = options.gridY = options.gridZ = 40;
    options.width = 200, options.height = 150;
    options.maxTriangles = 1u << 16;
    options.largeTriangleArea = 4;  // both raster paths
    options.rasterMode = mode;
    const voxen::DensityGrid grid = voxen::demoScene(40);
    voxen::Painter exact(vt::gpu().scheduler, options), plain(plainScheduler, options);
    exact.setGrid(grid.density, grid.color);
    plain.setGrid(grid.density, grid.color);
    voxen::Camera camera = voxen::cameraFraming(glm::vec3(0.0f), glm::vec3(39.0f), 50.0f, 200.0f / 150.0f);
    for (int k = 0; k < 3; ++k) {
      INFO("frame " << k);
      voxen::Stroke stroke;
      const voxen::Ray3 ray = camera.rayThroughPixel(90.0f + 7.0f * k, 70.0f + 3.0f * k, 200, 150);
      stroke.origin = ray.origin;
      stroke.direction = ray.direction;
      stroke.operation = k == 2 ? voxen::BrushMode::Erase : voxen::BrushMode::Add;
      stroke.radius = 3.5f;
      exact.frame(camera, k > 0 ? &stroke : nullptr);
      plain.frame(camera, k > 0 ? &stroke : nullptr);
      const std::vector<uint32_t> a = exact.readImage().get(), b = plain.readImage().get();
      REQUIRE(a.size() == b.size());
      size_t differing = 0, covered = 0;
      const uint32_t empty = mode == voxen::RasterMode::Shaded ? options.backgroundColor : 0xFFFFFFFFu;
      for (size_t p = 0; p < a.size(); ++p) {
        differing += a[p] != b[p];
        covered += a[p] != empty;
      }
      CHECK(differing == 0);
      CHECK(covered > a.size() / 10);
      camera.orbit(0.4f, 0.05f);
    }
  }
  plainScheduler.finish();
}
