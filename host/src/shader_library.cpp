#include "voxen/host/shader_library.hpp"

#include <volk.h>

#include "voxen/host/log.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <thread>

#include "voxen/host/device.hpp"
#include "voxen/host/embedded_shaders.hpp"
#include "voxen/host/error.hpp"
#include "voxen/host/file_watcher.hpp"
#include "voxen/host/pipeline_cache_file.hpp"
#include "voxen/host/pipeline_warmer.hpp"
#include "voxen/host/shader_compiler.hpp"

namespace voxen {

namespace fs = std::filesystem;

namespace {

std::string variantText(const KernelVariant& variant) {
  std::string text;
  for (const auto& [name, value] : variant.defines) text += " -D" + name + "=" + value;
  for (const auto& [id, value] : variant.specialization) text += " [" + std::to_string(id) + "]=" + std::to_string(value);
  return text;
}

// A kernel's name in the list of kernels used: its path and variant, one line.
std::string kernelId(const std::string& path, const KernelVariant& variant) { return path + variantText(variant); }

// The list of kernels used lives beside the cache file: "pipelines-<hash>.kernels".
fs::path kernelListFile(const fs::path& cacheFile) {
  fs::path file = cacheFile;
  return file.replace_extension(".kernels");
}

unsigned defaultCreateAheadThreads() {
  const unsigned cores = std::thread::hardware_concurrency();
  return std::clamp(cores > 1 ? cores - 1 : 1u, 1u, 4u);
}

std::string joined(const std::set<std::string>& names) {
  std::string text;
  for (const std::string& name : names) text += (text.empty() ? "" : ", ") + name;
  return text;
}

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The embedded shaders' identity, for the cache file's name: a new build with other
// shaders starts a new file. Eight bytes a step: this runs at every start.
uint64_t embeddedShaderSetHash() {
  uint64_t h = 0xcbf29ce484222325ull;
  for (const EmbeddedFile& file : detail::embeddedShaderFiles()) {
    h = detail::hashBytes(file.path, std::strlen(file.path), h);
    size_t i = 0;
    for (; i + 8 <= file.size; i += 8) {
      uint64_t word;
      std::memcpy(&word, file.data + i, 8);
      h = (h ^ word) * 0x100000001b3ull;
      h ^= h >> 29;
    }
    h = detail::hashBytes(file.data + i, file.size - i, h);
  }
  return h;
}

}  // namespace

VkPipeline Kernel::pipeline() const {
  std::lock_guard lock(mutex_);
  createLocked(false);
  dispatched_ = true;
  return pipeline_;
}

void Kernel::createAhead() const {
  std::lock_guard lock(mutex_);
  if (createLocked(true)) createdAhead_ = true;
}

bool Kernel::createLocked(bool ahead) const {
  if (pipeline_ || !library_) return false;
  pipeline_ = library_->createPipeline(spirv_, variant_, ahead);
  spirv_ = {};
  return true;
}

ShaderLibrary::ShaderLibrary(Device& device, ShaderLibraryOptions options) : device_(device), options_(std::move(options)) {
  VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, kPushConstantBytes};
  VkPipelineLayoutCreateInfo layoutInfo{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  layoutInfo.pushConstantRangeCount = 1;
  layoutInfo.pPushConstantRanges = &range;
  VOXEN_VK_CHECK(vkCreatePipelineLayout(device_.handle(), &layoutInfo, nullptr, &layout_));
  openPipelineCache();
  warmer_ = std::make_unique<PipelineWarmer>(options_.createAheadThreads.value_or(defaultCreateAheadThreads()));
  tree_ = std::make_unique<LayeredSourceTree>();
  tree_->add(std::make_unique<EmbeddedSourceTree>());
  std::optional<fs::path> dir = options_.hotReloadDir;
  if (!dir)
    if (const char* env = std::getenv("VOXEN_SHADER_DIR"); env && *env) dir = fs::path(env);
  if (!dir) return;
  try {
    enableHotReload(*dir);
  } catch (...) {
    // No destructor runs for a constructor that throws (a missing folder, or a build without
    // hot reload): the device must not outlive its pipeline layout and cache.
    vkDestroyPipelineCache(device_.handle(), cache_, nullptr);
    vkDestroyPipelineLayout(device_.handle(), layout_, nullptr);
    throw;
  }
}

void ShaderLibrary::openPipelineCache() {
  const auto start = std::chrono::steady_clock::now();
  std::vector<uint8_t> data;
  startup_.cacheState = "off";
  if (std::optional<fs::path> dir = detail::pipelineCacheDir(options_.pipelineCache)) {
    shaderSetHash_ = embeddedShaderSetHash();
    const detail::PipelineCacheKey key = detail::pipelineCacheKey(device_.physicalDevice(), shaderSetHash_);
    cacheFile_ = *dir / key.fileName();
    startup_.cacheFile = cacheFile_->string();
    detail::PipelineCacheRead read = detail::readPipelineCacheFile(*cacheFile_, key);
    if (!read.problem.empty()) {
      startup_.cacheState = "ignored: " + read.problem;
      log(LogLevel::Debug, "pipeline cache " + cacheFile_->string() + " " + read.problem + ": ignored, to be replaced");
    } else {
      startup_.cacheState = read.found ? "loaded" : "none yet";
    }
    // The first run on a device compiles every pipeline it uses (seconds on lavapipe's LLVM):
    // say so, so that a slow first run is not taken for a hang or for Voxen's speed.
    if (startup_.cacheState != "loaded")
      log(LogLevel::Info, "first run on this device or shader set: compiling shaders as they are first used (later runs "
                          "load them from " + cacheFile_->string() + ")");
    data = std::move(read.data);
    detail::PipelineCacheRead used =
        detail::readPipelineCacheFile(kernelListFile(*cacheFile_), key, detail::CachePayload::KernelList);
    std::istringstream lines(std::string(used.data.begin(), used.data.end()));
    for (std::string line; std::getline(lines, line);)
      if (!line.empty()) usedBefore_.insert(line);
  }
  VkPipelineCacheCreateInfo cacheInfo{VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO};
  cacheInfo.initialDataSize = data.size();
  cacheInfo.pInitialData = data.empty() ? nullptr : data.data();
  VkResult result = vkCreatePipelineCache(device_.handle(), &cacheInfo, nullptr, &cache_);
  if (result != VK_SUCCESS && !data.empty()) {
    // The driver may still refuse data our checks passed: start empty rather than fail.
    log(LogLevel::Debug, "pipeline cache " + cacheFile_->string() + " refused by the driver: ignored, to be replaced");
    startup_.cacheState = "ignored: refused by the driver";
    cacheInfo.initialDataSize = 0;
    cacheInfo.pInitialData = nullptr;
    result = vkCreatePipelineCache(device_.handle(), &cacheInfo, nullptr, &cache_);
  }
  VOXEN_VK_CHECK(result);
  if (startup_.cacheState == "loaded") startup_.cacheBytesLoaded = data.size();
  startup_.setupSeconds = secondsSince(start);
}

ShaderLibraryStartup ShaderLibrary::startup() const {
  std::lock_guard lock(startupMutex_);
  return startup_;
}

void ShaderLibrary::savePipelineCache() {
  {
    std::lock_guard lock(startupMutex_);
    if (!cacheFile_ || startup_.pipelinesCreated == pipelinesAtSave_) return;
    pipelinesAtSave_ = startup_.pipelinesCreated;
  }
  const detail::PipelineCacheKey key = detail::pipelineCacheKey(device_.physicalDevice(), shaderSetHash_);
  saveKernelList(key);
  size_t size = 0;
  if (vkGetPipelineCacheData(device_.handle(), cache_, &size, nullptr) != VK_SUCCESS) return;
  std::vector<uint8_t> data(size);
  if (vkGetPipelineCacheData(device_.handle(), cache_, &size, data.data()) != VK_SUCCESS) return;
  data.resize(size);
  if (std::string problem = detail::writePipelineCacheFile(*cacheFile_, key, data); !problem.empty()) {
    log(LogLevel::Debug, "pipeline cache not saved: " + problem);
  } else {
    std::lock_guard lock(startupMutex_);
    startup_.cacheBytesSaved = data.size();
  }
}

// The kernels dispatched in this process, with those of earlier ones (a run of another kind
// in between must not cost the next run its head start). Kernels made ahead but never
// dispatched are left out, so that a list that once held too much shrinks again.
void ShaderLibrary::saveKernelList(const detail::PipelineCacheKey& key) {
  std::set<std::string> used = usedBefore_.size() < kMaxKernelList ? usedBefore_ : std::set<std::string>{};
  for (const auto& [pathAndVariant, kernel] : kernels_) {
    std::lock_guard lock(kernel->mutex_);
    if (kernel->dispatched_)
      used.insert(kernelId(kernel->path_, kernel->variant_));
    else if (kernel->createdAhead_)
      used.erase(kernelId(kernel->path_, kernel->variant_));
  }
  std::string text;
  for (const std::string& line : used) text += line + "\n";
  if (std::string problem = detail::writePipelineCacheFile(kernelListFile(*cacheFile_), key,
                                                           std::vector<uint8_t>(text.begin(), text.end()));
      !problem.empty())
    log(LogLevel::Debug, "list of kernels used not saved: " + problem);
}

ShaderLibrary::~ShaderLibrary() {
  const VkDevice vk = device_.handle();
  warmer_.reset();  // no worker may create a pipeline while they are destroyed
  vkDeviceWaitIdle(vk);
  try {
    savePipelineCache();
  } catch (...) {
    // A destructor must not throw; the cache is only an optimisation.
  }
  for (auto& [key, kernel] : kernels_)
    if (kernel->pipeline_) vkDestroyPipeline(vk, kernel->pipeline_, nullptr);
  for (auto& [pipeline, value] : retired_) vkDestroyPipeline(vk, pipeline, nullptr);
  vkDestroyPipelineCache(vk, cache_, nullptr);
  vkDestroyPipelineLayout(vk, layout_, nullptr);
}

bool ShaderLibrary::float64() const { return device_.info().capabilities.shaderFloat64; }

void ShaderLibrary::log(LogLevel level, const std::string& message) const {
  if (options_.log)
    options_.log(message);
  else
    logMessage(level, message);
}

CompileResult ShaderLibrary::compile(const std::string& path, const KernelVariant& variant) const {
#if VOXEN_HOT_RELOAD
  return compileComputeShader(*tree_, path, detail::flavouredDefines(variant.defines, float64()));
#else
  throw Error("shader '" + path + "'" + variantText(variant) +
              ": this variant is not built into the library, and this build has no run-time shader compiler "
              "(built with VOXEN_HOT_RELOAD=OFF); add it to cmake/ShaderVariants.cmake");
#endif
}

VkPipeline ShaderLibrary::createPipeline(const std::vector<uint32_t>& spirv, const KernelVariant& variant, bool ahead) {
  const auto start = std::chrono::steady_clock::now();
  VkShaderModuleCreateInfo moduleInfo{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  moduleInfo.codeSize = spirv.size() * sizeof(uint32_t);
  moduleInfo.pCode = spirv.data();
  VkShaderModule module = VK_NULL_HANDLE;
  VOXEN_VK_CHECK(vkCreateShaderModule(device_.handle(), &moduleInfo, nullptr, &module));

  std::vector<VkSpecializationMapEntry> entries;
  std::vector<uint32_t> values;
  for (const auto& [id, value] : variant.specialization) {
    entries.push_back({id, uint32_t(values.size() * sizeof(uint32_t)), sizeof(uint32_t)});
    values.push_back(value);
  }
  VkSpecializationInfo specialization{uint32_t(entries.size()), entries.data(), values.size() * sizeof(uint32_t),
                                      values.data()};
  VkComputePipelineCreateInfo info{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  info.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  info.stage.module = module;
  info.stage.pName = "main";
  info.stage.pSpecializationInfo = entries.empty() ? nullptr : &specialization;
  info.layout = layout_;
  VkPipeline pipeline = VK_NULL_HANDLE;
  const VkResult result = vkCreateComputePipelines(device_.handle(), cache_, 1, &info, nullptr, &pipeline);
  vkDestroyShaderModule(device_.handle(), module, nullptr);
  VOXEN_VK_CHECK(result);
  std::lock_guard lock(startupMutex_);
  ++startup_.pipelinesCreated;
  if (ahead) ++startup_.pipelinesCreatedAhead;
  startup_.pipelineSeconds += secondsSince(start);
  return pipeline;
}

void ShaderLibrary::build(Kernel& kernel, bool fromEmbeddedSpirv) {
  std::vector<uint32_t> spirv;
  if (auto precompiled = spirv_.find(kernel.path_); precompiled != spirv_.end()) {
    spirv = precompiled->second;
  } else if (const EmbeddedFile* file =
                 fromEmbeddedSpirv ? detail::findEmbeddedFlavour(kernel.path_, kernel.variant_.defines, float64()) : nullptr) {
    spirv.resize(file->size / sizeof(uint32_t));
    std::memcpy(spirv.data(), file->data, spirv.size() * sizeof(uint32_t));
  } else {
    CompileResult result = compile(kernel.path_, kernel.variant_);
    if (!result.ok()) {
      if (!tree_->read(kernel.path_)) {
        std::string roots;
        for (const fs::path& root : roots_) {
          if (!roots.empty()) roots += ", ";
          roots.append("'").append(root.string()).append("'");
        }
        throw Error("no shader '" + kernel.path_ + "': it is not an engine shader, not in a shader root (" +
                    (roots.empty() ? "none added" : roots) + ") and not precompiled SPIR-V");
      }
      throw Error("shader '" + kernel.path_ + "'" + variantText(kernel.variant_) + " does not compile:\n" + result.errorText());
    }
    spirv = std::move(result.spirv);
    kernel.dependencies_ = std::move(result.dependencies);
  }
  kernel.localSize_ = spirvLocalSize(spirv);
  kernel.library_ = this;
  kernel.pipeline_ = VK_NULL_HANDLE;  // made at its first use
  kernel.spirv_ = std::move(spirv);
}

std::shared_ptr<Kernel> ShaderLibrary::kernel(const std::string& path, const KernelVariant& variant) {
  const std::lock_guard lock(kernelsMutex_);
  auto key = std::make_pair(path, variant);
  if (auto found = kernels_.find(key); found != kernels_.end()) return found->second;
  auto kernel = std::make_shared<Kernel>();
  kernel->path_ = path;
  kernel->variant_ = variant;
  if (!variant.defines.empty() && spirv_.count(path))
    throw Error("shader '" + path + "'" + variantText(variant) + ": precompiled SPIR-V takes no defines (only specialisation constants)");
  // Variants with defines are embedded too when cmake/ShaderVariants.cmake lists them.
  const bool embedded = !hotReloadEnabled() && detail::findEmbeddedFlavour(path, variant.defines, float64());
  build(*kernel, embedded);
  kernels_.emplace(std::move(key), kernel);
  if (usedBefore_.count(kernelId(path, variant))) warmer_->add(kernel);
  return kernel;
}

void ShaderLibrary::enableHotReload(const fs::path& sourceDir) {
#if !VOXEN_HOT_RELOAD
  throw Error("hot reload of " + sourceDir.string() +
              " is unavailable: this Voxen was built without glslang (VOXEN_HOT_RELOAD=OFF), so kernels come only "
              "from the SPIR-V built into the library");
#endif
  // Watched by its absolute path: the watcher reports files under the path it was given, and
  // they are matched against kernels' dependencies relative to sourceDir_ (a relative folder,
  // `--hot-reload=shaders`, made every change miss).
  const fs::path absolute = fs::absolute(sourceDir);
  watch(absolute);  // throws when the folder is missing
  sourceDir_ = absolute;
  tree_->replaceFirst(std::make_unique<DirectorySourceTree>(sourceDir_));
  for (size_t i = 0; i < roots_.size(); ++i)
    if (!rootWatched_[i]) watch(roots_[i]), rootWatched_[i] = true;
  // Rebuild what exists from the folder, so that every kernel knows its dependencies.
  warmer_->drain();
  for (auto& [key, kernel] : kernels_) {
    if (spirv_.count(kernel->path_)) continue;  // precompiled: nothing to compile
    const VkPipeline old = kernel->pipeline_;
    build(*kernel, false);
    retired_.emplace_back(old, UINT64_MAX);  // destroyed at the first collect after the next submission
    ++kernel->generation_;
  }
  log(LogLevel::Info, "hot reload on: watching " + sourceDir_.string());
}

void ShaderLibrary::watch(const fs::path& dir) {
  if (!watcher_) {
    auto watcher = std::make_unique<FileWatcher>();
    watcher->watchTree(dir);
    watcher_ = std::move(watcher);
  } else {
    watcher_->watchTree(dir);
  }
}

std::string ShaderLibrary::ownerOf(const std::string& name) const {
  for (const EmbeddedFile& file : detail::embeddedShaderFiles())
    if (name == file.path) return "an engine shader file";
  if (hotReloadEnabled() && fs::exists(sourceDir_ / name)) return "an engine shader file in " + sourceDir_.string();
  for (const fs::path& root : roots_)
    if (fs::exists(root / name)) return "a file in shader root '" + root.string() + "'";
  if (spirv_.count(name)) return "precompiled SPIR-V added earlier";
  return {};
}

void ShaderLibrary::addShaderRoot(const fs::path& dir, ShaderRootOptions options) {
  const fs::path absolute = fs::absolute(dir).lexically_normal();
  if (!fs::is_directory(absolute)) throw Error("shader root '" + dir.string() + "' is not a folder");
  for (const fs::path& root : roots_)
    if (root == absolute) throw Error("shader root '" + dir.string() + "' was added already");
  // Every file the compiler could read by name, includes too: a program's "map/x.glsl" would
  // otherwise change what an engine shader includes, or be silently hidden by the engine's.
  static const std::set<std::string> kShaderExtensions{".comp", ".glsl", ".h", ".vert", ".frag"};
  for (const auto& entry : fs::recursive_directory_iterator(absolute)) {
    if (!entry.is_regular_file() || !kShaderExtensions.count(entry.path().extension().string())) continue;
    const std::string name = entry.path().lexically_relative(absolute).generic_string();
    if (const std::string owner = ownerOf(name); !owner.empty())
      throw Error("shader root '" + dir.string() + "': '" + name + "' has the name of " + owner +
                  "; move the program's shaders into a folder of their own");
  }
  const bool watched = options.watch || hotReloadEnabled();
  if (watched) watch(absolute);
  roots_.push_back(absolute);
  rootWatched_.push_back(watched);
  tree_->add(std::make_unique<DirectorySourceTree>(absolute));
}

void ShaderLibrary::addSpirv(const std::string& name, std::vector<uint32_t> words) {
  constexpr uint32_t kSpirvMagic = 0x07230203u;
  if (name.empty()) throw Error("precompiled SPIR-V needs a name");
  if (words.size() < 5 || words[0] != kSpirvMagic)
    throw Error("precompiled shader '" + name + "' is not SPIR-V (" + std::to_string(words.size()) +
                " words, no SPIR-V magic number first)");
  if (const std::string owner = ownerOf(name); !owner.empty())
    throw Error("precompiled shader '" + name + "' has the name of " + owner);
  spirv_.emplace(name, std::move(words));
}

std::string ShaderLibrary::treePathOf(const fs::path& file) const {
  auto under = [&](const fs::path& root) {
    const fs::path relative = file.lexically_relative(root);
    return !root.empty() && !relative.empty() && *relative.begin() != ".." ? relative.generic_string() : std::string();
  };
  if (std::string path = under(sourceDir_); !path.empty()) return path;
  for (const fs::path& root : roots_)
    if (std::string path = under(root); !path.empty()) return path;
  return {};
}

size_t ShaderLibrary::reloadChanged(uint64_t lastSubmitted, bool sharedDevice) {
  const std::lock_guard lock(kernelsMutex_);
  // UINT64_MAX - 1: kept until the library goes (several timelines may use it).
  for (auto& entry : retired_)
    if (entry.second == UINT64_MAX) entry.second = sharedDevice ? UINT64_MAX - 1 : lastSubmitted;
  if (!watcher_) return 0;
  const auto changed = watcher_->poll();
  if (changed.empty()) return 0;
  warmer_->drain();  // pipelines are swapped below
  std::set<std::string> changedPaths;
  for (const auto& file : changed)
    if (std::string path = treePathOf(file); !path.empty()) changedPaths.insert(std::move(path));

  // Every affected kernel variant is rebuilt, but the messages are per file: one line per
  // changed file naming the kernels it swapped, one per distinct compile error, one per
  // shader that compiles again. A file that several variants (or kernels) include is one
  // edit, not ten.
  std::map<std::string, std::set<std::string>> reloadedBy;  // changed file -> kernel paths swapped
  std::map<std::string, size_t> pipelinesBy;                // changed file -> pipelines swapped
  std::map<std::string, std::set<std::string>> failedWith;  // error text -> kernel paths
  std::set<std::string> failingNow, swappedPaths;
  size_t swapped = 0;
  for (auto& [key, kernel] : kernels_) {
    std::vector<std::string> causes;
    for (const auto& path : changedPaths)
      if (kernel->dependencies_.count(path)) causes.push_back(path);
    if (causes.empty()) continue;
    CompileResult result = compile(kernel->path_, kernel->variant_);
    if (!result.ok()) {
      failed_[kernel->path_] = result.errors;
      failingNow.insert(kernel->path_);
      failedWith[result.errorText()].insert(kernel->path_);
      // Keep what the broken file includes watched, so that fixing an include recovers too.
      kernel->dependencies_.insert(result.dependencies.begin(), result.dependencies.end());
      continue;
    }
    VkPipeline pipeline = createPipeline(result.spirv, kernel->variant_, false);
    std::lock_guard lock(kernel->mutex_);
    retired_.emplace_back(kernel->pipeline_, sharedDevice ? UINT64_MAX - 1 : lastSubmitted);
    kernel->pipeline_ = pipeline;
    kernel->spirv_ = {};
    kernel->localSize_ = spirvLocalSize(result.spirv);
    kernel->dependencies_ = std::move(result.dependencies);
    ++kernel->generation_;
    ++swapped;
    swappedPaths.insert(kernel->path_);
    for (const std::string& cause : causes) {
      reloadedBy[cause].insert(kernel->path_);
      ++pipelinesBy[cause];
    }
  }
  for (const auto& [error, paths] : failedWith)
    log(LogLevel::Error, "shader reload failed, keeping the previous pipeline of " + joined(paths) + ":\n" + error);
  // A shader compiles again once none of its variants fails any more.
  for (const std::string& path : swappedPaths)
    if (!failingNow.count(path) && failed_.erase(path)) log(LogLevel::Info, "shader " + path + " compiles again");
  for (const auto& [file, kernels] : reloadedBy) {
    const size_t pipelines = pipelinesBy[file];
    std::string line = "reloaded " + file;
    if (kernels.size() > 1 || *kernels.begin() != file) line += ": " + joined(kernels);
    if (pipelines > kernels.size()) line += " (" + std::to_string(pipelines) + " pipelines)";
    log(LogLevel::Info, line);
  }
  return swapped;
}

void ShaderLibrary::collectRetired(uint64_t completed) {
  const std::lock_guard lock(kernelsMutex_);
  std::erase_if(retired_, [&](const std::pair<VkPipeline, uint64_t>& entry) {
    if (entry.second > completed) return false;
    vkDestroyPipeline(device_.handle(), entry.first, nullptr);
    return true;
  });
}

std::vector<ShaderDiagnostic> ShaderLibrary::reloadErrors() const {
  const std::lock_guard lock(kernelsMutex_);
  std::vector<ShaderDiagnostic> all;
  for (const auto& [path, errors] : failed_) all.insert(all.end(), errors.begin(), errors.end());
  return all;
}

}  // namespace voxen
