#include "arm_forest.hpp"

#include <cmath>

#include <glm/gtc/matrix_transform.hpp>

namespace transform_scene {

namespace {

constexpr float kBaseHeight = 0.4f;
constexpr float kPi = 3.14159265358979f;

// A repeatable per-arm number in [0, 1) (so arms do not move in lockstep).
float armHash(uint32_t arm, uint32_t salt) {
  uint32_t x = arm * 0x9E3779B1u + salt * 0x85EBCA77u;
  x ^= x >> 15;
  x *= 0x2C1B3C6Du;
  x ^= x >> 12;
  return float(x >> 8) / float(1u << 24);
}

uint32_t rgba(float r, float g, float b) {
  auto byte = [](float v) { return uint32_t(std::lround(std::fmin(std::fmax(v, 0.0f), 1.0f) * 255.0f)); };
  return byte(r) | byte(g) << 8 | byte(b) << 16 | 0xFF000000u;
}

// A saturated hue in [0, 1), lightened by `light` in [0, 1].
uint32_t hueColor(float hue, float light) {
  auto channel = [&](float offset) {
    const float h = std::fabs(std::fmod(hue * 6.0f + offset, 6.0f) - 3.0f);
    const float base = std::fmin(std::fmax(h - 1.0f, 0.0f), 1.0f);
    return base + (1.0f - base) * light;
  };
  return rgba(channel(0.0f), channel(4.0f), channel(2.0f));
}

}  // namespace

float partLength(uint32_t level, uint32_t depth) {
  if (level == 0) return kBaseHeight;
  if (level == depth - 1) return 0.45f;  // fingers
  return 1.6f * std::pow(0.8f, float(level - 1));
}

float partHalfWidth(uint32_t level, uint32_t depth) {
  if (level == 0) return 0.6f;
  if (level == depth - 1) return 0.06f;
  return 0.22f * std::pow(0.82f, float(level - 1));
}

ArmForest::ArmForest(voxen::TransformTree& tree, const ArmShape& shape)
    : tree_(tree), shape_(shape), columns_(uint32_t(std::ceil(std::sqrt(double(shape.arms))))) {
  const uint32_t depth = shape.depth;
  parts_.reserve(shape.nodes());
  nodes_.reserve(shape.nodes());
  for (uint32_t arm = 0; arm < shape.arms; ++arm) {
    // The chain: base, then each segment on the one before; the fingers on the last.
    uint32_t parent = voxen::TransformTree::kRoot;
    auto addPart = [&](Part part, uint32_t under) {
      const uint32_t node = tree.add(under, local(part, 0.0));
      const float w = partHalfWidth(part.level, depth);
      tree.setBox(node, {glm::vec3(-w, -w, 0.0f), glm::vec3(w, w, partLength(part.level, depth))});
      parts_.push_back(part);
      nodes_.push_back(node);
      return node;
    };
    for (uint32_t level = 0; level + 1 < depth; ++level)
      parent = addPart({arm, level, 0, level == 0 ? 0.0f : partLength(level - 1, depth)}, parent);
    for (uint32_t f = 0; f < shape.fingers; ++f) addPart({arm, depth - 1, f, partLength(depth - 2, depth)}, parent);
  }
  locals_.resize(nodes_.size());
  colors_.assign(tree.capacity(), 0xFFFFFFFFu);
  for (size_t i = 0; i < nodes_.size(); ++i) {
    const Part& p = parts_[i];
    colors_[nodes_[i]] = hueColor(armHash(p.arm, 7), 0.55f * float(p.level) / float(depth - 1));
  }
}

glm::vec3 ArmForest::fieldMax() const {
  const uint32_t rows = (shape_.arms + columns_ - 1) / columns_;
  float reach = 0.0f;
  for (uint32_t level = 0; level < shape_.depth; ++level) reach += partLength(level, shape_.depth);
  return {float(columns_) * shape_.spacing, float(rows) * shape_.spacing, reach};
}

glm::mat4 ArmForest::local(const Part& p, double seconds) const {
  const float t = float(seconds);
  const float phase = 2.0f * kPi * armHash(p.arm, 1), speed = 0.6f + 0.8f * armHash(p.arm, 2);
  if (p.level == 0) {  // the base: at its grid place, turning about z
    const glm::vec3 at(float(p.arm % columns_) * shape_.spacing, float(p.arm / columns_) * shape_.spacing, 0.0f);
    const float yaw = phase + 0.5f * speed * t;
    return glm::rotate(glm::translate(glm::mat4(1.0f), at), yaw, glm::vec3(0, 0, 1));
  }
  const glm::mat4 joint = glm::translate(glm::mat4(1.0f), glm::vec3(0.0f, 0.0f, p.offset));
  if (p.level == shape_.depth - 1) {  // a finger: spread around the hand, opening and closing
    const float around = 2.0f * kPi * float(p.finger) / float(std::max(shape_.fingers, 1u));
    const float open = 0.35f + 0.3f * std::sin(2.0f * speed * t + phase);
    return glm::rotate(glm::rotate(joint, around, glm::vec3(0, 0, 1)), open, glm::vec3(1, 0, 0));
  }
  // A segment: bends about x, each level with its own rhythm.
  const float bend = 0.55f * std::sin(speed * t + phase + 0.9f * float(p.level));
  return glm::rotate(joint, bend, glm::vec3(1, 0, 0));
}

void ArmForest::animate(double seconds) {
  for (size_t i = 0; i < parts_.size(); ++i) locals_[i] = local(parts_[i], seconds);
  tree_.setLocal(nodes_, locals_);
}

}  // namespace transform_scene
