#pragma once
// The rules every picture's RenderOptions follow (renderMap, renderHeightmap, renderTsdfMesh):
// one set of checks and messages, so the three refuse the same settings the same way.
#include "voxen/render_map.hpp"

namespace voxen {

// Throws SettingError naming RenderOptions' field (or MapGridOptions::crop) for a size, field
// of view, camera or crop that cannot work. `subject` names what is drawn ("the map", "the
// heightmap", "the mesh"); a picture that is always drawn whole (`takesCrop` false) refuses a
// crop box.
void checkRenderOptions(const RenderOptions& options, const char* subject, bool takesCrop);

}  // namespace voxen
