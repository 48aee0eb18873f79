#include "voxen/render_map.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>
#include <vector>

#include "render_map_on.hpp"
#include "render_options_check.hpp"
#include "voxen/context.hpp"
#include "voxen/host/error.hpp"
#include "voxen/host/setting_error.hpp"
#include "voxen/map/map.hpp"
#include "voxen/painter/camera.hpp"
#include "voxen/painter/map_grid.hpp"
#include "voxen/painter/painter.hpp"
#include "voxen/painter/view_framing.hpp"
#include "render_legend.hpp"

namespace voxen {

namespace {


// The occupied samples of the grid inside the bulk box (the grid frame), which the
// perspective view frames: a few far stray voxels do not shrink the picture.
std::vector<glm::vec3> bulkPoints(const MapGrid& mapGrid) {
  const DensityGrid& grid = mapGrid.grid;
  std::vector<glm::vec3> points;
  points.reserve(size_t(mapGrid.occupiedVoxels));
  const glm::vec3 lo(mapGrid.bulkMin), hi(mapGrid.bulkMax);
  for (uint32_t z = 0; z < grid.nz; ++z)
    for (uint32_t y = 0; y < grid.ny; ++y)
      for (uint32_t x = 0; x < grid.nx; ++x) {
        if (!(grid.density[grid.index(x, y, z)] > 0.0f)) continue;
        const glm::vec3 p = glm::vec3(grid.origin[0], grid.origin[1], grid.origin[2]) +
                            glm::vec3(float(x), float(y), float(z)) * grid.voxelSize;
        if (glm::all(glm::greaterThanEqual(p, lo)) && glm::all(glm::lessThanEqual(p, hi))) points.push_back(p);
      }
  return points;
}

// The view: the caller's eye and target (in the grid's frame, metres relative to
// mapGrid.offset), or one framing the bulk of the occupied voxels to fill a picture of this
// aspect: in perspective, the occupied samples themselves (both axes, shifted to centre
// them); from the top, the bulk box's x/y extent (the heights drawn: all occupied voxels).
Camera chooseCamera(const MapGrid& mapGrid, const RenderOptions& o, float aspect) {
  const glm::vec3 occupiedMin(mapGrid.occupiedMin), occupiedMax(mapGrid.occupiedMax);
  if (o.view == RenderView::Top) {
    const glm::vec3 lo(glm::vec2(mapGrid.bulkMin), occupiedMin.z), hi(glm::vec2(mapGrid.bulkMax), occupiedMax.z);
    return frameTopDown(lo, hi, aspect);
  }
  if (!o.eye) {
    Camera camera = framePoints(bulkPoints(mapGrid), occupiedMin, occupiedMax, kRenderViewDirection, o.fovDegrees, aspect);
    return camera;
  }
  return frameEyeTarget(glm::vec3(*o.eye - mapGrid.offset), glm::vec3(*o.target - mapGrid.offset), occupiedMin, occupiedMax,
                        o.fovDegrees);
}

// A voxel's exposed faces give about 2 triangles each: 12 per voxel covers the worst case.
uint32_t triangleBudget(uint64_t occupiedVoxels) {
  return uint32_t(std::min<uint64_t>(occupiedVoxels * 12 + 65536, 1ull << 25));
}

}  // namespace

RenderImage renderMap(Context& context, const OccupancyMap& map, const RenderOptions& o) {
  return renderMapOn(context, context.scheduler(), map, o);
}

RenderImage renderMapOn(Context& context, Scheduler& scheduler, const OccupancyMap& map, const RenderOptions& o) {
  checkRenderOptions(o, "the map", true);
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
  // The legend band (if any) takes the bottom rows: the map is framed in those above it.
  std::optional<detail::LegendLayout> legend;
  if (o.legend) legend = detail::legendLayout(o.width, o.height);
  const uint32_t plotHeight = o.height - (legend ? legend->bandHeight : 0);
  const Camera camera = chooseCamera(mapGrid, o, float(o.width) / float(plotHeight));

  PainterOptions po;
  po.gridX = grid.nx, po.gridY = grid.ny, po.gridZ = grid.nz;
  po.gridOrigin = glm::vec3(grid.origin[0], grid.origin[1], grid.origin[2]);
  po.voxelSize = grid.voxelSize;
  po.width = o.width, po.height = plotHeight;
  po.maxTriangles = o.initialTriangleBudget > 0 ? o.initialTriangleBudget : triangleBudget(mapGrid.occupiedVoxels);
  po.largeTriangleArea = 256;

  RenderImage image;
  std::vector<uint32_t> pixels;
  FrameCounters counters;
  // At most twice: the second frame has room for every triangle the first one counted.
  for (;;) {
    Painter painter(scheduler, po);
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
  image.width = o.width, image.height = o.height, image.plotHeight = plotHeight;
  image.pixels.resize(size_t(o.width) * o.height * 4);
  std::memcpy(image.pixels.data(), pixels.data(), pixels.size() * 4);
  image.occupiedVoxels = mapGrid.occupiedVoxels;
  image.triangles = counters.triangles;
  image.drawnTriangles = counters.drawnTriangles;
  image.grid[0] = grid.nx, image.grid[1] = grid.ny, image.grid[2] = grid.nz;
  // In map metres, as RenderImage says (MapGrid's are in the grid's frame).
  image.occupiedMin = mapGrid.occupiedMin + mapGrid.offset, image.occupiedMax = mapGrid.occupiedMax + mapGrid.offset;
  image.eye = glm::dvec3(camera.eye) + mapGrid.offset;
  image.target = glm::dvec3(camera.target) + mapGrid.offset;
  image.view = o.eye ? RenderView::Perspective : o.view;
  const double res = grid.voxelSize;
  image.heightMin = image.occupiedMin.z + 0.5 * res;
  image.heightMax = image.occupiedMax.z - 0.5 * res;
  detail::setPlotScale(image, camera.orthographic, double(camera.orthoHeight), double(camera.fovYDegrees), plotHeight);
  if (legend) detail::drawLegend(image, *legend, camera.orthographic ? "" : " at the map's centre");
  return image;
}

}  // namespace voxen
