#pragma once
// Run-time GLSL to SPIR-V compilation with glslang's C++ API: #include resolution with
// dependency tracking, defines for variants, and errors as `file:line: message`.
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "voxen/host/shader_types.hpp"

namespace voxen {

// Where GLSL comes from: a folder on disk (hot reload) or the sources built into the library.
class ShaderSourceTree {
 public:
  virtual ~ShaderSourceTree() = default;
  // Contents of `path` (relative to the tree's root, '/'-separated), or nullopt.
  virtual std::optional<std::string> read(const std::string& path) const = 0;
  // What a person should see in an error message for `path`: a real path for a folder.
  virtual std::string displayName(const std::string& path) const = 0;
};

class DirectorySourceTree : public ShaderSourceTree {
 public:
  explicit DirectorySourceTree(std::filesystem::path root);
  std::optional<std::string> read(const std::string& path) const override;
  std::string displayName(const std::string& path) const override;
  const std::filesystem::path& root() const { return root_; }

 private:
  std::filesystem::path root_;
};

class EmbeddedSourceTree : public ShaderSourceTree {
 public:
  std::optional<std::string> read(const std::string& path) const override;
  std::string displayName(const std::string& path) const override { return "shaders/" + path; }
};

// Several trees seen as one namespace: a path is read from the first tree that has it. The
// shader library puts the engine's tree first and a program's shader roots after it (it
// refuses roots whose files would shadow one another, so the order only decides for files
// created later).
class LayeredSourceTree : public ShaderSourceTree {
 public:
  void add(std::unique_ptr<ShaderSourceTree> tree) { trees_.push_back(std::move(tree)); }
  // Replaces the first tree (the engine's: built in, or its hot-reload folder).
  void replaceFirst(std::unique_ptr<ShaderSourceTree> tree) { trees_.front() = std::move(tree); }
  std::optional<std::string> read(const std::string& path) const override;
  std::string displayName(const std::string& path) const override;

 private:
  std::vector<std::unique_ptr<ShaderSourceTree>> trees_;
};

struct CompileResult {
  std::vector<uint32_t> spirv;
  std::vector<ShaderDiagnostic> errors;
  std::set<std::string> dependencies;  // tree paths of the shader and every file it included
  bool ok() const { return errors.empty() && !spirv.empty(); }
  std::string errorText() const;  // one diagnostic per line
};

// Compiles the compute shader at `path` in `tree`. Never throws for errors in the GLSL:
// they come back in CompileResult::errors.
CompileResult compileComputeShader(const ShaderSourceTree& tree, const std::string& path, const ShaderDefines& defines = {});

// Workgroup size declared by a SPIR-V compute module (OpExecutionMode LocalSize); {0,0,0}
// when it uses specialisation constants instead.
LocalSize spirvLocalSize(const std::vector<uint32_t>& spirv);

}  // namespace voxen
