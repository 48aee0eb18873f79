#pragma once
// Dispatching one phase of the painter's frame megakernel (shaders/painter/frame.comp).
// Every phase reads its FrameConstants through the one push constant (its address) and
// `param`, a per-dispatch value documented at each phase.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "voxen/painter/frame_layout.hpp"
#include "voxen/host/scheduler.hpp"

namespace voxen::painter {

// Mirrors `PainterPush` in shaders/painter/painter_common.glsl.
struct PainterPush {
  uint64_t frame;  // address of the FrameConstants
  uint32_t param;
  uint32_t unused;
};
static_assert(sizeof(PainterPush) == 16);

// The frame shader's phases as kernels of the shader library (one pipeline per phase,
// specialised on it; hot reload swaps them all when frame.comp or an include changes).
class FrameKernels {
 public:
  explicit FrameKernels(ShaderLibrary& library);
  const Kernel* get(Phase phase) const { return kernels_[uint32_t(phase)].get(); }

 private:
  std::vector<std::shared_ptr<Kernel>> kernels_;
};

std::string phaseName(Phase phase);

// Records one phase: `groups` workgroups of 64 invocations along x (folded into y past the
// device's x limit: phases index workgroups with painterGroupIndex()). `uses` lists every
// buffer the phase touches, so the scheduler can derive barriers.
void dispatchPhase(Scheduler& scheduler, const FrameKernels& kernels, Phase phase, const BufferRange& frameConstants,
                   uint32_t param, uint64_t groups, std::vector<BufferUse> uses);

}  // namespace voxen::painter
