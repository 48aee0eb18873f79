#pragma once
// Compute pipelines by shader path, with hot reload. Without hot reload a kernel comes from
// the SPIR-V built into the library (or, for a variant with defines, from the embedded
// GLSL). With hot reload on, kernels compile from a source folder; an inotify watcher
// reports edits, every kernel whose shader or any included file changed is recompiled, and
// its pipeline is swapped at the next submission. A failed compile keeps the old pipeline
// and reports `file:line: message`; fixing the file recovers without a restart.
//
// A program adds compute shaders of its own beside the engine's: folders of GLSL (shader
// roots, compiled at run time, hot-reloadable) and precompiled SPIR-V (a name -> words table,
// e.g. built by the program's build with glslangValidator). Names share one namespace, the
// path relative to its root ("selftest/saxpy.comp" for the engine's); the engine's shaders
// keep their names, and a name that two sources would give is refused when added. The
// program's GLSL includes the engine's GLSL by the same paths ("map/map_pass.glsl"): the
// library's compiler finds them built in, and a program's own build finds them installed
// under the package's voxen_GLSL_INCLUDE_DIR.
#include <vulkan/vulkan_core.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "voxen/host/log.hpp"
#include "voxen/host/shader_types.hpp"

namespace voxen {

class Device;
class FileWatcher;
class LayeredSourceTree;
struct CompileResult;

struct KernelVariant {
  ShaderDefines defines;                      // #define NAME VALUE, before the shader's first line
  std::map<uint32_t, uint32_t> specialization;  // constant_id -> 32-bit value
  bool operator<(const KernelVariant& o) const {
    return std::tie(defines, specialization) < std::tie(o.defines, o.specialization);
  }
};

class ShaderLibrary;
class PipelineWarmer;
namespace detail {
struct PipelineCacheKey;
}

// A compute pipeline that the library may replace while the program runs. Hold it by
// shared_ptr and read pipeline() when recording, never cache the VkPipeline. The pipeline
// is created at the first pipeline() (its first dispatch), so that kernels a run sets up
// but never dispatches cost no pipeline; the shader is compiled and checked when the
// kernel is made.
class Kernel {
 public:
  const std::string& path() const { return path_; }
  // Thread-safe: the library may be creating this pipeline ahead on a worker thread.
  VkPipeline pipeline() const;
  LocalSize localSize() const { return localSize_; }
  // Increments each time hot reload swaps the pipeline.
  uint64_t generation() const { return generation_; }

 private:
  friend class ShaderLibrary;
  friend class PipelineWarmer;
  void createAhead() const;  // on a warmer thread: the pipeline, unless it exists
  bool createLocked(bool ahead) const;  // under mutex_: creates the pipeline if missing; whether it did
  std::string path_;
  KernelVariant variant_;
  ShaderLibrary* library_ = nullptr;
  mutable std::mutex mutex_;  // pipeline_ and spirv_ until the pipeline exists
  mutable VkPipeline pipeline_ = VK_NULL_HANDLE;
  mutable bool dispatched_ = false;    // pipeline() was asked for: the kernel list keeps it
  mutable bool createdAhead_ = false;  // by the warmer
  mutable std::vector<uint32_t> spirv_;  // until the pipeline is created
  LocalSize localSize_;
  uint64_t generation_ = 0;
  std::set<std::string> dependencies_;
};

struct ShaderLibraryOptions {
  // Source folder for hot reload; when unset, VOXEN_SHADER_DIR (if set) turns it on.
  std::optional<std::filesystem::path> hotReloadDir;
  // Where reload messages and compile errors go; the default is the log sink (logMessage),
  // with compile errors at LogLevel::Error and everything else at LogLevel::Info.
  std::function<void(const std::string&)> log;
  // The persistent pipeline cache: "off" (or "0") for none, a folder to keep it in, or
  // empty for $VOXEN_PIPELINE_CACHE read the same way, else $XDG_CACHE_HOME/voxen, else
  // ~/.cache/voxen. One file per device, driver and shader set, read when the library is
  // made and written when it is destroyed (or by savePipelineCache) if pipelines were made.
  // An unreadable, corrupt or foreign file is ignored (a LogLevel::Debug line says why)
  // and replaced; a folder that cannot be written only loses the saving.
  //
  // Beside it, a second file lists the kernels the process dispatched; the next process
  // creates the ones it asks for again on worker threads ahead of their first dispatch.
  std::string pipelineCache;
  // Worker threads for those pipelines: unset for one fewer than the processor's threads,
  // at most 4; 0 creates every pipeline at its first dispatch, on the recording thread.
  std::optional<unsigned> createAheadThreads;
};

// What setting up the library cost, and what became of the pipeline cache.
struct ShaderLibraryStartup {
  std::string cacheFile;     // empty when the cache is off
  std::string cacheState;    // "off", "none yet", "loaded", or "ignored: <why>"
  size_t cacheBytesLoaded = 0;
  double setupSeconds = 0;   // pipeline layout, cache file and its VkPipelineCache
  size_t pipelinesCreated = 0;
  size_t pipelinesCreatedAhead = 0;  // of those, by the library's worker threads
  double pipelineSeconds = 0;  // summed over vkCreateComputePipelines calls (on every thread)
  size_t cacheBytesSaved = 0;  // by the last save
};
struct ShaderRootOptions {
  // Recompile this root's kernels when its files change even when the engine's shaders are
  // not hot-reloaded (with enableHotReload every root is watched).
  bool watch = false;
};

class ShaderLibrary {
 public:
  // Every kernel shares one pipeline layout: no descriptor sets, push constants only.
  static constexpr uint32_t kPushConstantBytes = 128;

