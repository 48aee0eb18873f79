// Shader variants (defines) come from SPIR-V compiled at build time (cmake/ShaderVariants.cmake),
// so a build without the run-time compiler (VOXEN_HOT_RELOAD=OFF) runs every engine pass; in
// such a build hot reload and unlisted variants are refused with a message that says why.
#include <catch2/catch.hpp>

#include <string>

#include "support/gpu_fixture.hpp"
#include "support/temp_dir.hpp"
#include "voxen/host/embedded_shaders.hpp"
#include "voxen/host/error.hpp"
#include "voxen/host/shader_library.hpp"

TEST_CASE("Every shader variant the engine asks for is built into the library", "[shaders][logic]") {
  // GpuTransformTree's products: Matrix, QuadShuffle, QuadShared.
  for (const char* product : {"0", "1", "2"}) {
    const std::string name = voxen::detail::embeddedVariantPath("transform/transform_levels.comp", {{"TRANSFORM_PRODUCT", product}});
    INFO(name);
    CHECK(name == std::string("transform/transform_levels.comp?TRANSFORM_PRODUCT=") + product);
    const voxen::EmbeddedFile* file = voxen::detail::findEmbeddedSpirv(name);
    REQUIRE(file);
    CHECK(file->size > 20);
    CHECK(file->size % 4 == 0);
  }
  CHECK(voxen::detail::embeddedVariantPath("a.comp", {{"A", "1"}, {"B", "x"}}) == "a.comp?A=1&B=x");
  CHECK(voxen::detail::embeddedVariantPath("a.comp", {}) == "a.comp");
}

TEST_CASE("A precompiled variant's kernel comes from the library without a source folder", "[shaders][gpu]") {
  auto& gpu = vt::gpu();
  const auto kernel = gpu.library.kernel("transform/transform_levels.comp",
                                         voxen::KernelVariant{{{"TRANSFORM_PRODUCT", "2"}}, {}});
  REQUIRE(kernel);
  CHECK(kernel->pipeline() != VK_NULL_HANDLE);
}

#if !VOXEN_HOT_RELOAD_BUILD
TEST_CASE("Without hot reload, hot reload and unlisted variants are refused naming why", "[shaders][gpu]") {
  auto& gpu = vt::gpu();
  vt::TempDir dir("no-hot-reload");
  CHECK_THROWS_WITH(voxen::ShaderLibrary(gpu.device, voxen::ShaderLibraryOptions{.hotReloadDir = dir.path()}),
                    Catch::Contains("hot reload") && Catch::Contains("VOXEN_HOT_RELOAD=OFF"));
  CHECK_THROWS_WITH(gpu.library.kernel("selftest/saxpy.comp", voxen::KernelVariant{{{"VOXEN_NOT_LISTED", "1"}}, {}}),
                    Catch::Contains("selftest/saxpy.comp") && Catch::Contains("VOXEN_NOT_LISTED") &&
                        Catch::Contains("cmake/ShaderVariants.cmake"));
}
#endif

TEST_CASE("A ShaderLibrary whose hot reload cannot start throws and leaves nothing behind", "[shaders][gpu]") {
  // A missing folder (or, without VOXEN_HOT_RELOAD, any folder) makes the constructor throw;
  // its pipeline layout and cache must go with it, or the shared device's teardown reports
  // them to the validation layer.
  auto& gpu = vt::gpu();
  vt::TempDir dir("hot-reload-missing");
  CHECK_THROWS_AS(voxen::ShaderLibrary(gpu.device, voxen::ShaderLibraryOptions{.hotReloadDir = dir.path() / "missing"}),
                  voxen::Error);
}
