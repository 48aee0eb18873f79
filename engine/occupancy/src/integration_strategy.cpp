#include "voxen/occupancy/integration_strategy.hpp"

#include "voxen/host/shader_library.hpp"
#include "voxen/host/scheduler.hpp"
#include "voxen/occupancy/ndt_strategy.hpp"
#include "voxen/occupancy/one_pass_strategy.hpp"
#include "voxen/occupancy/sequential_strategy.hpp"
#include "voxen/occupancy/two_phase_strategy.hpp"

namespace voxen {

uint32_t occupancyPassFlags(const OccupancyMap& map, const IntegrationOptions& options) {
  uint32_t flags = map.layers().builtinFlags();
  if (options.ndt.mode != NdtMode::Off) {
    flags |= gpu::kPassNdt;
    if (options.ndt.mode == NdtMode::Tm) flags |= gpu::kPassNdtTm;
  } else if (options.order == UpdateOrder::Sequential) {
    flags |= gpu::kPassSequential;
  } else if (options.order == UpdateOrder::OnePass) {
    flags |= gpu::kPassOnePass;
  }
  if (!options.flags.has(RayFlag::ForwardWalk)) flags |= gpu::kPassReverse;
  if (options.flags.has(RayFlag::StopOnFirstOccupied)) flags |= gpu::kPassStopOnOccupied;
  return flags;
}

std::shared_ptr<Kernel> occupancyKernel(Scheduler& scheduler, const char* shader, uint32_t flags) {
  return scheduler.library().kernel(shader, KernelVariant{{}, {{0u, flags}}});
}

std::unique_ptr<IntegrationStrategy> makeIntegrationStrategy(const StrategySetup& setup) {
  if (setup.passFlags & gpu::kPassNdt) return std::make_unique<NdtStrategy>(setup);
  if (setup.passFlags & gpu::kPassSequential) return std::make_unique<SequentialStrategy>(setup);
  if (setup.passFlags & gpu::kPassOnePass) return std::make_unique<OnePassStrategy>(setup);
  return std::make_unique<TwoPhaseStrategy>(setup);
}

}  // namespace voxen
