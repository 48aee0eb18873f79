#pragma once
// One chunk of a RayReader's input made into rays: the work a pipeline worker does, and the
// counts the reader adds up in input order. Making a chunk depends only on its rows, so the
// rays and counts are the same whichever thread makes it and whenever.
#include <cstdint>
#include <exception>
#include <limits>
#include <mutex>
#include <optional>
#include <vector>

#include "point_source.hpp"
#include "voxen/input/ray_source.hpp"

namespace voxen::detail {

struct RayChunk {
  std::vector<Ray> rays;  // the chunk's rays in input order, skipped points left out
  RayLoadStats stats;     // the chunk's points; timeMin/timeMax over its rays
  // Times of its points outside the trajectory's span (for the summary and the unit check).
  double outsideMin = std::numeric_limits<double>::infinity();
  double outsideMax = -std::numeric_limits<double>::infinity();
  RayReadTimes times;        // the CPU time making it took, on the thread that made it
  std::optional<double> orderTime;  // SourceSkips::orderTime
  std::exception_ptr error;  // what making it threw (a voxen::Error); the rest is empty then
};

// What the pipeline does to rows besides making them rays.
struct ChunkRules {
  const Trajectory* trajectory = nullptr;  // origins interpolated from it at each point's time
  std::optional<glm::dvec3> fixedOrigin;   // every ray's origin, for rows without origins
  // Returns from the robot, judged relative to each ray's origin (with the trajectory's
  // orientation where it has one); null when none or when the source judged them itself.
  const SensorExclusion* exclusion = nullptr;
};

// Makes chunk k of `source` into `chunk` (overwritten; its vectors' memory is reused), with
// `rows` as scratch. Points with a non-finite coordinate, origin or time are skipped and
// counted; with a trajectory, origins are interpolated at the point's time and points outside
// its span skipped and counted; then returns from the robot (rules.exclusion) are skipped and
// counted. Never throws: an error is stored in chunk.error. `readLock`, when given, is held
// on entry and released once the rows are read (a stream's order).
void makeRayChunk(PointSource& source, uint64_t k, const RayRowLayout& layout, const ChunkRules& rules,
                  std::vector<double>& rows, RayChunk& chunk, std::unique_lock<std::mutex>* readLock);

// Adds a chunk's counts and times to the reader's totals; chunks must come in input order
// for the totals to be what one pass over the file gives.
void addChunkTotals(const RayChunk& chunk, RayLoadStats& stats, RayReadTimes& times, double& outsideMin,
                    double& outsideMax);

}  // namespace voxen::detail
