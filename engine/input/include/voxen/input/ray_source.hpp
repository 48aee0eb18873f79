#pragma once
// Rays from recordings: a point cloud whose points carry a time, with a trajectory that gives
// the sensor origin at that time; or points that carry their origin (a PLY "ray cloud" of
// origins per vertex). The format is told by the content (input_format.hpp); every format is
// a point source of ordered chunks (src/point_source.hpp) feeding the same pipeline, so the
// skips, counts, threads and the origin interpolation (deskew) below hold for all of them.
// Streams: a reader holds a few chunks of the file, never the whole cloud.
//
// Threads (RayReaderOptions::threads): the cloud is cut into chunks of chunkPoints points;
// with more than one thread, worker threads read, convert and interpolate chunks ahead of
// read() (binary little-endian bodies memory-mapped, so chunks decode in parallel; ASCII
// bodies read in order, converted in parallel) and read() takes them in input order. The
// rays, the counts and the errors are the same for every thread count; an error met on a
// worker is thrown by the read() that reaches its chunk.
//
// PLY: fields of the vertex element (any PLY scalar type, float or double coordinates alike):
//   sample     x, y, z                                   (required)
//   time       the first present of kRayTimeFieldNames   (required with a trajectory)
//   origin     ox, oy, oz  or  origin_x, origin_y, origin_z
// With a trajectory the origin is the trajectory's interpolated position at the point's time
// (a trajectory given explicitly takes precedence over origin fields). Without one, the cloud
// must have origin fields; its rays' time is the time field, or 0.0 when it has none. Normals
// (nx, ny, nz) are never taken as origins.
//
// Points with a non-finite coordinate, origin or (used) time are skipped and counted; points
// whose time lies outside the trajectory's span are skipped and counted too, as long as at
// least 1% of the points fall inside it. Once the whole cloud is read, clocks that do not
// match are an Error naming both files and both time ranges: fewer than 1% of the point
// times inside the trajectory's span (no overlap, or hardly any), or every point inside but
// crowded into a millionth of a span they would fill in another unit (seconds against
// nanoseconds both from 0); with the unit that explains it when one does (the points fit
// after scaling by 1e-9 ... 1e9, or the ranges lie a power of 1000 apart). Malformed files
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

#include "voxen/input/pcd.hpp"
#include "voxen/input/ply.hpp"
#include "voxen/map/ray.hpp"
#include "voxen/input/trajectory.hpp"

namespace voxen {

// Accepted names of the per-point time field, in order of preference.
inline constexpr std::array<std::string_view, 5> kRayTimeFieldNames = {"time", "timestamp", "gps_time", "offset_time",
                                                                       "internal_time"};

struct RayLoadStats {
  uint64_t points = 0;                    // vertices read (rays + every skip count)
  uint64_t rays = 0;                      // rays returned
  uint64_t skippedNonFinite = 0;          // NaN/inf coordinate, origin or time
  uint64_t skippedOutsideTrajectory = 0;  // time outside the trajectory's span (or a recording's tf data)
  // Points of a recording's cloud stamped before the cloud recorded ahead of it (time going
  // backwards): the whole cloud is skipped.
  uint64_t skippedBackwards = 0;
  // Returns from the robot itself (RayReaderOptions::exclusion): inside the body box, and
  // (of the rest) nearer the sensor than the minimum range.
  uint64_t skippedInBox = 0;
  uint64_t skippedNearSensor = 0;
  // Rays whose intensity field was NaN/inf or past a float's range: kept with that intensity
  // (NaN or +-inf) for the integrator to judge (NDT-TM skips them and counts them as rejected).
  uint64_t nonFiniteIntensity = 0;
  double timeMin = 0.0, timeMax = 0.0;    // over the rays returned; 0 while there are none

