#pragma once
// The scene: a field of articulated arms in a TransformTree. Each arm is a chain
// base -> segments (upper arm, forearm, ..., hand) -> fingers, one node per part, every
// part drawn as its local box. animate(t) recomputes every joint's local matrix and hands
// them to the tree in one bulk setLocal, so every frame dirties the whole forest (the
// demanding case for the transform tree).
#include <cstdint>
#include <vector>

#include <glm/glm.hpp>

#include "voxen/transform/transform_tree.hpp"

namespace transform_scene {

struct ArmShape {
  uint32_t arms = 2000;
  uint32_t depth = 5;    // levels per arm: the base, depth - 2 segments, the fingers
  uint32_t fingers = 3;  // on the last segment
  float spacing = 3.0f;  // metres between arm bases (a square grid)
  uint64_t nodesPerArm() const { return uint64_t(depth) - 1 + fingers; }
  uint64_t nodes() const { return nodesPerArm() * arms; }
};

class ArmForest {
 public:
  ArmForest(voxen::TransformTree& tree, const ArmShape& shape);

  // Sets every joint's local matrix for time `seconds` (one bulk setLocal).
  void animate(double seconds);

  const ArmShape& shape() const { return shape_; }
  // RGBA8 per node index (tree capacity entries): a hue per arm, lighter towards the tips.
  const std::vector<uint32_t>& colors() const { return colors_; }
  // The field's extent on the ground (z = 0) and the arms' reach above it.
  glm::vec3 fieldMin() const { return {-shape_.spacing, -shape_.spacing, 0.0f}; }
  glm::vec3 fieldMax() const;

 private:
  struct Part {
    uint32_t arm;
    uint32_t level;   // 0 base, 1 .. depth - 2 segments, depth - 1 fingers
    uint32_t finger;  // fingers only
    float offset;     // length of the parent part: where this joint sits along the parent's z
  };
  glm::mat4 local(const Part& part, double seconds) const;

  voxen::TransformTree& tree_;
  ArmShape shape_;
  uint32_t columns_;
  std::vector<Part> parts_;     // parallel to nodes_
  std::vector<uint32_t> nodes_;
  std::vector<glm::mat4> locals_;
  std::vector<uint32_t> colors_;
};

// Size of each part: its box runs from z = 0 to length along its own z axis.
float partLength(uint32_t level, uint32_t depth);
float partHalfWidth(uint32_t level, uint32_t depth);

}  // namespace transform_scene
