#include "voxen/testdata/synthetic_lidar.hpp"

#include <glm/geometric.hpp>
#include <glm/gtc/quaternion.hpp>
#include <glm/mat3x3.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <optional>
#include <limits>
#include <numbers>
#include <thread>

#include "voxen/host/error.hpp"
#include "voxen/host/setting_error.hpp"
#include "voxen/host/thread_start.hpp"
#include "voxen/atomic_file/atomic_file.hpp"

namespace voxen {

namespace {

constexpr double kPi = std::numbers::pi;
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kHitEpsilon = 1e-9;

enum PrimitiveKind : uint32_t { kBox = 0, kCylinder = 1, kSphere = 2, kRamp = 3 };
constexpr uint32_t kKindShift = 30;
constexpr uint32_t kIndexMask = (1u << kKindShift) - 1;

uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Sequential generator for the scene layout.
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(splitmix64(seed ^ 0x5CE7E5EEDull)) {}
  uint64_t next() {
    state_ += 0x9E3779B97F4A7C15ull;
    return splitmix64(state_);
  }
  double unit() { return double(next() >> 11) * 0x1.0p-53; }  // [0, 1)
  double uniform(double a, double b) { return a + (b - a) * unit(); }
  int uniformInt(int a, int b) { return a + int(next() % uint64_t(b - a + 1)); }  // inclusive

 private:
  uint64_t state_;
};

// Gaussian noise from a counter: the same ray always gets the same value, on any thread.
double gaussianFor(uint64_t seed, uint64_t scan, uint64_t column, uint64_t ring) {
  uint64_t h = splitmix64(seed ^ 0xA0761D6478BD642Full);
  h = splitmix64(h ^ scan);
  h = splitmix64(h ^ column);
  h = splitmix64(h ^ ring);
  const uint64_t h2 = splitmix64(h);
  const double u1 = (double(h >> 11) + 1.0) * 0x1.0p-53;  // (0, 1]
  const double u2 = double(h2 >> 11) * 0x1.0p-53;
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * kPi * u2);
}

// A return's intensity (0 to 255, like an 8-bit lidar channel): the reflectivity of the
// surface patch hit (0.2 to 1, constant over 0.5 m cells of the hit point, from the seed)
// falling off with range, plus a little noise. Deterministic like the rest of the run.
float returnIntensity(uint64_t seed, const glm::dvec3& hit, double range, double noise) {
  const glm::dvec3 cell = glm::floor(hit / 0.5);
  uint64_t h = splitmix64(seed ^ 0x5851F42D4C957F2Dull);
  for (int a = 0; a < 3; ++a) h = splitmix64(h ^ uint64_t(int64_t(cell[a])));
  const double reflectivity = 0.2 + 0.8 * double(h >> 11) * 0x1.0p-53;
  const double value = 255.0 * reflectivity * std::exp(-range / 40.0) + 2.0 * noise;
  return float(std::clamp(value, 0.0, 255.0));
}

struct RayQuery {
  glm::dvec3 o, d, inv;
};

// Entry distance of the ray into the box, when in (kHitEpsilon, best).
bool hitBox(const SceneBox& b, const RayQuery& r, double best, double& t) {
  double tNear = -kInf, tFar = best;
  for (int k = 0; k < 3; ++k) {
    if (r.d[k] == 0.0) {
      if (r.o[k] < b.min[k] || r.o[k] > b.max[k]) return false;
      continue;
    }
    double ta = (b.min[k] - r.o[k]) * r.inv[k], tb = (b.max[k] - r.o[k]) * r.inv[k];
    if (ta > tb) std::swap(ta, tb);
    tNear = std::max(tNear, ta);
    tFar = std::min(tFar, tb);
    if (tNear > tFar) return false;
  }
  if (!(tNear > kHitEpsilon) || tNear >= best) return false;
  t = tNear;
  return true;
}

bool hitCylinder(const SceneCylinder& c, const RayQuery& r, double best, double& t) {
  bool found = false;
  const double dx = r.o.x - c.centre.x, dy = r.o.y - c.centre.y;
  const double a = r.d.x * r.d.x + r.d.y * r.d.y;
  const double r2 = c.radius * c.radius;
  const double c0 = dx * dx + dy * dy - r2;
  if (a > 1e-18 && c0 > 0.0) {  // side, seen from outside
    const double b = dx * r.d.x + dy * r.d.y;
    const double disc = b * b - a * c0;
    if (disc >= 0.0) {
      const double ts = (-b - std::sqrt(disc)) / a;
      const double z = r.o.z + ts * r.d.z;
      if (ts > kHitEpsilon && ts < best && z >= c.zMin && z <= c.zMax) {
        best = ts;
        found = true;
      }
    }
  }
  if (r.d.z != 0.0) {  // caps, seen from outside
    const double planes[2] = {c.zMax, c.zMin};
    for (int i = 0; i < 2; ++i) {
      const bool outside = i == 0 ? r.o.z > c.zMax : r.o.z < c.zMin;
      if (!outside) continue;
      const double tc = (planes[i] - r.o.z) / r.d.z;
      if (!(tc > kHitEpsilon) || tc >= best) continue;
      const double px = dx + tc * r.d.x, py = dy + tc * r.d.y;
      if (px * px + py * py <= r2) {
        best = tc;
        found = true;
      }
    }
  }
  if (found) t = best;
  return found;
}

bool hitSphere(const SceneSphere& s, const RayQuery& r, double best, double& t) {
  const glm::dvec3 oc = r.o - s.centre;
  const double b = glm::dot(oc, r.d);
  const double c = glm::dot(oc, oc) - s.radius * s.radius;
  if (c <= 0.0) return false;  // inside
  const double disc = b * b - c;
  if (disc < 0.0) return false;
  const double ts = -b - std::sqrt(disc);
  if (!(ts > kHitEpsilon) || ts >= best) return false;
  t = ts;
  return true;
}

// A ramp's six faces as half-spaces n . p <= c (n not unit length: the top's is (-g, 1)).
struct HalfSpace {
  glm::dvec3 n;
  double c;
};
std::array<HalfSpace, 6> rampHalfSpaces(const SceneRamp& ramp) {
  const double g = ramp.gradient();
  glm::dvec3 top(0.0, 0.0, 1.0);
  top[ramp.axis] = -g;
  return {{{{-1, 0, 0}, -ramp.min.x},
           {{1, 0, 0}, ramp.max.x},
           {{0, -1, 0}, -ramp.min.y},
           {{0, 1, 0}, ramp.max.y},
           {{0, 0, -1}, -ramp.zBase},
           {top, ramp.zStart - g * ramp.min[ramp.axis]}}};
}