  // Adds the counts of `more` (a later chunk's) and widens the time span by its rays' (a
  // span without rays leaves the other as it is).
  RayLoadStats& operator+=(const RayLoadStats& more) {
    if (more.rays > 0) {
      timeMin = rays == 0 || more.timeMin < timeMin ? more.timeMin : timeMin;
      timeMax = rays == 0 || more.timeMax > timeMax ? more.timeMax : timeMax;
    }
    points += more.points;
    rays += more.rays;
    skippedNonFinite += more.skippedNonFinite;
    skippedOutsideTrajectory += more.skippedOutsideTrajectory;
    skippedBackwards += more.skippedBackwards;
    skippedInBox += more.skippedInBox;
    skippedNearSensor += more.skippedNearSensor;
    nonFiniteIntensity += more.nonFiniteIntensity;
    return *this;
  }
};

// The reader's CPU time (thread CPU clock, read once per chunk, never per point), summed
// over the threads that did the work: what `voxen map --profile` reports per ray.
struct RayReadTimes {
  // Parsing the PLY, turning its rows into rays (with the NaN checks) and handing them over
  // (read() copying them into the caller's vector).
  double readSeconds = 0.0;
  double originSeconds = 0.0;  // interpolating the origins from the trajectory, keeping the rays in its span
  // Wall time read() spent waiting for worker threads to finish a chunk (0 with one thread):
  // how long the caller (the integration thread) starved for input.
  double waitSeconds = 0.0;

  RayReadTimes& operator+=(const RayReadTimes& more) {
    readSeconds += more.readSeconds;
    originSeconds += more.originSeconds;
    waitSeconds += more.waitSeconds;
    return *this;
  }
};

// How a robot's recording (a ROS 1 bag or an MCAP file) is read; other formats refuse any
// setting but the defaults. Points are posed by tf (/tf, /tf_static) at each point's time, or
// by a trajectory file given instead: with orientations (time x y z qx qy qz qw) the points
// are taken in the sensor frame and moved by the full pose; without, they are taken as
// already in the trajectory's frame and only the origins interpolated (as for PLY).
struct RecordingOptions {
  std::string cloudTopic;   // the sensor_msgs/PointCloud2 topic; empty: the only one there is
  std::string fixedFrame;   // the map's frame; empty: the root of the tf tree above the sensor frame
  std::string sensorFrame;  // the clouds' frame; empty: the first cloud's header.frame_id
  double start = 0.0;       // seconds after the recording's first message (its container time)
  std::optional<double> duration;  // seconds from start; none: to the end
  // Each point posed at its own time (a spinning lidar's scan corrected for the motion);
  // false: every point of a cloud posed at the cloud's header.stamp.
  bool deskew = true;
  bool isDefault() const {
    return cloudTopic.empty() && fixedFrame.empty() && sensorFrame.empty() && start == 0.0 && !duration && deskew;
  }
};

// A warning about the input that a setting answers (a PCD VIEWPOINT that can be read two ways
// when no reading was chosen), worded as SettingError words its errors: `field` names the
// setting as its struct spells it, `text` has "{}" where the setting is named, so that a
// program calls it by its own name (the voxen tool: its flag; Python: its keyword).
struct SettingWarning {
  std::string field;  // "RayReaderOptions::pcdViewpoint"
  std::string words;  // the setting in the library's words: "the PCD viewpoint reading"
  std::string text;
  std::string naming(const std::string& name) const {
    std::string out = text;
    if (const size_t at = out.find("{}"); at != std::string::npos) out.replace(at, 2, name);
    return out;
  }
  std::string message() const { return naming(words); }
};

// Returns from the robot itself, dropped before mapping and counted. Judged in the sensor's
// frame (the sensor at 0, its axes): a point of a recording posed by tf or by a trajectory
// with orientations, or of a KITTI scan, as the sensor measured it; a point given in the map
// frame (a PLY or PCD with origins, a trajectory of positions only, --origin) relative to its
// ray's origin, with the trajectory's orientation where it has one, else the map's axes.
struct SensorExclusion {
  double minRange = 0.0;  // metres; 0: none. A point nearer the sensor than this is dropped
  // Corners (min, max) of a box around the sensor; a point inside it (edges included) is dropped.
  std::optional<std::array<glm::dvec3, 2>> box;
  bool active() const { return minRange > 0.0 || box.has_value(); }
  enum class Verdict { Kept, InBox, NearSensor };
  // For a point in the sensor frame: the box first, then the range.
  Verdict judge(const glm::dvec3& local) const {
    if (box && local.x >= (*box)[0].x && local.y >= (*box)[0].y && local.z >= (*box)[0].z && local.x <= (*box)[1].x &&
        local.y <= (*box)[1].y && local.z <= (*box)[1].z)
      return Verdict::InBox;
    if (minRange > 0.0 && local.x * local.x + local.y * local.y + local.z * local.z < minRange * minRange)
      return Verdict::NearSensor;
    return Verdict::Kept;
  }
};

struct RayReaderOptions {
  // Threads reading the cloud. 1: read() does the work on the calling thread. N > 1: N worker
  // threads (at most one per chunk; fewer when the system grants fewer, see threads()) work
  // up to 2 N chunks ahead of read().
  unsigned threads = 1;
  // Points per chunk: a worker's unit of work, and how often counts and times are updated.
  size_t chunkPoints = 16384;
  // Memory-map binary little-endian bodies with fixed-size rows where possible (false: read
  // them through a stream, as ASCII bodies always are). The rays are the same either way.
  bool mapFile = true;
  RecordingOptions recording;
  // How PCD files' VIEWPOINT is read (see PcdViewpoint; other formats refuse a reading). None:
  // as an origin, and a VIEWPOINT that is not the identity gets a warning (settingWarnings()) naming
  // both readings and this setting.
  std::optional<PcdViewpoint> pcdViewpoint;
  SensorExclusion exclusion;
  // The sensor's position for every point of a cloud that carries no origins and comes with
  // no trajectory (a single scan in a PLY): its rays' time is the time field, or 0. Refused
  // (SettingError, field "RayReaderOptions::origin") for inputs whose points have origins or
  // poses of their own.
  std::optional<glm::dvec3> origin;
};

class RayReader {
 public:
  // Opens the cloud (and loads the trajectory) and checks the fields; throws Error. With
  // options.threads > 1 the workers start reading at once.
  explicit RayReader(const std::filesystem::path& cloud,
                     std::optional<std::filesystem::path> trajectory = std::nullopt, RayReaderOptions options = {});
  // Stops the workers (each finishes at most the chunk it is making) and joins them.
  ~RayReader();
  RayReader(RayReader&&) noexcept;
  RayReader& operator=(RayReader&&) noexcept;

