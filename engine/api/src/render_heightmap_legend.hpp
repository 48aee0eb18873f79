#pragma once
// The legend band of a heightmap's picture (renderHeightmap, voxen/render_heightmap.hpp), in
// the rows renderMap's legend takes (detail::legendLayout): the colour bar (cost 0..100 with
// the lethal and unknown swatches beside it, as the --cost-png picture has them, or the
// height in metres) and the scale bar. Drawn on the host after the picture is read back.
#include <string>

#include "render_legend.hpp"
#include "voxen/render_heightmap.hpp"

namespace voxen::detail {

// Into out.image's last layout.bandHeight rows; sets out.image.scaleMetres (0 when no
// scale bar fits beside the swatches). `scaleNote` follows the scale's length.
void drawHeightmapLegend(HeightmapRenderImage& out, const LegendLayout& layout, HeightmapColouring colouring,
                         const std::string& scaleNote);

}  // namespace voxen::detail
