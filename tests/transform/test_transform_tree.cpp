// The transform tree: the CPU reference against directly composed matrices, removals and
// index reuse; the GPU against the CPU reference on wide, deep and mixed random forests
// with few or all nodes changed, only dirty subtrees rewritten (others bit-identical), and
// deep chains walked without a dispatch per level.
#include <catch2/catch.hpp>

#include <glm/gtc/matrix_transform.hpp>

#include <cmath>
#include <cstring>
#include <random>

#include "support/gpu_fixture.hpp"
#include "voxen/transform/gpu_culling.hpp"
#include "voxen/transform/gpu_transform_tree.hpp"
#include "voxen/transform/transform_tree.hpp"
#include "voxen/testdata/transform_forest.hpp"

namespace {

using namespace voxen;

glm::mat4 randomLocal(std::mt19937& rng) { return randomTransformLocal(rng); }

TransformTree randomForest(std::mt19937& rng, uint32_t roots, uint32_t fanout, uint32_t depth) {
  TransformTree tree;
  addRandomForest(tree, rng, roots, fanout, depth);
  return tree;
}

std::vector<glm::mat4> gpuWorlds(GpuTransformTree& gpu, const TransformTree& tree) {
  const auto values = vt::gpu().scheduler.readback<glm::mat4>(gpu.worlds().first(tree.capacity() * 64ull)).get();
  return values;
}

TEST_CASE("Transform tree CPU: worlds compose the chain of locals; removal takes the subtree; indices are reused", "[transform]") {
  std::mt19937 rng(1);
  TransformTree tree;
  const glm::mat4 a = randomLocal(rng), b = randomLocal(rng), c = randomLocal(rng);
  const uint32_t na = tree.add(TransformTree::kRoot, a), nb = tree.add(na, b), nc = tree.add(nb, c);
  const uint32_t other = tree.add(TransformTree::kRoot, c);
  CHECK(tree.processCpu() == 4);
  CHECK(tree.world(nc) == a * b * c);
  CHECK(tree.level(nc) == 3);
  tree.setLocal(nb, a);
  CHECK(tree.processCpu() == 2);  // nb and its child
  CHECK(tree.world(nc) == a * a * c);
  CHECK(tree.world(other) == c);
  tree.remove(nb);  // nb and nc go
  CHECK_FALSE(tree.live(nb));
  CHECK_FALSE(tree.live(nc));
  CHECK(tree.size() == 2);
  CHECK(tree.levels() == 1);
  const uint32_t reused = tree.add(na, b);
  CHECK((reused == nb || reused == nc));
  CHECK_THROWS_WITH(tree.remove(TransformTree::kRoot), Catch::Contains("not a live node"));
  CHECK_THROWS_WITH(tree.add(nc == reused ? nb : nc, a), Catch::Contains("not a live node"));
  // Moving a subtree: its worlds follow the new parent, its levels follow the new depth.
  const uint32_t leaf = tree.add(reused, c);
  tree.processCpu();
  tree.setParent(reused, other);
  CHECK(tree.level(reused) == 2);
  CHECK(tree.level(leaf) == 3);
  CHECK(tree.processCpu() == 2);  // the moved node and its child
  CHECK(tree.world(leaf) == c * b * c);
  CHECK_THROWS_WITH(tree.setParent(reused, leaf), Catch::Contains("in the subtree"));
  CHECK_THROWS_WITH(tree.setParent(TransformTree::kRoot, other), Catch::Contains("not a live node"));
  tree.setParent(leaf, TransformTree::kRoot);
  CHECK(tree.level(leaf) == 1);
  CHECK(tree.levels() == 2);
}

// The product variants this device can run (all of them are tested against the CPU).
std::vector<TransformProduct> runnableProducts() {
  std::vector<TransformProduct> products{TransformProduct::Matrix, TransformProduct::QuadShared};
  if (supportsQuadShuffle(vt::gpu().device.info())) products.push_back(TransformProduct::QuadShuffle);
  return products;
}

TEST_CASE("Transform tree GPU equals the CPU reference on wide, deep and mixed forests, in every product variant",
          "[transform][gpu]") {
  struct Shape {
    const char* name;
    uint32_t roots, fanout, depth;
  };
  for (const TransformProduct product : runnableProducts())
  for (const Shape& s : {Shape{"wide", 2000, 8, 3}, Shape{"deep chains", 3, 1, 3000}, Shape{"mixed", 50, 3, 7}}) {
    std::mt19937 rng(7);
    TransformTree cpu = randomForest(rng, s.roots, s.fanout, s.depth);
    TransformTree tree = cpu;
    GpuTransformTree gpu(vt::gpu().scheduler, tree, GpuTransformOptions{product});
    gpu.process();
    cpu.processCpu();
    INFO(transformProductName(product) << ", " << s.name << ": " << cpu.size() << " nodes, " << cpu.levels() << " levels, "
                                       << gpu.stats().dispatches << " dispatches");
    CHECK(gpu.product() == product);
    // Float products over thousands of levels drift apart slowly: the tolerance grows with depth.
    const double tolerance = 1e-5 * std::max(1.0, double(cpu.levels()));
    CHECK(largestRelativeError(cpu, gpuWorlds(gpu, tree)) < tolerance);
    if (cpu.levels() > 1000) CHECK(gpu.stats().dispatches < 10);  // chains walked by one workgroup, not a dispatch a level
    // A few nodes changed, then most (the whole local array copied, the dirty bits from the
    // host), then all (the whole level order recomputed without reading marks).
    for (double fraction : {0.01, 0.7, 1.0}) {
      std::vector<uint32_t> nodes;
      std::vector<glm::mat4> locals;
      for (uint32_t n = 1; n < cpu.capacity(); ++n)
        if (std::uniform_real_distribution<double>(0, 1)(rng) < fraction) nodes.push_back(n), locals.push_back(randomLocal(rng));
      cpu.setLocal(nodes, locals);
      tree.setLocal(nodes, locals);
      const std::vector<glm::mat4> before = gpuWorlds(gpu, tree);
      gpu.process();
      cpu.processCpu();
      const std::vector<glm::mat4> after = gpuWorlds(gpu, tree);
      CHECK(gpu.stats().uploadedLocals == nodes.size());
      // Few changed locals: their subtrees listed on the host (exactly the recomputed nodes).
      CHECK(gpu.stats().sparse == (fraction < 0.05));
      CHECK(gpu.stats().wholeLocals == (fraction > 0.5));
      CHECK(largestRelativeError(cpu, after) < tolerance);
      // Only dirty subtrees change: every other node's world is bit-identical.
      std::vector<uint8_t> dirty(cpu.capacity(), 0);
      for (uint32_t n : nodes) dirty[n] = 1;
      for (uint32_t l = 1; l <= cpu.levels(); ++l)
        for (uint32_t n : cpu.levelNodes(l)) dirty[n] = dirty[n] || dirty[cpu.parent(n)];
      // ... and not rewritten at all: the changed marks are exactly the dirty subtrees.
      const auto marks = vt::gpu().scheduler.readback<uint32_t>(gpu.changedMarks().first(cpu.capacity() * 4)).get();
      uint64_t rewritten = 0, wrongMarks = 0;
      for (uint32_t n = 1; n < cpu.capacity(); ++n) {
        rewritten += !dirty[n] && std::memcmp(&before[n], &after[n], sizeof(glm::mat4)) != 0;
        wrongMarks += (marks[n] == gpu.generation()) != bool(dirty[n]);
      }
      CHECK(rewritten == 0);
      CHECK(wrongMarks == 0);
    }
  }
}

TEST_CASE("Transform tree GPU: a level wider than 65,535 workgroups (folded into y) is processed whole", "[transform][gpu]") {
  // 1,048,600 top-level nodes at 4 invocations each need 65,538 workgroups of 64.
  std::mt19937 rng(11);
  TransformTree cpu;
  for (uint32_t n = 0; n < 1048600; ++n) cpu.add(TransformTree::kRoot, randomLocal(rng));
  TransformTree tree = cpu;
  GpuTransformTree gpu(vt::gpu().scheduler, tree, GpuTransformOptions{TransformProduct::QuadShared});
  gpu.process();
  cpu.processCpu();
  CHECK(largestRelativeError(cpu, gpuWorlds(gpu, tree)) < 1e-5);
}

TEST_CASE("Transform tree GPU: removals and re-additions follow the CPU reference", "[transform][gpu]") {
  std::mt19937 rng(3);
  TransformTree cpu = randomForest(rng, 20, 3, 5);
  TransformTree tree = cpu;
  GpuTransformTree gpu(vt::gpu().scheduler, tree);
  gpu.process();
  cpu.processCpu();
  for (int round = 0; round < 5; ++round) {
    // Remove a few subtrees, add new nodes under random live ones (reusing freed indices).
    for (int k = 0; k < 3; ++k) {
      uint32_t victim;
      do victim = 1 + rng() % uint32_t(cpu.capacity() - 1);
      while (!cpu.live(victim));
      cpu.remove(victim);
      tree.remove(victim);
    }
    for (int k = 0; k < 20; ++k) {
      uint32_t parent;
      do parent = rng() % uint32_t(cpu.capacity());
      while (!cpu.live(parent));
      const glm::mat4 local = randomLocal(rng);
      const uint32_t a = cpu.add(parent, local), b = tree.add(parent, local);
      REQUIRE(a == b);
    }
    gpu.process();
    cpu.processCpu();
    CHECK(largestRelativeError(cpu, gpuWorlds(gpu, tree)) < 1e-5);
  }
  // Subtrees moved under other parents (deeper, shallower, to the top level) are re-levelled.
  for (int k = 0; k < 10; ++k) {
    uint32_t node, parent;
    do node = 1 + rng() % uint32_t(cpu.capacity() - 1);
    while (!cpu.live(node));
    bool inSubtree;
    do {
      parent = k == 0 ? TransformTree::kRoot : rng() % uint32_t(cpu.capacity());
      inSubtree = false;
      for (uint32_t a = parent; a != TransformTree::kRoot && a != TransformTree::kNone; a = cpu.parent(a)) inSubtree |= a == node;
    } while (!cpu.live(parent) || inSubtree);
    cpu.setParent(node, parent);
    tree.setParent(node, parent);
  }
  for (uint32_t l = 1; l <= cpu.levels(); ++l)
    for (uint32_t n : cpu.levelNodes(l)) REQUIRE(cpu.level(cpu.parent(n)) + 1 == l);
  gpu.process();
  cpu.processCpu();
  CHECK(largestRelativeError(cpu, gpuWorlds(gpu, tree)) < 1e-5);
  // world() reads back one node.
  const uint32_t some = cpu.levelNodes(cpu.levels()).front();
  const glm::mat4 w = gpu.world(some);
  CHECK(std::abs(w[3][0] - cpu.world(some)[3][0]) <= 1e-5f * std::max(1.0f, std::abs(cpu.world(some)[3][0])));
}

}  // namespace

