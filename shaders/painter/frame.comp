#version 460
// The painter's frame megakernel: one shader whose phases (brush, meshing, rasterization,
// resolve) the host dispatches in one command buffer, phase after phase, with the barriers
// the scheduler derives between them (engine/painter/src/painter.cpp). The phase is
// specialization constant 0, so each dispatch runs only its phase's code: lavapipe executes
// every branch of a shader under lane masks, so a runtime switch would cost all phases'
// length in each (docs/architecture.md). There is no cross-workgroup barrier inside: lavapipe gives no
// forward progress between workgroups.
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_ballot : require
#include "painter_common.glsl"
#include "../common/dispatch.glsl"
#include "../common/work_range.glsl"

layout(local_size_x = kFrameGroupSize) in;
layout(constant_id = 0) const uint kPhase = 0u;

#include "brush.glsl"
#include "mesh.glsl"
#include "raster.glsl"

void main() {
  switch (kPhase) {
    case kPhaseBrush: phaseBrush(); break;
    case kPhaseMeshList: phaseMeshList(); break;
    case kPhaseMeshCount: phaseMeshCount(); break;
    case kPhaseMeshScan: phaseMeshScan(); break;
    case kPhaseMeshCopy: phaseMeshCopy(); break;
    case kPhaseMeshEmit: phaseMeshEmit(); break;
    case kPhaseRasterClear: phaseRasterClear(); break;
    case kPhaseRasterSmall: phaseRasterSmall(); break;
    case kPhaseRasterLarge: phaseRasterLarge(); break;
    case kPhaseResolve: phaseResolve(); break;
    default: break;
  }
}
