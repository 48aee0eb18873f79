#pragma once
// The seam between recording formats and the ray pipeline. A format opens as a PointInput:
// a PointSource that yields its points as numbered chunks of rows of doubles (x, y, z, then
// time, origin x y z and intensity where the layout has them), and what the user is told
// about where each came from. The pipeline (RayChunkPipeline, makeRayChunk) turns the rows
// into rays, with the same skips, counts and origin interpolation (deskew by the per-point
// time) whatever the format; no format knows about the integrator.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace voxen::detail {

// Which of the columns a row holds, in this order: x, y, z, then time, origin (3 columns)
// and intensity where present.
struct RayRowLayout {
  size_t columns = 3;
  bool hasTime = false;
  bool hasOrigin = false;
  bool hasIntensity = false;
};

class PointSource {
 public:
  virtual ~PointSource() = default;
  virtual uint64_t chunks() const = 0;
  // True when chunks may be read at the same time and in any order; false when chunk k may
  // only be read after chunk k - 1, by one thread at a time.
  virtual bool concurrent() const = 0;
  // Replaces `out` with chunk k's rows and returns their number; throws Error naming the
  // file (and line, point or field).
  virtual size_t read(uint64_t chunk, std::vector<double>& out) = 0;
};

struct PointInput {
  std::string format;          // "PLY", "PCD", "KITTI odometry": for the summary
  RayRowLayout layout;
  uint64_t points = 0;         // every point of the input, for progress and ETA
  std::string timeField;       // the per-point time used; empty when none
  std::string intensityField;  // empty when none (rays get 0)
  std::string originFields;    // where the origins come from without a trajectory ("ox, oy, oz", "VIEWPOINT")
  std::unique_ptr<PointSource> source;
};

struct PointInputOptions {
  size_t chunkPoints = 16384;
  bool mapFile = true;
};

// Opens any recording Voxen reads, told by its content (see input_format.hpp). With a
// trajectory the points must carry a time (origins are interpolated at it); without one,
// they must carry their origin. Throws Error naming the file and what is missing.
PointInput openPointInput(const std::filesystem::path& path, const std::optional<std::filesystem::path>& trajectory,
                          const PointInputOptions& options);

PointInput openPcdInput(const std::filesystem::path& path, const std::optional<std::filesystem::path>& trajectory,
                        const PointInputOptions& options);

PointInput openKittiInput(const std::filesystem::path& path, const std::optional<std::filesystem::path>& trajectory,
                          const PointInputOptions& options);

PointInput openPlyInput(const std::filesystem::path& path, const std::optional<std::filesystem::path>& trajectory,
                        const PointInputOptions& options);

}  // namespace voxen::detail