namespace {

TEST_CASE("Transform tree GPU culling: the visible list equals a CPU culling of the same boxes, sized on the device",
          "[transform][gpu]") {
  std::mt19937 rng(11);
  TransformTree cpu;
  addRandomForest(cpu, rng, 300, 4, 4, 20.0f);  // trees spread over 40 m: many out of view
  std::uniform_real_distribution<float> size(0.1f, 1.5f);
  for (uint32_t n = 1; n < cpu.capacity(); ++n) {
    const glm::vec3 half(size(rng), size(rng), size(rng));
    cpu.setBox(n, {-half, half});
  }
  TransformTree tree = cpu;
  GpuTransformTree gpu(vt::gpu().scheduler, tree);
  GpuCulling culling(vt::gpu().scheduler, gpu);
  gpu.process();
  cpu.processCpu();
  const glm::mat4 view = glm::lookAt(glm::vec3(0.0f, -8.0f, 3.0f), glm::vec3(0.0f), glm::vec3(0.0f, 0.0f, 1.0f));
  const glm::mat4 projection = glm::perspectiveRH_ZO(glm::radians(50.0f), 1.5f, 0.5f, 20.0f);
  const Frustum frustum = Frustum::fromViewProjection(projection * view);
  const CullOutput output = culling.cull(frustum);
  const std::vector<uint32_t> visible = culling.download(output);
  const std::vector<uint32_t> expected = cpu.cullCpu(frustum);
  INFO(visible.size() << " visible on the GPU, " << expected.size() << " on the CPU, of " << cpu.size());
  CHECK(expected.size() > 10);
  CHECK(expected.size() < cpu.size());  // the view culls something
  CHECK(visible == expected);
  // The indirect command covers exactly the visible nodes.
  const auto args = vt::gpu().scheduler.readback<uint32_t>(output.dispatchArgs).get();
  CHECK(args[0] == (expected.size() + 63) / 64);
}

}  // namespace

