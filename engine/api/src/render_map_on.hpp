#pragma once
// renderMap (voxen/render_map.hpp) on a given scheduler: a Mapper renders on its own, so
// that Mappers on several threads never share the Context's.
#include "voxen/render_map.hpp"

namespace voxen {

class Scheduler;

RenderImage renderMapOn(Context& context, Scheduler& scheduler, const OccupancyMap& map, const RenderOptions& options);

}  // namespace voxen
