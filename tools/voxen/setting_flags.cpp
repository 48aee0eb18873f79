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
      {"MapperRunOptions::decaySeconds", {"--decay-s"}},
      {"EllipsoidOptions::minSamples", {"--min-samples"}},
      {"MapGridOptions::crop", {"--crop"}},
      {"slice scale", {"--scale"}},
      {"lidarTrajectory rateHz", {"--trajectory-rate"}},
      {"DeviceOptions::selector", {"--device"}},
      {"RecordingOptions::cloudTopic", {"--cloud-topic"}},
      {"RecordingOptions::sensorFrame", {"--sensor-frame"}},
      {"DepthSourceOptions::depthTopic", {"--depth-topic"}},
      {"DepthSourceOptions::cameraInfoTopic", {"--camera-info-topic"}},
      {"DepthSourceOptions::cameraInfoFile", {"--camera-info"}},
      {"DepthSourceOptions::maxRange", {"--max-range"}},
      {"DepthSourceOptions::colourTopic", {"--color-topic"}},
      {"RayReaderOptions::pcdViewpoint", {"--pcd-viewpoint"}},
      {"RayReaderOptions::origin", {"--origin"}},
      {"HeightmapOptions::robotHeight", {"--robot-height"}},
      {"HeightmapOptions::levels", {"--levels"}},
      {"HeightmapOptions::maxSlopeDegrees", {"--max-slope"}},
      {"HeightmapOptions::maxStep", {"--max-step"}},
      {"HeightmapOptions::clearanceMargin", {"--clearance-margin"}},
      {"HeightmapOptions::box", {"--bbox"}},
      {"TsdfMeshOptions::minWeight", {"--min-weight"}},
      {"TsdfMeshOptions::box", {"--bbox"}},
      {"GpuHeightmap::cacheBytes", {"--gpu-cache-mb"}},
      {"EsdfSliceOptions::zMin", {"--z-min"}},
      {"EsdfSliceOptions::zMax", {"--z-max"}},
      {"EsdfSliceOptions::maxDistance", {"--max-distance"}},
  };
  // Remedies that another command provides (the library names the function or the field
  // that makes what is missing): worded the same from every command.
  static const std::map<std::string, std::string> commands = {
      {"NdtModel::mode", "`voxen map --ndt om`"},
      {"GpuClearance::compute", "`voxen clearance MAP.vxm --range R`"},
  };
  if (const auto found = flags.find(field); found != flags.end())
    for (const std::string& flag : found->second)
      if (command.get_option_no_throw(flag)) return flag;
  if (const auto found = commands.find(field); found != commands.end()) return found->second;
  return std::nullopt;
}

}  // namespace voxen::cli
