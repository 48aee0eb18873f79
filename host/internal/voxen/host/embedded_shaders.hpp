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
}  // namespace detail

}  // namespace voxen
