#pragma once
// A transform tree: a scene graph flattened into plain arrays (local and world matrices,
// parents, per-level index lists, dirty bits, a free list), world = parent's world x local,
// processed level by level. Node 0 is a virtual root (identity) that holds the top level.
//
//   TransformTree tree;
//   uint32_t arm = tree.add(TransformTree::kRoot, base);
//   uint32_t hand = tree.add(arm, offset);
//   tree.setLocal(arm, rotated);
//   tree.processCpu();              // or GpuTransformTree(scheduler, tree).process()
//   glm::mat4 w = tree.world(hand);
//
// remove(n) removes n and its whole subtree; their indices are reused by later adds.
// setParent(n, p) moves n's subtree under p and re-levels it.
#include <glm/mat4x4.hpp>
#include <glm/vec3.hpp>
#include <glm/vec4.hpp>

#include <cstdint>
#include <span>
#include <vector>

namespace voxen {

// An axis-aligned box (min, max), in a node's local frame or in the world.
struct Box {
  glm::vec3 lo{-0.5f}, hi{0.5f};
};

// Six planes (a, b, c, d) with a x + b y + c z + d >= 0 inside (normals pointing in).
struct Frustum {
  glm::vec4 planes[6];
  // The frustum of a view-projection matrix (clip space -w <= x, y <= w, 0 <= z <= w).
  static Frustum fromViewProjection(const glm::mat4& viewProjection);
};

// The world box of a local box under `world`: the centre moved, the half-extent through the
// absolute linear part (the same operations as transform_cull.comp).
Box worldBox(const glm::mat4& world, const Box& local);
// Whether a world box is at least partly inside (not wholly outside one plane).
bool boxInFrustum(const Box& box, const Frustum& frustum);

class TransformTree {
 public:
  static constexpr uint32_t kRoot = 0;
  static constexpr uint32_t kNone = UINT32_MAX;

  TransformTree();

  // Adds a node under `parent` (kRoot for the top level); returns its index. Throws Error
  // for a parent that is not a live node.
  uint32_t add(uint32_t parent, const glm::mat4& local);
  // Removes the node and its whole subtree (the children go with it); their indices are
  // freed for reuse. Throws Error for the root or a node that is not live.
  void remove(uint32_t node);
  // Moves the node and its subtree under `parent`, keeping its local matrix (so its world
  // follows the new parent); the subtree is re-levelled. Throws Error for the root, a node
  // that is not live, or a parent inside the node's own subtree.
  void setParent(uint32_t node, uint32_t parent);
  void setLocal(uint32_t node, const glm::mat4& local);
  void setLocal(std::span<const uint32_t> nodes, std::span<const glm::mat4> locals);
  // The node's bounding box in its local frame (default: the unit cube around its origin),
  // for culling.
  void setBox(uint32_t node, const Box& box);
  const Box& box(uint32_t node) const { return box_[node]; }
  bool boxesChanged() const { return boxesChanged_; }

  bool live(uint32_t node) const { return node < parent_.size() && (node == kRoot || parent_[node] != kNone); }
  uint32_t parent(uint32_t node) const { return parent_[node]; }
  uint32_t level(uint32_t node) const { return level_[node]; }
  const std::vector<uint32_t>& children(uint32_t node) const { return children_[node]; }
  const glm::mat4& local(uint32_t node) const { return local_[node]; }
  // The world matrix as the last processCpu() (or a GPU tree's download) left it.
  const glm::mat4& world(uint32_t node) const { return world_[node]; }
  std::span<const glm::mat4> worlds() const { return world_; }  // indexed by node
  size_t capacity() const { return parent_.size(); }  // node indices in use or free, the root included
  size_t size() const { return liveCount_; }          // live nodes, the root excluded

  // The CPU reference, single-threaded: every node whose local changed, or with an ancestor
  // whose did, gets world = parent world x local, level after level. Returns the number of
  // world matrices recomputed; clears the dirty marks.
  uint64_t processCpu();
  // The CPU reference of culling: the live nodes whose world box (from world(n)) is in the
  // frustum, breadth first (the GPU's order).
  std::vector<uint32_t> cullCpu(const Frustum& frustum) const;
  // The live nodes breadth first: the root's children, then each listed node's children in
  // turn. Level after level, a level's nodes grouped by parent in the parents' order: the
  // GPU tree's level order (GpuTransformTree::order()). O(nodes).
  std::vector<uint32_t> breadthFirst() const;

  // The levels: level 1 is the top (children of the root). levelNodes(l) lists its live
  // nodes (in no particular order).
  uint32_t levels() const { return uint32_t(levels_.size()); }
  const std::vector<uint32_t>& levelNodes(uint32_t level) const { return levels_[level - 1]; }

  // Dirty state for the GPU tree: nodes whose local changed since the last clearDirty(), and
  // whether the structure (adds, removals) changed.
  const std::vector<uint32_t>& dirtyNodes() const { return dirtyList_; }
  bool structureChanged() const { return structureChanged_; }
  void clearDirty();
  // The GPU tree writes downloaded worlds back here.
  void setWorld(uint32_t node, const glm::mat4& world) { world_[node] = world; }

 private:
  void markDirty(uint32_t node);
  void unlistFromLevel(uint32_t node);
  void listInLevel(uint32_t node, uint32_t level);

  std::vector<glm::mat4> local_, world_;
  std::vector<Box> box_;
  bool boxesChanged_ = true;
  std::vector<uint32_t> parent_, level_, slot_;  // slot_: position in its level's list
  std::vector<std::vector<uint32_t>> children_;
  std::vector<std::vector<uint32_t>> levels_;
  std::vector<uint32_t> free_;
  std::vector<uint8_t> dirty_;
  std::vector<uint32_t> dirtyList_;
  size_t liveCount_ = 0;
  bool structureChanged_ = true;
};

// The largest relative difference |a - b| / max(1, |a|) over every entry of every live
// node's world matrix: `worlds` (indexed by node, e.g. a GPU tree's worlds read back)
// against the reference tree's world(n). What the tests, `voxen bench transform` and
// `voxen check` hold the GPU's worlds to (float products in another order differ in the
// last bits, and the difference grows with depth).
double largestRelativeError(const TransformTree& reference, std::span<const glm::mat4> worlds);

}  // namespace voxen
