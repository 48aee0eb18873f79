#pragma once
// The nodes a sparse update must recompute, found on the host without visiting clean ones.
// A breadth-first order of the tree puts every node's children next to each other, and the
// children of neighbouring nodes next to each other: the descendants of a run of nodes at
// one level are one run at the next. So a changed node's subtree is one run per level, and
// the runs of level l + 1 follow from those of level l by two lookups each. The work is in
// proportion to the nodes recomputed, not to the tree (the dense GPU pass reads every
// node's marks, which costs more than the products when 1% of the locals change).
#include <cstdint>
#include <vector>

namespace voxen {

class TransformTree;

struct ListedLevels {
  std::vector<uint32_t> starts;     // per level: its first entry in `positions`, then the end
  std::vector<uint32_t> positions;  // the breadth-first positions of the nodes to recompute, level after level
};

class DirtySubtrees {
 public:
  // After the tree's structure changed (O(nodes)).
  void rebuild(const TransformTree& tree);
  // The positions of the nodes whose world depends on a changed local (each once), level by
  // level: increasing runs, one per dirty subtree and level at most.
  ListedLevels expand(const TransformTree& tree, const std::vector<uint32_t>& dirty) const;
  // The live nodes breadth first (level after level; within a level grouped by parent, in
  // the parents' order), and each node's position in it (UINT32_MAX: not live).
  const std::vector<uint32_t>& order() const { return order_; }
  uint32_t position(uint32_t node) const { return node < position_.size() ? position_[node] : UINT32_MAX; }

 private:
  std::vector<uint32_t> order_;       // live nodes, breadth first
  std::vector<uint32_t> position_;    // node -> its position in order_
  std::vector<uint32_t> childBegin_;  // position -> position of its first child (size + 1 entries)
};

}  // namespace voxen
