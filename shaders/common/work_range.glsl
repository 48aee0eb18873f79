// Bounded per-invocation work. Lavapipe stops every loop of an invocation silently after
// 65,535 iterations in total (docs/architecture.md), so a loop over a variable amount of work must be
// split across invocations: the host launches enough invocations that none gets more than
// `perInvocation` items, and each invocation walks only its own contiguous slice.
#ifndef VOXEN_COMMON_WORK_RANGE_GLSL
#define VOXEN_COMMON_WORK_RANGE_GLSL

// The most loop iterations a Voxen shader may run in one invocation:
// kMaxIterationsPerInvocation, shared with the host.
#extension GL_GOOGLE_include_directive : require
#include "work_limits.h"

struct WorkRange {
  uint begin;
  uint end;
};

// The slice of [0, total) that invocation `invocation` handles when each takes at most
// `perInvocation` consecutive items.
WorkRange workRange(uint invocation, uint perInvocation, uint total) {
  WorkRange r;
  r.begin = min(invocation * perInvocation, total);
  r.end = min(r.begin + perInvocation, total);
  return r;
}

#endif
