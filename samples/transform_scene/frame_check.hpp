#pragma once
// --verify: after a frame, checks on the CPU what the device did, so that a test can trust
// the pictures (each check reads back what it needs and waits):
//  - culling: the GPU's visible nodes are exactly TransformTree::cullCpu of the same world
//    matrices (downloaded from the GPU tree) and boxes;
//  - expansion: the triangle list holds 12 triangles of each visible node and nothing else;
//  - drawing: every pixel of the triangle-id image belongs to a triangle of a visible node,
//    and the shaded image covers exactly the pixels the id image covers, so a culled node
//    shows nowhere in the PNG frames.
// Throws CheckFailed naming the frame and the first difference.
#include <cstdint>
#include <stdexcept>

#include "voxen/transform/transform_tree.hpp"

namespace transform_scene {

class SceneRenderer;

class CheckFailed : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct FrameCheck {
  uint32_t visible = 0;      // nodes the GPU kept
  uint32_t culled = 0;       // live nodes it did not
  uint32_t drawnNodes = 0;   // visible nodes that cover at least one pixel
  uint32_t coveredPixels = 0;
};

FrameCheck checkFrame(uint64_t frame, SceneRenderer& renderer, voxen::TransformTree& tree, uint32_t backgroundColor);

}  // namespace transform_scene
