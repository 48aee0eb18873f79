#pragma once
// Dispatching one phase of the painter's frame megakernel (shaders/painter/frame.comp).
// Every phase reads its FrameConstants through the one push constant (gpu::PainterPush: their
// address) and `param`, a per-dispatch value documented at each phase.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "voxen/gpu/painter/frame_layout.h"
#include "voxen/host/scheduler.hpp"

namespace voxen::detail {

// The frame shader's phases (frame_layout.h's kPhase*, spec constant 0 of frame.comp).
enum class Phase : uint32_t {
  Brush = gpu::kPhaseBrush,
  MeshList = gpu::kPhaseMeshList,
  MeshCount = gpu::kPhaseMeshCount,
  MeshScan = gpu::kPhaseMeshScan,
  MeshCopy = gpu::kPhaseMeshCopy,
  MeshEmit = gpu::kPhaseMeshEmit,
  RasterClear = gpu::kPhaseRasterClear,
  RasterSmall = gpu::kPhaseRasterSmall,
  RasterLarge = gpu::kPhaseRasterLarge,
  Resolve = gpu::kPhaseResolve,
  Count = gpu::kPhaseCount
};

// MeshCount, MeshCopy and MeshEmit spread their list over the workgroups the host launched.
// One listed block costs each invocation of a workgroup at most about 200 loop iterations to
// mesh and 320 to copy (2,560 triangles), so a workgroup may take kMeshBlocksPerGroup of them
// within the iteration budget (shaders/common/work_range.glsl) when every block is listed
// (the first frame); beyond that a launch of kMeshGroups suits a GPU (on lavapipe every
// launched workgroup pays one pass of the loop body even when the list has nothing for it).
constexpr uint32_t kMeshBlocksPerGroup = 64;
constexpr uint32_t kMeshGroups = 256;
constexpr uint64_t meshListGroups(uint64_t blocks) {
  const uint64_t budget = (blocks + kMeshBlocksPerGroup - 1) / kMeshBlocksPerGroup;
  const uint64_t wanted = blocks < kMeshGroups ? blocks : kMeshGroups;
  return budget > wanted ? budget : wanted;
}

// Workgroups of the raster phases that spread a count known only on the GPU over a fixed
// launch (shaders/painter/raster.glsl), for the Painter and the TriangleRasterizer: at least
// minimumRasterGroups (the iteration budget), and enough to fill a large GPU; lavapipe pays
// little for groups with no work.
constexpr uint32_t kRasterSmallGroups = 1024;
constexpr uint32_t kRasterLargeGroups = 512;

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

// Records the raster and resolve phases of a frame whose constants `frame` (the host copy of
// what `frameConstants` holds) name the triangles, framebuffer and image: a transfer fill
// clears `framebuffer` (and `fragmentCounts` when it is a range), then RasterSmall,
// RasterLarge and Resolve run over at least minimumRasterGroups(frame) workgroups. The one
// place these phases are recorded, for the Painter's mesh and a TriangleRasterizer's
// triangles alike. `uses` lists every buffer the phases touch.
void recordRasterPhases(Scheduler& scheduler, const FrameKernels& kernels, const BufferRange& frameConstants,
                        const gpu::FrameConstants& frame, const BufferRange& framebuffer, const BufferRange& fragmentCounts,
                        const std::vector<BufferUse>& uses);

}  // namespace voxen::detail
