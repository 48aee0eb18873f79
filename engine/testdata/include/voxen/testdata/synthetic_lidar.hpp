#pragma once
// A synthetic lidar run for tests, benchmarks and demos: a procedural building (rooms on both
// sides of a corridor, joined by doors, with boxes, pillars and balls inside the rooms, and an
// open door at the corridor's end onto a patch of ground outside), a smooth closed sensor
// path through the corridor and every room, and a spinning multi-ring lidar that moves along
// that path while it sweeps. Everything follows from seeds: the same scene and config give
// bit-identical rays on any thread count.
//
//   SyntheticScene scene = SyntheticScene::generate(1);
//   LidarConfig lidar;  // 64 x 1024, 10 Hz, 30 m
//   lidar.scans = 20;
//   std::vector<uint8_t> noReturn;
//   std::vector<Ray> rays = generateLidarRays(scene, lidar, &noReturn);  // 1,310,720 rays
//
// Conventions: right-handed, metres, z up, floor at z = 0. The sensor frame is x forward (the
// direction of travel), y left, z up. Rays come column by column (all rings of column 0, then
// column 1, ...), so ray times never decrease. A ray whose beam hits nothing within maxRange
// is a no-return ray: its sample lies at exactly maxRange along the beam and it is flagged, so
// that it can be integrated with RayFlag::EndPointAsFree or left out.
//
// SyntheticScene::terrain() is a second, fixed scene for the heightmap (voxen generate --scene
// terrain): open ground with a 15 degree ramp up to a platform, a bridge over a passage, a
// 40 degree ramp down, a table, a low and a high step, a box, a wall and a pillar, and a loop
// round them all.
#include <glm/gtc/quaternion.hpp>
#include <glm/vec2.hpp>
#include <glm/vec3.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "voxen/map/ray.hpp"

namespace voxen {

namespace detail {
class AtomicFileWriter;  // the library's one output writer (rules: docs/architecture.md, "Output files")
}

// Primitives of the scene. Walls, floor and ceiling are boxes too.
struct SceneBox {
  glm::dvec3 min{0.0}, max{0.0};
};
struct SceneCylinder {  // axis along z
  glm::dvec2 centre{0.0};
  double radius = 0.0;
  double zMin = 0.0, zMax = 0.0;
};
struct SceneSphere {
  glm::dvec3 centre{0.0};
  double radius = 0.0;
};
// A block with an inclined top: a rectangle in plan, solid from zBase up to a top plane whose
// height goes linearly along one plan axis from zStart at min[axis] to zEnd at max[axis]. With
// one end at zBase it is a wedge: a ramp. Convex (six planes), so a ray enters it once.
struct SceneRamp {
  glm::dvec2 min{0.0}, max{0.0};
  double zBase = 0.0;
  double zStart = 0.0, zEnd = 0.0;  // the top's height at min[axis] and at max[axis]; >= zBase
  int axis = 0;                     // 0: the top slopes along x, 1: along y
  // Rise of the top per metre along the axis, and its height over a plan point.
  double gradient() const { return (zEnd - zStart) / (max[axis] - min[axis]); }
  double topAt(const glm::dvec2& p) const { return zStart + gradient() * (p[axis] - min[axis]); }
};

// A named part of the plan: in the building a walkable floor area (a room's or the corridor's
// interior, inside the walls); in the terrain each feature's footprint.
struct SceneArea {
  std::string name;  // "corridor", "north room 0", "south room 2", ...; "gentle ramp", "bridge", ...
  glm::dvec2 min{0.0}, max{0.0};
};

struct SceneOptions {
  int minRoomsPerSide = 3, maxRoomsPerSide = 5;
  double ceilingHeight = 3.0;
  double wallThickness = 0.2;
  double doorWidth = 1.0, doorHeight = 2.1;
  int minObjectsPerRoom = 2, maxObjectsPerRoom = 5;
  double pathClearance = 0.7;  // objects keep at least this far (in plan) from the sensor path
  // A door in the corridor's east end wall opens onto 12 m of ground and then nothing, so
  // that beams leaving through it come back late or not at all.
  bool exteriorDoor = true;
};

// The terrain scene's design numbers (SyntheticScene::terrain), which tests and pictures check
// the heightmap against. Metres and degrees; the ground's top is z = 0. Flat tops and
// undersides lie on multiples of 0.1 m, voxel faces at the default resolution: a flat top in
// the middle of a voxel is seen at grazing angles through the voxel's empty upper part, and
// those rays' misses erase it (holes in the heightmap where the scene has none).
struct TerrainDesign {
  static constexpr double gentleRampDegrees = 15.0;  // up to the west platform (passable at 30)
  static constexpr double steepRampDegrees = 40.0;   // down from the east platform (lethal at 30)
  static constexpr double platformHeight = 1.2;      // the platforms' tops and the bridge deck's
  static constexpr double deckBottom = 1.0;          // the passage under the bridge: 1 m of room
  static constexpr double tableTop = 0.8, tableUnderside = 0.7;  // 0.7 m under it: too low for 0.8 m
  static constexpr double lowStep = 0.1, highStep = 0.4;           // passable and lethal at 0.2 m
  static constexpr double sensorHeight = 1.5;  // voxen generate --scene terrain's --height default
};

enum class SceneKind { Building, Terrain };

struct SyntheticScene {
  uint64_t seed = 0;
  SceneKind kind = SceneKind::Building;
  SceneOptions options;  // the building's; the terrain has no ceiling
  std::vector<SceneBox> boxes;
  std::vector<SceneCylinder> cylinders;
  std::vector<SceneSphere> spheres;
  std::vector<SceneRamp> ramps;
  std::vector<SceneArea> areas;           // building: corridor first, then the rooms; terrain: features
  glm::dvec3 boundsMin{0.0}, boundsMax{0.0};  // every primitive lies inside
  // The sensor path in plan: a closed curve sampled about every 1 cm (the last point repeats
  // the first, at arc length pathLength), with the arc length at each point and the heading
  // (radians, unwrapped) of the curve there. It runs along the corridor, through every room's
  // door and round the room, and keeps pathClearance from every object.
  std::vector<glm::dvec2> pathPoints;
  std::vector<double> pathDistance;  // arc length from pathPoints[0]; increasing
  std::vector<double> pathHeading;
  double pathLength = 0.0;           // length of one loop

