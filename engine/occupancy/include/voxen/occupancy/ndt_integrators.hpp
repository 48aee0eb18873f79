#pragma once
// The NDT integrators: the occupancy integrators with IntegrationOptions::ndt set, with the
// same shape (integrate(rays), finish() on the GPU, stats()). The map must have
// ndtLayout(model.mode)'s layers.
//
//   voxen::OccupancyMap map(model, voxen::ndtLayout(voxen::NdtMode::Om));
//   voxen::GpuNdtIntegrator ndt(scheduler, map, {.mode = voxen::NdtMode::Om});
//   ndt.integrate(rays);
//   ndt.finish();
#include "voxen/occupancy/cpu_integrator.hpp"
#include "voxen/occupancy/gpu_integrator.hpp"
#include "voxen/occupancy/ndt.hpp"

namespace voxen {

// `options` with the NDT model set (NDT-OM when the model's mode is Off).
inline IntegrationOptions withNdt(IntegrationOptions options, NdtModel model) {
  if (model.mode == NdtMode::Off) model.mode = NdtMode::Om;
  options.ndt = model;
  return options;
}

// The CPU reference: in options.order (Sequential by default: ray after ray, as OHM's CPU
// NDT does; TwoPhase gives the GPU's map when fed the same batches).
class CpuNdtIntegrator : public CpuIntegrator {
 public:
  CpuNdtIntegrator(OccupancyMap& map, NdtModel model = {}, IntegrationOptions options = {})
      : CpuIntegrator(map, withNdt(options, model)) {}
};

// The GPU integrator, in two-phase order (options.order is ignored): a batch's free-space
// updates, then its samples folded voxel by voxel in input order.
class GpuNdtIntegrator : public GpuIntegrator {
 public:
  GpuNdtIntegrator(Scheduler& scheduler, OccupancyMap& map, NdtModel model = {}, IntegrationOptions options = {},
                   GpuIntegratorOptions gpuOptions = {})
      : GpuIntegrator(scheduler, map, twoPhase(withNdt(options, model)), gpuOptions) {}

 private:
  static IntegrationOptions twoPhase(IntegrationOptions options) {
    options.order = UpdateOrder::TwoPhase;
    return options;
  }
};

}  // namespace voxen
