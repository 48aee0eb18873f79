#include "strict_float.hpp"  // first: the float expressions round as their GLSL twins

#include "voxen/painter/cpu_box_instances.hpp"

#include "voxen/gpu/painter/box_instances_shared.h"
#include "voxen/painter/normal_encoding.hpp"

namespace voxen {

namespace {

glm::vec3 corner(const glm::mat4& m, const BoxInstanceLocal& b, uint32_t i) {
  const float x = (i & 1u) ? b.hi.x : b.lo.x, y = (i & 2u) ? b.hi.y : b.lo.y, z = (i & 4u) ? b.hi.z : b.lo.z;
  return {((m[0].x * x + m[1].x * y) + m[2].x * z) + m[3].x, ((m[0].y * x + m[1].y * y) + m[2].y * z) + m[3].y,
          ((m[0].z * x + m[1].z * y) + m[2].z * z) + m[3].z};
}

gpu::Triangle makeTriangle(const glm::vec3& a, const glm::vec3& b, const glm::vec3& c, uint32_t normal, uint32_t color,
                           uint32_t id) {
  gpu::Triangle t{};
  t.p0[0] = a.x, t.p0[1] = a.y, t.p0[2] = a.z;
  t.p1[0] = b.x, t.p1[1] = b.y, t.p1[2] = b.z;
  t.p2[0] = c.x, t.p2[1] = c.y, t.p2[2] = c.z;
  t.n0 = t.n1 = t.n2 = normal;
  t.color = color;
  t.cell = id;
  return t;
}

}  // namespace

std::vector<gpu::Triangle> boxInstanceTrianglesReference(std::span<const uint32_t> instances, std::span<const glm::mat4> worlds,
                                                         std::span<const BoxInstanceLocal> boxes,
                                                         std::span<const uint32_t> colors, uint32_t maxTriangles) {
  const size_t fitting = std::min<size_t>(instances.size(), maxTriangles / gpu::kBoxTriangles);
  std::vector<gpu::Triangle> out;
  out.reserve(fitting * gpu::kBoxTriangles);
  for (size_t k = 0; k < fitting; ++k) {
    const uint32_t id = instances[k];
    const glm::mat4& m = worlds[id];
    const float det = (m[0].x * ((m[1].y * m[2].z) - (m[2].y * m[1].z)) - m[1].x * ((m[0].y * m[2].z) - (m[2].y * m[0].z))) +
                      m[2].x * ((m[0].y * m[1].z) - (m[1].y * m[0].z));
    glm::vec3 c[8];
    for (uint32_t i = 0; i < 8; ++i) c[i] = corner(m, boxes[id], i);
    for (uint32_t f = 0; f < 6; ++f) {
      const uint32_t corners = gpu::boxFaceCorners(f);
      uint32_t ia = corners & 15u, ib = (corners >> 4) & 15u, ic = (corners >> 8) & 15u, id4 = corners >> 12;
      if (det < 0.0f) std::swap(ib, id4);
      const glm::vec3 a = c[ia], b = c[ib], cc = c[ic], d = c[id4];
      const glm::vec3 e1{b.x - a.x, b.y - a.y, b.z - a.z}, e2{cc.x - a.x, cc.y - a.y, cc.z - a.z};
      const float nx = e1.y * e2.z - e1.z * e2.y, ny = e1.z * e2.x - e1.x * e2.z, nz = e1.x * e2.y - e1.y * e2.x;
      const uint32_t normal = encodeNormal(nx, ny, nz);
      out.push_back(makeTriangle(a, b, cc, normal, colors[id], id));
      out.push_back(makeTriangle(a, cc, d, normal, colors[id], id));
    }
  }
  return out;
}

}  // namespace voxen