// Entry distance into the ramp, when in (kHitEpsilon, best): the ray clipped by each face's
// half-space (Kay and Kajiya's slabs, one plane at a time), as hitBox does with three slabs.
bool hitRamp(const SceneRamp& ramp, const RayQuery& r, double best, double& t) {
  double tNear = -kInf, tFar = best;
  for (const HalfSpace& h : rampHalfSpaces(ramp)) {
    const double along = glm::dot(h.n, r.d), inside = h.c - glm::dot(h.n, r.o);  // inside >= 0: the origin's side
    if (along == 0.0) {
      if (inside < 0.0) return false;  // parallel to the face and outside it
      continue;
    }
    const double tp = inside / along;
    if (along < 0.0)
      tNear = std::max(tNear, tp);  // the ray comes in through this face
    else
      tFar = std::min(tFar, tp);  // and leaves through this one
    if (tNear > tFar) return false;
  }
  if (!(tNear > kHitEpsilon) || tNear >= best) return false;
  t = tNear;
  return true;
}

// Distance from p to a convex planar polygon (vertices in order; repeated ones allowed).
double polygonDistance(const std::vector<glm::dvec3>& v, const glm::dvec3& p) {
  glm::dvec3 normal(0.0);  // Newell's method: robust to a wedge's repeated vertex
  for (size_t i = 0; i < v.size(); ++i) normal += glm::cross(v[i], v[(i + 1) % v.size()]);
  const double length = glm::length(normal);
  bool inside = length > 0.0;
  if (inside) {
    normal /= length;
    const glm::dvec3 q = p - glm::dot(p - v[0], normal) * normal;  // p projected onto the plane
    for (size_t i = 0; i < v.size() && inside; ++i)
      inside = glm::dot(glm::cross(v[(i + 1) % v.size()] - v[i], q - v[i]), normal) >= 0.0;
    if (inside) return std::abs(glm::dot(p - v[0], normal));
  }
  double best = kInf;
  for (size_t i = 0; i < v.size(); ++i) {
    const glm::dvec3 a = v[i], ab = v[(i + 1) % v.size()] - a;
    const double ab2 = glm::dot(ab, ab);
    const double f = ab2 > 0.0 ? std::clamp(glm::dot(p - a, ab) / ab2, 0.0, 1.0) : 0.0;
    best = std::min(best, glm::length(p - (a + f * ab)));
  }
  return best;
}

double rampDistance(const SceneRamp& ramp, const glm::dvec3& p) {
  const auto planes = rampHalfSpaces(ramp);
  double deepest = -kInf;  // inside a convex solid the nearest face is the nearest plane
  for (const HalfSpace& h : planes) deepest = std::max(deepest, (glm::dot(h.n, p) - h.c) / glm::length(h.n));
  if (deepest <= 0.0) return -deepest;
  // Outside: the nearest of the six faces. Corners: bottom b[i] and top t[i], counter-clockwise from min.
  const glm::dvec2 plan[4] = {ramp.min, {ramp.max.x, ramp.min.y}, ramp.max, {ramp.min.x, ramp.max.y}};
  glm::dvec3 b[4], t[4];
  for (int i = 0; i < 4; ++i) {
    b[i] = glm::dvec3(plan[i], ramp.zBase);
    t[i] = glm::dvec3(plan[i], ramp.topAt(plan[i]));
  }
  double best = std::min(polygonDistance({b[0], b[3], b[2], b[1]}, p), polygonDistance({t[0], t[1], t[2], t[3]}, p));
  for (int i = 0; i < 4; ++i) {
    const int j = (i + 1) % 4;
    best = std::min(best, polygonDistance({b[i], b[j], t[j], t[i]}, p));
  }
  return best;
}

double boxDistance(const SceneBox& b, const glm::dvec3& p) {
  const glm::dvec3 c = 0.5 * (b.min + b.max), h = 0.5 * (b.max - b.min);
  const glm::dvec3 q = glm::abs(p - c) - h;
  const double outside = glm::length(glm::max(q, glm::dvec3(0.0)));
  const double inside = std::min(std::max(q.x, std::max(q.y, q.z)), 0.0);
  return std::abs(outside + inside);
}

double cylinderDistance(const SceneCylinder& c, const glm::dvec3& p) {
  const double radial = std::hypot(p.x - c.centre.x, p.y - c.centre.y) - c.radius;
  const double axial = std::max(c.zMin - p.z, p.z - c.zMax);
  const double outside = std::hypot(std::max(radial, 0.0), std::max(axial, 0.0));
  const double inside = std::min(std::max(radial, axial), 0.0);
  return std::abs(outside + inside);
}

// Plan footprint of a primitive.
struct Footprint {
  glm::dvec2 min, max;
};
Footprint footprintOf(const SceneBox& b) { return {glm::dvec2(b.min), glm::dvec2(b.max)}; }
Footprint footprintOf(const SceneCylinder& c) { return {c.centre - c.radius, c.centre + c.radius}; }
Footprint footprintOf(const SceneSphere& s) {
  return {glm::dvec2(s.centre) - s.radius, glm::dvec2(s.centre) + s.radius};
}
Footprint footprintOf(const SceneRamp& r) { return {r.min, r.max}; }

double rectDistance(const Footprint& f, const glm::dvec2& p) {
  const double dx = std::max({f.min.x - p.x, 0.0, p.x - f.max.x});
  const double dy = std::max({f.min.y - p.y, 0.0, p.y - f.max.y});
  return std::hypot(dx, dy);
}

void fail(const std::string& what) { throw Error(what); }

// ---- scene layout ------------------------------------------------------------------

struct RoomPlan {
  int side = 1;  // +1: north of the corridor (y > 0), -1: south
  double a = 0, b = 0;  // x extent (wall centre lines)
  double depth = 0;     // from the corridor wall's centre line to the far wall's
  double door = 0;      // x of the corridor door's centre
};

class SceneBuilder {
 public:
  explicit SceneBuilder(SyntheticScene& scene) : s_(scene), o_(scene.options) {}

