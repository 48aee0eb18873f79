// The shared device, device selection, memory errors and statistics, and the validation
// plumbing that the whole suite relies on.
#include <catch2/catch.hpp>

#include <volk.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <sys/wait.h>

#include "support/validation_probe.hpp"
#include "support/gpu_fixture.hpp"
#include "voxen/host/buffer.hpp"
#include "voxen/host/device.hpp"
#include "voxen/host/error.hpp"

TEST_CASE("The shared device meets Voxen's requirements", "[device]") {
  auto& device = vt::gpu().device;
  CHECK(device.handle() != VK_NULL_HANDLE);
  CHECK(device.queue() != VK_NULL_HANDLE);
  CHECK(device.validationEnabled());
  CHECK(voxen::missingFeatures(device.info().capabilities).empty());
  CHECK(voxen::missingFeatures(voxen::queryCapabilities(device.physicalDevice())).empty());
  CHECK_NOTHROW(voxen::requireFeatures(device.info().capabilities));
}

TEST_CASE("Device info is sane", "[device]") {
  const auto& info = vt::gpu().device.info();
  CHECK_FALSE(info.name.empty());
  CHECK(info.name == info.capabilities.deviceName);
  CHECK(info.apiVersion >= VK_API_VERSION_1_2);
  CHECK(info.subgroupSize > 0);
  CHECK((info.subgroupSize & (info.subgroupSize - 1)) == 0);  // a power of two
  CHECK(info.maxComputeWorkGroupCount[0] > 0);
  CHECK(info.maxComputeWorkGroupCount[1] > 0);
  CHECK(info.maxComputeWorkGroupCount[2] > 0);
  CHECK(info.maxComputeWorkGroupInvocations >= 64);  // the selftest shaders use 64
  CHECK(info.maxPushConstantsSize >= 128);
  CHECK(info.maxStorageBufferRange > 0);
  CHECK(info.maxMemoryAllocationSize > 0);
  CHECK_FALSE(info.driverName.empty());
  if (info.isLavapipe()) {
    CHECK(info.type == VK_PHYSICAL_DEVICE_TYPE_CPU);
    CHECK_THAT(info.name, Catch::Contains("llvmpipe"));
  }
  WARN("device: " << info.name << " (" << voxen::deviceTypeName(info.type) << ", " << info.driverName << " "
                  << info.driverInfo << ", Vulkan " << voxen::formatApiVersion(info.apiVersion) << ", subgroup "
                  << info.subgroupSize << ")");
}

TEST_CASE("Device::listDevices lists the shared device as usable", "[device]") {
  const auto devices = voxen::Device::listDevices();
  REQUIRE_FALSE(devices.empty());
  bool found = false;
  for (const auto& d : devices) {
    CHECK_FALSE(d.name.empty());
    if (!d.meetsRequirements) CHECK_FALSE(d.missing.empty());
    if (d.name == vt::gpu().device.info().name) {
      found = true;
      CHECK(d.meetsRequirements);
      CHECK(d.missing.empty());
      CHECK(d.type == vt::gpu().device.info().type);
    }
  }
  CHECK(found);
}

TEST_CASE("A selector that matches no device throws an Error naming it", "[device]") {
  const std::string sharedName = vt::gpu().device.info().name;
  auto options = vt::validatedDeviceOptions();
  options.selector = "no-such-gpu-xyz";
  try {
    voxen::Device device(options);
    FAIL("a device was created for selector 'no-such-gpu-xyz'");
  } catch (const voxen::Error& e) {
    CHECK_THAT(e.what(), Catch::Contains("no-such-gpu-xyz"));
    CHECK_THAT(e.what(), Catch::Contains(sharedName));  // the message lists the devices
  }
}

TEST_CASE("A second device chosen by index lives beside the shared one", "[device]") {
  auto& shared = vt::gpu().device;
  auto options = vt::validatedDeviceOptions();
  options.selector = std::to_string(shared.info().index);
  voxen::Device second(options);
  CHECK(second.info().name == shared.info().name);
  CHECK(second.info().index == shared.info().index);
  CHECK(second.handle() != shared.handle());
  {
    voxen::Buffer a(second, "second-device-buffer", 4096);
    voxen::Buffer b(shared, "shared-device-buffer", 4096);
    CHECK(a.address() != 0);
    CHECK(b.address() != 0);
    CHECK(second.memoryStats().totalBytes() >= 4096);
  }
  CHECK(second.memoryStats().totalBytes() == 0);
  CHECK(second.validationMessageCount() == 0);
}

