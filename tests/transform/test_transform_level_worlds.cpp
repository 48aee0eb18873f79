// The GPU transform tree stores its world matrices and changed marks in level order (slot
// p + 1 for order position p): every read path must hand each node its own matrix. A deep,
// unbalanced tree whose node indices are far from the level order goes through sparse,
// marked and dense updates and through structure changes (removals, additions, moves: the
// slots move), and after each one every live node's world, read back through download()
// (translated on the host), levelWorlds() at slots(), world(n) and the node-indexed
// worlds() (a gather pass on the GPU), is compared with the CPU reference node by node, the
// read paths with each other bit for bit, and the nodes no update touched with their bits
// from before.
#include <catch2/catch.hpp>

#include <glm/mat4x4.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

#include "support/gpu_fixture.hpp"
#include "voxen/testdata/transform_forest.hpp"
#include "voxen/transform/gpu_transform_tree.hpp"
#include "voxen/transform/transform_tree.hpp"

namespace {

using namespace voxen;

bool sameBits(const glm::mat4& a, const glm::mat4& b) { return std::memcmp(&a, &b, sizeof(glm::mat4)) == 0; }

// A spine of `spine` levels with side branches hung at random depths, added in an order
// that puts node indices far from breadth first (a branch's nodes are added together, deep
// ones before shallow ones).
TransformTree unbalancedTree(std::mt19937& rng, uint32_t spine, uint32_t branches) {
  TransformTree tree;
  std::vector<uint32_t> spineNodes{tree.add(TransformTree::kRoot, randomTransformLocal(rng))};
  for (uint32_t l = 1; l < spine; ++l) spineNodes.push_back(tree.add(spineNodes.back(), randomTransformLocal(rng)));
  for (uint32_t b = 0; b < branches; ++b) {
    uint32_t at = spineNodes[rng() % spineNodes.size()];
    const uint32_t length = 1 + rng() % 12;
    for (uint32_t k = 0; k < length; ++k) {
      at = tree.add(at, randomTransformLocal(rng));
      if (rng() % 3 == 0) tree.add(at, randomTransformLocal(rng));  // a leaf beside the branch
    }
  }
  for (uint32_t r = 0; r < 40; ++r) tree.add(TransformTree::kRoot, randomTransformLocal(rng));  // wide top level
  return tree;
}

std::vector<uint32_t> liveNodes(const TransformTree& tree) {
  std::vector<uint32_t> nodes;
  for (uint32_t n = 1; n < tree.capacity(); ++n)
    if (tree.live(n)) nodes.push_back(n);
  return nodes;
}

uint32_t randomLive(std::mt19937& rng, const TransformTree& tree) {
  uint32_t n;
  do n = 1 + rng() % uint32_t(tree.capacity() - 1);
  while (!tree.live(n));
  return n;
}

// Every read path against the CPU reference (node by node) and against each other (bit for
// bit); returns the worlds download() gave, by node.
std::vector<glm::mat4> checkEveryReadPath(GpuTransformTree& gpu, TransformTree& tree, const TransformTree& cpu,
                                          bool nodeIndexed) {
  Scheduler& s = vt::gpu().scheduler;
  const double tolerance = 1e-5 * std::max(1.0, double(cpu.levels()));
  const std::vector<uint32_t> nodes = liveNodes(cpu);
  // The host's translation: positions to nodes.
  for (uint32_t n : nodes) tree.setWorld(n, glm::mat4(0.0f));
  gpu.download();
  std::vector<glm::mat4> downloaded(tree.capacity(), glm::mat4(0.0f));
  uint64_t wrong = 0;
  for (uint32_t n : nodes) {
    downloaded[n] = tree.world(n);
    const glm::mat4 &got = downloaded[n], &want = cpu.world(n);
    double error = 0;
    for (int c = 0; c < 4; ++c)
      for (int r = 0; r < 4; ++r)
        error = std::max(error, std::abs(double(got[c][r]) - double(want[c][r])) / std::max(1.0, std::abs(double(want[c][r]))));
    if (!(error < tolerance)) {
      if (wrong < 5) UNSCOPED_INFO("node " << n << " (level " << cpu.level(n) << "): relative error " << error);
      ++wrong;
    }
  }
  CHECK(wrong == 0);
  // The level-order arrays themselves, through the node-to-slot map.
  const auto slots = s.readback<uint32_t>(gpu.slots().first(cpu.capacity() * 4)).get();
  const auto levelWorlds = s.readback<glm::mat4>(gpu.levelWorlds().first((gpu.liveNodes() + 1) * 64ull)).get();
  const auto order = s.readback<uint32_t>(gpu.order().first(gpu.liveNodes() * 4ull)).get();
  CHECK(sameBits(levelWorlds[0], glm::mat4(1.0f)));  // slot 0: the root
  uint64_t wrongSlots = 0, differing = 0;
  for (uint32_t n : nodes) {
    wrongSlots += slots[n] == 0 || slots[n] > order.size() || order[slots[n] - 1] != n;
    differing += slots[n] != 0 && slots[n] < levelWorlds.size() && !sameBits(levelWorlds[slots[n]], downloaded[n]);
  }
  CHECK(wrongSlots == 0);
  CHECK(differing == 0);
  // One node read back alone: the deepest, the first and the last in the level order.
  for (uint32_t n : {cpu.levelNodes(cpu.levels()).front(), order.front(), order.back()}) CHECK(sameBits(gpu.world(n), downloaded[n]));
  if (nodeIndexed) {  // the gather pass's node-indexed copy, and the marks beside it
    const auto byNode = s.readback<glm::mat4>(gpu.worlds().first(cpu.capacity() * 64ull)).get();
    const auto marks = s.readback<uint32_t>(gpu.changedMarks().first(cpu.capacity() * 4ull)).get();
    const auto levelMarks = s.readback<uint32_t>(gpu.levelChangedMarks().first((gpu.liveNodes() + 1) * 4ull)).get();
    uint64_t differingByNode = 0, differingMarks = 0;
    for (uint32_t n : nodes) {
      differingByNode += !sameBits(byNode[n], downloaded[n]);
      differingMarks += marks[n] != levelMarks[slots[n]];
    }
    CHECK(differingByNode == 0);
    CHECK(differingMarks == 0);
  }
  return downloaded;
}

// The nodes whose world depends on a changed local: the changed ones and their descendants.
std::vector<uint8_t> dirtySubtrees(const TransformTree& cpu, const std::vector<uint32_t>& changed) {
  std::vector<uint8_t> dirty(cpu.capacity(), 0);
  for (uint32_t n : changed) dirty[n] = 1;
  for (uint32_t l = 1; l <= cpu.levels(); ++l)
    for (uint32_t n : cpu.levelNodes(l)) dirty[n] = dirty[n] || dirty[cpu.parent(n)];
  return dirty;
}

TEST_CASE("Transform tree GPU: worlds stored in level order reach their nodes through every update and structure change",
          "[transform][gpu]") {
  for (const bool nodeIndexed : {false, true}) {
    INFO((nodeIndexed ? "node-indexed worlds() kept" : "level-order worlds only"));
    std::mt19937 rng(nodeIndexed ? 23 : 29);
    TransformTree cpu = unbalancedTree(rng, 300, 400);
    TransformTree tree = cpu;
    GpuTransformTree gpu(vt::gpu().scheduler, tree);
    if (nodeIndexed) (void)gpu.worlds();  // kept from before the first process()
    gpu.process();
    cpu.processCpu();
    INFO(cpu.size() << " nodes, " << cpu.levels() << " levels");
    REQUIRE(cpu.levels() >= 300);
    std::vector<glm::mat4> before = checkEveryReadPath(gpu, tree, cpu, nodeIndexed);
    // Round r: a structure change every other round, then a few locals (sparse), a fifth of
    // them (marks read on the GPU) or all (dense).
    for (int round = 0; round < 6; ++round) {
      INFO("round " << round);
      const bool structure = round % 2 == 1;
      if (structure) {
        const uint32_t victim = randomLive(rng, cpu);
        cpu.remove(victim);
        tree.remove(victim);
        for (int k = 0; k < 15; ++k) {
          const uint32_t parent = rng() % 4 == 0 ? TransformTree::kRoot : randomLive(rng, cpu);
          const glm::mat4 local = randomTransformLocal(rng);
          REQUIRE(cpu.add(parent, local) == tree.add(parent, local));
        }
        for (int k = 0; k < 3; ++k) {  // a subtree moved deeper or shallower
          const uint32_t node = randomLive(rng, cpu);
          uint32_t parent;
          bool inSubtree;
          do {
            parent = randomLive(rng, cpu);
            inSubtree = false;
            for (uint32_t a = parent; a != TransformTree::kRoot; a = cpu.parent(a)) inSubtree |= a == node;
          } while (inSubtree);
          cpu.setParent(node, parent);
          tree.setParent(node, parent);
        }
      }
      const double fraction = round < 2 ? 0.002 : round < 4 ? 0.2 : 1.0;
      std::vector<uint32_t> changed;
      std::vector<glm::mat4> locals;
      for (uint32_t n : liveNodes(cpu))
        if (fraction == 1.0 || std::uniform_real_distribution<double>(0, 1)(rng) < fraction)
          changed.push_back(n), locals.push_back(randomTransformLocal(rng));
      if (changed.empty()) changed.push_back(randomLive(rng, cpu)), locals.push_back(randomTransformLocal(rng));
      cpu.setLocal(changed, locals);
      tree.setLocal(changed, locals);
      // What the tree marked dirty (changed locals, added and moved nodes) before processing clears it.
      const std::vector<uint32_t> marked = tree.dirtyNodes();
      gpu.process();
      cpu.processCpu();
      CHECK(gpu.stats().sparse == (round < 2));
      CHECK(gpu.stats().structureUploaded == structure);
      const std::vector<glm::mat4> after = checkEveryReadPath(gpu, tree, cpu, nodeIndexed);
      // Nodes outside the dirty subtrees keep their bits, wherever their slots moved.
      const std::vector<uint8_t> dirty = dirtySubtrees(cpu, marked);
      uint64_t rewritten = 0;
      for (uint32_t n : liveNodes(cpu)) rewritten += !dirty[n] && n < before.size() && !sameBits(before[n], after[n]);
      CHECK(rewritten == 0);
      before = after;
    }
  }
}

}  // namespace
