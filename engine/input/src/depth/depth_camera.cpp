// A CameraInfo as the pinhole camera of the images a reader hands out, with the
// nearest-neighbour undistortion map of a plumb_bob camera (depth_decode.hpp says which pinhole
// and how the map is computed).
#include <cmath>
#include <limits>

#include "voxen/host/error.hpp"
#include "voxen/host/number_text.hpp"
#include "voxen/input/depth_decode.hpp"

namespace voxen::detail {

namespace {

bool allZero(const auto& values) {
  for (const double v : values)
    if (v != 0.0) return false;
  return true;
}

std::string listText(const std::vector<double>& values) {
  std::string text;
  for (const double v : values) text += (text.empty() ? "" : ", ") + formatNumber(v);
  return text;
}

}  // namespace

DepthCamera makeDepthCamera(const ros::CameraInfo& info, const std::string& where) {
  DepthCamera camera;
  if (info.width == 0 || info.height == 0)
    throw Error(where + ": the camera's size is " + std::to_string(info.width) + " x " + std::to_string(info.height) +
                " (width, height): no calibration (a driver publishing an empty CameraInfo?)");
  const auto& K = info.k;
  if (!(K[0] > 0 && K[4] > 0 && std::isfinite(K[0]) && std::isfinite(K[4]) && std::isfinite(K[2]) && std::isfinite(K[5])))
    throw Error(where + ": K's focal lengths fx = " + formatNumber(K[0]) + ", fy = " + formatNumber(K[4]) +
                " are not positive and finite: no calibration");
  if (info.binningX > 1 || info.binningY > 1)
    throw Error(where + ": binning " + std::to_string(info.binningX) + " x " + std::to_string(info.binningY) +
                " is not read: Voxen takes images at the calibration's resolution");
  const ros::RegionOfInterest& roi = info.roi;
  if (roi.width != 0 && roi.height != 0 && (roi.xOffset != 0 || roi.yOffset != 0 || roi.width != info.width || roi.height != info.height))
    throw Error(where + ": a region of interest (" + std::to_string(roi.width) + " x " + std::to_string(roi.height) + " at " +
                std::to_string(roi.xOffset) + ", " + std::to_string(roi.yOffset) + ") is not read: Voxen takes whole images");
  static const std::array<double, 9> kIdentity = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  if (!allZero(info.r))
    for (size_t i = 0; i < 9; ++i)
      if (std::abs(info.r[i] - kIdentity[i]) > 1e-9)
        throw Error(where + ": R is not the identity (a stereo rectification): rotating the camera would change each "
                    "pixel's depth, which Voxen does not do");

  const std::vector<double>& D = info.d;
  const bool distorted = !allZero(D);
  const std::string& model = info.distortionModel;
  if (distorted && model != "plumb_bob")
    throw Error(where + ": distortion model '" + model + "' (D = " + listText(D) +
                ") is not read: Voxen undistorts plumb_bob (k1 k2 p1 p2 k3) only");
  if (distorted && D.size() > 5)
    throw Error(where + ": plumb_bob distortion has 5 coefficients (k1 k2 p1 p2 k3), D has " + std::to_string(D.size()));

  // The output camera: P's, as image_proc rectifies; K's when P is not given.
  const auto& P = info.p;
  const bool hasP = !allZero(P);
  CameraIntrinsics& out = camera.intrinsics;
  out.width = info.width, out.height = info.height;
  out.fx = hasP ? P[0] : K[0], out.fy = hasP ? P[5] : K[4];
  out.cx = hasP ? P[2] : K[2], out.cy = hasP ? P[6] : K[5];
  if (!(out.fx > 0 && out.fy > 0 && std::isfinite(out.cx) && std::isfinite(out.cy)))
    throw Error(where + ": P's focal lengths fx = " + formatNumber(out.fx) + ", fy = " + formatNumber(out.fy) +
                " are not positive: no projection");
  camera.sourceWidth = info.width, camera.sourceHeight = info.height;
  const bool sameCamera = out.fx == K[0] && out.fy == K[4] && out.cx == K[2] && out.cy == K[5];
  camera.distortion = distorted ? "plumb_bob (k1 k2 p1 p2 k3 = " + listText(D) + "), undistorted to P's pinhole"
                                : (model.empty() ? std::string("none") : "none (" + model + ", every coefficient 0)");
  if (!distorted && sameCamera) return camera;
  if (!distorted) camera.distortion += "; resampled from K's pinhole to P's";

  double k[5] = {0, 0, 0, 0, 0};
  for (size_t i = 0; i < D.size() && distorted; ++i) k[i] = D[i];
  const double k1 = k[0], k2 = k[1], p1 = k[2], p2 = k[3], k3 = k[4];
  camera.sourcePixel.resize(size_t(out.width) * out.height);
  for (uint32_t v = 0; v < out.height; ++v) {
    for (uint32_t u = 0; u < out.width; ++u) {
      const double x = (double(u) - out.cx) / out.fx, y = (double(v) - out.cy) / out.fy;
      const double r2 = x * x + y * y;
      const double radial = 1.0 + k1 * r2 + k2 * r2 * r2 + k3 * r2 * r2 * r2;
      const double xd = x * radial + 2.0 * p1 * x * y + p2 * (r2 + 2.0 * x * x);
      const double yd = y * radial + p1 * (r2 + 2.0 * y * y) + 2.0 * p2 * x * y;
      const double su = std::round(K[0] * xd + K[2]), sv = std::round(K[4] * yd + K[5]);
      const bool inside = su >= 0 && sv >= 0 && su < double(info.width) && sv < double(info.height);
      camera.sourcePixel[size_t(v) * out.width + u] = inside ? int64_t(sv) * info.width + int64_t(su) : -1;
    }
  }
  return camera;
}

void applyDepthCamera(const DepthCamera& camera, DepthImage& image, const std::string& where) {
  if (image.width != camera.sourceWidth || image.height != camera.sourceHeight)
    throw Error(where + ": the image is " + std::to_string(image.width) + " x " + std::to_string(image.height) +
                ", its camera_info " + std::to_string(camera.sourceWidth) + " x " + std::to_string(camera.sourceHeight));
  if (!camera.remaps()) return;
  const size_t n = camera.sourcePixel.size();
  if (image.encoding == DepthEncoding::Unsigned16) {
    std::vector<uint16_t> out(n);
    for (size_t i = 0; i < n; ++i) out[i] = camera.sourcePixel[i] < 0 ? 0 : image.depth16[size_t(camera.sourcePixel[i])];
    image.depth16 = std::move(out);
  } else {
    std::vector<float> out(n);
    for (size_t i = 0; i < n; ++i)
      out[i] = camera.sourcePixel[i] < 0 ? std::numeric_limits<float>::quiet_NaN() : image.depth32[size_t(camera.sourcePixel[i])];
    image.depth32 = std::move(out);
  }
  image.width = camera.intrinsics.width, image.height = camera.intrinsics.height;
}

}  // namespace voxen::detail
