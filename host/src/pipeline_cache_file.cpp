#include "voxen/host/pipeline_cache_file.hpp"

#include <volk.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <system_error>

namespace voxen::detail {

namespace fs = std::filesystem;

namespace {

constexpr char kMagic[8] = {'V', 'O', 'X', 'P', 'C', 'A', 'C', 'H'};
constexpr uint32_t kFormatVersion = 1;

void put32(std::vector<uint8_t>& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(uint8_t(v >> (8 * i)));
}
void put64(std::vector<uint8_t>& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(uint8_t(v >> (8 * i)));
}
uint32_t get32(const uint8_t* p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}
uint64_t get64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

// magic, format version, key size, key, data size, data checksum.
std::vector<uint8_t> header(const PipelineCacheKey& key, const std::vector<uint8_t>& data) {
  std::vector<uint8_t> out(kMagic, kMagic + sizeof(kMagic));
  put32(out, kFormatVersion);
  const std::vector<uint8_t> keyBytes = key.bytes();
  put32(out, uint32_t(keyBytes.size()));
  out.insert(out.end(), keyBytes.begin(), keyBytes.end());
  put64(out, data.size());
  put64(out, hashBytes(data.data(), data.size()));
  return out;
}

// Vulkan's VkPipelineCacheHeaderVersionOne at the start of the driver's data.
std::string vulkanHeaderProblem(const std::vector<uint8_t>& data, const PipelineCacheKey& key) {
  if (data.size() < 16 + VK_UUID_SIZE) return "the driver's data is shorter than Vulkan's header";
  const uint32_t headerSize = get32(data.data()), version = get32(data.data() + 4);
  if (headerSize < 16 + VK_UUID_SIZE || headerSize > data.size()) return "Vulkan's header has a bad size";
  if (version != VK_PIPELINE_CACHE_HEADER_VERSION_ONE) return "Vulkan's header has an unknown version";
  if (get32(data.data() + 8) != key.vendorId || get32(data.data() + 12) != key.deviceId ||
      std::memcmp(data.data() + 16, key.pipelineCacheUuid.data(), VK_UUID_SIZE) != 0)
    return "Vulkan's header names another device or driver";
  return {};
}

std::optional<fs::path> dirFromSetting(const std::string& setting) {
  if (setting == "off" || setting == "0") return std::nullopt;
  return fs::path(setting);
}

}  // namespace

uint64_t hashBytes(const void* data, size_t size, uint64_t seed) {
  const auto* p = static_cast<const uint8_t*>(data);
  uint64_t h = seed;
  for (size_t i = 0; i < size; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}

std::vector<uint8_t> PipelineCacheKey::bytes() const {
  std::vector<uint8_t> out;
  out.insert(out.end(), deviceUuid.begin(), deviceUuid.end());
  out.insert(out.end(), driverUuid.begin(), driverUuid.end());
  out.insert(out.end(), pipelineCacheUuid.begin(), pipelineCacheUuid.end());
  put32(out, vendorId);
  put32(out, deviceId);
  put32(out, driverVersion);
  put64(out, shaderSetHash);
  return out;
}

std::string PipelineCacheKey::fileName() const {
  const std::vector<uint8_t> b = bytes();
  char hex[17];
  std::snprintf(hex, sizeof(hex), "%016llx", static_cast<unsigned long long>(hashBytes(b.data(), b.size())));
  return std::string("pipelines-") + hex + ".bin";
}

PipelineCacheKey pipelineCacheKey(VkPhysicalDevice physical, uint64_t shaderSetHash) {
  VkPhysicalDeviceIDProperties ids{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES};
  VkPhysicalDeviceProperties2 properties{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, &ids};
  vkGetPhysicalDeviceProperties2(physical, &properties);
  PipelineCacheKey key;
  std::memcpy(key.deviceUuid.data(), ids.deviceUUID, VK_UUID_SIZE);
  std::memcpy(key.driverUuid.data(), ids.driverUUID, VK_UUID_SIZE);
  std::memcpy(key.pipelineCacheUuid.data(), properties.properties.pipelineCacheUUID, VK_UUID_SIZE);
  key.vendorId = properties.properties.vendorID;
  key.deviceId = properties.properties.deviceID;
  key.driverVersion = properties.properties.driverVersion;
  key.shaderSetHash = shaderSetHash;
  return key;
}

std::optional<fs::path> pipelineCacheDir(const std::string& setting) {
  if (!setting.empty()) return dirFromSetting(setting);
  if (const char* env = std::getenv("VOXEN_PIPELINE_CACHE"); env && *env) return dirFromSetting(env);
  // The XDG base directory spec ignores a relative XDG_CACHE_HOME.
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg == '/') return fs::path(xdg) / "voxen";
  if (const char* home = std::getenv("HOME"); home && *home) return fs::path(home) / ".cache" / "voxen";
  return std::nullopt;
}

PipelineCacheRead readPipelineCacheFile(const fs::path& file, const PipelineCacheKey& key, CachePayload payload) {
  PipelineCacheRead read;
  std::ifstream in(file, std::ios::binary);
  if (!in) return read;
  read.found = true;
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) {
    read.problem = "could not be read";
    return read;
  }
  const std::vector<uint8_t> keyBytes = key.bytes();
  const size_t headerSize = sizeof(kMagic) + 8 + keyBytes.size() + 16;
  if (bytes.size() < headerSize || std::memcmp(bytes.data(), kMagic, sizeof(kMagic)) != 0) {
    read.problem = "is not a Voxen pipeline cache (no header)";
    return read;
  }
  const uint8_t* p = bytes.data() + sizeof(kMagic);
  if (get32(p) != kFormatVersion) {
    read.problem = "has another format version";
    return read;
  }
  if (get32(p + 4) != keyBytes.size() || std::memcmp(p + 8, keyBytes.data(), keyBytes.size()) != 0) {
    read.problem = "was made for another device, driver or shader set";
    return read;
  }
  p += 8 + keyBytes.size();
  const uint64_t size = get64(p), checksum = get64(p + 8);
  if (size != bytes.size() - headerSize) {
    read.problem = "is truncated or has extra bytes (" + std::to_string(bytes.size() - headerSize) + " bytes of data, " +
                   std::to_string(size) + " expected)";
    return read;
  }
  std::vector<uint8_t> data(bytes.begin() + std::ptrdiff_t(headerSize), bytes.end());
  if (hashBytes(data.data(), data.size()) != checksum) {
    read.problem = "is corrupt (its checksum does not match)";
    return read;
  }
  if (std::string problem = payload == CachePayload::DriverData ? vulkanHeaderProblem(data, key) : std::string();
      !problem.empty()) {
    read.problem = problem;
    return read;
  }
  read.data = std::move(data);
  return read;
}

std::string writePipelineCacheFile(const fs::path& file, const PipelineCacheKey& key, const std::vector<uint8_t>& data) {
  std::error_code error;
  fs::create_directories(file.parent_path(), error);
  if (error) return "cannot create " + file.parent_path().string() + ": " + error.message();
  // A name of its own per process and call: concurrent writers never share a temporary file.
  static std::atomic<uint64_t> counter{0};
  const fs::path temporary =
      file.string() + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter.fetch_add(1));
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out) return "cannot write " + temporary.string();
    const std::vector<uint8_t> head = header(key, data);
    out.write(reinterpret_cast<const char*>(head.data()), std::streamsize(head.size()));
    out.write(reinterpret_cast<const char*>(data.data()), std::streamsize(data.size()));
    out.close();
    if (!out) {
      fs::remove(temporary, error);
      return "cannot write " + temporary.string() + " (disk full?)";
    }
  }
  fs::rename(temporary, file, error);
  if (error) {
    const std::string problem = "cannot rename " + temporary.string() + " to " + file.string() + ": " + error.message();
    fs::remove(temporary, error);
    return problem;
  }
  return {};
}

}  // namespace voxen::detail
