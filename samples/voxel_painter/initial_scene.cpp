#include "initial_scene.hpp"

#include "voxen/testdata/demo_scene.hpp"

namespace voxel_painter {

using namespace voxen;

PainterOptions painterOptions(uint32_t width, uint32_t height) {
  PainterOptions options;
  options.gridX = options.gridY = options.gridZ = kGridSize;
  options.gridOrigin = glm::vec3(0.0f);
  options.voxelSize = 1.0f;
  options.width = width;
  options.height = height;
  // From above and behind the home camera's shoulder, so the faces it sees (and paints) are lit.
  options.lightDirection = glm::normalize(glm::vec3(-0.3f, -0.55f, 0.8f));
  return options;
}

void loadInitialScene(Painter& painter) {
  const auto grid = demoScene(kGridSize);  // density and colour, x fastest
  painter.setGrid(grid.density, grid.color);
}

Camera homeCamera() {
  // The objects stand on a slab in the lower half of the grid: framing that part rather
  // than the whole cube keeps them large on screen, with room above to paint into.
  const float n = float(kGridSize);
  Camera camera = cameraFraming(glm::vec3(0.0f), glm::vec3(n, n, 0.6f * n));
  camera.zoom(0.85f);  // the framing fits the box's corners, which are empty: move in a little
  return camera;
}

}  // namespace voxel_painter