  // A wall along x at y from x0 to x1 (centre lines), optionally with a door at doorX.
  void wallAlongX(double y, double x0, double x1, std::optional<double> doorX) {
    const double t = o_.wallThickness / 2, H = o_.ceilingHeight;
    if (!doorX) {
      s_.boxes.push_back({{x0 - t, y - t, 0.0}, {x1 + t, y + t, H}});
      return;
    }
    const double g0 = *doorX - o_.doorWidth / 2, g1 = *doorX + o_.doorWidth / 2;
    s_.boxes.push_back({{x0 - t, y - t, 0.0}, {g0, y + t, H}});
    s_.boxes.push_back({{g1, y - t, 0.0}, {x1 + t, y + t, H}});
    s_.boxes.push_back({{g0, y - t, o_.doorHeight}, {g1, y + t, H}});
  }
  void wallAlongY(double x, double y0, double y1, std::optional<double> doorY) {
    if (y0 > y1) std::swap(y0, y1);
    const double t = o_.wallThickness / 2, H = o_.ceilingHeight;
    if (!doorY) {
      s_.boxes.push_back({{x - t, y0 - t, 0.0}, {x + t, y1 + t, H}});
      return;
    }
    const double g0 = *doorY - o_.doorWidth / 2, g1 = *doorY + o_.doorWidth / 2;
    s_.boxes.push_back({{x - t, y0 - t, 0.0}, {x + t, g0, H}});
    s_.boxes.push_back({{x - t, g1, 0.0}, {x + t, y1 + t, H}});
    s_.boxes.push_back({{x - t, g0, o_.doorHeight}, {x + t, g1, H}});
  }

 private:
  SyntheticScene& s_;
  const SceneOptions& o_;
};

}  // namespace

// Quadratic B-spline through the closed control polygon, sampled about every `step` metres.
void SyntheticScene::setPath(const std::vector<glm::dvec2>& control, double step) {
  SyntheticScene& scene = *this;
  const size_t n = control.size();
  if (n < 3 || !(step > 0.0)) fail("synthetic scene: a path needs 3 or more control points and a positive step");
  scene.pathPoints.clear();
  scene.pathHeading.clear();
  scene.pathDistance.clear();
  double heading = 0.0;
  bool first = true;
  for (size_t i = 0; i < n; ++i) {
    const glm::dvec2 p0 = 0.5 * (control[(i + n - 1) % n] + control[i]);
    const glm::dvec2 p1 = control[i];
    const glm::dvec2 p2 = 0.5 * (control[i] + control[(i + 1) % n]);
    const double approx = glm::length(p1 - p0) + glm::length(p2 - p1);
    const int m = std::max(2, int(std::ceil(approx / step)));
    for (int k = 0; k < m; ++k) {
      const double u = double(k) / m;
      const glm::dvec2 p = (1 - u) * (1 - u) * p0 + 2 * u * (1 - u) * p1 + u * u * p2;
      const glm::dvec2 dp = 2 * (1 - u) * (p1 - p0) + 2 * u * (p2 - p1);
      double h = std::atan2(dp.y, dp.x);
      if (!first) h += 2 * kPi * std::round((heading - h) / (2 * kPi));  // unwrap
      heading = h;
      first = false;
      scene.pathPoints.push_back(p);
      scene.pathHeading.push_back(h);
    }
  }
  // Close the loop: repeat the first point with the heading continued.
  double h = scene.pathHeading.front();
  h += 2 * kPi * std::round((heading - h) / (2 * kPi));
  scene.pathPoints.push_back(scene.pathPoints.front());
  scene.pathHeading.push_back(h);
  scene.pathDistance.resize(scene.pathPoints.size());
  scene.pathDistance[0] = 0.0;
  for (size_t i = 1; i < scene.pathPoints.size(); ++i)
    scene.pathDistance[i] = scene.pathDistance[i - 1] + glm::length(scene.pathPoints[i] - scene.pathPoints[i - 1]);
  scene.pathLength = scene.pathDistance.back();
}

// ---- SyntheticScene -------------------------------------------------------------------

