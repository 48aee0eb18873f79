#include "voxen/transform/transform_tree.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "voxen/host/error.hpp"

namespace voxen {

Frustum Frustum::fromViewProjection(const glm::mat4& m) {
  // Rows of the matrix (glm is column-major: m[column][row]).
  auto row = [&](int r) { return glm::vec4(m[0][r], m[1][r], m[2][r], m[3][r]); };
  Frustum f;
  f.planes[0] = row(3) + row(0);  // left:   -w <= x
  f.planes[1] = row(3) - row(0);  // right:   x <= w
  f.planes[2] = row(3) + row(1);  // bottom
  f.planes[3] = row(3) - row(1);  // top
  f.planes[4] = row(2);           // near:   0 <= z
  f.planes[5] = row(3) - row(2);  // far:     z <= w
  return f;
}

Box worldBox(const glm::mat4& world, const Box& local) {
  const glm::vec3 centre = 0.5f * (local.lo + local.hi), half = 0.5f * (local.hi - local.lo);
  glm::vec3 c, e;
  for (int r = 0; r < 3; ++r) {
    c[r] = world[0][r] * centre.x + world[1][r] * centre.y + world[2][r] * centre.z + world[3][r];
    e[r] = std::abs(world[0][r]) * half.x + std::abs(world[1][r]) * half.y + std::abs(world[2][r]) * half.z;
  }
  return {c - e, c + e};
}

bool boxInFrustum(const Box& box, const Frustum& frustum) {
  for (const glm::vec4& p : frustum.planes) {
    // The box corner farthest along the plane's normal.
    const glm::vec3 far(p.x >= 0 ? box.hi.x : box.lo.x, p.y >= 0 ? box.hi.y : box.lo.y, p.z >= 0 ? box.hi.z : box.lo.z);
    if (p.x * far.x + p.y * far.y + p.z * far.z + p.w < 0.0f) return false;
  }
  return true;
}

double largestRelativeError(const TransformTree& reference, std::span<const glm::mat4> worlds) {
  if (worlds.size() < reference.capacity())
    throw Error("largestRelativeError: " + std::to_string(worlds.size()) + " world matrices for a tree of " +
                std::to_string(reference.capacity()) + " node indices");
  double worst = 0.0;
  for (uint32_t n = 1; n < reference.capacity(); ++n) {
    if (!reference.live(n)) continue;
    for (int c = 0; c < 4; ++c)
      for (int r = 0; r < 4; ++r) {
        const double a = reference.world(n)[c][r], b = worlds[n][c][r];
        worst = std::max(worst, std::abs(a - b) / std::max(1.0, std::abs(a)));
      }
  }
  return worst;
}

TransformTree::TransformTree() {
  box_.emplace_back();
  local_.push_back(glm::mat4(1.0f));
  world_.push_back(glm::mat4(1.0f));
  parent_.push_back(kNone);
  level_.push_back(0);
  slot_.push_back(0);
  children_.emplace_back();
  dirty_.push_back(0);
}

void TransformTree::markDirty(uint32_t node) {
  if (!dirty_[node]) dirtyList_.push_back(node);
  dirty_[node] = 1;
}

uint32_t TransformTree::add(uint32_t parent, const glm::mat4& local) {
  if (!live(parent)) throw Error("transform tree: node " + std::to_string(parent) + " is not a live node to add under");
  uint32_t node;
  if (!free_.empty()) {
    node = free_.back();
    free_.pop_back();
  } else {
    node = uint32_t(parent_.size());
    local_.emplace_back();
    world_.emplace_back();
    box_.emplace_back();
    parent_.push_back(kNone);
    level_.push_back(0);
    slot_.push_back(0);
    children_.emplace_back();
    dirty_.push_back(0);
  }
  local_[node] = local;
  world_[node] = glm::mat4(1.0f);
  box_[node] = Box{};
  boxesChanged_ = true;
  parent_[node] = parent;
  listInLevel(node, level_[parent] + 1);
  children_[parent].push_back(node);
  markDirty(node);
  ++liveCount_;
  structureChanged_ = true;
  return node;
}

void TransformTree::remove(uint32_t node) {
  if (node == kRoot || !live(node)) throw Error("transform tree: node " + std::to_string(node) + " is not a live node to remove");
  // Detach from the parent, then free the subtree (depth first, iteratively).
  std::vector<uint32_t>& siblings = children_[parent_[node]];
  siblings.erase(std::find(siblings.begin(), siblings.end(), node));
  std::vector<uint32_t> stack{node};
  while (!stack.empty()) {
    const uint32_t n = stack.back();
    stack.pop_back();
    for (uint32_t c : children_[n]) stack.push_back(c);
    children_[n].clear();
    unlistFromLevel(n);
    parent_[n] = kNone;
    dirty_[n] = 0;
    free_.push_back(n);
    --liveCount_;
  }
  while (!levels_.empty() && levels_.back().empty()) levels_.pop_back();
  std::erase_if(dirtyList_, [&](uint32_t n) { return parent_[n] == kNone; });
  structureChanged_ = true;
}

void TransformTree::unlistFromLevel(uint32_t node) {
  // The last entry of its level's list takes its place.
  std::vector<uint32_t>& list = levels_[level_[node] - 1];
  const uint32_t moved = list.back();
  list[slot_[node]] = moved;
  slot_[moved] = slot_[node];
  list.pop_back();
}

void TransformTree::listInLevel(uint32_t node, uint32_t level) {
  level_[node] = level;
  if (levels_.size() < level) levels_.resize(level);
  slot_[node] = uint32_t(levels_[level - 1].size());
  levels_[level - 1].push_back(node);
}

void TransformTree::setParent(uint32_t node, uint32_t parent) {
  if (node == kRoot || !live(node)) throw Error("transform tree: node " + std::to_string(node) + " is not a live node to move");
  if (!live(parent)) throw Error("transform tree: node " + std::to_string(parent) + " is not a live node to move under");
  for (uint32_t a = parent; a != kRoot; a = parent_[a])
    if (a == node)
      throw Error("transform tree: node " + std::to_string(parent) + " is in the subtree of node " + std::to_string(node) +
                  ", which cannot move under it");
  if (parent_[node] == parent) return;
  std::vector<uint32_t>& siblings = children_[parent_[node]];
  siblings.erase(std::find(siblings.begin(), siblings.end(), node));
  children_[parent].push_back(node);
  parent_[node] = parent;
  // Re-level the subtree, parents before children (breadth first), so that every level's
  // list keeps only nodes of that depth; only the moved node is dirty (its descendants
  // follow it through the changed marks).
  std::vector<uint32_t> queue{node};
  for (size_t i = 0; i < queue.size(); ++i) {
    const uint32_t n = queue[i];
    unlistFromLevel(n);
    listInLevel(n, level_[parent_[n]] + 1);
    for (uint32_t c : children_[n]) queue.push_back(c);
  }
  while (!levels_.empty() && levels_.back().empty()) levels_.pop_back();
  markDirty(node);
  structureChanged_ = true;
}

void TransformTree::setLocal(uint32_t node, const glm::mat4& local) {
  if (node == kRoot || !live(node)) throw Error("transform tree: node " + std::to_string(node) + " is not a live node");
  local_[node] = local;
  markDirty(node);
}

void TransformTree::setLocal(std::span<const uint32_t> nodes, std::span<const glm::mat4> locals) {
  if (nodes.size() != locals.size())
    throw Error("transform tree: " + std::to_string(nodes.size()) + " nodes but " + std::to_string(locals.size()) + " matrices");
  for (size_t i = 0; i < nodes.size(); ++i) setLocal(nodes[i], locals[i]);
}

void TransformTree::setBox(uint32_t node, const Box& box) {
  if (node == kRoot || !live(node)) throw Error("transform tree: node " + std::to_string(node) + " is not a live node");
  box_[node] = box;
  boxesChanged_ = true;
}

void TransformTree::clearDirty() {
  for (uint32_t n : dirtyList_) dirty_[n] = 0;
  dirtyList_.clear();
  structureChanged_ = false;
  boxesChanged_ = false;
}

std::vector<uint32_t> TransformTree::cullCpu(const Frustum& frustum) const {
  std::vector<uint32_t> visible;
  for (uint32_t n : breadthFirst())
    if (boxInFrustum(worldBox(world_[n], box_[n]), frustum)) visible.push_back(n);
  return visible;
}

std::vector<uint32_t> TransformTree::breadthFirst() const {
  std::vector<uint32_t> order(children_[kRoot]);
  order.reserve(liveCount_);
  for (size_t p = 0; p < order.size(); ++p) order.insert(order.end(), children_[order[p]].begin(), children_[order[p]].end());
  return order;
}

uint64_t TransformTree::processCpu() {
  // A node is recomputed when its local changed or its parent was recomputed: a per-node
  // flag, level by level (parents are always a level above).
  std::vector<uint8_t> recomputed(parent_.size(), 0);
  uint64_t count = 0;
  for (const std::vector<uint32_t>& level : levels_)
    for (uint32_t n : level) {
      if (!dirty_[n] && !recomputed[parent_[n]]) continue;
      world_[n] = world_[parent_[n]] * local_[n];
      recomputed[n] = 1;
      ++count;
    }
  clearDirty();
  return count;
}

}  // namespace voxen
