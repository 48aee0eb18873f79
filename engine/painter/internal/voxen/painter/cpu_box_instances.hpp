#pragma once
// The CPU reference of BoxInstances (shaders/painter/box_instances.comp): the same float
// operations in the same order, so the triangles agree bit for bit.
#include <cstdint>
#include <span>
#include <vector>

#include <glm/glm.hpp>

#include "voxen/gpu/painter/frame_layout.h"

namespace voxen {

struct BoxInstanceLocal {
  glm::vec3 lo, hi;
};

// Triangles of the listed instances (12 each, in list order) that fit maxTriangles, indexed
// by instance id into worlds, boxes and colors.
std::vector<gpu::Triangle> boxInstanceTrianglesReference(std::span<const uint32_t> instances, std::span<const glm::mat4> worlds,
                                                         std::span<const BoxInstanceLocal> boxes,
                                                         std::span<const uint32_t> colors, uint32_t maxTriangles);

}  // namespace voxen
