#include "report/device_report.hpp"

#include <sys/utsname.h>

#include <algorithm>
#include <fstream>
#include <thread>

namespace voxen::cli {

Json deviceJson(const DeviceDescription& device) {
  return {{"name", device.name},
          {"type", device.type},
          {"driver", device.driverName},
          {"driver_info", device.driverInfo},
          {"api_version", device.apiVersion}};
}

std::string hostCpuText() {
  std::ifstream in("/proc/cpuinfo");
  std::string model;
  for (std::string line; std::getline(in, line);)
    if (line.rfind("model name", 0) == 0 && line.find(':') != std::string::npos) {
      model = line.substr(line.find(':') + 1);
      model.erase(0, model.find_first_not_of(" \t"));
      break;
    }
  if (model.empty()) {
    utsname names{};
    model = ::uname(&names) == 0 ? std::string(names.machine) + " CPU" : "an unknown CPU";
  }
  return model + " (" + std::to_string(std::max(1u, std::thread::hardware_concurrency())) + " hardware threads)";
}

}  // namespace voxen::cli