TEST_CASE("An impossible buffer throws OutOfDeviceMemoryError naming the buffer", "[device][memory]") {
  auto& device = vt::gpu().device;
  const uint64_t before = device.memoryStats().totalBytes();
  const size_t entriesBefore = device.memoryStats().entries().size();
  try {
    voxen::Buffer huge(device, "absurdly-large-test-buffer", 1ull << 50);
    FAIL("a buffer of 2^50 bytes was created");
  } catch (const voxen::OutOfDeviceMemoryError& e) {
    CHECK_THAT(e.what(), Catch::Contains("absurdly-large-test-buffer"));
    CHECK((e.result() == VK_ERROR_OUT_OF_DEVICE_MEMORY || e.result() == VK_ERROR_OUT_OF_HOST_MEMORY));
  }
  // Nothing leaked into the statistics.
  CHECK(device.memoryStats().totalBytes() == before);
  CHECK(device.memoryStats().entries().size() == entriesBefore);
  // A zero-sized buffer is refused too, before Vulkan sees it.
  CHECK_THROWS_AS(voxen::Buffer(device, "empty-test-buffer", 0), voxen::Error);
}

TEST_CASE("Memory stats count a buffer while it lives", "[device][memory]") {
  auto& device = vt::gpu().device;
  auto named = [&](const std::string& name) {
    uint64_t bytes = 0;
    int count = 0;
    for (const auto& e : device.memoryStats().entries())
      if (e.name == name) {
        bytes += e.bytes;
        ++count;
      }
    return std::pair{count, bytes};
  };
  const uint64_t before = device.memoryStats().totalBytes();
  uint32_t heap = 0;
  {
    voxen::Buffer buffer(device, "memory-stats-probe", 3u << 20);
    CHECK(buffer.size() == (3u << 20));
    CHECK(buffer.name() == "memory-stats-probe");
    const auto [count, bytes] = named("memory-stats-probe");
    CHECK(count == 1);
    CHECK(bytes >= (3u << 20));
    CHECK(device.memoryStats().totalBytes() == before + bytes);
    for (const auto& e : device.memoryStats().entries())
      if (e.name == "memory-stats-probe") heap = e.heap;
    CHECK(device.memoryStats().heapBytes(heap) >= bytes);
    bool reported = false;
    for (const auto& h : device.heapReport())
      if (h.heap == heap) {
        reported = true;
        CHECK(h.usedByVoxen >= bytes);
        CHECK(h.size >= bytes);
      }
    CHECK(reported);

    // Moving a buffer moves its entry, it does not duplicate it.
    voxen::Buffer moved = std::move(buffer);
    CHECK(named("memory-stats-probe").first == 1);
    CHECK(moved.handle() != VK_NULL_HANDLE);
    CHECK(buffer.handle() == VK_NULL_HANDLE);  // NOLINT(bugprone-use-after-move): moved-from state is specified
  }
  CHECK(named("memory-stats-probe").first == 0);
  CHECK(device.memoryStats().totalBytes() == before);

  voxen::Buffer upload(device, "memory-stats-upload", 4096, voxen::MemoryKind::HostUpload);
  CHECK(upload.mapped() != nullptr);
  voxen::Buffer readback(device, "memory-stats-readback", 4096, voxen::MemoryKind::HostReadback);
  CHECK(readback.mapped() != nullptr);
  CHECK(named("memory-stats-upload").first == 1);
}

TEST_CASE("Buffer::range checks its bounds", "[device][memory]") {
  voxen::Buffer buffer(vt::gpu().device, "range-probe", 1024);
  const auto r = buffer.range(100, 24);
  CHECK(r.buffer == buffer.handle());
  CHECK(r.offset == 100);
  CHECK(r.size == 24);
  CHECK(r.address == buffer.address() + 100);
  CHECK(std::string(r.name) == "range-probe");
  CHECK(buffer.range(1024, 0).size == 0);
  CHECK_THROWS_AS(buffer.range(1000, 25), voxen::Error);
  CHECK_THROWS_AS(buffer.range(1025, 0), voxen::Error);
  CHECK_THROWS_AS(buffer.range(8, ~0ull), voxen::Error);
  const voxen::BufferRange whole = buffer;
  CHECK(whole.size == 1024);
  CHECK(whole.address == buffer.address());
}

namespace {
// Creates a raw buffer of size 0, which the validation layer reports as
// VUID-VkBufferCreateInfo-size-00912; destroys it if the driver made one anyway.
void createInvalidBuffer() { vt::createZeroSizeBuffer(vt::gpu().device.handle()); }
}  // namespace

