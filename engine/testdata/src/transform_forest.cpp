#include "voxen/testdata/transform_forest.hpp"

#include <glm/geometric.hpp>
#include <glm/gtc/matrix_transform.hpp>

#include <vector>

namespace voxen {

namespace {

float uniform(std::mt19937& rng, float lo, float hi) { return lo + (hi - lo) * float(rng() >> 8) * (1.0f / 16777216.0f); }

}  // namespace

glm::mat4 randomTransformLocal(std::mt19937& rng) {
  const glm::vec3 offset(uniform(rng, -1, 1), uniform(rng, -1, 1), uniform(rng, -1, 1));
  glm::mat4 m = glm::translate(glm::mat4(1.0f), offset);
  const float angle = uniform(rng, -0.3f, 0.3f);
  const glm::vec3 axis = glm::normalize(glm::vec3(uniform(rng, -1, 1), uniform(rng, -1, 1), 1.0f));
  m = glm::rotate(m, angle, axis);
  return glm::scale(m, glm::vec3(uniform(rng, 0.9f, 1.1f)));
}

void addRandomForest(TransformTree& tree, std::mt19937& rng, uint32_t roots, uint32_t fanout, uint32_t depth,
                     float rootSpread) {
  std::vector<uint32_t> frontier;
  for (uint32_t r = 0; r < roots; ++r) {
    glm::mat4 local = randomTransformLocal(rng);
    if (rootSpread > 0.0f) {
      const glm::vec3 at(uniform(rng, -rootSpread, rootSpread), uniform(rng, -rootSpread, rootSpread), 0.0f);
      local = glm::translate(glm::mat4(1.0f), at) * local;
    }
    frontier.push_back(tree.add(TransformTree::kRoot, local));
  }
  for (uint32_t d = 1; d < depth; ++d) {
    std::vector<uint32_t> next;
    for (uint32_t parent : frontier) {
      const uint32_t children = 1 + rng() % fanout;
      for (uint32_t c = 0; c < children; ++c) next.push_back(tree.add(parent, randomTransformLocal(rng)));
    }
    frontier = std::move(next);
  }
}

TransformTree chainScene(std::mt19937& rng, uint32_t chains, float spread, uint32_t mirrorEvery) {
  TransformTree tree;
  for (uint32_t chain = 0; chain < chains; ++chain) {
    uint32_t parent = TransformTree::kRoot;
    for (int level = 0; level < 3; ++level) {
      glm::mat4 local = level == 0 ? glm::translate(glm::mat4(1.0f), {uniform(rng, -spread, spread), uniform(rng, -spread, spread), 0.0f})
                                   : glm::translate(glm::mat4(1.0f), {0.0f, 0.0f, 1.0f});
      local = glm::rotate(local, uniform(rng, -1.0f, 1.0f), glm::vec3(1, 0, 0));
      if (level == 0 && mirrorEvery && chain % mirrorEvery == mirrorEvery - 1) local = glm::scale(local, glm::vec3(-1.0f, 1.0f, 1.0f));
      parent = tree.add(parent, local);
      const float w = uniform(rng, 0.2f, 0.8f);
      tree.setBox(parent, {glm::vec3(-w, -w, 0.0f), glm::vec3(w, w, 1.0f)});
    }
  }
  return tree;
}

}  // namespace voxen
