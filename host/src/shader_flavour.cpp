// Which flavour of an engine shader a device runs: the float64 one (exact division and
// square root, shaders/common/exact_math.glsl) where it has shaderFloat64, else the plain.
#include "voxen/host/embedded_shaders.hpp"

namespace voxen::detail {

ShaderDefines flavouredDefines(const ShaderDefines& defines, bool float64) {
  ShaderDefines flavoured = defines;
  if (float64) flavoured.emplace_back(kFloat64Define, "1");
  return flavoured;
}

const EmbeddedFile* findEmbeddedFlavour(std::string_view path, const ShaderDefines& defines, bool float64) {
  if (float64)
    if (const EmbeddedFile* file = findEmbeddedSpirv(embeddedVariantPath(path, flavouredDefines(defines, true)))) return file;
  return findEmbeddedSpirv(embeddedVariantPath(path, defines));
}

}  // namespace voxen::detail
