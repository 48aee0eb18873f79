#include "commands/query_collision.hpp"

#include "voxen/host/error.hpp"
#include "voxen/query/cpu_queries.hpp"
#include "cli_options.hpp"

namespace voxen::cli {

bool isCollisionKind(const std::string& kind) {
  return kind == "sphere" || kind == "path" || kind == "box" || kind == "nearest";
}

size_t collisionInputWidth(const std::string& kind) { return kind == "box" ? 4 : 3; }

std::vector<std::string> collisionColumns(const std::string& kind) {
  if (kind == "sphere") return {"x", "y", "z", "collides", "status"};
  if (kind == "path") return {"path", "collides", "segment", "t", "status"};
  if (kind == "box") return {"x", "y", "z", "yaw", "collides", "status"};
  return {"x", "y", "z", "distance", "ox", "oy", "oz", "status"};
}

namespace {

std::vector<glm::dvec3> pointsOf(const QueryInput& input) {
  std::vector<glm::dvec3> points(input.size());
  for (size_t i = 0; i < points.size(); ++i)
    points[i] = {input.values[3 * i], input.values[3 * i + 1], input.values[3 * i + 2]};
  return points;
}

void point(Table& table, const glm::dvec3& p) { table.number(p.x), table.number(p.y), table.number(p.z); }

}  // namespace

// The batch's own settings (radius, size, range) checked before any item, so that an error
// names the flag rather than the input's first row.
void checkSettings(const std::string& kind, const CollisionSettings& s, const OccupancyMap& map) {
  try {
    if (kind == "sphere" || kind == "path") cpuSphereCollisions(map, {}, s.radius);
    if (kind == "box") cpuBoxCollisions(map, {}, s.size);
    if (kind == "nearest") cpuNearestObstacles(map, {}, s.maxRange);
  } catch (const QueryInputError& e) {
    throw UsageError(std::string(kind == "box" ? "--size" : kind == "nearest" ? "--max-range" : "--radius") + ": " + e.what());
  }
}

void writeCollisionRows(Table& table, const std::string& kind, const QueryInput& input, const QueryPaths* paths,
                        const CollisionSettings& s, const OccupancyMap& map, GpuQueries* gpu) {
  checkSettings(kind, s, map);
  if (kind == "sphere") {
    const std::vector<glm::dvec3> points = pointsOf(input);
    const std::vector<CollisionAnswer> answers =
        gpu ? gpu->sphereCollisions(points, s.radius, s.unknown) : cpuSphereCollisions(map, points, s.radius, s.unknown);
    for (size_t i = 0; i < points.size(); ++i) {
      table.beginRow();
      point(table, points[i]);
      table.number(answers[i].collides ? 1.0 : 0.0);
      table.string(queryStatusName(answers[i].status));
      table.endRow();
    }
  } else if (kind == "path") {
    const std::vector<glm::dvec3> points = pointsOf(paths->points);
    const std::vector<PathAnswer> answers =
        gpu ? gpu->pathCollisions(points, paths->offsets, s.radius, s.unknown)
            : cpuPathCollisions(map, points, paths->offsets, s.radius, s.unknown);
    for (size_t i = 0; i < answers.size(); ++i) {
      table.beginRow();
      table.number(double(i));
      table.number(answers[i].collides ? 1.0 : 0.0);
      table.number(double(answers[i].segment));
      table.number(answers[i].t);
      table.string(queryStatusName(answers[i].status));
      table.endRow();
    }
  } else if (kind == "box") {
    std::vector<BoxPose> poses(input.size());
    for (size_t i = 0; i < poses.size(); ++i) {
      const double* v = &input.values[4 * i];
      poses[i] = {{v[0], v[1], v[2]}, v[3]};
    }
    const std::vector<CollisionAnswer> answers =
        gpu ? gpu->boxCollisions(poses, s.size, s.unknown) : cpuBoxCollisions(map, poses, s.size, s.unknown);
    for (size_t i = 0; i < poses.size(); ++i) {
      table.beginRow();
      point(table, poses[i].centre);
      table.number(poses[i].yaw);
      table.number(answers[i].collides ? 1.0 : 0.0);
      table.string(queryStatusName(answers[i].status));
      table.endRow();
    }
  } else {
    const std::vector<glm::dvec3> points = pointsOf(input);
    const std::vector<NearestAnswer> answers =
        gpu ? gpu->nearestObstacles(points, s.maxRange) : cpuNearestObstacles(map, points, s.maxRange);
    for (size_t i = 0; i < points.size(); ++i) {
      table.beginRow();
      point(table, points[i]);
      const NearestAnswer& a = answers[i];
      if (a.distance < 0.0) {
        table.number(-1.0);
        for (int k = 0; k < 3; ++k) table.empty();
      } else {
        table.number(a.distance);
        point(table, a.obstacle);
      }
      table.string(queryStatusName(a.status));
      table.endRow();
    }
  }
}

}  // namespace voxen::cli
