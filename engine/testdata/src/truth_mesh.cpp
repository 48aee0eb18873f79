#include "voxen/testdata/truth_mesh.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numbers>

#include "voxen/atomic_file/atomic_file.hpp"
#include "voxen/host/error.hpp"
#include "voxen/testdata/scene_colours.hpp"
#include "voxen/testdata/split_mix.hpp"

namespace voxen {

namespace {

constexpr double kPi = std::numbers::pi;

class MeshBuilder {
 public:
  explicit MeshBuilder(TriangleMesh& mesh) : mesh_(mesh) {}
  uint32_t vertex(const glm::dvec3& p) {
    mesh_.vertices.push_back(p);
    return uint32_t(mesh_.vertices.size() - 1);
  }
  // A triangle turned to face `outward`; degenerate ones (a wedge's zero-height edge) are left out.
  void triangle(uint32_t a, uint32_t b, uint32_t c, const glm::dvec3& outward) {
    const std::vector<glm::dvec3>& v = mesh_.vertices;
    const glm::dvec3 n = glm::cross(v[b] - v[a], v[c] - v[a]);
    if (glm::dot(n, n) < 1e-24) return;
    if (glm::dot(n, outward) < 0.0) std::swap(b, c);
    mesh_.triangles.emplace_back(a, b, c);
  }
  void quad(uint32_t a, uint32_t b, uint32_t c, uint32_t d, const glm::dvec3& outward) {
    triangle(a, b, c, outward);
    triangle(a, c, d, outward);
  }

