#pragma once
// Where `voxen export` runs its 2D distance transforms (a heightmap's --costmap inflation, a
// map's --esdf-slice): --device gpu or a named device: that device's GPU passes; --device
// auto (the default): the GPU, except on a CPU driver (lavapipe), where the CPU reference on
// the host is the faster of the two, as `voxen heightmap` chooses, and except where no
// Vulkan device opens at all. The output is the same byte for byte either way
// (voxen/distance/distance_transform_2d.hpp).
#include <memory>
#include <optional>
#include <string>

#include "cli_options.hpp"
#include "voxen/context.hpp"

namespace voxen::cli {

class ExportDevice {
 public:
  explicit ExportDevice(const CommonOptions& common);
  // The scheduler of the GPU chosen; null: the CPU reference.
  Scheduler* scheduler() { return context_ && !cpu_ ? &context_->scheduler() : nullptr; }
  // "the GPU (NVIDIA H200)", "the CPU reference (--device auto: llvmpipe is a CPU driver ...)"
  const std::string& description() const { return description_; }

 private:
  std::optional<Context> context_;
  bool cpu_ = false;
  std::string description_;
};

// --device and --validation given to an export with no GPU work: a UsageError naming them.
void refuseDeviceFlags(const CommonOptions& common, const std::string& why);

}  // namespace voxen::cli
