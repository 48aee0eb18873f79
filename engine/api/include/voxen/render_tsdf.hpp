#pragma once
// A TSDF's surface mesh (voxen/tsdf/tsdf_mesh.hpp: meshTsdfCpu, meshTsdfGpu or a
// TsdfMeshTracker's) drawn to an RGBA picture by the painter's software rasterizer, the one
// renderMap and renderHeightmap use (voxen/painter/triangle_rasterizer.hpp), with their views,
// camera and legend band.
//
//   voxen::TsdfMesh mesh = voxen::meshTsdfCpu(map);
//   voxen::TsdfRenderImage out = voxen::renderTsdfMesh(ctx, mesh, {.width = 800, .height = 600, .legend = true});
//   voxen::writePng("room.png", out.image.width, out.image.height, out.image.pixels, voxen::PngFormat::Rgba8);
//
// What is drawn: every face of the mesh (with RenderOptions::cropMin/cropMax, only the faces
// whose three vertices lie in the box), shaded by the mesh's own normals interpolated across
// each face, both sides (an open edge of the scan never shows a hole where a face turns away).
// A face's colour: the mean of its vertices' colours when the mesh has colours
// (TsdfMesh::colours, one per vertex) and TsdfRenderOptions::colouring allows it; otherwise
// the painter's height colour (renderMap's ramp: blue low to red high) of the face's mean
// height between the lowest and highest vertex drawn.
// RenderOptions as renderMap reads them (width, height, fovDegrees, eye/target, view, legend,
// crop); maxSamples, budgetHint and initialTriangleBudget have no meaning here (no grid).
// Without eye/target the views frame the drawn vertices (perspective: all of them, up to
// 200,000 evenly taken; top: their x/y extent). The legend band holds the height colour bar
// in metres (or, for the mesh's own colours, a note saying so) and the scale bar.
// RenderImage: occupiedVoxels counts the vertices drawn, triangles the faces drawn,
// occupiedMin/occupiedMax their bounds, heightMin/heightMax the lowest and highest vertex.
// Threads: as renderMap (the Context's scheduler, from one thread at a time).
#include <cstdint>

#include "voxen/render_map.hpp"
#include "voxen/tsdf/tsdf_mesh.hpp"

namespace voxen {

// How faces are coloured: Auto takes the mesh's own colours when it has one per vertex,
// Height always the height ramp.
enum class TsdfColouring { Auto, Height };

struct TsdfRenderOptions {
  TsdfColouring colouring = TsdfColouring::Auto;
};

struct TsdfRenderImage {
  RenderImage image;
  uint64_t vertices = 0, faces = 0;  // the mesh's, before any crop
  bool meshColours = false;          // drawn in the mesh's own colours (else by height)
};

// Throws SettingError naming the RenderOptions field for a value out of range (as renderMap),
// and Error when the triangles would not fit the Context's memory budget.
TsdfRenderImage renderTsdfMesh(Context& context, const TsdfMesh& mesh, const RenderOptions& options = {},
                               const TsdfRenderOptions& tsdf = {});

}  // namespace voxen
