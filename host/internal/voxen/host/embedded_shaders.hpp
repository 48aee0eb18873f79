#pragma once
// The shaders built into the library: SPIR-V of every compute shader under shaders/,
// compiled at build time, and the GLSL sources themselves so that variants (defines) can
// be compiled at run time without a source folder.
#include <cstddef>
#include <span>

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
}  // namespace detail

}  // namespace voxen
