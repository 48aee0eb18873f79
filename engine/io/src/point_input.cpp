// The one door every format comes in by: the content says which reader opens the path.
#include "point_source.hpp"
#include "voxen/host/error.hpp"
#include "voxen/io/input_format.hpp"

namespace voxen::detail {

PointInput openPointInput(const std::filesystem::path& path, const std::optional<std::filesystem::path>& trajectory,
                          const PointInputOptions& options) {
  const InputFormat format = detectInputFormat(path);
  switch (format) {
    case InputFormat::Ply: return openPlyInput(path, trajectory, options);
    case InputFormat::Pcd:
    case InputFormat::PcdFolder: return openPcdInput(path, trajectory, options);
    case InputFormat::KittiScan:
    case InputFormat::KittiSequence: return openKittiInput(path, trajectory, options);
    default: break;
  }
  throw Error(path.string() + ": is a " + std::string(inputFormatName(format)) +
              ", which Voxen recognises but cannot map yet (it maps PLY, PCD and KITTI recordings)");
}

}  // namespace voxen::detail
