#pragma once
// The shaders built into the library: SPIR-V of every compute shader (and of the few
// graphics stages, *.vert and *.frag) under shaders/, compiled at build time, and the GLSL
// sources themselves so that compute variants (defines) can be compiled at run time without
// a source folder.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <string>
#include <vector>

#include "voxen/host/shader_types.hpp"

namespace voxen {

struct EmbeddedFile {
  enum class Kind { Source, Spirv };
  const char* path;  // relative to shaders/, e.g. "selftest/saxpy.comp"
  Kind kind;
  const unsigned char* data;
  size_t size;
};

namespace detail {
std::span<const EmbeddedFile> embeddedShaderFiles();
// The SPIR-V built from the shader at `path` ("painter/hardware_raster.vert"), or nullptr.
const EmbeddedFile* findEmbeddedSpirv(std::string_view path);
// Its words, ready for vkCreateShaderModule; throws Error when there is no such shader.
std::vector<uint32_t> embeddedSpirvWords(std::string_view path);
// The name a precompiled variant (cmake/ShaderVariants.cmake) is embedded under:
// "transform/transform_levels.comp?TRANSFORM_PRODUCT=1"; `path` itself without defines.
std::string embeddedVariantPath(std::string_view path, const ShaderDefines& defines);
// Whether an embedded file is (the SPIR-V or source of) a compute shader.
bool isComputeShader(const EmbeddedFile& file);

// The define that selects the float64 flavour of a compute shader
// (shaders/common/exact_math.glsl): exactly rounded division and square root.
inline constexpr const char* kFloat64Define = "VOXEN_FLOAT64";
// `defines` plus the float64 flavour's define when `float64` (the device has shaderFloat64).
ShaderDefines flavouredDefines(const ShaderDefines& defines, bool float64);
// The embedded SPIR-V of the shader at `path` with `defines` in the flavour `float64` asks
// for, or nullptr. The build embeds a float64 flavour only where it differs from the plain
// one, so the plain SPIR-V stands in for a shader that never uses doubles.
const EmbeddedFile* findEmbeddedFlavour(std::string_view path, const ShaderDefines& defines, bool float64);
}  // namespace detail

}  // namespace voxen
