#include "setting_flags.hpp"

#include <map>
#include <vector>

namespace voxen::cli {

std::optional<std::string> flagForSetting(const std::string& field, const CLI::App& command) {
  // A field may be set by differently named flags in different commands: the first the
  // command has wins.
  static const std::map<std::string, std::vector<std::string>> flags = {
      {"OccupancyModel::resolution", {"--resolution"}},
      {"OccupancyModel::regionSize", {"--region", "--region-size"}},
      {"OccupancyModel::hitProbability", {"--hit"}},
      {"OccupancyModel::missProbability", {"--miss"}},
      {"OccupancyModel::occupancyThreshold", {"--threshold"}},
      {"OccupancyModel::clamp", {"--clamp"}},
      {"NdtModel::sensorNoise", {"--ndt-sensor-noise"}},
      {"NdtModel::adaptationRate", {"--ndt-adaptation-rate"}},
      {"NdtModel::sampleThreshold", {"--ndt-sample-threshold"}},
      {"NdtModel::resetProbability", {"--ndt-reset-probability"}},
      {"NdtModel::initialDeviation", {"--ndt-initial-deviation"}},
      {"RegionCache::bytes", {"--gpu-cache-mb"}},
      {"GpuIntegratorOptions::cacheBytes", {"--gpu-cache-mb"}},
      {"GpuClearanceOptions::cacheBytes", {"--gpu-cache-mb"}},
      {"GpuIntegratorOptions::maxRaysPerBatch", {"--batch-size"}},
      {"IntegrationOptions::maxRange", {"--max-range"}},
      {"EllipsoidOptions::minSamples", {"--min-samples"}},
      {"MapGridOptions::crop", {"--crop"}},
      {"slice scale", {"--scale"}},
      {"lidarTrajectory rateHz", {"--trajectory-rate"}},
  };
  const auto found = flags.find(field);
  if (found == flags.end()) return std::nullopt;
  for (const std::string& flag : found->second)
    if (command.get_option_no_throw(flag)) return flag;
  return std::nullopt;
}

}  // namespace voxen::cli
