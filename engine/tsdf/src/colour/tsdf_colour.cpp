// TSDF colour: a frame's colour image checked against its depth image.
#include "tsdf_colour.hpp"

#include <string>

#include "voxen/host/error.hpp"

namespace voxen::detail {

bool tsdfFoldsColour(const OccupancyMap& map, const DepthFrame& frame) {
  if (!frame.colour) return false;
  const ColourImage& c = *frame.colour;
  if (c.width != frame.depth.width || c.height != frame.depth.height)
    throw Error("depth frame: the colour image is " + std::to_string(c.width) + " x " + std::to_string(c.height) +
                " pixels, the depth image " + std::to_string(frame.depth.width) + " x " + std::to_string(frame.depth.height) +
                " (the colour must be registered to the depth image)");
  if (c.rgb.size() != size_t(c.width) * c.height * 3)
    throw Error("depth frame: the colour image holds " + std::to_string(c.rgb.size()) + " bytes for " +
                std::to_string(size_t(c.width) * c.height) + " pixels (3 bytes each: red, green, blue)");
  return map.layout().has(kTsdfColourLayer);
}

}  // namespace voxen::detail
