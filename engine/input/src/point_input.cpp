// The one door every format comes in by: the content says which reader opens the path.
#include "point_source.hpp"
#include "voxen/host/error.hpp"
#include "voxen/host/setting_error.hpp"
#include "voxen/input/input_format.hpp"

namespace voxen::detail {

void checkPcdViewpointApplies(const std::filesystem::path& path, InputFormat format, std::optional<PcdViewpoint> reading) {
  if (reading && format != InputFormat::Pcd && format != InputFormat::PcdFolder)
    throw SettingError(SettingError::Kind::Invalid, "RayReaderOptions::pcdViewpoint", "the PCD viewpoint reading",
                       path.string() + ": is a " + std::string(inputFormatName(format)) +
                           ": {} applies to PCD files only (their VIEWPOINT line)");
}

PointInput openPointInput(const std::filesystem::path& path, const std::optional<std::filesystem::path>& trajectory,
                          const PointInputOptions& options) {
  const InputFormat format = detectInputFormat(path);
  checkPcdViewpointApplies(path, format, options.pcdViewpoint);
  if (format == InputFormat::RosBag || format == InputFormat::Mcap) return openRecordingInput(path, trajectory, options);
  if (!options.recording.isDefault())
    throw Error(path.string() + ": is a " + std::string(inputFormatName(format)) +
                ": the recording options (cloud topic, frames, start, duration, no deskew) apply to ROS 1 bags and "
                "MCAP files only");
  switch (format) {
    case InputFormat::Ply: return openPlyInput(path, trajectory, options);
    case InputFormat::Pcd:
    case InputFormat::PcdFolder: return openPcdInput(path, trajectory, options);
    case InputFormat::KittiScan:
    case InputFormat::KittiSequence: return openKittiInput(path, trajectory, options);
    default: break;
  }
  throw Error(path.string() + ": is a " + std::string(inputFormatName(format)) +
              ", which Voxen cannot map");
}

}  // namespace voxen::detail