SyntheticScene SyntheticScene::generate(uint64_t seed, const SceneOptions& options) {
  const SceneOptions& o = options;
  auto bad = [](const std::string& field, const std::string& why) { fail("synthetic scene: " + field + " " + why); };
  if (o.minRoomsPerSide < 1 || o.maxRoomsPerSide < o.minRoomsPerSide || o.maxRoomsPerSide > 64)
    bad("rooms per side", "must satisfy 1 <= min <= max <= 64");
  if (!(o.ceilingHeight >= 2.2 && o.ceilingHeight <= 20.0)) bad("ceiling height", "must be in [2.2, 20] m");
  if (!(o.wallThickness >= 0.05 && o.wallThickness <= 0.5)) bad("wall thickness", "must be in [0.05, 0.5] m");
  if (!(o.doorWidth >= 0.8 && o.doorWidth <= 1.6)) bad("door width", "must be in [0.8, 1.6] m");
  if (!(o.doorHeight > 1.5 && o.doorHeight < o.ceilingHeight)) bad("door height", "must be in (1.5 m, ceiling)");
  if (o.minObjectsPerRoom < 0 || o.maxObjectsPerRoom < o.minObjectsPerRoom || o.maxObjectsPerRoom > 64)
    bad("objects per room", "must satisfy 0 <= min <= max <= 64");
  if (!(o.pathClearance >= 0.0 && o.pathClearance <= 1.0)) bad("path clearance", "must be in [0, 1] m");

  SyntheticScene scene;
  scene.seed = seed;
  scene.options = options;
  Rng rng(seed);
  SceneBuilder build(scene);
  const double H = o.ceilingHeight, t = o.wallThickness / 2;

  // Corridor along x, centred on y = 0, rooms on both sides.
  const double h = rng.uniform(1.1, 1.4);  // corridor half width (wall centre lines)
  std::vector<RoomPlan> rooms;
  double sideLength[2] = {0, 0};
  for (int side : {1, -1}) {
    const int count = rng.uniformInt(o.minRoomsPerSide, o.maxRoomsPerSide);
    double x = 0.0;
    for (int i = 0; i < count; ++i) {
      RoomPlan room;
      room.side = side;
      room.a = x;
      room.b = x + rng.uniform(5.0, 9.0);
      room.depth = rng.uniform(5.0, 8.0);
      x = room.b;
      rooms.push_back(room);
    }
    sideLength[side > 0 ? 0 : 1] = x;
  }
  const double L = std::max(sideLength[0], sideLength[1]);
  for (int side : {1, -1}) {  // stretch the shorter side's last room to the corridor's end
    for (size_t i = rooms.size(); i-- > 0;)
      if (rooms[i].side == side) {
        rooms[i].b = L;
        break;
      }
  }
  const double margin = 1.4;  // door centre from a room's side walls
  for (auto& room : rooms) room.door = rng.uniform(room.a + margin, room.b - margin);

  // Walls.
  double maxDepth[2] = {0, 0};
  for (size_t i = 0; i < rooms.size(); ++i) {
    const RoomPlan& room = rooms[i];
    const int s = room.side;
    maxDepth[s > 0 ? 0 : 1] = std::max(maxDepth[s > 0 ? 0 : 1], room.depth);
    build.wallAlongX(s * h, room.a, room.b, room.door);  // corridor side, with its door
    build.wallAlongX(s * (h + room.depth), room.a, room.b, std::nullopt);
    if (i == 0 || rooms[i - 1].side != s) build.wallAlongY(room.a, s * h, s * (h + room.depth), std::nullopt);
    const bool last = i + 1 == rooms.size() || rooms[i + 1].side != s;
    if (last) {
      build.wallAlongY(room.b, s * h, s * (h + room.depth), std::nullopt);
    } else {  // shared with the next room, sometimes with a door between them
      const RoomPlan& next = rooms[i + 1];
      const double shared = std::min(room.depth, next.depth);
      std::optional<double> door;
      const double lo = 0.8 + o.doorWidth / 2, hi = shared - 0.8 - o.doorWidth / 2;
      if (rng.unit() < 0.5 && hi > lo) door = s * (h + rng.uniform(lo, hi));
      build.wallAlongY(room.b, s * h, s * (h + std::max(room.depth, next.depth)), door);
    }
  }
  build.wallAlongY(0.0, -h, h, std::nullopt);  // corridor ends
  build.wallAlongY(L, -h, h, o.exteriorDoor ? std::optional<double>(0.0) : std::nullopt);
  // Floor and ceiling: slabs over the whole plan.
  const glm::dvec2 planMin(-t, -(h + maxDepth[1]) - t), planMax(L + t, h + maxDepth[0] + t);
  scene.boxes.push_back({{planMin.x, planMin.y, -0.2}, {planMax.x, planMax.y, 0.0}});
  scene.boxes.push_back({{planMin.x, planMin.y, H}, {planMax.x, planMax.y, H + 0.2}});
  // Outside the open door: a patch of ground, then nothing (beams that leave find no return).
  if (o.exteriorDoor) scene.boxes.push_back({{L + t, -h - 6.0, -0.2}, {L + 12.0, h + 6.0, 0.0}});

  // Walkable areas.
  scene.areas.push_back({"corridor", {t, -h + t}, {L - t, h - t}});
  int roomNumber[2] = {0, 0};
  for (const auto& room : rooms) {
    const int s = room.side;
    const double y0 = s * (h + t), y1 = s * (h + room.depth - t);
    scene.areas.push_back({std::string(s > 0 ? "north room " : "south room ") + std::to_string(roomNumber[s > 0 ? 0 : 1]++),
                           {room.a + t, std::min(y0, y1)},
                           {room.b - t, std::max(y0, y1)}});
  }

  // Sensor path: a closed loop, out along the north lane visiting the north rooms, a U-turn
  // at the east end, back along the south lane visiting the south rooms, a U-turn at the west.
  const double lane = 0.35;
  std::vector<glm::dvec2> control;
  auto visit = [&](const RoomPlan& room) {
    const int s = room.side;
    const double x = room.door;
    const double inside = 1.0 + t;  // loop corners keep this far from the walls' centre lines
    const double yFar = s * (h + room.depth - inside);
    const double ax = std::max(room.a + inside, x - 1.8), bx = std::min(room.b - inside, x + 1.8);
    const glm::dvec2 A(s > 0 ? ax : bx, yFar), B(s > 0 ? bx : ax, yFar);
    control.insert(control.end(), {{x, s * lane}, {x, s * (h - 0.6)}, {x, s * (h + 0.6)}, A, B,
                                   {x, s * (h + 0.6)}, {x, s * (h - 0.6)}, {x, s * lane}});
  };
  control.push_back({1.0, lane});
  for (const auto& room : rooms)
    if (room.side > 0) visit(room);
  control.insert(control.end(), {{L - 1.0, lane}, {L - 0.45, lane}, {L - 0.45, -lane}, {L - 1.0, -lane}});
  for (size_t i = rooms.size(); i-- > 0;)
    if (rooms[i].side < 0) visit(rooms[i]);
  control.insert(control.end(), {{1.0, -lane}, {0.45, -lane}, {0.45, lane}});
  scene.setPath(control, 0.01);

  // Objects in the rooms, clear of the path and of each other.
  for (size_t r = 1; r < scene.areas.size(); ++r) {
    const SceneArea& area = scene.areas[r];
    std::vector<glm::dvec2> nearPath;
    for (const auto& p : scene.pathPoints)
      if (p.x > area.min.x - 2 && p.x < area.max.x + 2 && p.y > area.min.y - 2 && p.y < area.max.y + 2)
        nearPath.push_back(p);
    std::vector<Footprint> placed;
    const int wanted = rng.uniformInt(o.minObjectsPerRoom, o.maxObjectsPerRoom);
    for (int attempt = 0; attempt < 40 * wanted && int(placed.size()) < wanted; ++attempt) {
      const double kind = rng.unit();
      double rx, ry;  // half extents in plan
      SceneBox box;
      SceneCylinder cylinder;
      SceneSphere sphere;
      if (kind < 0.5) {
        rx = rng.uniform(0.2, 0.7);
        ry = rng.uniform(0.2, 0.7);
        box.max.z = rng.uniform(0.4, 2.0);
      } else if (kind < 0.75) {
        rx = ry = cylinder.radius = rng.uniform(0.12, 0.35);
        cylinder.zMax = rng.unit() < 0.4 ? H : rng.uniform(0.5, 1.6);
      } else {
        rx = ry = sphere.radius = rng.uniform(0.2, 0.5);
      }
      const double inset = 0.15;
      if (area.max.x - area.min.x < 2 * (rx + inset) || area.max.y - area.min.y < 2 * (ry + inset)) continue;
      const glm::dvec2 c(rng.uniform(area.min.x + inset + rx, area.max.x - inset - rx),
                         rng.uniform(area.min.y + inset + ry, area.max.y - inset - ry));
      const Footprint f{c - glm::dvec2(rx, ry), c + glm::dvec2(rx, ry)};
      bool clear = true;
      for (const auto& p : nearPath) {
        const double d = kind < 0.5 ? rectDistance(f, p) : glm::length(p - c) - rx;
        if (d < o.pathClearance) {
          clear = false;
          break;
        }
      }
      for (const auto& other : placed)
        if (clear && f.min.x < other.max.x + 0.2 && other.min.x < f.max.x + 0.2 && f.min.y < other.max.y + 0.2 &&
            other.min.y < f.max.y + 0.2)
          clear = false;
      if (!clear) continue;
      placed.push_back(f);
      if (kind < 0.5) {
        box.min = {f.min.x, f.min.y, 0.0};
        box.max = {f.max.x, f.max.y, box.max.z};
        scene.boxes.push_back(box);
      } else if (kind < 0.75) {
        cylinder.centre = c;
        scene.cylinders.push_back(cylinder);
      } else {
        sphere.centre = {c.x, c.y, sphere.radius};
        scene.spheres.push_back(sphere);
      }
    }
  }

  scene.buildAccelerator();  // also sets the bounds
  return scene;
}