  // The scene for a seed. Throws Error when the options are out of range.
  static SyntheticScene generate(uint64_t seed, const SceneOptions& options = {});
  // The terrain (engine/testdata/src/terrain_scene.cpp): a fixed layout, the same for every
  // seed, which is kept for the run's record (the lidar's noise has its own seed).
  static SyntheticScene terrain(uint64_t seed = 0);

  // Distance along `direction` (unit length) to the closest surface hit within maxRange,
  // or nullopt. Starting points inside a primitive see that primitive only from outside.
  std::optional<double> raycast(const glm::dvec3& origin, const glm::dvec3& direction, double maxRange) const;
  // The same hit with the primitive it is on (for the depth camera's colours, scene_colours.hpp).
  struct Hit {
    double distance = 0.0;
    enum class Kind : uint8_t { Box, Cylinder, Sphere, Ramp } kind = Kind::Box;
    uint32_t index = 0;  // into boxes, cylinders, spheres or ramps
  };
  std::optional<Hit> raycastHit(const glm::dvec3& origin, const glm::dvec3& direction, double maxRange) const;
  // Unsigned distance from `point` to the nearest primitive surface (brute force).
  double distanceToSurface(const glm::dvec3& point) const;
  // Plan position and heading on the closed path at arc length s (any real value: wraps).
  glm::dvec2 pathPosition(double s, double* heading = nullptr) const;
  size_t primitiveCount() const { return boxes.size() + cylinders.size() + spheres.size() + ramps.size(); }
  // Sets the sensor path: a closed quadratic B-spline through the control polygon (corners
  // rounded, straight where three points line up), sampled about every `step` metres.
  void setPath(const std::vector<glm::dvec2>& control, double step = 0.01);

  // Recomputes the bounds and rebuilds the ray-casting grid; generate() calls it. Call it
  // after editing the primitives.
  void buildAccelerator();

 private:
  // A plan grid over the bounds: each cell lists the primitives whose plan footprint touches
  // it; primitives that cover much of the grid (floor, ceiling) are tested once per ray.
  glm::dvec2 gridOrigin_{0.0};
  double gridCell_ = 1.0;
  int gridNx_ = 0, gridNy_ = 0;
  std::vector<uint32_t> cellStart_;  // gridNx_ * gridNy_ + 1 offsets into cellItems_
  std::vector<uint32_t> cellItems_;  // primitive ids: kind in the top 2 bits, index below
  std::vector<uint32_t> globalItems_;
};

struct LidarConfig {
  int rings = 64;
  int columns = 1024;             // beams per ring per 360 degree sweep
  double verticalFovDeg = 30.0;   // rings evenly spread over [-fov/2, +fov/2]
  double maxRange = 30.0;         // metres; beyond: no return
  int scans = 20;                 // 360 degree sweeps
  double scanRateHz = 10.0;       // sweeps per second
  double sensorHeight = 1.2;      // metres above the floor
  double speed = 1.0;             // metres per second along the scene's path
  double startTime = 0.0;         // time of the first column of the first scan
  double startDistance = 0.0;     // arc length along the path at startTime
  uint64_t seed = 1;              // range noise
  double rangeNoiseStdDev = 0.01; // metres, Gaussian, on returns only
  // Worker threads for ray generation (0: all hardware threads). Results do not depend on it.
  unsigned threads = 0;

