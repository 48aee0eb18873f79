#pragma once
// --ndt and its model settings, the same words for every command that integrates rays.
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli_options.hpp"
#include "option_checks.hpp"
#include "voxen/host/number_text.hpp"
#include "voxen/occupancy/ndt.hpp"

namespace voxen::cli {

// The model settings' options (all but --ndt) are returned: they act only with --ndt, and a
// command refuses them without it (refuseNdtSettingsWithoutNdt).
inline std::vector<CLI::Option*> addNdtOptions(CLI::App& command, NdtModel& ndt) {
  const std::string group = "NDT (normal distributions transform occupancy)";
  command
      .add_option_function<std::string>(
          "--ndt", [&ndt](const std::string& name) { ndt.mode = name == "tm" ? NdtMode::Tm : NdtMode::Om; },
          "keep a Gaussian per voxel so that rays grazing a surface do not erode it: om (NDT-OM) or tm (NDT-OM "
          "plus intensity statistics and hit/miss counts). Adds the voxel_mean and ndt_covariance layers (tm: "
          "also hit_miss and ndt_intensity); the GPU integrates NDT in two-phase order")
      ->check(CLI::IsMember({"om", "tm"}))
      ->type_name("MODE")
      ->group(group);
  std::vector<CLI::Option*> settings;
  settings.push_back(command.add_option("--ndt-sensor-noise", ndt.sensorNoise, "standard deviation of a return's range")
      ->check(numberIn(0.0, 100.0, "metres", LowEnd::Open))
      ->capture_default_str()
      ->group(group));
  settings.push_back(command.add_option("--ndt-adaptation-rate", ndt.adaptationRate, "how strongly a ray through a Gaussian clears it (0 to 1)")
      ->check(numberIn(0.0, 1.0, ""))
      ->capture_default_str()
      ->group(group));
  settings.push_back(command.add_option("--ndt-sample-threshold", ndt.sampleThreshold, "samples a voxel needs before its Gaussian shapes misses")
      ->check(integerIn(1, 1 << 30))
      ->capture_default_str()
      ->group(group));
  settings.push_back(command.add_option("--ndt-reset-probability", ndt.resetProbability,
                     "a voxel freed below this probability restarts its Gaussian (after --ndt-reset-samples)")
      ->check(numberIn(0.0, 1.0, "", LowEnd::Open, HighEnd::Open))
      ->capture_default_str()
      ->group(group));
  settings.push_back(command.add_option("--ndt-reset-samples", ndt.resetSamples, "samples before a freed voxel may restart its Gaussian")
      ->check(integerIn(0, 1 << 30))
      ->capture_default_str()
      ->group(group));
  settings.push_back(command.add_option("--ndt-initial-deviation", ndt.initialDeviation, "a new Gaussian's standard deviation, in voxels")
      ->check(numberIn(0.0, 10.0, "voxels", LowEnd::Open))
      ->capture_default_str()
      ->group(group));
  return settings;
}

inline void refuseNdtSettingsWithoutNdt(const NdtModel& ndt, const std::vector<CLI::Option*>& settings) {
  if (ndt.mode != NdtMode::Off) return;
  for (const CLI::Option* option : settings)
    if (option->count() > 0) throw UsageError(option->get_name() + " has no effect without --ndt om|tm");
}

// "NDT-OM (sensor noise 0.05 m, adaptation rate 0.2, sample threshold 3)" or "plain occupancy".
inline std::string ndtSettingsText(const NdtModel& ndt) {
  if (ndt.mode == NdtMode::Off) return "plain occupancy";
  // The settings as typed: shortest exact decimals (voxen/host/number_text.hpp), not %.3g.
  return std::string("NDT-") + (ndt.mode == NdtMode::Tm ? "TM" : "OM") + " (sensor noise " +
         formatNumber(ndt.sensorNoise) + " m, adaptation rate " + formatNumber(ndt.adaptationRate) +
         ", sample threshold " + std::to_string(ndt.sampleThreshold) + ")";
}

}  // namespace voxen::cli
