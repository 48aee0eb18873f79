// Looking up the SPIR-V that the build embedded (embedded_shaders.hpp).
#include <cstring>
#include <string>

#include "voxen/host/embedded_shaders.hpp"
#include "voxen/host/error.hpp"

namespace voxen::detail {

const EmbeddedFile* findEmbeddedSpirv(std::string_view path) {
  for (const EmbeddedFile& file : embeddedShaderFiles())
    if (file.kind == EmbeddedFile::Kind::Spirv && path == file.path) return &file;
  return nullptr;
}

std::vector<uint32_t> embeddedSpirvWords(std::string_view path) {
  const EmbeddedFile* file = findEmbeddedSpirv(path);
  if (!file) throw Error("no embedded SPIR-V for shader '" + std::string(path) + "'");
  std::vector<uint32_t> words(file->size / sizeof(uint32_t));
  std::memcpy(words.data(), file->data, words.size() * sizeof(uint32_t));
  return words;
}

std::string embeddedVariantPath(std::string_view path, const ShaderDefines& defines) {
  std::string name(path);
  for (size_t i = 0; i < defines.size(); ++i) name += (i ? "&" : "?") + defines[i].first + "=" + defines[i].second;
  return name;
}

bool isComputeShader(const EmbeddedFile& file) { return std::string_view(file.path).ends_with(".comp"); }

}  // namespace voxen::detail
