# Shader variants (defines) that the engine asks the shader library for. Each is compiled at
# build time like every shader and embedded beside it, so a build without the run-time
# compiler (VOXEN_HOT_RELOAD=OFF) has them too, and no build compiles them at run time.
# One entry per variant, the defines in the order the engine passes them
# (KernelVariant::defines):   <path under shaders/>|NAME=VALUE[|NAME=VALUE...]
set(VOXEN_SHADER_VARIANTS
  # GpuTransformTree: TransformProduct Matrix, QuadShuffle, QuadShared
  "transform/transform_levels.comp|TRANSFORM_PRODUCT=0"
  "transform/transform_levels.comp|TRANSFORM_PRODUCT=1"
  "transform/transform_levels.comp|TRANSFORM_PRODUCT=2"
  # GpuClearance, exact technique with one scale on every axis: integer squared voxel distances
  "clearance/clearance_seed.comp|CLEARANCE_VOXEL_SQUARES=1"
  "clearance/clearance_envelope.comp|CLEARANCE_VOXEL_SQUARES=1"
  # probeExactMath's test-only kernels: the float64 flavour as a driver that flushes subnormals
  # runs it (tests/host/test_exact_math.cpp), with and without the guard against that
  "selftest/exact_math_probe.comp|VOXEN_EXACT_MATH_EMULATE_FLUSH=1"
  "selftest/exact_math_probe.comp|VOXEN_EXACT_MATH_EMULATE_FLUSH=1|VOXEN_EXACT_MATH_NO_GUARD=1")