 private:
  TriangleMesh& mesh_;
};

// Sides of a regular polygon inscribed in a circle of radius r whose chords stay within
// `tolerance` of the circle: r (1 - cos(pi / n)) <= tolerance.
int circleSegments(double radius, double tolerance) {
  if (radius <= tolerance) return 8;
  const double n = std::ceil(kPi / std::acos(1.0 - tolerance / radius));
  return std::clamp(int(n), 8, 4096);
}

// A convex solid given by its 8 corners: corner index bit 0 is +x, bit 1 +y, bit 2 +z (the
// ramp's top corners above its plan corners).
void addHexahedron(MeshBuilder& b, const glm::dvec3 (&corner)[8]) {
  uint32_t id[8];
  glm::dvec3 centre(0.0);
  for (int i = 0; i < 8; ++i) {
    id[i] = b.vertex(corner[i]);
    centre += corner[i] / 8.0;
  }
  // Each face: four corners in order round it; the outward direction from the solid's centre.
  static const int kFaces[6][4] = {{0, 2, 6, 4}, {1, 3, 7, 5}, {0, 1, 5, 4}, {2, 3, 7, 6}, {0, 1, 3, 2}, {4, 5, 7, 6}};
  for (const auto& f : kFaces) {
    const glm::dvec3 faceCentre = (corner[f[0]] + corner[f[1]] + corner[f[2]] + corner[f[3]]) / 4.0;
    b.quad(id[f[0]], id[f[1]], id[f[2]], id[f[3]], faceCentre - centre);
  }
}

void addBox(MeshBuilder& b, const SceneBox& box) {
  glm::dvec3 c[8];
  for (int i = 0; i < 8; ++i)
    c[i] = {(i & 1) ? box.max.x : box.min.x, (i & 2) ? box.max.y : box.min.y, (i & 4) ? box.max.z : box.min.z};
  addHexahedron(b, c);
}

void addRamp(MeshBuilder& b, const SceneRamp& ramp) {
  glm::dvec3 c[8];
  for (int i = 0; i < 8; ++i) {
    const glm::dvec2 p((i & 1) ? ramp.max.x : ramp.min.x, (i & 2) ? ramp.max.y : ramp.min.y);
    c[i] = {p.x, p.y, (i & 4) ? ramp.topAt(p) : ramp.zBase};
  }
  addHexahedron(b, c);
}

void addCylinder(MeshBuilder& b, const SceneCylinder& cyl, double tolerance) {
  const int n = circleSegments(cyl.radius, tolerance);
  const uint32_t bottomCentre = b.vertex({cyl.centre.x, cyl.centre.y, cyl.zMin});
  const uint32_t topCentre = b.vertex({cyl.centre.x, cyl.centre.y, cyl.zMax});
  std::vector<uint32_t> bottom(n), top(n);
  for (int i = 0; i < n; ++i) {
    const double a = 2.0 * kPi * i / n;
    const glm::dvec2 p = cyl.centre + cyl.radius * glm::dvec2(std::cos(a), std::sin(a));
    bottom[i] = b.vertex({p.x, p.y, cyl.zMin});
    top[i] = b.vertex({p.x, p.y, cyl.zMax});
  }
  for (int i = 0; i < n; ++i) {
    const int j = (i + 1) % n;
    const double a = 2.0 * kPi * (i + 0.5) / n;
    b.quad(bottom[i], bottom[j], top[j], top[i], {std::cos(a), std::sin(a), 0.0});
    b.triangle(bottomCentre, bottom[j], bottom[i], {0.0, 0.0, -1.0});
    b.triangle(topCentre, top[i], top[j], {0.0, 0.0, 1.0});
  }
}

void addSphere(MeshBuilder& b, const SceneSphere& s, double tolerance) {
  // A latitude-longitude grid: a cell's centre can miss the sphere by about the sum of its two
  // chords' errors, so each direction gets half the tolerance.
  const int around = (circleSegments(s.radius, tolerance / 2.0) + 1) / 2 * 2;
  const int rings = around / 2;
  const uint32_t south = b.vertex(s.centre - glm::dvec3(0.0, 0.0, s.radius));
  const uint32_t north = b.vertex(s.centre + glm::dvec3(0.0, 0.0, s.radius));
  // Latitude rows 1 .. rings - 1 (the poles are single vertices).
  std::vector<uint32_t> grid(size_t(rings - 1) * around);
  for (int r = 1; r < rings; ++r) {
    const double lat = -kPi / 2 + kPi * r / rings;
    for (int i = 0; i < around; ++i) {
      const double lon = 2.0 * kPi * i / around;
      grid[size_t(r - 1) * around + i] =
          b.vertex(s.centre + s.radius * glm::dvec3(std::cos(lat) * std::cos(lon), std::cos(lat) * std::sin(lon), std::sin(lat)));
    }
  }
  const auto at = [&](int r, int i) { return grid[size_t(r - 1) * around + size_t(i % around)]; };
  for (int i = 0; i < around; ++i) {
    const double lon = 2.0 * kPi * (i + 0.5) / around;
    for (int r = 1; r + 1 < rings; ++r) {
      const double lat = -kPi / 2 + kPi * (r + 0.5) / rings;
      const glm::dvec3 out(std::cos(lat) * std::cos(lon), std::cos(lat) * std::sin(lon), std::sin(lat));
      b.quad(at(r, i), at(r, i + 1), at(r + 1, i + 1), at(r + 1, i), out);
    }
    b.triangle(south, at(1, i + 1), at(1, i), {std::cos(lon), std::sin(lon), -4.0});
    b.triangle(north, at(rings - 1, i), at(rings - 1, i + 1), {std::cos(lon), std::sin(lon), 4.0});
  }
}

void appendFloat(std::string& out, double v) {
  const float f = float(v);
  char b[4];
  std::memcpy(b, &f, 4);
  out.append(b, 4);
}

}  // namespace

double TriangleMesh::area() const {
  double sum = 0.0;
  for (const auto& t : triangles) sum += 0.5 * glm::length(glm::cross(vertices[t.y] - vertices[t.x], vertices[t.z] - vertices[t.x]));
  return sum;
}

TriangleMesh sceneTruthMesh(const SyntheticScene& scene, double tolerance, bool withColours) {
  if (!(tolerance > 0.0) || !std::isfinite(tolerance))
    throw Error("truth mesh: the tolerance must be a positive number of metres, got " + formatNumber(tolerance));
  TriangleMesh mesh;
  MeshBuilder b(mesh);
  // The new vertices of primitive `index` take its surface's colour.
  const auto paint = [&](SyntheticScene::Hit::Kind kind, size_t index) {
    if (withColours)
      mesh.colours.resize(mesh.vertices.size(), surfaceBaseColour(surfaceOf(scene, {0.0, kind, uint32_t(index)})));
  };
  using Kind = SyntheticScene::Hit::Kind;
  for (size_t i = 0; i < scene.boxes.size(); ++i) addBox(b, scene.boxes[i]), paint(Kind::Box, i);
  for (size_t i = 0; i < scene.ramps.size(); ++i) addRamp(b, scene.ramps[i]), paint(Kind::Ramp, i);
  for (size_t i = 0; i < scene.cylinders.size(); ++i) addCylinder(b, scene.cylinders[i], tolerance), paint(Kind::Cylinder, i);
  for (size_t i = 0; i < scene.spheres.size(); ++i) addSphere(b, scene.spheres[i], tolerance), paint(Kind::Sphere, i);
  return mesh;
}

uint64_t writeMeshPly(const std::filesystem::path& path, const TriangleMesh& mesh, const std::string& comment) {
  const bool colours = !mesh.colours.empty();
  if (colours && mesh.colours.size() != mesh.vertices.size())
    throw Error(path.string() + ": the mesh has " + std::to_string(mesh.colours.size()) + " colours for " +
                std::to_string(mesh.vertices.size()) + " vertices");
  detail::AtomicFileWriter out(path, "PLY");
  std::string text = "ply\nformat binary_little_endian 1.0\ncomment " + comment + "\nelement vertex " +
                     std::to_string(mesh.vertices.size()) +
                     "\nproperty float x\nproperty float y\nproperty float z\n" +
                     (colours ? "property uchar red\nproperty uchar green\nproperty uchar blue\n" : "") + "element face " +
                     std::to_string(mesh.triangles.size()) + "\nproperty list uchar uint vertex_indices\nend_header\n";
  text.reserve(text.size() + mesh.vertices.size() * (colours ? 15 : 12) + mesh.triangles.size() * 13);
  for (size_t i = 0; i < mesh.vertices.size(); ++i) {
    for (int a = 0; a < 3; ++a) appendFloat(text, mesh.vertices[i][a]);
    if (colours) text.append(reinterpret_cast<const char*>(mesh.colours[i].data()), 3);
  }
  for (const glm::u32vec3& t : mesh.triangles) {
    text.push_back(char(3));
    const uint32_t ids[3] = {t.x, t.y, t.z};
    text.append(reinterpret_cast<const char*>(ids), 12);
  }
  out.write(text.data(), text.size());
  out.commit();
  return text.size();
}

std::vector<glm::dvec3> sampleMeshSurface(const TriangleMesh& mesh, size_t count, uint64_t seed) {
  std::vector<double> cumulative(mesh.triangles.size());
  double total = 0.0;
  for (size_t i = 0; i < mesh.triangles.size(); ++i) {
    const auto& t = mesh.triangles[i];
    total += 0.5 * glm::length(glm::cross(mesh.vertices[t.y] - mesh.vertices[t.x], mesh.vertices[t.z] - mesh.vertices[t.x]));
    cumulative[i] = total;
  }
  std::vector<glm::dvec3> points;
  if (!(total > 0.0)) return points;
  points.reserve(count);
  SplitMix rng(seed ^ 0x7A11E5A3F1E5ull);
  const auto unit = [&] { return double(rng.next() >> 11) * 0x1.0p-53; };  // [0, 1)
  for (size_t k = 0; k < count; ++k) {
    const double pick = unit() * total;
    const size_t i = std::min<size_t>(size_t(std::upper_bound(cumulative.begin(), cumulative.end(), pick) - cumulative.begin()),
                                      cumulative.size() - 1);
    const auto& t = mesh.triangles[i];
    const double r1 = std::sqrt(unit()), r2 = unit();
    points.push_back((1.0 - r1) * mesh.vertices[t.x] + r1 * (1.0 - r2) * mesh.vertices[t.y] + r1 * r2 * mesh.vertices[t.z]);
  }
  return points;
}

double pointTriangleDistance(const glm::dvec3& p, const glm::dvec3& a, const glm::dvec3& b, const glm::dvec3& c) {
  const glm::dvec3 ab = b - a, ac = c - a, ap = p - a;
  const double d1 = glm::dot(ab, ap), d2 = glm::dot(ac, ap);
  if (d1 <= 0.0 && d2 <= 0.0) return glm::length(p - a);
  const glm::dvec3 bp = p - b;
  const double d3 = glm::dot(ab, bp), d4 = glm::dot(ac, bp);
  if (d3 >= 0.0 && d4 <= d3) return glm::length(p - b);
  const double vc = d1 * d4 - d3 * d2;
  if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0) return glm::length(p - (a + ab * (d1 / (d1 - d3))));
  const glm::dvec3 cp = p - c;
  const double d5 = glm::dot(ab, cp), d6 = glm::dot(ac, cp);
  if (d6 >= 0.0 && d5 <= d6) return glm::length(p - c);
  const double vb = d5 * d2 - d1 * d6;
  if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0) return glm::length(p - (a + ac * (d2 / (d2 - d6))));
  const double va = d3 * d6 - d5 * d4;
  if (va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0)
    return glm::length(p - (b + (c - b) * ((d4 - d3) / ((d4 - d3) + (d5 - d6)))));
  const double denom = 1.0 / (va + vb + vc);
  return glm::length(p - (a + ab * (vb * denom) + ac * (vc * denom)));
}

}  // namespace voxen
