#pragma once
// A heightmap drawn to an RGBA picture: its surface mesh (voxen/export/heightmap_mesh.hpp: a
// square per cell at its height, risers where neighbours join) coloured by traversability
// cost (or height) and drawn by the painter's software rasterizer, the one renderMap uses
// (voxen/painter/triangle_rasterizer.hpp), with renderMap's views and legend band.
//
//   voxen::HeightmapRenderImage out = voxen::renderHeightmap(ctx, hm, {.width = 800, .height = 600, .legend = true});
//   voxen::writePng("ground.png", out.image.width, out.image.height, out.image.pixels, voxen::PngFormat::Rgba8);
//
// RenderOptions as renderMap reads them (width, height, fovDegrees, eye/target, view, legend);
// a crop is refused (SettingError naming MapGridOptions::crop). The legend band holds the
// colour bar (cost 0..100, or height in metres), a swatch each for lethal and unknown cells
// (cost colouring) and the scale bar. RenderImage's occupiedMin/occupiedMax are the drawn
// cells' bounds and occupiedVoxels the cells drawn; heightMin/heightMax their heights.
// Threads: as renderMap (the Context's scheduler, from one thread at a time).
#include <cstdint>

#include "voxen/export/heightmap_mesh.hpp"
#include "voxen/render_map.hpp"

namespace voxen {

class Heightmap;

struct HeightmapRenderImage {
  RenderImage image;
  uint64_t cells = 0, joins = 0, risers = 0;  // as HeightmapMesh counts them
  uint64_t lethal = 0, unknown = 0;           // drawn cells with those costs
};

// Throws SettingError as renderMap does, and for a level the heightmap lacks (field "level").
HeightmapRenderImage renderHeightmap(Context& context, const Heightmap& heightmap, const RenderOptions& options = {},
                                     const HeightmapMeshOptions& mesh = {});

}  // namespace voxen
