// Several devices in one process, made and destroyed in any order (a Python program makes a
// Context, lists the devices, makes another): volk's function pointers are process-wide and
// reloaded by every instance, so a device must not depend on the last instance loaded.
#include <catch2/catch.hpp>

#include <memory>

#include "support/gpu_fixture.hpp"
#include "voxen/host/device.hpp"

TEST_CASE("A validated device outlives device listing and an unvalidated device", "[device][validation]") {
  auto options = vt::validatedDeviceOptions();
  auto validated = std::make_unique<voxen::Device>(options);
  // Each of these loads an instance without the debug-utils extension into volk.
  CHECK_FALSE(voxen::Device::listDevices().empty());
  voxen::DeviceOptions plain;
  plain.validation = false;
  auto unvalidated = std::make_unique<voxen::Device>(plain);
  unvalidated.reset();
  // Destroying the validated device destroys its debug messenger: through its own instance's
  // function, not the null one the later instances left in volk.
  validated.reset();
  SUCCEED();
}
