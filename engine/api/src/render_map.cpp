#include "voxen/render_map.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "voxen/context.hpp"
#include "voxen/host/error.hpp"
#include "voxen/host/setting_error.hpp"
#include "voxen/map/map.hpp"
#include "voxen/painter/camera.hpp"
#include "voxen/painter/map_grid.hpp"
#include "voxen/painter/painter.hpp"

namespace voxen {

namespace {

void checkOptions(const RenderOptions& o) {
  auto invalid = [](const char* field, const char* words, const std::string& rule, double value) {
    char now[32];
    std::snprintf(now, sizeof now, "%g", value);
    throw SettingError(SettingError::Kind::Invalid, field, words, "render: {} must be " + rule + ", got " + now);
  };
  if (o.width < 16 || o.width > 16384) invalid("RenderOptions::width", "the image width", "16 to 16384", o.width);
  if (o.height < 16 || o.height > 16384) invalid("RenderOptions::height", "the image height", "16 to 16384", o.height);
  if (!(o.fovDegrees > 0.0f && o.fovDegrees < 180.0f))
    invalid("RenderOptions::fovDegrees", "the field of view", "in (0, 180) degrees", o.fovDegrees);
  if (o.eye.has_value() != o.target.has_value())
    throw SettingError(SettingError::Kind::Invalid, "RenderOptions::eye", "the camera",
                       "render: {} needs both an eye and a target");
  auto finite = [](const glm::dvec3& p) { return std::isfinite(p.x) && std::isfinite(p.y) && std::isfinite(p.z); };
  if (o.eye && !(finite(*o.eye) && finite(*o.target)))
    throw SettingError(SettingError::Kind::Invalid, "RenderOptions::eye", "the camera", "render: {} must be finite");
  if (o.eye && *o.eye == *o.target)
    throw SettingError(SettingError::Kind::Invalid, "RenderOptions::eye", "the camera",
                       "render: {}'s eye and target are the same point");
  if (o.cropMin.has_value() != o.cropMax.has_value())
    throw SettingError(SettingError::Kind::Invalid, "MapGridOptions::crop", "the crop box",
                       "render: {} needs both corners");
  if (o.cropMin && (o.cropMin->x > o.cropMax->x || o.cropMin->y > o.cropMax->y || o.cropMin->z > o.cropMax->z))
    throw SettingError(SettingError::Kind::Invalid, "MapGridOptions::crop", "the crop box",
                       "render: {}'s first corner must be below the second on every axis");
}

// The view: framing the bulk of the occupied voxels, or the caller's eye and target (in
// the grid's frame, metres relative to mapGrid.offset).
Camera chooseCamera(const MapGrid& mapGrid, const RenderOptions& o) {
  Camera camera = cameraFraming(glm::vec3(mapGrid.bulkMin), glm::vec3(mapGrid.bulkMax), o.fovDegrees,
                                float(o.width) / float(o.height));
  if (o.eye) {
    camera.eye = glm::vec3(*o.eye - mapGrid.offset);
    camera.target = glm::vec3(*o.target - mapGrid.offset);
    const float distance = glm::length(camera.eye - camera.target);
    const float reach = glm::length(glm::vec3(mapGrid.occupiedMax - mapGrid.occupiedMin)) + distance;
    camera.nearPlane = std::max(0.01f, distance * 0.002f);
    camera.farPlane = 2.0f * reach + 1.0f;
  }
  return camera;
}

// A voxel's exposed faces give about 2 triangles each: 12 per voxel covers the worst case.
uint32_t triangleBudget(uint64_t occupiedVoxels) {
  return uint32_t(std::min<uint64_t>(occupiedVoxels * 12 + 65536, 1ull << 25));
}

}  // namespace

RenderImage renderMap(Context& context, const OccupancyMap& map, const RenderOptions& o) {
  checkOptions(o);
  MapGridOptions gridOptions;
  gridOptions.cropMin = o.cropMin;
  gridOptions.cropMax = o.cropMax;
  gridOptions.maxSamples = o.maxSamples;
  gridOptions.memoryBudgetBytes = context.memoryBudgetBytes();
  gridOptions.heldBytes = map.regions().size() * map.bytesPerRegion();
  gridOptions.budgetHint = !o.budgetHint.empty() ? o.budgetHint
                                                 : context.memoryHint() +
                                                       " or render a part of the map (RenderOptions::cropMin/cropMax)";
  const MapGrid mapGrid = gridFromOccupancy(map, gridOptions);
  const DensityGrid& grid = mapGrid.grid;
  const Camera camera = chooseCamera(mapGrid, o);

  PainterOptions po;
  po.gridX = grid.nx, po.gridY = grid.ny, po.gridZ = grid.nz;
  po.gridOrigin = glm::vec3(grid.origin[0], grid.origin[1], grid.origin[2]);
  po.voxelSize = grid.voxelSize;
  po.width = o.width, po.height = o.height;
  po.maxTriangles = o.initialTriangleBudget > 0 ? o.initialTriangleBudget : triangleBudget(mapGrid.occupiedVoxels);
  po.largeTriangleArea = 256;

  RenderImage image;
  std::vector<uint32_t> pixels;
  FrameCounters counters;
  // At most twice: the second frame has room for every triangle the first one counted.
  for (;;) {
    Painter painter(context.scheduler(), po);
    painter.setGrid(grid.density, grid.color);
    painter.frame(camera);
    pixels = painter.readImage().get();
    counters = painter.readCounters();
    ++image.frames;
    if (counters.overflowTriangles == 0) break;
    const uint64_t needed = uint64_t(counters.triangles) + counters.overflowTriangles;
    if (image.frames > 1 || needed > UINT32_MAX)
      throw Error("render: the mesh has " + std::to_string(needed) + " triangles, more than the " +
                  std::to_string(po.maxTriangles) + " the frame could hold after growing");
    po.maxTriangles = uint32_t(needed);
  }
  image.width = o.width, image.height = o.height;
  image.pixels.resize(pixels.size() * 4);
  std::memcpy(image.pixels.data(), pixels.data(), image.pixels.size());
  image.occupiedVoxels = mapGrid.occupiedVoxels;
  image.triangles = counters.triangles;
  image.drawnTriangles = counters.drawnTriangles;
  image.grid[0] = grid.nx, image.grid[1] = grid.ny, image.grid[2] = grid.nz;
  image.occupiedMin = mapGrid.occupiedMin, image.occupiedMax = mapGrid.occupiedMax;
  image.eye = glm::dvec3(camera.eye) + mapGrid.offset;
  image.target = glm::dvec3(camera.target) + mapGrid.offset;
  return image;
}

}  // namespace voxen
