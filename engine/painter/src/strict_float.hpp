#pragma once
// Include first in a CPU reference whose float expressions must round exactly as their
// GLSL twins (marked `precise`): GCC contracts a * b + c into an FMA in C++ even in ISO
// mode when the target has FMA (-march=haswell and later), and a fused result differs in
// the last bit. This turns contraction off for the rest of the including file.
#if defined(__clang__)
#pragma clang fp contract(off)
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif
