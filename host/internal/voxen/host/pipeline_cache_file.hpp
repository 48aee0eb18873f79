#pragma once
// The file a VkPipelineCache persists in between processes. One file per key: the device
// (UUID, vendor and device id), its driver (UUID, version), the driver's pipelineCacheUUID
// and a hash of the engine's shader set, so that a driver update, another GPU or a new
// build starts a file of its own instead of feeding the driver data it would reject.
//
// A file is our header (magic, format version, the key, the data's size and checksum)
// then the driver's cache data, which starts with Vulkan's own header. Reading checks
// both and hands back nothing (with the reason) for a file that is missing, truncated,
// corrupt or made for another key. Writing goes to a temporary file renamed over the old
// one, so concurrent processes each leave a whole file and a reader never sees half of one.
#include <vulkan/vulkan_core.h>

#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace voxen::detail {

struct PipelineCacheKey {
  std::array<uint8_t, VK_UUID_SIZE> deviceUuid{};
  std::array<uint8_t, VK_UUID_SIZE> driverUuid{};
  std::array<uint8_t, VK_UUID_SIZE> pipelineCacheUuid{};
  uint32_t vendorId = 0;
  uint32_t deviceId = 0;
  uint32_t driverVersion = 0;
  uint64_t shaderSetHash = 0;

  std::vector<uint8_t> bytes() const;  // the key as stored in a file's header
  // "pipelines-<16 hex digits>.bin", from a hash of bytes().
  std::string fileName() const;
};

PipelineCacheKey pipelineCacheKey(VkPhysicalDevice physical, uint64_t shaderSetHash);

// FNV-1a, 64 bits.
uint64_t hashBytes(const void* data, size_t size, uint64_t seed = 0xcbf29ce484222325ull);

// Where the cache lives: `setting` is "off" (or "0"): none; a folder: there; empty: the
// environment's VOXEN_PIPELINE_CACHE read the same way, else $XDG_CACHE_HOME/voxen, else
// $HOME/.cache/voxen, else none.
std::optional<std::filesystem::path> pipelineCacheDir(const std::string& setting);

struct PipelineCacheRead {
  std::vector<uint8_t> data;  // the driver's data, empty when the file was not used
  std::string problem;        // why not: empty when read, or when there was no file
  bool found = false;         // a file existed
};
// What a file holds after our header: the driver's cache data (checked against Vulkan's
// own header too) or the shader library's list of kernels used (text).
enum class CachePayload { DriverData, KernelList };
PipelineCacheRead readPipelineCacheFile(const std::filesystem::path& file, const PipelineCacheKey& key,
                                        CachePayload payload = CachePayload::DriverData);

// Writes `data` for `key` into `file` by temporary file and rename; returns the problem
// (an unwritable folder, a full disk), empty on success.
std::string writePipelineCacheFile(const std::filesystem::path& file, const PipelineCacheKey& key,
                                   const std::vector<uint8_t>& data);

}  // namespace voxen::detail
