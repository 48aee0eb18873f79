#pragma once
// A second device, library and scheduler without shaderFloat64, for the plain shader flavour:
// lavapipe has float64, so the shared fixture (vt::gpu()) always runs the float64 flavour, and
// a test that holds a pass to its CPU reference in both flavours makes one of these too.
#include "support/gpu_fixture.hpp"
#include "voxen/host/device.hpp"
#include "voxen/host/scheduler.hpp"
#include "voxen/host/shader_library.hpp"

namespace vt {

struct PlainFlavourGpu {
  PlainFlavourGpu() : device(options()), library(device), scheduler(device, library) {}
  static voxen::DeviceOptions options() {
    voxen::DeviceOptions o = validatedDeviceOptions();
    o.withoutFloat64 = true;
    return o;
  }
  voxen::Device device;
  voxen::ShaderLibrary library;
  voxen::Scheduler scheduler;
};

}  // namespace vt
