#pragma once
// The device and the host a run measured, as the reports write them: the device's JSON
// object in `voxen check --json` and `voxen bench all --json`, and the host CPU that the CPU
// references ran on. The device's words come from the check module (describeDevice), which
// takes them from the host's.
#include <string>

#include "report/json_output.hpp"
#include "voxen/check/device_check.hpp"

namespace voxen::cli {

// {"name", "type", "driver", "driver_info", "api_version"}, in that order.
Json deviceJson(const DeviceDescription& device);

// The host CPU's model and its hardware threads: "AMD EPYC (2 hardware threads)".
std::string hostCpuText();

}  // namespace voxen::cli