void SyntheticScene::buildAccelerator() {
  boundsMin = glm::dvec3(kInf);
  boundsMax = glm::dvec3(-kInf);
  auto grow = [&](const glm::dvec3& lo, const glm::dvec3& hi) {
    boundsMin = glm::min(boundsMin, lo);
    boundsMax = glm::max(boundsMax, hi);
  };
  for (const auto& b : boxes) grow(b.min, b.max);
  for (const auto& c : cylinders)
    grow({c.centre - c.radius, c.zMin}, {c.centre + c.radius, c.zMax});
  for (const auto& s : spheres) grow(s.centre - s.radius, s.centre + s.radius);
  for (size_t i = 0; i < ramps.size(); ++i) {
    const SceneRamp& r = ramps[i];
    if (!(r.min.x < r.max.x && r.min.y < r.max.y) || (r.axis != 0 && r.axis != 1) || !(r.zStart >= r.zBase) ||
        !(r.zEnd >= r.zBase))
      fail("synthetic scene: ramp " + std::to_string(i) + " needs min < max, axis 0 or 1 and a top at or above its base");
    grow({r.min, r.zBase}, {r.max, std::max(r.zStart, r.zEnd)});
  }
  if (primitiveCount() == 0) boundsMin = boundsMax = glm::dvec3(0.0);
  if (primitiveCount() >= kIndexMask) fail("synthetic scene: too many primitives");

  gridCell_ = 1.0;
  gridOrigin_ = glm::dvec2(boundsMin);
  gridNx_ = std::max(1, int(std::ceil((boundsMax.x - boundsMin.x) / gridCell_)));
  gridNy_ = std::max(1, int(std::ceil((boundsMax.y - boundsMin.y) / gridCell_)));
  if (double(gridNx_) * gridNy_ > 1e7) fail("synthetic scene: plan too large for the ray-casting grid");
  const size_t cells = size_t(gridNx_) * size_t(gridNy_);
  globalItems_.clear();
  cellStart_.assign(cells + 1, 0);
  struct Span {
    uint32_t id;
    int x0, x1, y0, y1;
  };
  std::vector<Span> spans;
  auto add = [&](uint32_t id, const Footprint& f) {
    const double pad = 1e-9;
    auto cx = [&](double x) { return std::clamp(int(std::floor((x - gridOrigin_.x) / gridCell_)), 0, gridNx_ - 1); };
    auto cy = [&](double y) { return std::clamp(int(std::floor((y - gridOrigin_.y) / gridCell_)), 0, gridNy_ - 1); };
    Span s{id, cx(f.min.x - pad), cx(f.max.x + pad), cy(f.min.y - pad), cy(f.max.y + pad)};
    const double covered = double(s.x1 - s.x0 + 1) * (s.y1 - s.y0 + 1);
    if (covered > std::max(64.0, 0.25 * double(cells))) {
      globalItems_.push_back(id);
      return;
    }
    spans.push_back(s);
    for (int y = s.y0; y <= s.y1; ++y)
      for (int x = s.x0; x <= s.x1; ++x) ++cellStart_[size_t(y) * gridNx_ + x + 1];
  };
  for (size_t i = 0; i < boxes.size(); ++i) add((kBox << kKindShift) | uint32_t(i), footprintOf(boxes[i]));
  for (size_t i = 0; i < cylinders.size(); ++i)
    add((kCylinder << kKindShift) | uint32_t(i), footprintOf(cylinders[i]));
  for (size_t i = 0; i < spheres.size(); ++i) add((kSphere << kKindShift) | uint32_t(i), footprintOf(spheres[i]));
  for (size_t i = 0; i < ramps.size(); ++i) add((kRamp << kKindShift) | uint32_t(i), footprintOf(ramps[i]));
  for (size_t c = 0; c < cells; ++c) cellStart_[c + 1] += cellStart_[c];
  cellItems_.assign(cellStart_.back(), 0);
  std::vector<uint32_t> fill(cellStart_.begin(), cellStart_.end() - 1);
  for (const Span& s : spans)
    for (int y = s.y0; y <= s.y1; ++y)
      for (int x = s.x0; x <= s.x1; ++x) cellItems_[fill[size_t(y) * gridNx_ + x]++] = s.id;
}

std::optional<double> SyntheticScene::raycast(const glm::dvec3& origin, const glm::dvec3& direction,
                                              double maxRange) const {
  const std::optional<Hit> hit = raycastHit(origin, direction, maxRange);
  return hit ? std::optional<double>(hit->distance) : std::nullopt;
}

