// Device choice and feature requirements: pure functions over plain structs.
#include <catch2/catch.hpp>

#include "support/test_helpers.hpp"

#include <algorithm>
#include <cctype>
#include <functional>
#include <numeric>

#include "voxen/host/device_requirements.hpp"
#include "voxen/host/error.hpp"

namespace {

using voxen::DeviceCandidate;

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return s;
}

int rank(VkPhysicalDeviceType type) {
  switch (type) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return 0;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return 1;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return 2;
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return 3;
    default: return 4;
  }
}

const std::vector<DeviceCandidate> kMixed = {
    {"llvmpipe (LLVM 15.0.6, 256 bits)", VK_PHYSICAL_DEVICE_TYPE_CPU},
    {"Virtio-GPU Venus", VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU},
    {"Intel(R) UHD Graphics 770", VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU},
    {"NVIDIA GeForce RTX 4090", VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU},
    {"Mystery Accelerator", VK_PHYSICAL_DEVICE_TYPE_OTHER},
};

voxen::DeviceCapabilities everything() {
  voxen::DeviceCapabilities caps;
  caps.deviceName = "Test GPU 9000";
  caps.apiVersion = VK_API_VERSION_1_3;
  caps.computeQueue = caps.bufferDeviceAddress = caps.timelineSemaphore = caps.shaderInt64 = true;
  caps.shaderBufferInt64Atomics = caps.subgroupInCompute = caps.subgroupBasic = caps.subgroupShuffle = true;
  caps.subgroupArithmetic = true;
  caps.shaderBufferFloat32AtomicAdd = caps.memoryBudget = caps.timestamps = true;
  return caps;
}

}  // namespace

TEST_CASE("chooseDevice prefers discrete, then integrated, then virtual, then CPU", "[device][logic]") {
  CHECK(voxen::chooseDevice(kMixed, "") == 3);

  // Whatever the order the loader reports them in, the best type wins.
  std::vector<size_t> order(kMixed.size());
  std::iota(order.begin(), order.end(), 0);
  int permutations = 0;
  do {
    std::vector<DeviceCandidate> shuffled;
    for (size_t i : order) shuffled.push_back(kMixed[i]);
    // Drop the best ones one after another: the next best type must win each time.
    for (size_t keep = shuffled.size(); keep >= 1; --keep) {
      std::vector<DeviceCandidate> subset;
      for (const auto& c : shuffled)
        if (rank(c.type) >= int(shuffled.size() - keep)) subset.push_back(c);
      if (subset.empty()) continue;
      const uint32_t chosen = voxen::chooseDevice(subset, "");
      REQUIRE(chosen < subset.size());
      int best = 99;
      for (const auto& c : subset) best = std::min(best, rank(c.type));
      INFO("chose " << subset[chosen].name);
      REQUIRE(rank(subset[chosen].type) == best);
    }
    ++permutations;
  } while (std::next_permutation(order.begin(), order.end()));
  CHECK(permutations == 120);

  CHECK(voxen::chooseDevice({{"llvmpipe", VK_PHYSICAL_DEVICE_TYPE_CPU}}, "") == 0);
  CHECK(voxen::chooseDevice({{"llvmpipe", VK_PHYSICAL_DEVICE_TYPE_CPU}, {"iGPU", VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU}}, "") == 1);
  CHECK(voxen::chooseDevice({{"vGPU", VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU}, {"llvmpipe", VK_PHYSICAL_DEVICE_TYPE_CPU}}, "") == 0);
}

TEST_CASE("chooseDevice takes an index selector", "[device][logic]") {
  for (uint32_t i = 0; i < kMixed.size(); ++i) CHECK(voxen::chooseDevice(kMixed, std::to_string(i)) == i);
  // An index overrides the type preference.
  CHECK(voxen::chooseDevice(kMixed, "0") == 0);
}

TEST_CASE("chooseDevice matches a case-insensitive name substring", "[device][logic]") {
  CHECK(voxen::chooseDevice(kMixed, "llvmpipe") == 0);
  CHECK(voxen::chooseDevice(kMixed, "LLVMPIPE") == 0);
  CHECK(voxen::chooseDevice(kMixed, "LlVmPiPe") == 0);
  CHECK(voxen::chooseDevice(kMixed, "rtx") == 3);
  CHECK(voxen::chooseDevice(kMixed, "geforce RTX") == 3);
  CHECK(voxen::chooseDevice(kMixed, "intel") == 2);
  CHECK(voxen::chooseDevice(kMixed, "venus") == 1);
  CHECK(voxen::chooseDevice(kMixed, "mystery") == 4);
}

