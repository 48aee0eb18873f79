// The two flavours of the engine's compute shaders (shaders/common/exact_math.glsl): the
// plain one declares no Float64 capability, so any device runs it; the float64 one, built
// where a shader divides or takes roots through exact_math, is what a device with
// shaderFloat64 gets, exactly rounded as the CPU references are.
#include <catch2/catch.hpp>

#include <cstring>
#include <string>
#include <vector>

#include "support/gpu_fixture.hpp"
#include "voxen/host/embedded_shaders.hpp"
#include "voxen/host/shader_library.hpp"

namespace {

// Whether a SPIR-V module declares OpCapability Float64.
bool declaresFloat64(const voxen::EmbeddedFile& file) {
  std::vector<uint32_t> words(file.size / 4);
  std::memcpy(words.data(), file.data, words.size() * 4);
  constexpr uint32_t kOpCapability = 17, kFloat64 = 10;
  for (size_t i = 5; i < words.size();) {
    const uint32_t count = words[i] >> 16, opcode = words[i] & 0xffffu;
    if (opcode == kOpCapability && count == 2 && words[i + 1] == kFloat64) return true;
    if (count == 0) break;
    i += count;
  }
  return false;
}

}  // namespace

TEST_CASE("No plain shader flavour declares Float64; the dividing shaders have a float64 flavour that does",
          "[shaders][logic]") {
  size_t flavours = 0;
  for (const voxen::EmbeddedFile& file : voxen::detail::embeddedShaderFiles()) {
    if (file.kind != voxen::EmbeddedFile::Kind::Spirv) continue;
    const bool flavour = std::string(file.path).find("VOXEN_FLOAT64=1") != std::string::npos;
    INFO(file.path);
    CHECK(declaresFloat64(file) == flavour);
    flavours += flavour;
  }
  CHECK(flavours >= 4);
  // Shaders whose results are compared bit for bit with a CPU reference and that divide.
  for (const char* path : {"occupancy/region_discover.comp", "occupancy/integrate_miss.comp", "clearance/clearance_envelope.comp",
                           "query/query_raycast.comp"}) {
    INFO(path);
    const voxen::EmbeddedFile* exact = voxen::detail::findEmbeddedFlavour(path, {}, true);
    const voxen::EmbeddedFile* plain = voxen::detail::findEmbeddedFlavour(path, {}, false);
    REQUIRE(exact);
    REQUIRE(plain);
    CHECK(std::string(exact->path) == std::string(path) + "?VOXEN_FLOAT64=1");
    CHECK(std::string(plain->path) == path);
  }
  // A shader that never divides through exact_math has one flavour, which serves both.
  const voxen::EmbeddedFile* saxpy = voxen::detail::findEmbeddedFlavour("selftest/saxpy.comp", {}, true);
  REQUIRE(saxpy);
  CHECK(std::string(saxpy->path) == "selftest/saxpy.comp");
  // A variant's float64 flavour is looked up after its own defines.
  CHECK(voxen::detail::flavouredDefines({{"A", "1"}}, true) == voxen::ShaderDefines{{"A", "1"}, {"VOXEN_FLOAT64", "1"}});
  CHECK(voxen::detail::flavouredDefines({{"A", "1"}}, false) == voxen::ShaderDefines{{"A", "1"}});
}

TEST_CASE("The shader library takes the float64 flavour exactly when its device has shaderFloat64", "[shaders][gpu]") {
  auto& gpu = vt::gpu();
  CHECK(gpu.library.float64() == gpu.device.info().capabilities.shaderFloat64);
  voxen::DeviceOptions options = vt::validatedDeviceOptions();
  options.withoutFloat64 = true;
  voxen::Device device(options);
  CHECK_FALSE(device.info().capabilities.shaderFloat64);
  voxen::ShaderLibrary library(device);
  CHECK_FALSE(library.float64());
  // A dividing shader's plain flavour builds on it without a validation message (the
  // float64 one would declare a capability the device did not enable).
  CHECK(library.kernel("occupancy/region_discover.comp") != nullptr);
}
