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
#include <limits>
#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "voxen/input/input_format.hpp"
#include "voxen/input/ray_source.hpp"

namespace voxen::detail {

// Which of the columns a row holds, in this order: x, y, z, then time, origin (3 columns)
// and intensity where present.
struct RayRowLayout {
  size_t columns = 3;
  bool hasTime = false;
  bool hasOrigin = false;
  bool hasIntensity = false;
};

// Points a source dropped itself: their time lies outside the poses it has (a recording's
// tf data, or the trajectory it applies), so they have no pose. Counted like the
// pipeline's own skips outside a trajectory.
struct SourceSkips {
  uint64_t outsidePoses = 0;
  double outsideMin = std::numeric_limits<double>::infinity();
  double outsideMax = -std::numeric_limits<double>::infinity();
  // The chunk's time in the recording's order (a cloud's header.stamp): a chunk whose time
  // is below an earlier chunk's is dropped by the reader, which takes chunks in order, and
  // its points counted as skippedBackwards (time going backwards).
  std::optional<double> orderTime;
  // Points the source dropped as returns from the robot (SensorExclusion), when it judged
  // them itself in the sensor frame (a source that poses its points).
  uint64_t inBox = 0, nearSensor = 0;
  void add(double time) {
    ++outsidePoses;
    outsideMin = std::min(outsideMin, time);
    outsideMax = std::max(outsideMax, time);
  }
};

class PointSource {
 public:
  virtual ~PointSource() = default;
  virtual uint64_t chunks() const = 0;
  // True when chunks may be read at the same time and in any order; false when chunk k may
  // only be read after chunk k - 1, by one thread at a time.
  virtual bool concurrent() const = 0;
  // Replaces `out` with chunk k's rows and returns their number; throws Error naming the
  // file (and line, point or field). A sequential source (concurrent() false) is read under
  // a lock, in order: it should do there only what needs the order (take the message's
  // bytes) and leave the rest to finish().
  virtual size_t read(uint64_t chunk, std::vector<double>& out) = 0;
  // The rest of chunk k's work, after read() and outside its lock (any thread; chunks at the
  // same time): a recording decodes its message and poses the points here. `rows` and the
  // count are read()'s; returns the rows' new count. Points dropped for a time outside the
  // poses are counted in `skips`.
  // The file's bytes chunk k accounts for, when progress is counted in bytes (PointInput::bytes).
  virtual uint64_t chunkBytes(uint64_t chunk) const {
    (void)chunk;
    return 0;
  }
  virtual size_t finish(uint64_t chunk, std::vector<double>& rows, size_t count, SourceSkips& skips) {
    (void)chunk, (void)rows, (void)skips;
    return count;
  }
};

struct PointInput {
  std::string format;          // "PLY", "PCD", "KITTI odometry": for the summary
  RayRowLayout layout;
  uint64_t points = 0;         // every point of the input, for progress and ETA (an estimate when bytes > 0)
  uint64_t bytes = 0;          // when not 0: progress is counted in the file's bytes (chunkBytes)
  std::string timeField;       // the per-point time used; empty when none
  std::string intensityField;  // empty when none (rays get 0)
  std::string originFields;    // where the origins come from without a trajectory ("ox, oy, oz", "VIEWPOINT")
  // The source poses its points itself (a recording with tf, or with the trajectory it
  // applies as full poses): the rows carry their origins, and the pipeline must not
  // interpolate the trajectory again. posesName/poseSpan describe those poses for messages
  // when no trajectory file gives them.
  bool posesApplied = false;
  // The source judges SensorExclusion itself, in the sensor frame (sources that pose their
  // points); otherwise the pipeline judges it relative to each ray's origin.
  bool excludesItself = false;
  // RayReaderOptions::origin, for a layout without origins and no trajectory.
  std::optional<glm::dvec3> fixedOrigin;
  std::string posesName;
  double poseStart = 0.0, poseEnd = 0.0;
  // Facts for the summary line (the topic read, how its times were told, frames).
  std::vector<std::string> notes;
  // What the user should be told apart from the summary (RayReader::warnings).
  std::vector<std::string> warnings;
  // Warnings a setting answers (RayReader::settingWarnings): a PCD VIEWPOINT read as an origin
  // when no reading was chosen.
  std::vector<SettingWarning> settingWarnings;
  std::unique_ptr<PointSource> source;
};

struct PointInputOptions {
  size_t chunkPoints = 16384;
  bool mapFile = true;
  RecordingOptions recording;
  std::optional<PcdViewpoint> pcdViewpoint;  // RayReaderOptions::pcdViewpoint
  SensorExclusion exclusion;                 // RayReaderOptions::exclusion
  std::optional<glm::dvec3> origin;          // RayReaderOptions::origin
};

// Opens any recording Voxen reads, told by its content (see input_format.hpp). With a
// trajectory the points must carry a time (origins are interpolated at it); without one,
// they must carry their origin. Throws Error naming the file and what is missing.
PointInput openPointInput(const std::filesystem::path& path, const std::optional<std::filesystem::path>& trajectory,
                          const PointInputOptions& options);

// A PCD viewpoint reading given for another format: a SettingError naming the file.
void checkPcdViewpointApplies(const std::filesystem::path& path, InputFormat format, std::optional<PcdViewpoint> reading);

PointInput openPcdInput(const std::filesystem::path& path, const std::optional<std::filesystem::path>& trajectory,
                        const PointInputOptions& options);

PointInput openKittiInput(const std::filesystem::path& path, const std::optional<std::filesystem::path>& trajectory,
                          const PointInputOptions& options);

PointInput openRecordingInput(const std::filesystem::path& path, const std::optional<std::filesystem::path>& trajectory,
                              const PointInputOptions& options);

PointInput openPlyInput(const std::filesystem::path& path, const std::optional<std::filesystem::path>& trajectory,
                        const PointInputOptions& options);

}  // namespace voxen::detail
