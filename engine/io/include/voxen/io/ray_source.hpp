#pragma once
// Rays from files: a PLY point cloud whose points carry a time, with a trajectory that gives
// the sensor origin at that time; or a "ray cloud", a PLY whose vertices carry their sensor
// origin. Streams: a reader holds one chunk of the file, never the whole cloud.
//
// Fields of the vertex element (any PLY scalar type, float or double coordinates alike):
//   sample     x, y, z                                   (required)
//   time       the first present of kRayTimeFieldNames   (required with a trajectory)
//   origin     ox, oy, oz  or  origin_x, origin_y, origin_z
// With a trajectory the origin is the trajectory's interpolated position at the point's time
// (a trajectory given explicitly takes precedence over origin fields). Without one, the cloud
// must have origin fields; its rays' time is the time field, or 0.0 when it has none. Normals
// (nx, ny, nz) are never taken as origins.
//
// Points with a non-finite coordinate, origin or (used) time are skipped and counted; points
// whose time lies outside the trajectory's span are skipped and counted too, unless none falls
// inside it and all would after scaling by 1e-9 ... 1e9: that is a time-unit mismatch between
// the cloud and the trajectory, an Error naming both time ranges. Malformed files
// and missing fields are voxen::Error naming the file (and line, vertex or field).
#include <array>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "voxen/io/ply.hpp"
#include "voxen/map/ray.hpp"
#include "voxen/io/trajectory.hpp"

namespace voxen {

// Accepted names of the per-point time field, in order of preference.
inline constexpr std::array<std::string_view, 5> kRayTimeFieldNames = {"time", "timestamp", "gps_time", "offset_time",
                                                                       "internal_time"};

struct RayLoadStats {
  uint64_t points = 0;                    // vertices read (rays + both skip counts)
  uint64_t rays = 0;                      // rays returned
  uint64_t skippedNonFinite = 0;          // NaN/inf coordinate, origin or time
  uint64_t skippedOutsideTrajectory = 0;  // time outside the trajectory's span
  // Rays whose intensity field was NaN/inf: kept (their geometry is good) with intensity 0.
  uint64_t nonFiniteIntensity = 0;
  double timeMin = 0.0, timeMax = 0.0;    // over the rays returned; 0 while there are none
};

// The reader's own CPU time (thread CPU clock, read once per chunk of up to 65,536 points,
// never per point): what `voxen map --profile` reports per ray.
struct RayReadTimes {
  double readSeconds = 0.0;    // parsing the PLY and turning its rows into rays (with the NaN checks)
  double originSeconds = 0.0;  // interpolating the origins from the trajectory, keeping the rays in its span
};

class RayReader {
 public:
  // Opens the cloud (and loads the trajectory) and checks the fields; throws Error.
  explicit RayReader(const std::filesystem::path& cloud,
                     std::optional<std::filesystem::path> trajectory = std::nullopt);
  ~RayReader();
  RayReader(RayReader&&) noexcept;
  RayReader& operator=(RayReader&&) noexcept;

  // Appends up to maxRays rays to `out`; returns how many, 0 at the end (or for maxRays 0).
  size_t read(std::vector<Ray>& out, size_t maxRays);

  const RayLoadStats& stats() const;
  const RayReadTimes& times() const;
  uint64_t totalPoints() const;  // the header's vertex count, for progress and ETA
  bool done() const;             // every point has been read

  const std::filesystem::path& cloudPath() const;
  bool usesTrajectory() const;             // origins come from the trajectory
  const Trajectory* trajectory() const;    // nullptr without one
  const std::string& timeField() const;    // the time property used; empty when none
  std::string originFields() const;        // e.g. "ox, oy, oz"; empty with a trajectory
  // One line for the user: points, rays, skip counts, the outside-span times against the
  // trajectory's span.
  std::string summary() const;

 private:
  // At the end of the cloud: when no point fell inside the trajectory's span but all would
  // after scaling by a power of 1000, throws Error naming both time ranges and the unit.
  void checkTimeUnits() const;

  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Reads every ray of a cloud at once (for small clouds and tests).
std::vector<Ray> readRays(const std::filesystem::path& cloud, std::optional<std::filesystem::path> trajectory = std::nullopt,
                          RayLoadStats* stats = nullptr);

// Writes rays as a ray cloud: double x, y, z, ox, oy, oz, time per vertex.
void writeRayCloud(const std::filesystem::path& path, std::span<const Ray> rays,
                   PlyFormat format = PlyFormat::BinaryLittleEndian);

}  // namespace voxen
