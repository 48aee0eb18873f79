// A program's own shaders beside the engine's: folders of GLSL (shader roots) and
// precompiled SPIR-V, found by their names, including the engine's GLSL by its paths; a
// name that two sources would give is refused when it is added, naming both.
#include <catch2/catch.hpp>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "support/gpu_fixture.hpp"
#include "support/temp_dir.hpp"
#include "voxen/gpu/selftest/selftest_push.h"
#include "voxen/host/error.hpp"
#include "voxen/host/shader_compiler.hpp"

namespace {

// out[i] = i * FACTOR + ADDEND, through the engine's buffer types (common/buffers.glsl),
// reached by the engine's path from a file outside the engine's tree.
std::string affineShader(uint32_t factor, const std::string& addendInclude = "") {
  return "#version 460\n"
         "#extension GL_GOOGLE_include_directive : require\n"
         "#include \"common/buffers.glsl\"\n" +
         (addendInclude.empty() ? std::string("#define ADDEND 5u\n") : "#include \"" + addendInclude + "\"\n") +
         "layout(local_size_x = 64) in;\n"
         "layout(push_constant) uniform Push { UintArray dst; uint count; } pc;\n"
         "void main() {\n"
         "  uint i = gl_GlobalInvocationID.x;\n"
         "  if (i < pc.count) pc.dst.v[i] = i * " + std::to_string(factor) + "u + ADDEND;\n"
         "}\n";
}

struct AffinePush {
  uint64_t dst;
  uint32_t count;
};

// Runs `kernel` over `count` elements and compares with the CPU's i * factor + addend.
void checkAffine(voxen::Scheduler& scheduler, voxen::Device& device, const voxen::Kernel& kernel, uint32_t factor,
                 uint32_t addend) {
  constexpr uint32_t kCount = 300;
  voxen::Buffer out(device, "shader-roots-out", kCount * sizeof(uint32_t));
  scheduler.dispatch({.name = "shader-roots-affine", .kernel = &kernel, .groups = {(kCount + 63) / 64, 1, 1},
                      .push = AffinePush{out.address(), kCount}, .uses = {voxen::writes(out)}});
  const std::vector<uint32_t> got = scheduler.readback<uint32_t>(out).get();
  REQUIRE(got.size() == kCount);
  for (uint32_t i = 0; i < kCount; ++i) REQUIRE(got[i] == i * factor + addend);
}

voxen::SchedulerOptions smallScheduler() {
  return {.stagingBytes = 1 << 20, .transientBytes = 1 << 16, .batchesInFlight = 2};
}

std::string thrownBy(const std::function<void()>& f) {
  try {
    f();
  } catch (const voxen::Error& e) {
    return e.what();
  }
  return "(nothing thrown)";
}

}  // namespace

TEST_CASE("A program's shader root and precompiled SPIR-V run beside the engine's shaders", "[shaders][roots]") {
  auto& gpu = vt::gpu();
  vt::TempDir dir("shader-roots");
  dir.write("app/affine.comp", affineShader(3, "app/addend.glsl"));
  dir.write("app/addend.glsl", "#define ADDEND 11u\n");
  voxen::ShaderLibrary library(gpu.device);
  voxen::Scheduler scheduler(gpu.device, library, smallScheduler());
  library.addShaderRoot(dir.path());
  CHECK(library.shaderRoots().size() == 1);

  checkAffine(scheduler, gpu.device, *library.kernel("app/affine.comp"), 3, 11);

  // Precompiled: the words a program's build would embed (here from the library's compiler).
  vt::TempDir source("shader-roots-spirv");
  source.write("precompiled.comp", affineShader(7));
  voxen::LayeredSourceTree tree;
  tree.add(std::make_unique<voxen::DirectorySourceTree>(source.path()));
  tree.add(std::make_unique<voxen::EmbeddedSourceTree>());
  voxen::CompileResult compiled = voxen::compileComputeShader(tree, "precompiled.comp");
  REQUIRE(compiled.ok());
  library.addSpirv("app/precompiled", compiled.spirv);
  checkAffine(scheduler, gpu.device, *library.kernel("app/precompiled"), 7, 5);
  CHECK_THAT(thrownBy([&] { library.kernel("app/precompiled", {.defines = {{"X", "1"}}}); }),
             Catch::Contains("precompiled SPIR-V takes no defines"));

  // The engine's shaders keep their names and still run from their embedded SPIR-V.
  constexpr uint32_t kCount = 64;
  voxen::Buffer out(gpu.device, "shader-roots-iota", kCount * sizeof(uint32_t));
  scheduler.dispatchThreads({"iota", library.kernel("selftest/fill_iota.comp").get(), {},
                             voxen::gpu::FillIotaPush{out.address(), kCount, 2, 1}, {voxen::writes(out)}},
                            kCount);
  const auto iota = scheduler.readback<uint32_t>(out).get();
  for (uint32_t i = 0; i < kCount; ++i) REQUIRE(iota[i] == 2 * i + 1);

  CHECK_THAT(thrownBy([&] { library.kernel("app/missing.comp"); }),
             Catch::Contains("no shader 'app/missing.comp'") && Catch::Contains(dir.path().string()));
  scheduler.finish();
}

