#include "dirty_subtrees.hpp"

#include <algorithm>
#include <utility>

#include "voxen/transform/transform_tree.hpp"

namespace voxen {

void DirtySubtrees::rebuild(const TransformTree& tree) {
  order_.clear();
  order_.reserve(tree.size());
  position_.assign(tree.capacity(), UINT32_MAX);
  childBegin_.clear();
  childBegin_.reserve(tree.size() + 1);
  for (uint32_t c : tree.children(TransformTree::kRoot)) order_.push_back(c);
  // Each node's children are appended in its turn, so positions stay breadth first.
  for (size_t p = 0; p < order_.size(); ++p) {
    childBegin_.push_back(uint32_t(order_.size()));
    for (uint32_t c : tree.children(order_[p])) order_.push_back(c);
  }
  childBegin_.push_back(uint32_t(order_.size()));
  for (size_t p = 0; p < order_.size(); ++p) position_[order_[p]] = uint32_t(p);
}

ListedLevels DirtySubtrees::expand(const TransformTree& tree, const std::vector<uint32_t>& dirty) const {
  // The changed nodes' positions, by level then position.
  std::vector<std::pair<uint32_t, uint32_t>> seeds;  // (level, position)
  seeds.reserve(dirty.size());
  for (uint32_t n : dirty) seeds.emplace_back(tree.level(n), position_[n]);
  std::sort(seeds.begin(), seeds.end());
  ListedLevels out;
  out.starts.push_back(0);
  std::vector<std::pair<uint32_t, uint32_t>> runs, next;  // [begin, end) positions, sorted, disjoint
  size_t seed = 0;
  for (uint32_t level = 1; level <= tree.levels() && (!runs.empty() || seed < seeds.size()); ++level) {
    // The children of last level's runs, merged with this level's changed nodes that no run covers.
    next.clear();
    auto append = [&](uint32_t begin, uint32_t end) {
      if (begin >= end) return;
      if (!next.empty() && next.back().second >= begin) next.back().second = std::max(next.back().second, end);
      else next.emplace_back(begin, end);
    };
    size_t r = 0;
    while (r < runs.size() || (seed < seeds.size() && seeds[seed].first == level)) {
      const bool takeSeed = seed < seeds.size() && seeds[seed].first == level &&
                            (r == runs.size() || seeds[seed].second < childBegin_[runs[r].first]);
      if (takeSeed) {
        append(seeds[seed].second, seeds[seed].second + 1);
        ++seed;
      } else {
        append(childBegin_[runs[r].first], childBegin_[runs[r].second]);
        ++r;
      }
    }
    std::swap(runs, next);
    for (const auto& [begin, end] : runs)
      for (uint32_t p = begin; p < end; ++p) out.positions.push_back(p);
    out.starts.push_back(uint32_t(out.positions.size()));
  }
  return out;
}

}  // namespace voxen
