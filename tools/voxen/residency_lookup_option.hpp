#pragma once
// --residency-lookup, the same words for the benchmarks that integrate rays on the GPU: where
// a batch's regions are looked up in the region cache (voxen/occupancy/gpu_integrator_options.hpp).
#include <CLI/CLI.hpp>

#include "voxen/occupancy/gpu_integrator_options.hpp"

namespace voxen::cli {

inline CLI::Option* addResidencyLookupOption(CLI::App& command, ResidencyLookup& lookup) {
  return command
      .add_option_function<std::string>(
          "--residency-lookup",
          [&lookup](const std::string& name) {
            lookup = name == "host" ? ResidencyLookup::Host
                     : name == "gpu" ? ResidencyLookup::Gpu
                                     : ResidencyLookup::Adaptive;
          },
          "where a batch's regions are looked up in the GPU region cache: adaptive (on the GPU, in the batch's "
          "own submission, while the batches before found every region resident; else on the host), host (from "
          "the batch's region list read back before its passes: two submissions and a wait per batch) or gpu "
          "(always on the GPU; regions found absent are integrated by a second chunk)")
      ->check(CLI::IsMember({"adaptive", "host", "gpu"}))
      ->default_str("adaptive");
}

inline const char* residencyLookupName(ResidencyLookup lookup) {
  switch (lookup) {
    case ResidencyLookup::Host: return "host";
    case ResidencyLookup::Gpu: return "gpu";
    case ResidencyLookup::Adaptive: break;
  }
  return "adaptive";
}

}  // namespace voxen::cli