TEST_CASE("A name that two shader sources would give is refused, naming both", "[shaders][roots]") {
  auto& gpu = vt::gpu();
  voxen::ShaderLibrary library(gpu.device);
  const std::vector<uint32_t> words = {0x07230203u, 0x00010500u, 0u, 1u, 0u};

  SECTION("a root with an engine shader's name") {
    vt::TempDir dir("shader-roots-engine-clash");
    dir.write("selftest/saxpy.comp", affineShader(1));
    const std::string message = thrownBy([&] { library.addShaderRoot(dir.path()); });
    CHECK_THAT(message, Catch::Contains("'selftest/saxpy.comp'") && Catch::Contains("engine shader") &&
                            Catch::Contains(dir.path().string()));
    CHECK(library.shaderRoots().empty());
  }
  SECTION("a root with an engine include file's name") {
    vt::TempDir dir("shader-roots-include-clash");
    dir.write("common/buffers.glsl", "// shadows the engine's\n");
    CHECK_THAT(thrownBy([&] { library.addShaderRoot(dir.path()); }),
               Catch::Contains("'common/buffers.glsl'") && Catch::Contains("engine shader file"));
  }
  SECTION("two roots with one name") {
    vt::TempDir first("shader-roots-first"), second("shader-roots-second");
    first.write("app/a.comp", affineShader(1));
    second.write("app/a.comp", affineShader(2));
    library.addShaderRoot(first.path());
    CHECK_THAT(thrownBy([&] { library.addShaderRoot(second.path()); }),
               Catch::Contains("'app/a.comp'") && Catch::Contains("shader root '" + first.path().string()));
    CHECK_THAT(thrownBy([&] { library.addSpirv("app/a.comp", words); }),
               Catch::Contains("'app/a.comp'") && Catch::Contains(first.path().string()));
  }
  SECTION("SPIR-V under an engine shader's name, twice, or not SPIR-V") {
    CHECK_THAT(thrownBy([&] { library.addSpirv("selftest/saxpy.comp", words); }),
               Catch::Contains("'selftest/saxpy.comp'") && Catch::Contains("engine shader"));
    library.addSpirv("app/b", words);
    CHECK_THAT(thrownBy([&] { library.addSpirv("app/b", words); }), Catch::Contains("precompiled SPIR-V added earlier"));
    vt::TempDir dir("shader-roots-spirv-clash");
    dir.write("app/b", "not glsl but still a name\n");
    dir.write("app/b.comp", affineShader(1));
    library.addShaderRoot(dir.path());  // "app/b" has no shader extension: never read by name
    CHECK_THAT(thrownBy([&] { library.addSpirv("app/b.comp", words); }), Catch::Contains("shader root"));
    CHECK_THAT(thrownBy([&] { library.addSpirv("app/c", {1u, 2u}); }), Catch::Contains("is not SPIR-V"));
    CHECK_THAT(thrownBy([&] { library.addSpirv("", words); }), Catch::Contains("needs a name"));
  }
  SECTION("a root that is not a folder") {
    CHECK_THAT(thrownBy([&] { library.addShaderRoot("/nonexistent/voxen-shader-root"); }),
               Catch::Contains("'/nonexistent/voxen-shader-root' is not a folder"));
  }
}

TEST_CASE("A watched shader root hot-reloads its kernels without the engine's source folder", "[shaders][roots][hotreload]") {
  auto& gpu = vt::gpu();
  vt::TempDir dir("shader-roots-watch");
  dir.write("app/affine.comp", affineShader(3));
  std::vector<std::string> log;
  voxen::ShaderLibrary library(gpu.device, {.log = [&](const std::string& line) { log.push_back(line); }});
  voxen::Scheduler scheduler(gpu.device, library, smallScheduler());
  library.addShaderRoot(dir.path(), {.watch = true});
  CHECK_FALSE(library.hotReloadEnabled());  // the engine's shaders stay built in
  const auto kernel = library.kernel("app/affine.comp");
  checkAffine(scheduler, gpu.device, *kernel, 3, 5);
  dir.saveLikeEditor("app/affine.comp", affineShader(9));
  // The scheduler reloads when a batch begins: the next dispatch runs the edited shader.
  checkAffine(scheduler, gpu.device, *kernel, 9, 5);
  CHECK(kernel->generation() == 1);
  REQUIRE_FALSE(log.empty());
  CHECK_THAT(log.back(), Catch::Contains("reloaded app/affine.comp"));
  scheduler.finish();
}