  // Throws Error naming the field when a value is out of range.
  void validate() const;
  size_t raysPerScan() const { return size_t(rings) * size_t(columns); }
  size_t rayCount() const { return raysPerScan() * size_t(scans); }
  double duration() const { return scans / scanRateHz; }  // start of scan 0 to end of the last
  // Time of a column: scan start + column / (columns * rate).
  double columnTime(int scan, int column) const {
    return startTime + (double(scan) + double(column) / double(columns)) / scanRateHz;
  }
  double ringElevation(int ring) const;  // radians
};

struct TrajectorySample {
  double time = 0.0;
  glm::dvec3 position{0.0};
  glm::dquat orientation{1.0, 0.0, 0.0, 0.0};  // sensor to world
};

// The sensor's pose at a time: position on the path at speed * (time - startTime) from
// startDistance, at sensorHeight, heading along the path with a slight pitch and roll sway.
TrajectorySample sensorPose(const SyntheticScene& scene, const LidarConfig& config, double time);
// Poses every 1/rateHz seconds from startTime, the last at or after the end of the run.
std::vector<TrajectorySample> lidarTrajectory(const SyntheticScene& scene, const LidarConfig& config,
                                              double rateHz = 100.0);

// One 360 degree sweep: rays[column * rings + ring], noReturn likewise (1: no return).
struct LidarScan {
  int index = 0;
  double startTime = 0.0;
  std::vector<Ray> rays;
  std::vector<uint8_t> noReturn;
  size_t returns = 0;
};

// Streams the run scan by scan (in order) so that long runs need not be held at once. The
// scan passed to onScan is reused for the next one: copy what must outlive the call.
void generateLidarScans(const SyntheticScene& scene, const LidarConfig& config,
                        const std::function<void(const LidarScan&)>& onScan);
// The whole run in memory; noReturn (when given) gets one flag per ray.
std::vector<Ray> generateLidarRays(const SyntheticScene& scene, const LidarConfig& config,
                                   std::vector<uint8_t>* noReturn = nullptr);

// Binary little-endian PLY with properties double x, y, z, time and float intensity; the vertex count is exact
// (a comment line's padding absorbs the count's digits when the writer closes). Streams.
class LidarPlyWriter {
 public:
  // Writes through a temporary file renamed over `path` on close() (voxen/atomic_file/atomic_file.hpp).
  explicit LidarPlyWriter(const std::filesystem::path& path, const std::string& comment = "voxen synthetic lidar");
  // Closes if still open, swallowing errors (call close() to see them), except while an
  // exception unwinds: then nothing is written and the target stays as it was.
  ~LidarPlyWriter();
  LidarPlyWriter(const LidarPlyWriter&) = delete;
  LidarPlyWriter& operator=(const LidarPlyWriter&) = delete;

  void write(const Ray& ray);  // the sample and its time
  // Every ray, or with noReturn given only those with noReturn[i] == 0.
  void write(const std::vector<Ray>& rays, const std::vector<uint8_t>* noReturn = nullptr);
  uint64_t points() const { return points_; }
  uint64_t bytes() const;  // written so far (after close(): the file's size)
  void close();  // flushes, patches the count and renames into place; throws Error on I/O failure; idempotent

 private:
  void flush();
  std::filesystem::path path_;
  std::unique_ptr<detail::AtomicFileWriter> out_;
  int uncaughtAtStart_ = 0;  // std::uncaught_exceptions() when constructed
  bool closed_ = false;
  std::string buffer_;
  uint64_t points_ = 0;
  std::string comment_;
};

// Text trajectory: a header line "# time x y z qx qy qz qw", then one pose per line.
void writeTrajectoryText(const std::filesystem::path& path, const std::vector<TrajectorySample>& samples);

struct LidarRunSummary {
  uint64_t rays = 0, returns = 0, noReturns = 0, trajectorySamples = 0;
  uint64_t cloudBytes = 0;  // the cloud's size as written (the output may be a device)
  double seconds = 0.0;  // wall time spent generating and writing
};

// Generates the run and writes the returns to cloudPath (PLY as above) and, when
// trajectoryPath is not empty, the trajectory. progress (optional) runs after every scan.
LidarRunSummary writeLidarRun(const SyntheticScene& scene, const LidarConfig& config,
                              const std::filesystem::path& cloudPath, const std::filesystem::path& trajectoryPath,
                              double trajectoryRateHz = 100.0,
                              const std::function<void(const LidarScan&, const LidarRunSummary&)>& progress = {});

}  // namespace voxen
