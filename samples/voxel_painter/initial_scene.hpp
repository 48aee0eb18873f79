#pragma once
// What the painter starts with: a 128^3 grid (voxel size 1, origin 0) holding the shared
// demo scene (ground slab, sphere, two boxes: engine/testdata/src/demo_scene.cpp) and a camera
// that frames it. Both modes start here so a stroke script and a window see the same view.
#include <cstdint>

#include "voxen/painter/camera.hpp"
#include "voxen/painter/painter.hpp"

namespace voxel_painter {

constexpr uint32_t kGridSize = 128;

voxen::PainterOptions painterOptions(uint32_t width, uint32_t height);
// Uploads the demo scene into the painter (Painter::setGrid).
void loadInitialScene(voxen::Painter& painter);
// The starting view (and the one the R key returns to).
voxen::Camera homeCamera();

}  // namespace voxel_painter
