#include "voxen/host/shader_compiler.hpp"

#include <glslang/Public/ResourceLimits.h>
#include <glslang/Public/ShaderLang.h>
#include <glslang/SPIRV/GlslangToSpv.h>

#include <algorithm>
#include <deque>
#include <fstream>
#include <mutex>
#include <regex>
#include <sstream>

#include "voxen/host/embedded_shaders.hpp"

namespace voxen {

namespace fs = std::filesystem;

namespace {

void initializeGlslangOnce() {
  static std::once_flag once;
  std::call_once(once, [] { glslang::InitializeProcess(); });
}

// Tree paths are '/'-separated and relative to the tree's root; ".." is resolved lexically.
std::string normalTreePath(const fs::path& path) { return path.lexically_normal().generic_string(); }

class TreeIncluder : public glslang::TShader::Includer {
 public:
  TreeIncluder(const ShaderSourceTree& tree, std::set<std::string>& dependencies) : tree_(tree), dependencies_(dependencies) {}

  // "file.glsl": relative to the including file first, then to the tree's root.
  IncludeResult* includeLocal(const char* header, const char* includer, size_t) override {
    return tryInclude(normalTreePath(fs::path(includer).parent_path() / header));
  }
  IncludeResult* includeSystem(const char* header, const char*, size_t) override {
    return tryInclude(normalTreePath(header));
  }
  void releaseInclude(IncludeResult* result) override { delete result; }

 private:
  IncludeResult* tryInclude(const std::string& path) {
    if (path.starts_with("..")) return nullptr;
    auto text = tree_.read(path);
    if (!text) return nullptr;
    dependencies_.insert(path);
    contents_.push_back(std::move(*text));
    return new IncludeResult(path, contents_.back().data(), contents_.back().size(), nullptr);
  }
  const ShaderSourceTree& tree_;
  std::set<std::string>& dependencies_;
  std::deque<std::string> contents_;  // owned until the shader is parsed
};

// glslang's log: "ERROR: name:line: message" per problem, plus summary lines.
void parseLog(const std::string& log, const ShaderSourceTree& tree, const std::string& mainPath,
              std::vector<ShaderDiagnostic>& out) {
  static const std::regex located(R"(^ERROR: (.*?):(\d+): (.*)$)");
  static const std::regex plain(R"(^ERROR: (.*)$)");
  std::istringstream lines(log);
  std::string line;
  std::vector<std::string> unlocated;
  while (std::getline(lines, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    std::smatch m;
    if (std::regex_match(line, m, located)) {
      std::string file = m[1].str();
      if (file.empty() || std::all_of(file.begin(), file.end(), ::isdigit)) file = mainPath;  // unnamed string
      out.push_back({tree.displayName(file), std::stoi(m[2].str()), m[3].str()});
    } else if (std::regex_match(line, m, plain)) {
      unlocated.push_back(m[1].str());
    }
  }
  if (out.empty())
    for (const auto& message : unlocated) out.push_back({tree.displayName(mainPath), 0, message});
}

std::string preambleFor(const ShaderDefines& defines) {
  std::string text;
  for (const auto& [name, value] : defines) text += "#define " + name + " " + value + "\n";
  return text;
}

}  // namespace

CompileResult compileComputeShader(const ShaderSourceTree& tree, const std::string& path, const ShaderDefines& defines) {
  initializeGlslangOnce();
  CompileResult result;
  const std::string mainPath = normalTreePath(path);
  const auto source = tree.read(mainPath);
  if (!source) {
    result.errors.push_back({tree.displayName(mainPath), 0, "shader file not found"});
    return result;
  }
  result.dependencies.insert(mainPath);

  glslang::TShader shader(EShLangCompute);
  const char* text = source->c_str();
  const int length = int(source->size());
  const char* name = mainPath.c_str();
  shader.setStringsWithLengthsAndNames(&text, &length, &name, 1);
  const std::string preamble = preambleFor(defines);
  shader.setPreamble(preamble.c_str());
  shader.setEnvInput(glslang::EShSourceGlsl, EShLangCompute, glslang::EShClientVulkan, 100);
  shader.setEnvClient(glslang::EShClientVulkan, glslang::EShTargetVulkan_1_2);
  shader.setEnvTarget(glslang::EShTargetSpv, glslang::EShTargetSpv_1_5);
  const auto messages = EShMessages(EShMsgSpvRules | EShMsgVulkanRules);
  TreeIncluder includer(tree, result.dependencies);
  if (!shader.parse(GetDefaultResources(), 460, false, messages, includer)) {
    parseLog(shader.getInfoLog(), tree, mainPath, result.errors);
    return result;  // never translate after a failed parse: glslang crashes
  }
  glslang::TProgram program;
  program.addShader(&shader);
  if (!program.link(messages)) {
    parseLog(program.getInfoLog(), tree, mainPath, result.errors);
    return result;
  }
  spv::SpvBuildLogger logger;
  glslang::SpvOptions options;
  options.disableOptimizer = true;
  glslang::GlslangToSpv(*program.getIntermediate(EShLangCompute), result.spirv, &logger, &options);
  const std::string spvMessages = logger.getAllMessages();
  if (result.spirv.empty()) result.errors.push_back({tree.displayName(mainPath), 0, "SPIR-V generation failed: " + spvMessages});
  return result;
}

}  // namespace voxen