namespace {

// A tree whose node indices are far from breadth first: each node under a random earlier one.
TransformTree randomParentsTree(std::mt19937& rng, uint32_t nodes) {
  TransformTree tree;
  for (uint32_t n = 1; n <= nodes; ++n) tree.add(n < 8 ? TransformTree::kRoot : 1 + rng() % (n - 1), randomLocal(rng));
  return tree;
}

TEST_CASE("Transform tree GPU: the level order is breadth first; every update path follows it where indices are not",
          "[transform][gpu]") {
  {  // Siblings next to each other, in their parents' order, whatever the order of the adds.
    TransformTree tree;
    const uint32_t a1 = tree.add(TransformTree::kRoot, glm::mat4(1.0f)), a2 = tree.add(TransformTree::kRoot, glm::mat4(1.0f));
    const uint32_t c2 = tree.add(a2, glm::mat4(1.0f)), c1 = tree.add(a1, glm::mat4(1.0f)), d = tree.add(c1, glm::mat4(1.0f));
    const uint32_t c3 = tree.add(a2, glm::mat4(1.0f));
    const std::vector<uint32_t> expected{a1, a2, c1, c2, c3, d};
    CHECK(tree.breadthFirst() == expected);
    GpuTransformTree gpu(vt::gpu().scheduler, tree);
    gpu.process();
    CHECK(vt::gpu().scheduler.readback<uint32_t>(gpu.order().first(expected.size() * 4)).get() == expected);
  }
  for (const TransformProduct product : runnableProducts()) {
    std::mt19937 rng(5);
    TransformTree cpu = randomParentsTree(rng, 20000);
    // A removal and moves make the indices' order wander further from the level order.
    cpu.remove(cpu.children(TransformTree::kRoot)[2]);
    for (uint32_t k = 0; k < 5; ++k) {
      uint32_t node;
      do node = 1 + rng() % uint32_t(cpu.capacity() - 1);
      while (!cpu.live(node) || cpu.level(node) < 3);
      cpu.setParent(node, cpu.children(TransformTree::kRoot)[k % 3]);
    }
    TransformTree tree = cpu;
    GpuTransformTree gpu(vt::gpu().scheduler, tree, GpuTransformOptions{product});
    gpu.process();
    cpu.processCpu();
    const double tolerance = 1e-5 * std::max(1.0, double(cpu.levels()));
    INFO(transformProductName(product) << ": " << cpu.size() << " nodes, " << cpu.levels() << " levels");
    CHECK(largestRelativeError(cpu, gpuWorlds(gpu, tree)) < tolerance);
    const std::vector<uint32_t> order = cpu.breadthFirst();
    REQUIRE(order.size() == gpu.liveNodes());
    CHECK(vt::gpu().scheduler.readback<uint32_t>(gpu.order().first(order.size() * 4)).get() == order);
    // Within a level the parents' positions never decrease (what makes the reads coalesce).
    std::vector<uint32_t> position(cpu.capacity(), 0);
    for (uint32_t p = 0; p < order.size(); ++p) position[order[p]] = p;
    uint64_t backwards = 0;
    for (uint32_t p = 1; p < order.size(); ++p) {
      const uint32_t a = order[p - 1], b = order[p];
      backwards += cpu.level(a) == cpu.level(b) && cpu.level(a) > 1 && position[cpu.parent(a)] > position[cpu.parent(b)];
    }
    CHECK(backwards == 0);
    // Sparse (positions listed), scattered with marks, the whole locals with marks, every node.
    for (double fraction : {0.01, 0.2, 0.7, 1.0}) {
      std::vector<uint32_t> nodes;
      std::vector<glm::mat4> locals;
      for (uint32_t n = 1; n < cpu.capacity(); ++n)
        if (cpu.live(n) && (fraction == 1.0 || std::uniform_real_distribution<double>(0, 1)(rng) < fraction))
          nodes.push_back(n), locals.push_back(randomLocal(rng));
      cpu.setLocal(nodes, locals);
      tree.setLocal(nodes, locals);
      const std::vector<glm::mat4> before = gpuWorlds(gpu, tree);
      gpu.process();
      cpu.processCpu();
      const std::vector<glm::mat4> after = gpuWorlds(gpu, tree);
      INFO("fraction " << fraction);
      CHECK(gpu.stats().sparse == (fraction < 0.05));
      CHECK(gpu.stats().wholeLocals == (fraction > 0.5));
      CHECK(largestRelativeError(cpu, after) < tolerance);
      std::vector<uint8_t> dirty(cpu.capacity(), 0);
      for (uint32_t n : nodes) dirty[n] = 1;
      for (uint32_t n : order) dirty[n] = dirty[n] || dirty[cpu.parent(n)];
      const auto marks = vt::gpu().scheduler.readback<uint32_t>(gpu.changedMarks().first(cpu.capacity() * 4)).get();
      uint64_t rewritten = 0, wrongMarks = 0;
      for (uint32_t n : order) {
        rewritten += !dirty[n] && std::memcmp(&before[n], &after[n], sizeof(glm::mat4)) != 0;
        wrongMarks += (marks[n] == gpu.generation()) != bool(dirty[n]);
      }
      CHECK(rewritten == 0);
      CHECK(wrongMarks == 0);
    }
  }
}

}  // namespace
