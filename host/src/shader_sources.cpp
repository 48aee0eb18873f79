// What the shader library needs with or without the run-time compiler (VOXEN_HOT_RELOAD):
// the GLSL source trees, diagnostics as text, and the workgroup size of SPIR-V.
#include <fstream>
#include <sstream>

#include "voxen/host/embedded_shaders.hpp"
#include "voxen/host/shader_compiler.hpp"

namespace voxen {

namespace fs = std::filesystem;

DirectorySourceTree::DirectorySourceTree(fs::path root) : root_(std::move(root)) {}

std::optional<std::string> DirectorySourceTree::read(const std::string& path) const {
  std::ifstream file(root_ / path, std::ios::binary);
  if (!file) return std::nullopt;
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

std::string DirectorySourceTree::displayName(const std::string& path) const { return (root_ / path).string(); }

std::optional<std::string> EmbeddedSourceTree::read(const std::string& path) const {
  for (const EmbeddedFile& file : detail::embeddedShaderFiles())
    if (file.kind == EmbeddedFile::Kind::Source && path == file.path)
      return std::string(reinterpret_cast<const char*>(file.data), file.size);
  return std::nullopt;
}

std::optional<std::string> LayeredSourceTree::read(const std::string& path) const {
  for (const auto& tree : trees_)
    if (auto text = tree->read(path)) return text;
  return std::nullopt;
}

std::string LayeredSourceTree::displayName(const std::string& path) const {
  for (const auto& tree : trees_)
    if (tree->read(path)) return tree->displayName(path);
  return trees_.empty() ? path : trees_.front()->displayName(path);
}

std::string ShaderDiagnostic::str() const {
  return file + ":" + std::to_string(line) + ": " + message;
}

std::string CompileResult::errorText() const {
  std::string text;
  for (const auto& e : errors) text += e.str() + "\n";
  return text;
}

LocalSize spirvLocalSize(const std::vector<uint32_t>& spirv) {
  constexpr uint32_t kOpExecutionMode = 16, kLocalSize = 17;
  for (size_t i = 5; i < spirv.size();) {
    const uint32_t words = spirv[i] >> 16, opcode = spirv[i] & 0xffffu;
    if (words == 0) break;
    if (opcode == kOpExecutionMode && words >= 6 && spirv[i + 2] == kLocalSize)
      return {spirv[i + 3], spirv[i + 4], spirv[i + 5]};
    i += words;
  }
  return {};
}

}  // namespace voxen