std::optional<SyntheticScene::Hit> SyntheticScene::raycastHit(const glm::dvec3& origin, const glm::dvec3& direction,
                                                              double maxRange) const {
  RayQuery r{origin, direction, glm::dvec3(0.0)};
  for (int k = 0; k < 3; ++k) r.inv[k] = direction[k] != 0.0 ? 1.0 / direction[k] : kInf;
  double best = maxRange;
  bool hit = false;
  uint32_t hitId = 0;
  auto test = [&](uint32_t id) {
    const uint32_t index = id & kIndexMask;
    double t = 0.0;
    bool found = false;
    switch (id >> kKindShift) {
      case kBox: found = hitBox(boxes[index], r, best, t); break;
      case kCylinder: found = hitCylinder(cylinders[index], r, best, t); break;
      case kSphere: found = hitSphere(spheres[index], r, best, t); break;
      default: found = hitRamp(ramps[index], r, best, t); break;
    }
    if (found) {
      best = t;
      hit = true;
      hitId = id;
    }
  };
  const auto result = [&]() -> std::optional<Hit> {
    if (!hit) return std::nullopt;
    return Hit{best, Hit::Kind(hitId >> kKindShift), hitId & kIndexMask};
  };
  for (uint32_t id : globalItems_) test(id);
  if (cellStart_.empty()) return result();

  // Walk the plan grid along the ray until the best hit is behind the current cell.
  const glm::dvec2 gridMax = gridOrigin_ + gridCell_ * glm::dvec2(gridNx_, gridNy_);
  double tEnter = 0.0, tExit = best;
  for (int k = 0; k < 2; ++k) {
    if (direction[k] == 0.0) {
      if (origin[k] < gridOrigin_[k] || origin[k] > gridMax[k]) tExit = -1.0;
      continue;
    }
    double ta = (gridOrigin_[k] - origin[k]) * r.inv[k], tb = (gridMax[k] - origin[k]) * r.inv[k];
    if (ta > tb) std::swap(ta, tb);
    tEnter = std::max(tEnter, ta);
    tExit = std::min(tExit, tb);
  }
  if (tEnter <= tExit) {
    const glm::dvec2 p = glm::dvec2(origin) + tEnter * glm::dvec2(direction);
    int cell[2] = {std::clamp(int(std::floor((p.x - gridOrigin_.x) / gridCell_)), 0, gridNx_ - 1),
                   std::clamp(int(std::floor((p.y - gridOrigin_.y) / gridCell_)), 0, gridNy_ - 1)};
    const int limit[2] = {gridNx_, gridNy_};
    int step[2];
    double tMax[2], tDelta[2];
    for (int k = 0; k < 2; ++k) {
      if (direction[k] > 0.0) {
        step[k] = 1;
        tMax[k] = (gridOrigin_[k] + (cell[k] + 1) * gridCell_ - origin[k]) * r.inv[k];
        tDelta[k] = gridCell_ * r.inv[k];
      } else if (direction[k] < 0.0) {
        step[k] = -1;
        tMax[k] = (gridOrigin_[k] + cell[k] * gridCell_ - origin[k]) * r.inv[k];
        tDelta[k] = -gridCell_ * r.inv[k];
      } else {
        step[k] = 0;
        tMax[k] = kInf;
        tDelta[k] = kInf;
      }
    }
    for (;;) {
      const size_t c = size_t(cell[1]) * gridNx_ + cell[0];
      for (uint32_t i = cellStart_[c]; i < cellStart_[c + 1]; ++i) test(cellItems_[i]);
      const int axis = tMax[0] < tMax[1] ? 0 : 1;
      if (tMax[axis] >= best) break;
      cell[axis] += step[axis];
      if (cell[axis] < 0 || cell[axis] >= limit[axis]) break;
      tMax[axis] += tDelta[axis];
    }
  }
  return result();
}

double SyntheticScene::distanceToSurface(const glm::dvec3& point) const {
  double best = kInf;
  for (const auto& b : boxes) best = std::min(best, boxDistance(b, point));
  for (const auto& c : cylinders) best = std::min(best, cylinderDistance(c, point));
  for (const auto& s : spheres) best = std::min(best, std::abs(glm::length(point - s.centre) - s.radius));
  for (const auto& r : ramps) best = std::min(best, rampDistance(r, point));
  return best;
}

glm::dvec2 SyntheticScene::pathPosition(double s, double* heading) const {
  if (pathPoints.size() < 2 || !(pathLength > 0.0)) fail("synthetic scene: no sensor path");
  double loops = std::floor(s / pathLength);
  double u = s - loops * pathLength;
  if (u >= pathLength) u = 0.0, loops += 1.0;  // rounding
  const size_t i = std::min<size_t>(
      size_t(std::upper_bound(pathDistance.begin(), pathDistance.end(), u) - pathDistance.begin()) - 1,
      pathDistance.size() - 2);
  const double span = pathDistance[i + 1] - pathDistance[i];
  const double f = span > 0.0 ? std::clamp((u - pathDistance[i]) / span, 0.0, 1.0) : 0.0;
  if (heading) {
    const double turn = pathHeading.back() - pathHeading.front();  // heading gained per loop
    *heading = pathHeading[i] + f * (pathHeading[i + 1] - pathHeading[i]) + loops * turn;
  }
  return pathPoints[i] + f * (pathPoints[i + 1] - pathPoints[i]);
}

// ---- lidar -----------------------------------------------------------------------------

void LidarConfig::validate() const {
  auto bad = [](const std::string& field, const std::string& why) { fail("lidar config: " + field + " " + why); };
  if (rings < 1 || rings > 4096) bad("rings", "must be from 1 to 4096 (got " + std::to_string(rings) + ")");
  if (columns < 1 || columns > (1 << 20))
    bad("columns", "must be from 1 to 1048576 (got " + std::to_string(columns) + ")");
  if (scans < 0) bad("scans", "must not be negative (got " + std::to_string(scans) + ")");
  if (!(verticalFovDeg >= 0.0 && verticalFovDeg < 180.0)) bad("vertical field of view", "must be in [0, 180) degrees");
  if (!(maxRange > 0.0) || !std::isfinite(maxRange)) bad("max range", "must be a positive number of metres");
  if (!(scanRateHz > 0.0) || !std::isfinite(scanRateHz)) bad("scan rate", "must be a positive number of Hz");
  if (!(sensorHeight > 0.0) || !std::isfinite(sensorHeight)) bad("sensor height", "must be a positive number of metres");
  if (!(speed >= 0.0) || !std::isfinite(speed)) bad("speed", "must be a non-negative number of m/s");
  if (!std::isfinite(startTime)) bad("start time", "must be finite");
  if (!std::isfinite(startDistance)) bad("start distance", "must be finite");
  if (!(rangeNoiseStdDev >= 0.0) || !std::isfinite(rangeNoiseStdDev))
    bad("range noise", "must be a non-negative number of metres");
}

double LidarConfig::ringElevation(int ring) const {
  if (rings <= 1) return 0.0;
  const double fov = verticalFovDeg * kPi / 180.0;
  return -fov / 2 + fov * double(ring) / double(rings - 1);
}

