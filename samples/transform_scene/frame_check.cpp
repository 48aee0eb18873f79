#include "frame_check.hpp"

#include <algorithm>
#include <string>
#include <unordered_map>
#include <vector>

#include "scene_renderer.hpp"

namespace transform_scene {

namespace {

std::string listSome(const std::vector<uint32_t>& nodes) {
  std::string text;
  for (size_t i = 0; i < nodes.size() && i < 8; ++i) text += (i ? ", " : "") + std::to_string(nodes[i]);
  return nodes.size() > 8 ? text + ", ..." : text;
}

void checkCulling(const std::string& at, std::vector<uint32_t> gpu, std::vector<uint32_t> cpu) {
  std::sort(gpu.begin(), gpu.end());
  std::sort(cpu.begin(), cpu.end());
  if (gpu == cpu) return;
  std::vector<uint32_t> onlyGpu, onlyCpu;
  std::set_difference(gpu.begin(), gpu.end(), cpu.begin(), cpu.end(), std::back_inserter(onlyGpu));
  std::set_difference(cpu.begin(), cpu.end(), gpu.begin(), gpu.end(), std::back_inserter(onlyCpu));
  throw CheckFailed(at + "the GPU kept " + std::to_string(gpu.size()) + " nodes, cullCpu " + std::to_string(cpu.size()) +
                    "; only the GPU: [" + listSome(onlyGpu) + "], only the CPU: [" + listSome(onlyCpu) + "]");
}

}  // namespace

FrameCheck checkFrame(uint64_t frame, SceneRenderer& renderer, voxen::TransformTree& tree, uint32_t backgroundColor) {
  const std::string at = "frame " + std::to_string(frame) + ": ";
  const std::vector<uint32_t> visible = renderer.culling().download(renderer.cullOutput());
  renderer.gpuTree().download();  // the GPU's world matrices into the tree: cullCpu sees the same worlds
  checkCulling(at, visible, tree.cullCpu(renderer.frustum()));

  // Which visible node each triangle came from, and how many triangles each has.
  const std::vector<uint32_t> counts = renderer.readTriangleCount();
  if (counts[0] != 12 * visible.size() || counts[1] != 0)
    throw CheckFailed(at + std::to_string(counts[0]) + " triangles (" + std::to_string(counts[1]) + " nodes dropped) for " +
                      std::to_string(visible.size()) + " visible nodes; expected 12 each");
  const std::vector<voxen::gpu::Triangle> triangles = renderer.readTriangles(counts[0]);
  std::unordered_map<uint32_t, uint32_t> perNode;
  for (uint32_t n : visible) perNode[n] = 0;
  for (size_t t = 0; t < triangles.size(); ++t) {
    auto it = perNode.find(triangles[t].cell);
    if (it == perNode.end())
      throw CheckFailed(at + "triangle " + std::to_string(t) + " belongs to node " + std::to_string(triangles[t].cell) +
                        ", which is not visible");
    ++it->second;
  }
  for (const auto& [node, n] : perNode)
    if (n != 12) throw CheckFailed(at + "visible node " + std::to_string(node) + " has " + std::to_string(n) + " triangles, not 12");

  // The pictures: ids name visible nodes' triangles; the shaded image covers the same pixels.
  const std::vector<uint32_t> ids = renderer.readIdImage().get();
  const std::vector<uint32_t> shaded = renderer.readImage().get();
  std::vector<uint8_t> drawn(tree.capacity(), 0);
  FrameCheck result;
  for (size_t i = 0; i < ids.size(); ++i) {
    const bool covered = ids[i] != 0xFFFFFFFFu;
    if (covered) {
      if (ids[i] >= triangles.size())
        throw CheckFailed(at + "pixel " + std::to_string(i) + " shows triangle " + std::to_string(ids[i]) + " of " +
                          std::to_string(triangles.size()));
      drawn[triangles[ids[i]].cell] = 1;
      ++result.coveredPixels;
    }
    // A drawn colour equal to the background is possible in principle; the scene's colours
    // are opaque and never that dark, so any mismatch is a coverage difference.
    if (covered == (shaded[i] == backgroundColor))
      throw CheckFailed(at + "pixel " + std::to_string(i) + " is " + (covered ? "covered" : "empty") +
                        " in the triangle-id image but not in the shaded one");
  }
  result.visible = uint32_t(visible.size());
  result.culled = uint32_t(tree.size() - visible.size());
  result.drawnNodes = uint32_t(std::count(drawn.begin(), drawn.end(), uint8_t(1)));
  return result;
}

}  // namespace transform_scene
