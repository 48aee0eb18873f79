#pragma once
// The legend band of a map render (RenderOptions::legend): drawn on the host under the
// picture the painter read back, never through the GPU, so the render itself stays what the
// painter and its CPU reference draw. Left: the height colour bar (the painter's height
// colours, labelled in metres); right: a scale bar of a round length (1, 2 or 5 x 10^n m).
#include <cstdint>
#include <string>

#include "voxen/render_map.hpp"

namespace voxen::detail {

struct LegendLayout {
  uint32_t textSize = 2;    // font pixel size
  uint32_t bandHeight = 0;  // rows at the bottom of the picture the legend takes
};

// The band for a picture of this size: text size 2 from 800 x 480 pixels, else 1. Throws
// SettingError (RenderOptions::legend) when the picture is too small to hold it above a map.
LegendLayout legendLayout(uint32_t width, uint32_t height);

// Draws the band into image.pixels' last layout.bandHeight rows (white, the colour bar with
// image.heightMin/heightMax, the scale bar for image.metresPerPixel) and sets
// image.scaleMetres. `scaleNote` follows the length in the scale's label ("" for an exact
// scale).
void drawLegend(RenderImage& image, const LegendLayout& layout, const std::string& scaleNote);

// The picture's metres per pixel for a camera at image.eye / image.target, and for a top view
// the world position of the plot's top-left corner: what the scale bar and world coordinates
// are drawn from (the map render and the heightmap render alike).
void setPlotScale(RenderImage& image, bool orthographic, double orthoHeight, double fovYDegrees, uint32_t plotHeight);

}  // namespace voxen::detail