TEST_CASE("chooseDevice errors list the devices", "[device][logic]") {
  SECTION("index out of range") {
    const std::string message = vt::errorOf([] { voxen::chooseDevice(kMixed, "5"); });
    for (const auto& c : kMixed) CHECK_THAT(message, Catch::Contains(c.name));
    CHECK_THAT(message, Catch::Contains("5"));
    CHECK_THROWS_AS(voxen::chooseDevice(kMixed, "17"), voxen::Error);
  }
  SECTION("no name matches") {
    const std::string message = vt::errorOf([] { voxen::chooseDevice(kMixed, "radeon"); });
    CHECK_THAT(message, Catch::Contains("radeon"));
    for (const auto& c : kMixed) CHECK_THAT(message, Catch::Contains(c.name));
  }
  SECTION("no devices at all") {
    CHECK_THROWS_AS(voxen::chooseDevice({}, ""), voxen::Error);
    CHECK_THROWS_AS(voxen::chooseDevice({}, "0"), voxen::Error);
  }
}

TEST_CASE("missingFeatures and requireFeatures name each missing feature and the device", "[device][logic]") {
  const auto full = everything();
  CHECK(voxen::missingFeatures(full).empty());
  CHECK_NOTHROW(voxen::requireFeatures(full));

  // Optional features are never required.
  auto optional = full;
  optional.shaderBufferFloat32AtomicAdd = optional.memoryBudget = optional.timestamps = false;
  CHECK(voxen::missingFeatures(optional).empty());
  CHECK_NOTHROW(voxen::requireFeatures(optional));

  struct Case {
    const char* keyword;  // what the name of the missing feature must mention
    std::function<void(voxen::DeviceCapabilities&)> remove;
  };
  const std::vector<Case> cases = {
      {"1.2", [](auto& c) { c.apiVersion = VK_API_VERSION_1_1; }},
      {"compute", [](auto& c) { c.computeQueue = false; }},
      {"bufferDeviceAddress", [](auto& c) { c.bufferDeviceAddress = false; }},
      {"timelineSemaphore", [](auto& c) { c.timelineSemaphore = false; }},
      {"shaderInt64", [](auto& c) { c.shaderInt64 = false; }},
      {"shaderBufferInt64Atomics", [](auto& c) { c.shaderBufferInt64Atomics = false; }},
      {"subgroup", [](auto& c) { c.subgroupInCompute = false; }},
      {"basic", [](auto& c) { c.subgroupBasic = false; }},
      {"shuffle", [](auto& c) { c.subgroupShuffle = false; }},
      {"arithmetic", [](auto& c) { c.subgroupArithmetic = false; }},
  };
  std::vector<std::string> names;
  for (const auto& test : cases) {
    auto caps = full;
    test.remove(caps);
    const auto missing = voxen::missingFeatures(caps);
    INFO("removed: " << test.keyword);
    REQUIRE(missing.size() == 1);
    CHECK_THAT(lower(missing[0]), Catch::Contains(lower(test.keyword)));
    names.push_back(missing[0]);
    try {
      voxen::requireFeatures(caps);
      FAIL("requireFeatures accepted a device without " << test.keyword);
    } catch (const voxen::FeatureError& e) {
      CHECK_THAT(e.what(), Catch::Contains("Test GPU 9000"));
      CHECK_THAT(e.what(), Catch::Contains(missing[0]));
    }
  }
  // Each feature has its own name.
  std::sort(names.begin(), names.end());
  CHECK(std::unique(names.begin(), names.end()) == names.end());

  // With everything missing, every feature is named in one message.
  voxen::DeviceCapabilities nothing;
  nothing.deviceName = "Potato Graphics";
  const auto missing = voxen::missingFeatures(nothing);
  CHECK(missing.size() == cases.size());
  try {
    voxen::requireFeatures(nothing);
    FAIL("requireFeatures accepted a device with nothing");
  } catch (const voxen::FeatureError& e) {
    CHECK_THAT(e.what(), Catch::Contains("Potato Graphics"));
    for (const auto& name : missing) CHECK_THAT(e.what(), Catch::Contains(name));
    // The remedy names the API's setting; the voxen tool words it as --device.
    CHECK(e.field() == "DeviceOptions::selector");
    CHECK_THAT(e.what(), Catch::Contains("DeviceOptions::selector") && !Catch::Contains("--device"));
    CHECK_THAT(e.naming("--device"), Catch::EndsWith("(choose another device with VOXEN_DEVICE or --device)"));
  }
  CHECK_THROWS_AS(voxen::requireFeatures(nothing), voxen::Error);  // FeatureError is an Error
}
