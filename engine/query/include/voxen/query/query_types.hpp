#pragma once
// What the batched map queries take and answer (voxen/query/gpu_queries.hpp runs them on the
// GPU, voxen/query/cpu_queries.hpp is the CPU reference; both give the same answers bit for
// bit). Positions are metres in double precision, like the map's.
#include <glm/vec3.hpp>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "voxen/host/error.hpp"
#include "voxen/map/map.hpp"

namespace voxen {

// An input the queries cannot answer (a non-finite coordinate, a point beyond the map's
// voxel range, a ray with a zero direction or a negative range), naming the item by its
// index in the batch so a caller can name its own source (a file's line).
class QueryInputError : public Error {
 public:
  QueryInputError(size_t index, const std::string& message) : Error(message), index_(index) {}
  size_t index() const { return index_; }

 private:
  size_t index_;
};

// Answers asked into a caller's span too small for them (GpuQueries::occupancy(points,
// answers) and the like), naming the query and both sizes.
class QueryOutputError : public Error {
 public:
  using Error::Error;
};

// What an answer rests on (issue 38: answers that say what is known). Every query answers
// one per item beside its value, so a caller can tell "nothing there" from "never looked".
enum class QueryStatus : uint8_t {
  Observed,    // the answer rests on observed voxels (free or occupied)
  Unobserved,  // the voxels the answer needs were never observed (or the value depends on one)
  OutOfRange,  // nothing was found within the range asked or computed (a nearest obstacle,
               // a clearance with no obstacle in the layer's range)
  OutsideMap,  // the map holds no region there
};
// "observed", "unobserved", "out_of_range", "outside_map": the CLI's status column and Python's.
const char* queryStatusName(QueryStatus status);

// Occupancy at a point: the log-odds of the voxel holding it (kUnobserved where no ray
// touched it or its region is not in the map) and its class as OccupancyMap::classify
// decides (occupied at or above the model's threshold). status: Observed (a ray touched the
// voxel), Unobserved (its region is in the map, the voxel was never touched) or OutsideMap
// (the map holds no region there). 12 bytes, the layout query_classify.comp writes.
struct OccupancyAnswer {
  float value = kUnobserved;
  VoxelClass voxelClass = VoxelClass::Unobserved;
  QueryStatus status = QueryStatus::Unobserved;
  bool operator==(const OccupancyAnswer&) const = default;
};

// A ray: from `origin` along `direction` (any non-zero length; only its direction counts)
// for `maxRange` metres (>= 0; 0 tests the origin's voxel only).
struct QueryRay {
  glm::dvec3 origin{0.0};
  glm::dvec3 direction{1.0, 0.0, 0.0};
  double maxRange = 5.0;
};

struct RaycastOptions {
  // Unobserved voxels stop the ray too (a careful planner's view of unknown space).
  bool unknownBlocks = false;
};

// The first voxel along a ray that is occupied (or, with unknownBlocks, unobserved), in the
// order the engine's voxel walk visits them (engine/occupancy ray_walk.hpp). `point` is
// where the ray enters that voxel and `distance` its distance from the origin; a ray that
// starts inside such a voxel hits it at distance 0, at its origin. Without a hit, the other
// fields are zero.
struct RayHit {
  bool hit = false;
  double distance = 0.0;
  glm::dvec3 point{0.0};
  VoxelCoord voxel;
  float value = 0.0f;  // the voxel's log-odds (kUnobserved for unknown space)
  VoxelClass voxelClass = VoxelClass::Unobserved;
  QueryStatus status = QueryStatus::OutOfRange;
  bool operator==(const RayHit&) const = default;
};

// Clearance at a point, trilinear between the 8 voxel centres around it, and its gradient
// (metres per metre; points away from obstacles). Where any of the 8 has no clearance value
// the sample is -1 and the gradient NaN (undefined: interpolating towards a marker would
// invent distances), and status says why: OutsideMap (a corner's region is not in the map)
// before OutOfRange (no obstacle within the range the layer was computed with); Observed
// otherwise. (The clearance layer treats unobserved voxels as its options said when it was
// computed, so a sample does not report Unobserved.) Equal when the bits are: NaN gradients
// compare equal. 20 bytes, the layout query_clearance.comp writes.
struct ClearanceSample {
  float clearance = -1.0f;
  glm::vec3 gradient{std::numeric_limits<float>::quiet_NaN()};
  QueryStatus status = QueryStatus::OutsideMap;
  bool operator==(const ClearanceSample& other) const {
    return std::bit_cast<uint32_t>(clearance) == std::bit_cast<uint32_t>(other.clearance) &&
           std::bit_cast<uint32_t>(gradient.x) == std::bit_cast<uint32_t>(other.gradient.x) &&
           std::bit_cast<uint32_t>(gradient.y) == std::bit_cast<uint32_t>(other.gradient.y) &&
           std::bit_cast<uint32_t>(gradient.z) == std::bit_cast<uint32_t>(other.gradient.z) && status == other.status;
  }
};

// An axis-aligned box in metres: every voxel that holds a point of it (lower and upper
// faces included), min <= max on every axis.
struct QueryBox {
  glm::dvec3 min{0.0};
  glm::dvec3 max{0.0};
};

// The voxels of a class inside a box, ordered x fastest, then y, then z.
struct BoxVoxels {
  uint64_t count = 0;
  std::vector<VoxelCoord> voxels;
};

struct QueryOptions {
  // Device memory for the region cache the queries read the map through; a map with more
  // regions than it holds is queried in chunks of regions (correct, slower).
  uint64_t cacheBytes = 256ull << 20;
  // Voxel faces one GPU invocation walks at most: longer rays are split, since lavapipe
  // ends any loop silently after 65,535 iterations per invocation.
  uint32_t maxCrossingsPerSegment = 1024;
  // Largest box (in voxels) voxelsInBox accepts.
  uint64_t maxBoxVoxels = 1ull << 28;
  // Called after each round trip of a batch (at most 1 M items each) with the items done
  // and the batch's total, so a long batch can show progress. Optional.
  std::function<void(uint64_t done, uint64_t total)> progress{};
};

}  // namespace voxen
