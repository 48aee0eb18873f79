// The transform tree on the GPU against the CPU reference, in every product variant the
// device can run (forced one by one), on a forest of wide trees and deep chains: the first
// full update, then a sparse one (few locals changed: the dirty subtrees listed on the
// host) and a dense one (every local changed), each within a relative error that grows with
// the depth (float products in another order), and no clean node rewritten. Then a level
// wider than 65,535 workgroups of quads, and culling: the GPU's visible list against the
// CPU's culling of the same (the GPU's) world matrices, exactly.
#include <glm/gtc/matrix_transform.hpp>

#include <algorithm>
#include <cstring>
#include <random>

#include "check_row.hpp"
#include "voxen/host/device.hpp"
#include "voxen/host/scheduler.hpp"
#include "voxen/testdata/transform_forest.hpp"
#include "voxen/transform/gpu_culling.hpp"
#include "voxen/transform/gpu_transform_tree.hpp"

namespace voxen {

namespace {

std::vector<glm::mat4> worldsOnDevice(Scheduler& s, GpuTransformTree& gpu, const TransformTree& tree) {
  return s.readback<glm::mat4>(gpu.worlds().first(tree.capacity() * 64ull)).get();
}

// The check's switch: one entry of the last node's world in the reference doubled and
// moved by 1 (a relative error of at least 1, past any tolerance).
void breakIf(bool broken, TransformTree& reference) {
  if (!broken) return;
  const uint32_t last = uint32_t(reference.capacity() - 1);
  glm::mat4 world = reference.world(last);
  world[3][0] = world[3][0] * 2.0f + 1.0f;
  reference.setWorld(last, world);
}

void checkProduct(CheckContext& context, TransformProduct product) {
  const std::string name = std::string("product variant ") + transformProductName(product) +
                           ": first, sparse and dense updates against the CPU reference";
  runRow(context, "transform", name, [&](RowResult& row) {
    Scheduler& s = context.scheduler;
    std::mt19937 rng(7);
    TransformTree cpu;
    addRandomForest(cpu, rng, context.sized(2000u, 50000u), 3, context.sized(4u, 5u));  // wide
    addRandomForest(cpu, rng, 3, 1, context.sized(1500u, 3000u));                     // deep chains
    TransformTree tree = cpu;
    GpuTransformTree gpu(s, tree, GpuTransformOptions{product});
    // Float products over thousands of levels drift apart slowly: the tolerance grows with depth.
    const double tolerance = 1e-5 * std::max(1.0, double(cpu.levels()));
    gpu.process();
    cpu.processCpu();
    breakIf(context.breakReferences(), cpu);
    double worst = largestRelativeError(cpu, worldsOnDevice(s, gpu, tree));
    bool sparseSeen = false, denseSeen = false;
    uint64_t rewritten = 0, wrongMarks = 0;
    for (double fraction : {0.01, 1.0}) {
      std::vector<uint32_t> nodes;
      std::vector<glm::mat4> locals;
      for (uint32_t n = 1; n < cpu.capacity(); ++n)
        if (rng() % 10000 < uint32_t(fraction * 10000)) nodes.push_back(n), locals.push_back(randomTransformLocal(rng));
      cpu.setLocal(nodes, locals);
      tree.setLocal(nodes, locals);
      const std::vector<glm::mat4> before = worldsOnDevice(s, gpu, tree);
      gpu.process();
      cpu.processCpu();
      const std::vector<glm::mat4> after = worldsOnDevice(s, gpu, tree);
      (gpu.stats().sparse ? sparseSeen : denseSeen) = true;
      worst = std::max(worst, largestRelativeError(cpu, after));
      // Only dirty subtrees change: every other node's world is bit-identical, and the
      // changed marks are exactly the dirty subtrees.
      std::vector<uint8_t> dirty(cpu.capacity(), 0);
      for (uint32_t n : nodes) dirty[n] = 1;
      for (uint32_t l = 1; l <= cpu.levels(); ++l)
        for (uint32_t n : cpu.levelNodes(l)) dirty[n] = dirty[n] || dirty[cpu.parent(n)];
      const auto marks = s.readback<uint32_t>(gpu.changedMarks().first(cpu.capacity() * 4)).get();
      for (uint32_t n = 1; n < cpu.capacity(); ++n) {
        rewritten += !dirty[n] && std::memcmp(&before[n], &after[n], sizeof(glm::mat4)) != 0;
        wrongMarks += (marks[n] == gpu.generation()) != bool(dirty[n]);
      }
    }
    row.figure("nodes", double(cpu.size()), "{} nodes");
    row.figure("levels", double(cpu.levels()), "{} levels");
    row.figure("max_relative_error", worst, "largest relative error {}");
    row.figure("tolerance", tolerance, "tolerance {}");
    row.require(gpu.product() == product, "ran another product variant");
    row.require(worst < tolerance, "relative error " + checkNumber(worst) + " above " + checkNumber(tolerance));
    row.require(sparseSeen && denseSeen, "the updates were not one sparse and one dense");
    row.require(rewritten == 0, std::to_string(rewritten) + " clean nodes rewritten");
    row.require(wrongMarks == 0, std::to_string(wrongMarks) + " changed marks wrong");
  });
}

void checkWideLevel(CheckContext& context, TransformProduct product) {
  // 1,048,600 top-level nodes at 4 invocations each need 65,538 workgroups of 64.
  runRow(context, "transform", "a level wider than 65,535 workgroups of quads", [&](RowResult& row) {
    std::mt19937 rng(11);
    TransformTree cpu;
    addRandomForest(cpu, rng, 1048600, 1, 1);
    TransformTree tree = cpu;
    GpuTransformTree gpu(context.scheduler, tree, GpuTransformOptions{product});
    gpu.process();
    cpu.processCpu();
    breakIf(context.breakReferences(), cpu);
    const double error = largestRelativeError(cpu, worldsOnDevice(context.scheduler, gpu, tree));
    row.figure("nodes", double(cpu.size()), "{} nodes in one level");
    row.figure("workgroups", double((uint64_t(cpu.size()) * 4 + 63) / 64), "{} workgroups");
    row.figure("max_relative_error", error, "largest relative error {}");
    row.require(error < 1e-5, "relative error " + checkNumber(error) + " above 1e-05");
  });
}

void checkCulling(CheckContext& context) {
  runRow(context, "transform", "culling: the visible list equals the CPU's culling of the same worlds", [&](RowResult& row) {
    Scheduler& s = context.scheduler;
    std::mt19937 rng(13);
    TransformTree tree;
    addRandomForest(tree, rng, context.sized(300u, 20000u), 4, 4, 20.0f);  // trees over 40 m: many out of view
    for (uint32_t n = 1; n < tree.capacity(); ++n) {
      const glm::vec3 half(0.1f + 1.4f * float(rng() % 1000) / 1000.0f, 0.1f + 1.4f * float(rng() % 1000) / 1000.0f,
                           0.1f + 1.4f * float(rng() % 1000) / 1000.0f);
      tree.setBox(n, {-half, half});
    }
    GpuTransformTree gpu(s, tree);
    GpuCulling culling(s, gpu);
    gpu.process();
    const glm::mat4 view = glm::lookAt(glm::vec3(0.0f, -8.0f, 3.0f), glm::vec3(0.0f), glm::vec3(0.0f, 0.0f, 1.0f));
    const glm::mat4 projection = glm::perspectiveRH_ZO(glm::radians(50.0f), 1.5f, 0.5f, 20.0f);
    const Frustum frustum = Frustum::fromViewProjection(projection * view);
    const CullOutput output = culling.cull(frustum);
    const std::vector<uint32_t> visible = culling.download(output);
    const std::vector<uint32_t> args = s.readback<uint32_t>(output.dispatchArgs).get();
    gpu.download();  // the CPU culls the GPU's worlds: culling alone is compared, exactly
    std::vector<uint32_t> expected = tree.cullCpu(frustum);
    if (context.breakReferences() && !expected.empty()) expected.pop_back();
    row.figure("nodes", double(tree.size()), "{} nodes");
    row.figure("visible", double(expected.size()), "{} visible");
    row.require(expected.size() > 10 && expected.size() < tree.size(), "the view culls nothing or shows nothing");
    row.require(visible == expected, "the GPU's visible list (" + std::to_string(visible.size()) + " nodes) differs from the CPU's (" +
                                         std::to_string(expected.size()) + ")");
    row.require(uint64_t(args[0]) * args[1] * args[2] * 64 >= expected.size() &&
                    uint64_t(args[0]) * args[1] * args[2] * 64 < expected.size() + 64 * uint64_t(args[1]),
                "the indirect command does not cover exactly the visible nodes");
  });
}

}  // namespace

void checkTransform(CheckContext& context) {
  std::vector<TransformProduct> products{TransformProduct::Matrix, TransformProduct::QuadShared};
  if (supportsQuadShuffle(context.scheduler.device().info())) products.push_back(TransformProduct::QuadShuffle);
  for (TransformProduct product : products) checkProduct(context, product);
  checkWideLevel(context, products.back());
  checkCulling(context);
}

}  // namespace voxen
