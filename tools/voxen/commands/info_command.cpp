// `voxen info`: what Voxen sees of the GPU it would run on.
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>

#include "commands.hpp"
#include "commands/map_source.hpp"
#include "voxen/host/embedded_shaders.hpp"

namespace voxen::cli {

namespace {

const char* yesNo(bool value) { return value ? "yes" : "no"; }

void printFeatures(const DeviceCapabilities& caps) {
  std::printf("features Voxen requires:\n");
  std::printf("  %-36s %s\n", "Vulkan 1.2", yesNo(caps.apiVersion >= VK_API_VERSION_1_2));
  std::printf("  %-36s %s\n", "bufferDeviceAddress", yesNo(caps.bufferDeviceAddress));
  std::printf("  %-36s %s\n", "timelineSemaphore", yesNo(caps.timelineSemaphore));
  std::printf("  %-36s %s\n", "shaderInt64", yesNo(caps.shaderInt64));
  std::printf("  %-36s %s\n", "shaderBufferInt64Atomics", yesNo(caps.shaderBufferInt64Atomics));
  std::printf("  %-36s %s\n", "subgroup basic/shuffle/arithmetic",
              yesNo(caps.subgroupInCompute && caps.subgroupBasic && caps.subgroupShuffle && caps.subgroupArithmetic));
  std::printf("features Voxen uses when present:\n");
  std::printf("  %-36s %s\n", "shaderBufferFloat32AtomicAdd", yesNo(caps.shaderBufferFloat32AtomicAdd));
  std::printf("  %-36s %s\n", "VK_EXT_memory_budget", yesNo(caps.memoryBudget));
  std::printf("  %-36s %s\n", "timestamps on the compute queue", yesNo(caps.timestamps));
  std::printf("  %-36s %s\n", "shaderFloat64 (exact division, sqrt)", yesNo(caps.shaderFloat64));
}

void printLimits(const DeviceInfo& info) {
  std::printf("limits:\n");
  std::printf("  %-36s %u\n", "subgroup size", info.subgroupSize);
  std::printf("  %-36s %u x %u x %u\n", "max workgroup count", info.maxComputeWorkGroupCount[0],
              info.maxComputeWorkGroupCount[1], info.maxComputeWorkGroupCount[2]);
  std::printf("  %-36s %u\n", "max workgroup invocations", info.maxComputeWorkGroupInvocations);
  std::printf("  %-36s %u bytes\n", "max push constants", info.maxPushConstantsSize);
  std::printf("  %-36s %s\n", "max storage buffer range", formatBytes(info.maxStorageBufferRange).c_str());
  std::printf("  %-36s %s\n", "max memory allocation", formatBytes(info.maxMemoryAllocationSize).c_str());
  std::printf("  %-36s %.3f ns\n", "timestamp period", info.timestampPeriodNs);
}

void printHeaps(const Device& device) {
  std::printf("memory heaps:\n");
  for (const HeapReport& heap : device.heapReport()) {
    std::printf("  heap %u: %s%s", heap.heap, formatBytes(heap.size).c_str(), heap.deviceLocal ? ", device-local" : "");
    if (heap.budget) std::printf(", budget %s, in use %s", formatBytes(heap.budget).c_str(), formatBytes(heap.driverUsage).c_str());
    std::printf("\n");
  }
}

}  // namespace

int mapInfo(const CommonOptions& options, const std::string& path, bool verify, const std::string& session);  // map_info_command.cpp

namespace {

struct InfoArgs {
  std::string mapPath;  // empty: the device
  std::string session;  // --session: one session of a server store
  bool verify = false;
};

int deviceInfo(const CommonOptions& options) {
  const auto devices = Device::listDevices();
  Device device(options.device);
  const DeviceInfo& info = device.info();
  std::printf("device [%u]: %s (%s)\n", info.index, info.name.c_str(), deviceTypeName(info.type));
  std::printf("  Vulkan %s, driver %s (%s)\n", formatApiVersion(info.apiVersion).c_str(), info.driverName.c_str(),
              info.driverInfo.c_str());
  printFeatures(info.capabilities);
  printLimits(info);
  printHeaps(device);
  size_t shaders = 0;
  for (const auto& file : detail::embeddedShaderFiles())
    shaders += file.kind == EmbeddedFile::Kind::Spirv && detail::isComputeShader(file);
  std::printf("embedded compute shaders: %zu\n", shaders);
  std::printf("devices present:\n");
  for (size_t i = 0; i < devices.size(); ++i) {
    const auto& d = devices[i];
    std::printf("  [%zu] %s (%s, Vulkan %s, %s)%s%s\n", i, d.name.c_str(), deviceTypeName(d.type),
                formatApiVersion(d.apiVersion).c_str(), d.driverName.c_str(), d.meetsRequirements ? "" : " unusable: lacks ",
                d.meetsRequirements ? "" : d.missing.c_str());
  }
  return 0;
}

CommandRun setupInfo(CLI::App& command) {
  auto args = std::make_shared<InfoArgs>();
  command.add_option("map", args->mapPath, "a map file: show what it holds instead of the device")->type_name("MAP.vxm");
  command.add_flag("--verify", args->verify, "with MAP.vxm: decompress every region and check it");
  addSessionOption(command, args->session);
  return [args](const CommonOptions& options) {
    if (args->mapPath.empty()) {
      if (args->verify) throw UsageError("--verify needs a map file (info MAP.vxm --verify)");
      if (options.given.count("--json"))
        throw UsageError("--json goes with a map file (info MAP.vxm --json): the device report has no JSON output");
      if (options.given.count("--memory-budget"))
        throw UsageError("--memory-budget goes with a map file (info MAP.vxm --memory-budget MB): the device report "
                         "loads no map");
      if (!args->session.empty()) throw UsageError("--session goes with a PostgreSQL store (info postgresql://... --session NAME)");
      return deviceInfo(options);
    }
    options.refuseWith({"--device", "--validation"}, "a map file", "voxen info MAP.vxm reads the file and opens no device");
    if (!args->mapPath.ends_with(".vxm") && !isPostgresTarget(args->mapPath) && !std::filesystem::is_regular_file(args->mapPath))
      throw UsageError("unexpected argument '" + redactedStoreName(args->mapPath) + "' (not a map file)");
    return mapInfo(options, args->mapPath, args->verify, args->session);
  };
}

}  // namespace

static CommandRegistration registration{
    "info", "the chosen Vulkan device, its features and limits, and the other devices; or with MAP.vxm, that map file",
    &setupInfo,
                                        Uses::Device | Uses::Json | Uses::MemoryBudget};

}  // namespace voxen::cli