TEST_CASE("Validation messages reach the test recorder", "[device][validation]") {
  auto& device = vt::gpu().device;
  const uint64_t countBefore = device.validationMessageCount();
  {
    vt::ExpectValidationMessage guard("VUID-VkBufferCreateInfo-size-00912");
    createInvalidBuffer();
    CHECK(guard.seen() >= 1);
    for (const auto& m : guard.messages()) INFO(vt::describe(m));
  }
  CHECK(device.validationMessageCount() > countBefore);
  // The guard consumed it: nothing is left to fail this test case.
  CHECK(vt::validation().pendingCount() == 0);
}

TEST_CASE("Synchronization validation is active on the shared device", "[device][validation]") {
  // Two fills of one buffer without a barrier between them: a write-after-write hazard that
  // only synchronization validation reports. The scheduler's transfers rely on it.
  auto& device = vt::gpu().device;
  const VkDevice vk = device.handle();
  voxen::Buffer buffer(device, "sync-validation-probe", 1024);
  VkCommandPoolCreateInfo poolInfo{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  poolInfo.queueFamilyIndex = device.queueFamily();
  VkCommandPool pool = VK_NULL_HANDLE;
  REQUIRE(vkCreateCommandPool(vk, &poolInfo, nullptr, &pool) == VK_SUCCESS);
  VkCommandBufferAllocateInfo allocate{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  allocate.commandPool = pool;
  allocate.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  allocate.commandBufferCount = 1;
  VkCommandBuffer cmd = VK_NULL_HANDLE;
  REQUIRE(vkAllocateCommandBuffers(vk, &allocate, &cmd) == VK_SUCCESS);
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  {
    vt::ExpectValidationMessage guard("SYNC-HAZARD-WRITE-AFTER-WRITE");
    REQUIRE(vkBeginCommandBuffer(cmd, &begin) == VK_SUCCESS);
    vkCmdFillBuffer(cmd, buffer.handle(), 0, VK_WHOLE_SIZE, 1u);
    vkCmdFillBuffer(cmd, buffer.handle(), 0, VK_WHOLE_SIZE, 2u);
    vkEndCommandBuffer(cmd);
    CHECK(guard.seen() >= 1);
  }
  vkDestroyCommandPool(vk, pool, nullptr);
}

// Run only by the next test case, in a child process: an unexpected validation message must
// make the run fail.
TEST_CASE("validation canary: an unguarded validation message", "[.][validation-canary]") { createInvalidBuffer(); }

namespace {
struct ChildRun {
  int exitCode = -1;
  std::string output;
};
// Runs this test binary on a test filter in a child process, capturing stdout and stderr.
ChildRun runSelf(const std::string& filter) {
  const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  const std::string command = "'" + self + "' \"" + filter + "\" 2>&1";
  FILE* pipe = ::popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  ChildRun run;
  std::array<char, 4096> chunk{};
  while (size_t n = std::fread(chunk.data(), 1, chunk.size(), pipe)) run.output.append(chunk.data(), n);
  const int status = ::pclose(pipe);
  REQUIRE(WIFEXITED(status));
  run.exitCode = WEXITSTATUS(status);
  return run;
}
}  // namespace

TEST_CASE("An unexpected validation message fails the test case and the process", "[device][validation]") {
  const auto run = runSelf("[validation-canary]");
  INFO("child output:\n" << run.output);
  CHECK(run.exitCode != 0);
  CHECK_THAT(run.output, Catch::Contains("VALIDATION FAILURE in test case 'validation canary: an unguarded validation message'"));
  CHECK_THAT(run.output, Catch::Contains("VUID-VkBufferCreateInfo-size-00912"));
}

// Run only by the next test case, in a child process: creates and destroys a validated device.
TEST_CASE("validation canary: a clean validated device", "[.][validation-clean-device]") {
  voxen::Device device(vt::validatedDeviceOptions());
  voxen::Buffer buffer(device, "clean-device-buffer", 1024);
  CHECK(device.validationEnabled());
}

TEST_CASE("Creating and destroying a validated device reports nothing", "[device][validation]") {
  // Messages the layer reports before Voxen's messenger exists (while it is being created)
  // or after it is gone bypass the recorder and are only printed: catch them in the output.
  const auto run = runSelf("[validation-clean-device]");
  INFO("child output:\n" << run.output);
  CHECK(run.exitCode == 0);
  CHECK_THAT(run.output, !Catch::Contains("Validation Error"));
  CHECK_THAT(run.output, !Catch::Contains("Validation Warning"));
  CHECK_THAT(run.output, !Catch::Contains("VUID"));
  CHECK_THAT(run.output, Catch::Contains("All tests passed"));
}