TrajectorySample sensorPose(const SyntheticScene& scene, const LidarConfig& config, double time) {
  const double tau = time - config.startTime;
  double heading = 0.0;
  const glm::dvec2 p = scene.pathPosition(config.startDistance + config.speed * tau, &heading);
  // A slight sway, as a wheeled or walking platform has.
  const double deg = kPi / 180.0;
  const double pitch = 0.6 * deg * std::sin(2 * kPi * 0.31 * tau);
  const double roll = 0.5 * deg * std::sin(2 * kPi * 0.23 * tau + 1.0);
  const glm::dquat q = glm::angleAxis(heading, glm::dvec3(0, 0, 1)) * glm::angleAxis(pitch, glm::dvec3(0, 1, 0)) *
                       glm::angleAxis(roll, glm::dvec3(1, 0, 0));
  return {time, glm::dvec3(p.x, p.y, config.sensorHeight), q};
}

std::vector<TrajectorySample> lidarTrajectory(const SyntheticScene& scene, const LidarConfig& config, double rateHz) {
  config.validate();
  if (!(rateHz > 0.0) || !std::isfinite(rateHz)) fail("lidar trajectory: rate must be a positive number of Hz");
  const double samples = std::ceil(config.duration() * rateHz - 1e-9) + 1.0;
  if (samples > 1e9)
    throw SettingError(SettingError::Kind::Change, "lidarTrajectory rateHz", "the trajectory's rate",
                       "lidar trajectory: more than 1e9 samples; lower {}", formatNumber(rateHz) + " Hz");
  std::vector<TrajectorySample> out;
  out.reserve(size_t(samples));
  for (size_t i = 0; i < size_t(samples); ++i) out.push_back(sensorPose(scene, config, config.startTime + double(i) / rateHz));
  return out;
}

void generateLidarScans(const SyntheticScene& scene, const LidarConfig& config,
                        const std::function<void(const LidarScan&)>& onScan) {
  config.validate();
  if (scene.kind == SceneKind::Building && !(config.sensorHeight < scene.options.ceilingHeight))
    fail("lidar config: sensor height " + std::to_string(config.sensorHeight) + " m must be below the ceiling (" +
         std::to_string(scene.options.ceilingHeight) + " m)");
  const int rings = config.rings, columns = config.columns;
  std::vector<double> ringCos(rings), ringSin(rings), colCos(columns), colSin(columns);
  for (int r = 0; r < rings; ++r) {
    ringCos[r] = std::cos(config.ringElevation(r));
    ringSin[r] = std::sin(config.ringElevation(r));
  }
  for (int c = 0; c < columns; ++c) {
    const double az = 2 * kPi * double(c) / double(columns);
    colCos[c] = std::cos(az);
    colSin[c] = std::sin(az);
  }
  unsigned threads = config.threads ? config.threads : std::max(1u, std::thread::hardware_concurrency());
  threads = std::min<unsigned>({threads, unsigned(columns), 256u});

  LidarScan scan;
  scan.rays.resize(config.raysPerScan());
  scan.noReturn.resize(config.raysPerScan());
  std::vector<size_t> returns(threads);
  for (int s = 0; s < config.scans; ++s) {
    scan.index = s;
    scan.startTime = config.columnTime(s, 0);
    auto work = [&](unsigned worker) {
      const int c0 = int(int64_t(columns) * worker / threads), c1 = int(int64_t(columns) * (worker + 1) / threads);
      size_t count = 0;
      for (int c = c0; c < c1; ++c) {
        const double time = config.columnTime(s, c);
        const TrajectorySample pose = sensorPose(scene, config, time);
        const glm::dmat3 rotation = glm::mat3_cast(pose.orientation);
        for (int r = 0; r < rings; ++r) {
          const size_t i = size_t(c) * rings + r;
          const glm::dvec3 local(ringCos[r] * colCos[c], ringCos[r] * colSin[c], ringSin[r]);
          const glm::dvec3 dir = glm::normalize(rotation * local);
          Ray& ray = scan.rays[i];
          ray.origin = pose.position;
          ray.time = time;
          if (const auto hit = scene.raycast(pose.position, dir, config.maxRange)) {
            double range = *hit;
            if (config.rangeNoiseStdDev > 0.0)
              range += config.rangeNoiseStdDev * gaussianFor(config.seed, uint64_t(s), uint64_t(c), uint64_t(r));
            ray.sample = pose.position + dir * std::max(range, 1e-3);
            ray.intensity = returnIntensity(config.seed, pose.position + dir * *hit, *hit,
                                            gaussianFor(config.seed ^ 0x1D, uint64_t(s), uint64_t(c), uint64_t(r)));
            scan.noReturn[i] = 0;
            ++count;
          } else {
            ray.sample = pose.position + dir * config.maxRange;
            ray.intensity = 0.0f;
            scan.noReturn[i] = 1;
          }
        }
      }
      returns[worker] = count;
    };
    // Worker w takes the w-th slice of the columns; the calling thread takes slice 0 and the
    // slices of any worker the system did not grant, so the scan is the same either way.
    std::vector<std::thread> pool;
    const unsigned started =
        threads > 1 ? startThreads(pool, threads - 1, "lidar simulation", [&](unsigned i) { work(i + 1); }) : 0;
    work(0);
    for (unsigned w = started + 1; w < threads; ++w) work(w);
    for (auto& thread : pool) thread.join();
    scan.returns = 0;
    for (size_t n : returns) scan.returns += n;
    onScan(scan);
  }
}

std::vector<Ray> generateLidarRays(const SyntheticScene& scene, const LidarConfig& config,
                                   std::vector<uint8_t>* noReturn) {
  config.validate();
  std::vector<Ray> rays;
  rays.reserve(config.rayCount());
  if (noReturn) {
    noReturn->clear();
    noReturn->reserve(config.rayCount());
  }
  generateLidarScans(scene, config, [&](const LidarScan& scan) {
    rays.insert(rays.end(), scan.rays.begin(), scan.rays.end());
    if (noReturn) noReturn->insert(noReturn->end(), scan.noReturn.begin(), scan.noReturn.end());
  });
  return rays;
}

// ---- writers ----------------------------------------------------------------------------

