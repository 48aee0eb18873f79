// The TSDF passes' camera and depth image (tsdf_shared.h): the frame's camera as a buffer,
// and a pixel's depth in fine units as the CPU reference reads it
// (engine/tsdf/src/tsdf_camera.cpp tsdfPixelDepth).
#ifndef VOXEN_TSDF_CAMERA_GLSL
#define VOXEN_TSDF_CAMERA_GLSL

layout(buffer_reference, std430, buffer_reference_align = 8) buffer TsdfCameraRef { TsdfCamera c; };

// Pixel `pixel`'s depth in fine units, 0 for no measurement (0, NaN, beyond maxDepth).
int64_t tsdfPixelDepth(TsdfCamera cam, uint64_t image, uint pixel) {
  int64_t d = 0;
  if (cam.encoding == kTsdfDepthUnsigned16) {
    uint word = UintArray(image).v[pixel >> 1];
    uint raw = (pixel & 1u) != 0u ? word >> 16 : word & 0xFFFFu;
    d = raw == 0u ? int64_t(0) : tsdfDepth16(raw, cam.depthScaleQ32);
  } else {
    precise float scaled = FloatArray(image).v[pixel] * cam.depthFactor;
    d = tsdfDepthFromScaled(floor(scaled));
  }
  return d > 0 && d <= cam.maxDepth ? d : int64_t(0);
}

#endif
