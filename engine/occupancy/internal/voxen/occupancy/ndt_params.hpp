#pragma once
// The NDT model as the formulas of ndt_shared.h take it (both integrators).
#include "voxen/gpu/occupancy/ndt_shared.h"
#include "voxen/map/map.hpp"
#include "voxen/occupancy/ndt.hpp"

namespace voxen {

// Validates the model and converts it (levels is left for the GPU integrator to set).
gpu::NdtParams ndtParams(const NdtModel& model, const OccupancyModel& occupancy);
// Throws Error naming the missing layers when the map cannot hold `model`'s data.
void checkNdtMap(const NdtModel& model, const MapLayout& layout);

}  // namespace voxen