  explicit ShaderLibrary(Device& device, ShaderLibraryOptions options = {});
  ~ShaderLibrary();
  ShaderLibrary(const ShaderLibrary&) = delete;
  ShaderLibrary& operator=(const ShaderLibrary&) = delete;

  // The kernel for a compute shader (path relative to shaders/, e.g. "selftest/saxpy.comp").
  // The same request returns the same kernel. Thread-safe, as are reloadChanged() and
  // collectRetired(): schedulers on several threads share one library. Throws Error with the diagnostics when the
  // shader does not compile.
  std::shared_ptr<Kernel> kernel(const std::string& path, const KernelVariant& variant = {});

  // Adds a folder of the program's own GLSL: a compute shader `dir`/a/b.comp is the kernel
  // "a/b.comp", compiled at run time. Throws Error when the folder does not exist, or when a
  // shader or include file in it has the name of an engine shader file, of a file in an
  // earlier root, or of precompiled SPIR-V (naming both).
  void addShaderRoot(const std::filesystem::path& dir, ShaderRootOptions options = {});
  // Adds a precompiled compute shader under `name` (its kernel takes specialisation
  // constants but no defines). Throws Error for an empty name, words that are not SPIR-V,
  // or a name already taken (an engine shader, a file in a root, earlier SPIR-V).
  void addSpirv(const std::string& name, std::vector<uint32_t> words);
  const std::vector<std::filesystem::path>& shaderRoots() const { return roots_; }

  // Compile the engine's shaders from `sourceDir` from now on and watch it and every shader
  // root; existing kernels are rebuilt.
  void enableHotReload(const std::filesystem::path& sourceDir);
  // Whether the engine's shaders are hot-reloaded (roots may be watched without it).
  bool hotReloadEnabled() const { return !sourceDir_.empty(); }
  const std::filesystem::path& hotReloadDir() const { return sourceDir_; }

  // Recompiles kernels whose sources changed since the last call and swaps their
  // pipelines. `lastSubmitted` is the newest timeline value that may still use an old
  // pipeline. Returns how many kernels were swapped. The scheduler calls this when a batch
  // begins. `sharedDevice`: other schedulers (other timelines) may use the old pipelines
  // too, so they are kept until the library is destroyed rather than collected.
  size_t reloadChanged(uint64_t lastSubmitted, bool sharedDevice = false);
  // Destroys pipelines retired by reloads once the GPU has passed `completed`.
  void collectRetired(uint64_t completed);
  // Diagnostics of shaders whose latest edit failed to compile (empty when all are fine).
  std::vector<ShaderDiagnostic> reloadErrors() const;

  // Whether kernels are built in their float64 flavour (the device has shaderFloat64):
  // exactly rounded division and square root (shaders/common/exact_math.glsl); otherwise
  // the plain flavour, which declares no Float64 capability.
  bool float64() const;

  VkPipelineLayout pipelineLayout() const { return layout_; }
  VkPipelineCache pipelineCache() const { return cache_; }
  // A copy: worker threads may still be creating pipelines.
  ShaderLibraryStartup startup() const;
  // Writes the pipeline cache's file now if pipelines were made since it was read or last
  // written (the destructor does too). Never throws: a failure is a LogLevel::Debug line.
  void savePipelineCache();

 private:
  CompileResult compile(const std::string& path, const KernelVariant& variant) const;
  friend class Kernel;
  VkPipeline createPipeline(const std::vector<uint32_t>& spirv, const KernelVariant& variant, bool ahead);
  void saveKernelList(const detail::PipelineCacheKey& key);
  static constexpr size_t kMaxKernelList = 512;  // a list past this starts again
  void openPipelineCache();
  void build(Kernel& kernel, bool fromEmbeddedSpirv);
  void log(LogLevel level, const std::string& message) const;
  std::string ownerOf(const std::string& name) const;  // who already has a name, or empty
  void watch(const std::filesystem::path& dir);
  std::string treePathOf(const std::filesystem::path& changedFile) const;

  Device& device_;
  ShaderLibraryOptions options_;
  VkPipelineLayout layout_ = VK_NULL_HANDLE;
  VkPipelineCache cache_ = VK_NULL_HANDLE;
  std::optional<std::filesystem::path> cacheFile_;
  uint64_t shaderSetHash_ = 0;
  size_t pipelinesAtSave_ = 0;
  mutable std::mutex startupMutex_;  // startup_: pipelines are also created on worker threads
  ShaderLibraryStartup startup_;
  // The kernels the previous process with this cache dispatched ("path [id]=value ..."):
  // asked for again, they are created ahead by warmer_. Written beside the cache file.
  std::set<std::string> usedBefore_;
  std::unique_ptr<PipelineWarmer> warmer_;
  // kernels_, failed_ and retired_ (recursive: a reload may build kernels).
  mutable std::recursive_mutex kernelsMutex_;
  std::map<std::pair<std::string, KernelVariant>, std::shared_ptr<Kernel>> kernels_;
  std::unique_ptr<LayeredSourceTree> tree_;  // the engine's, then the roots
  std::vector<std::filesystem::path> roots_;  // absolute
  std::vector<bool> rootWatched_;
  std::map<std::string, std::vector<uint32_t>> spirv_;  // the program's precompiled shaders
  std::unique_ptr<FileWatcher> watcher_;
  std::filesystem::path sourceDir_;
  std::map<std::string, std::vector<ShaderDiagnostic>> failed_;  // by shader path
  std::vector<std::pair<VkPipeline, uint64_t>> retired_;
};

}  // namespace voxen