  // Appends up to maxRays rays to `out`; returns how many, 0 at the end (or for maxRays 0).
  // Fewer than maxRays only at the end, so callers' batches do not depend on the threads.
  // After an Error the reader is spent: later calls throw too.
  size_t read(std::vector<Ray>& out, size_t maxRays);
  // The next rays without a copy: up to maxRays rays of the chunk being read (fewer at each
  // chunk's end, so the sizes depend on the chunking, never on the threads), valid until the
  // next call to next() or read(); empty at the end. For callers that cut their own batches.
  std::span<const Ray> next(size_t maxRays = SIZE_MAX);

  // Counts over the chunks read() has reached (whole chunks, so points may run ahead of the
  // rays returned by up to a chunk); exact once done().
  const RayLoadStats& stats() const;
  const RayReadTimes& times() const;
  uint64_t totalPoints() const;  // the header's vertex count, for progress and ETA (a recording's: an estimate)
  // Progress in the file's bytes, where the points are not known up front (bags, MCAP files:
  // their clouds' sizes are known only once read): the bytes of the chunks reached so far
  // and of all of them; both 0 for formats that count points.
  uint64_t bytesRead() const;
  uint64_t totalBytes() const;
  bool done() const;             // every point has been read and every ray returned
  unsigned threads() const;      // worker threads reading ahead; 0 when read() does the work
  bool mapped() const;           // the body is read from a memory mapping

  const std::filesystem::path& cloudPath() const;
  bool usesTrajectory() const;             // origins come from the trajectory
  const Trajectory* trajectory() const;    // nullptr without one
  const std::string& timeField() const;    // the time property used; empty when none
  const std::string& intensityField() const;  // the intensity property used; empty when none (rays get 0)
  std::string originFields() const;        // e.g. "ox, oy, oz"; empty with a trajectory
  const std::string& format() const;       // the recording's format: "PLY", "PCD", "KITTI odometry"
  // Warnings that a setting answers (a PCD VIEWPOINT read one of two ways when no reading was
  // chosen), for the caller to word with its own name of the setting: the reader prints
  // nothing itself. Empty for most inputs.
  const std::vector<SettingWarning>& settingWarnings() const;
  // One line for the user: points, rays, skip counts, the outside-span times against the
  // trajectory's span.
  std::string summary() const;
  // Things the user should know that do not stop the run (tf conflicts off the sensor's
  // chain), each one sentence; empty when none.
  const std::vector<std::string>& warnings() const;

 private:
  // At the end of the cloud: when the cloud's and the trajectory's clocks do not match (see
  // the top of this file), throws Error naming both files, both time ranges and the unit.
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
