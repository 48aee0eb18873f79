#pragma once
// `voxen query --kind sphere|path|box|nearest`: the collision and distance queries for
// planners (voxen/query/collision_types.hpp), their columns and rows.
#include <string>
#include <vector>

#include <glm/vec3.hpp>

#include "commands/query_input.hpp"
#include "commands/query_table.hpp"
#include "voxen/query/collision_types.hpp"
#include "voxen/query/gpu_queries.hpp"

namespace voxen::cli {

bool isCollisionKind(const std::string& kind);
// The kind's input width (sphere, nearest: 3; box: 4; path: its own reader).
size_t collisionInputWidth(const std::string& kind);

struct CollisionSettings {
  double radius = 0.0;          // sphere, path
  glm::dvec3 size{0.0};         // box
  double maxRange = 2.0;        // nearest
  UnknownSpace unknown = UnknownSpace::Occupied;
};

// The kind's columns: sphere x,y,z,collides,status; path path,collides,segment,t,status;
// box x,y,z,yaw,collides,status; nearest x,y,z,distance,ox,oy,oz,status.
std::vector<std::string> collisionColumns(const std::string& kind);
// Answers on the GPU (`gpu`) or the CPU twins (null) and writes one row per item (per path
// for paths: `paths` holds them; `input` is unused then).
void writeCollisionRows(Table& table, const std::string& kind, const QueryInput& input, const QueryPaths* paths,
                        const CollisionSettings& settings, const OccupancyMap& map, GpuQueries* gpu);

}  // namespace voxen::cli
