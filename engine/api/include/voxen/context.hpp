#pragma once
// voxen::Context: the Vulkan device, the shader library and the scheduler that every GPU
// part of Voxen runs on, set up from one ContextOptions, plus the host memory budget that
// maps and GPU caches are sized against. One Context serves any number of Mappers (they
// share its device and its compiled pipelines).
//
//   voxen::Context ctx;                                  // the best device, no validation
//   voxen::Context gpu({.device = voxen::DeviceChoice::named("NVIDIA"), .validation = true});
//
// The device is opened at the first GPU work (or open() / device()), not in the
// constructor: a program that only loads, saves or maps with the CPU reference opens none.
// Errors opening it (no usable device, a choice that matches none) are voxen::Error thrown
// from there, naming the devices found.
//
// Threads: a Context may be shared by any number of threads. Opening is thread-safe (the
// first caller opens, the others wait for it), and so are device(), shaders(),
// makeScheduler() and the budget. Each Mapper records on schedulers of its own
// (makeScheduler()), so Mappers on different threads never share a command stream; the
// Context's own scheduler() is for the caller's direct GPU work and, like every Scheduler,
// is used by one thread at a time.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace voxen {

class Device;
class ShaderLibrary;
class Scheduler;
struct DeviceInfo;
struct ValidationMessage;

// Which Vulkan device a Context opens.
class DeviceChoice {
 public:
  // $VOXEN_DEVICE when set, else the best usable device: discrete GPU > integrated GPU >
  // CPU driver (lavapipe).
  static DeviceChoice best() { return DeviceChoice(); }
  // The index in the loader's list (voxen info lists them).
  static DeviceChoice index(uint32_t index);
  // The first device whose name contains `substring` (case-insensitive).
  static DeviceChoice named(std::string substring);
  // A command line's selector: digits only is an index, anything else a name, empty best().
  static DeviceChoice parse(const std::string& selector);

  bool isBest() const { return !index_ && name_.empty(); }
  std::optional<uint32_t> indexChosen() const { return index_; }
  const std::string& nameChosen() const { return name_; }

 private:
  std::optional<uint32_t> index_;
  std::string name_;
};

struct ContextOptions {
  DeviceChoice device = DeviceChoice::best();
  // The Vulkan validation layer and its messages (also switched on by VOXEN_VALIDATION=1);
  // synchronizationValidation adds hazard checks and implies validation.
  bool validation = false;
  bool synchronizationValidation = false;
  // Receives every validation message; default: the log sink (voxen/host/log.hpp).
  std::function<void(const ValidationMessage&)> onValidationMessage{};
  // Compile shaders from this folder and reload them when they change (hot reload); unset:
  // the SPIR-V built into the library (or VOXEN_SHADER_DIR when that is set).
  std::optional<std::filesystem::path> hotReloadDir{};
  // Where shader reload messages and compile errors go; default: the log sink.
  std::function<void(const std::string&)> shaderLog{};
  // The persistent pipeline cache (ShaderLibraryOptions::pipelineCache): "off", a folder,
  // or empty for $VOXEN_PIPELINE_CACHE, else $XDG_CACHE_HOME/voxen, else ~/.cache/voxen.
  std::string pipelineCache{};
  // Host memory for maps, render grids and GPU region caches (on a CPU driver the GPU's
  // memory is host memory too), checked before allocating. 0: defaultMemoryBudgetBytes()
  // (a quarter of physical memory, at most 2 GiB).
  uint64_t memoryBudgetBytes = 0;
  // How an error about the budget ends; empty: "raise ContextOptions::memoryBudgetBytes
  // (now N MB)". A program with its own name for the budget (a command-line flag) puts it here.
  std::string memoryHint{};
};

// Wall time of opening a Context, by stage (zero for what a borrowed scheduler brought).
struct ContextSetupTimes {
  double instanceSeconds = 0;
  double deviceSeconds = 0;
  double shaderLibrarySeconds = 0;  // its pipeline layout and the pipeline cache's file
  double schedulerSeconds = 0;
};

class Context {
 public:
  explicit Context(ContextOptions options = {});
  // A Context on a scheduler the program already runs (its device and shader library): the
  // options' device, validation and shader fields are not used, the budget is. The
  // scheduler must outlive the Context and everything made on it.
  explicit Context(Scheduler& existing, ContextOptions options = {});
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  // Opens the device, the shader library and the scheduler now (they open on first use
  // otherwise). Throws Error when no device fits the choice.
  void open();
  bool isOpen() const;

  Device& device();
  ShaderLibrary& shaders();
  // The Context's scheduler: one thread at a time (Scheduler's thread rule).
  Scheduler& scheduler();
  // A new scheduler on the Context's device and shader library, for one thread's (or one
  // object's) GPU work beside the others': its own command buffers, staging ring and
  // timeline, submitted to one of the device's queues in turn. Thread-safe. It must be
  // destroyed before the Context.
  std::unique_ptr<Scheduler> makeScheduler();
  const DeviceInfo& deviceInfo();

  const ContextOptions& options() const;
  // Zeros until the Context is open.
  const ContextSetupTimes& setupTimes() const;
  // The budget in bytes (the default resolved).
  uint64_t memoryBudgetBytes() const;
  // The end of a budget error: options().memoryHint, or the default wording.
  std::string memoryHint() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace voxen