namespace {

constexpr size_t kCountDigits = 20;  // enough for any uint64

std::string plyHeader(const std::string& comment, uint64_t count) {
  const std::string digits = std::to_string(count);
  return "ply\nformat binary_little_endian 1.0\ncomment " + comment + std::string(kCountDigits - digits.size(), ' ') +
         "\nelement vertex " + digits +
         "\nproperty double x\nproperty double y\nproperty double z\nproperty double time\nproperty float intensity\n"
         "end_header\n";
}

void appendDouble(std::string& out, double value) {
  uint64_t bits = std::bit_cast<uint64_t>(value);
  if constexpr (std::endian::native == std::endian::big) bits = __builtin_bswap64(bits);
  char bytes[8];
  std::memcpy(bytes, &bits, 8);
  out.append(bytes, 8);
}

void appendFloat(std::string& out, float value) {
  uint32_t bits = std::bit_cast<uint32_t>(value);
  if constexpr (std::endian::native == std::endian::big) bits = __builtin_bswap32(bits);
  char bytes[4];
  std::memcpy(bytes, &bits, 4);
  out.append(bytes, 4);
}

std::string trajectoryText(const std::vector<TrajectorySample>& samples) {
  std::string text = "# time x y z qx qy qz qw\n";
  char line[256];
  for (const auto& s : samples) {
    const int n = std::snprintf(line, sizeof line, "%.6f %.6f %.6f %.6f %.9f %.9f %.9f %.9f\n", s.time, s.position.x,
                                s.position.y, s.position.z, s.orientation.x, s.orientation.y, s.orientation.z,
                                s.orientation.w);
    if (n < 0 || size_t(n) >= sizeof line) fail("lidar trajectory: a pose does not fit a line (time " + std::to_string(s.time) + ")");
    text.append(line, size_t(n));
  }
  return text;
}

}  // namespace

LidarPlyWriter::LidarPlyWriter(const std::filesystem::path& path, const std::string& comment) : path_(path) {
  for (char c : comment) comment_ += (c == '\n' || c == '\r') ? ' ' : c;
  if (comment_.empty()) comment_ = "voxen synthetic lidar";
  // Through a temporary file renamed on close(): a full disk or a signal leaves no truncated cloud.
  out_ = std::make_unique<detail::AtomicFileWriter>(path, "lidar PLY", detail::AtomicFileWriter::Patching::Needed);
  uncaughtAtStart_ = std::uncaught_exceptions();
  buffer_ = plyHeader(comment_, 0);
  buffer_.reserve(size_t(1) << 20);
}

LidarPlyWriter::~LidarPlyWriter() {
  if (std::uncaught_exceptions() > uncaughtAtStart_) return;  // out_ dies uncommitted: the target stays as it was
  try {
    close();
  } catch (...) {
  }
}

void LidarPlyWriter::write(const Ray& ray) {
  if (closed_) fail("lidar PLY writer: " + path_.string() + " is closed");
  appendDouble(buffer_, ray.sample.x);
  appendDouble(buffer_, ray.sample.y);
  appendDouble(buffer_, ray.sample.z);
  appendDouble(buffer_, ray.time);
  appendFloat(buffer_, ray.intensity);
  ++points_;
  if (buffer_.size() >= (size_t(1) << 20)) flush();
}

void LidarPlyWriter::write(const std::vector<Ray>& rays, const std::vector<uint8_t>* noReturn) {
  if (noReturn && noReturn->size() != rays.size())
    fail("lidar PLY writer: " + std::to_string(rays.size()) + " rays but " + std::to_string(noReturn->size()) +
         " no-return flags");
  for (size_t i = 0; i < rays.size(); ++i)
    if (!noReturn || !(*noReturn)[i]) write(rays[i]);
}

void LidarPlyWriter::flush() {
  out_->write(buffer_.data(), buffer_.size());
  buffer_.clear();
}

void LidarPlyWriter::close() {
  if (closed_) return;
  closed_ = true;  // a failure below leaves the writer spent; out_ then removes its temporary file
  flush();
  const std::string header = plyHeader(comment_, points_);  // same length as the first: the padding absorbs the digits
  out_->patch(0, header.data(), header.size());
  out_->commit();
}

uint64_t LidarPlyWriter::bytes() const { return out_->written(); }

void writeTrajectoryText(const std::filesystem::path& path, const std::vector<TrajectorySample>& samples) {
  const std::string text = trajectoryText(samples);
  detail::AtomicFileWriter out(path, "trajectory");
  out.write(text.data(), text.size());
  out.commit();
}

LidarRunSummary writeLidarRun(const SyntheticScene& scene, const LidarConfig& config,
                              const std::filesystem::path& cloudPath, const std::filesystem::path& trajectoryPath,
                              double trajectoryRateHz,
                              const std::function<void(const LidarScan&, const LidarRunSummary&)>& progress) {
  config.validate();
  const auto start = std::chrono::steady_clock::now();
  std::vector<TrajectorySample> trajectory;
  if (!trajectoryPath.empty()) trajectory = lidarTrajectory(scene, config, trajectoryRateHz);  // validates the rate
  char comment[256];
  std::snprintf(comment, sizeof comment,
                "voxen synthetic lidar: %s seed %llu, noise seed %llu, %d rings x %d columns, %d scans at %g Hz, "
                "max range %g m, no-return rays left out",
                scene.kind == SceneKind::Terrain ? "terrain scene," : "scene", (unsigned long long)scene.seed, (unsigned long long)config.seed, config.rings, config.columns,
                config.scans, config.scanRateHz, config.maxRange);
  LidarRunSummary summary;
  // Both outputs are opened before the work, so a bad trajectory path fails at once; each
  // appears complete only once everything has been generated.
  LidarPlyWriter writer(cloudPath, comment);
  std::optional<detail::AtomicFileWriter> trajectoryOut;
  if (!trajectoryPath.empty()) trajectoryOut.emplace(trajectoryPath, "trajectory");
  generateLidarScans(scene, config, [&](const LidarScan& scan) {
    writer.write(scan.rays, &scan.noReturn);
    summary.rays += scan.rays.size();
    summary.returns += scan.returns;
    summary.noReturns += scan.rays.size() - scan.returns;
    summary.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (progress) progress(scan, summary);
  });
  writer.close();
  summary.cloudBytes = writer.bytes();
  if (trajectoryOut) {
    const std::string text = trajectoryText(trajectory);
    trajectoryOut->write(text.data(), text.size());
    trajectoryOut->commit();
    summary.trajectorySamples = trajectory.size();
  }
  summary.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return summary;
}

}  // namespace voxen
