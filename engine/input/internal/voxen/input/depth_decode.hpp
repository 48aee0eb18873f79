#pragma once
// From a depth camera's messages to voxen::DepthImage: raw images (16UC1 millimetres, 32FC1
// metres), compressedDepth PNGs (image_transport's compressed_depth_image_transport), 16-bit
// PNG files (TUM RGB-D), the camera from a CameraInfo (pinhole, plumb_bob undistorted), and
// the maximum range. Shared by the recording and TUM readers, the tests and the generators.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "voxen/input/image_messages.hpp"
#include "voxen/map/depth_image.hpp"

namespace voxen::detail {

// A raw sensor_msgs/Image of encoding 16UC1 (depthScale 0.001: millimetres, as ROS's depth
// convention REP 118 says) or 32FC1 (metres), either byte order, rows of any step. Anything
// else is an Error beginning with `where` that names the encoding ("encoding 'bgr8' is not a
// depth encoding (16UC1, 32FC1)").
DepthImage decodeDepthImage(const ros::Image& image, const std::string& where);

// A compressedDepth sensor_msgs/CompressedImage: format "16UC1; compressedDepth png" or
// "32FC1; compressedDepth png" (also without " png", as older publishers wrote it, and
// without the "; compressedDepth" part at all, as the oldest did); data is a 12-byte
// ConfigHeader (int32 format, float32 depthParam[2], little-endian) then a PNG of 16-bit
// grey pixels. 16UC1: the PNG's values are the millimetres. 32FC1: the PNG holds quantised
// inverse depth q, and depth = depthParam[0] / (q - depthParam[1]) computed in float as the
// transport's decoder does; q = 0 is no measurement (NaN). Errors begin with `where`: an RVL
// payload, another format (a colour "jpeg"), a short header, a PNG that is not 16-bit grey.
DepthImage decodeCompressedDepth(const ros::CompressedImage& image, const std::string& where);

// Whether a CompressedImage format string is the compressedDepth transport's.
bool isCompressedDepthFormat(const std::string& format);

// A 16-bit greyscale PNG (any compression, interlaced or not) to its values, row-major;
// `width`/`height` set. Error beginning with `where` for anything else (with libpng's words).
std::vector<uint16_t> decodePng16(std::span<const uint8_t> png, const std::string& where, uint32_t& width,
                                  uint32_t& height);
// The width and height from a PNG's IHDR chunk without decoding it; false when `png` does
// not start with a PNG signature and an IHDR.
bool pngSize(std::span<const uint8_t> png, uint32_t& width, uint32_t& height, int& bitDepth, int& colourType);
// A 16-bit greyscale PNG of `values` (width x height, row-major), for generators and tests.
std::vector<uint8_t> encodePng16(std::span<const uint16_t> values, uint32_t width, uint32_t height);

// A camera as a reader uses it: the pinhole intrinsics of the images it hands out and, for a
// distorted camera, the nearest-neighbour map from each output pixel to the source pixel.
//
// Which pinhole: as image_proc's rectification does (cv::initUndistortRectifyMap(K, D, R, P)),
// the output camera is P's (fx = P[0], fy = P[5], cx = P[2], cy = P[6]); K's when P is all
// zero. P's Tx, Ty (a stereo pair's baseline) are not used. R must be the identity (a
// monocular camera's): a rectifying rotation would change each pixel's depth, which remapping
// cannot do, so another R is an Error. distortion_model: "plumb_bob" (D = k1 k2 p1 p2 k3; fewer
// coefficients are zeros, more an Error) and, with every coefficient zero, any model by any
// name ("rational_polynomial", "equidistant", "" ...); a model with a non-zero coefficient other
// than plumb_bob is an Error naming it. binning_x/y above 1 and a region of interest smaller
// than the image are Errors too.
//
// The map: for output pixel (u, v), x = (u - cx') / fx', y = (v - cy') / fy' (P's camera),
// then plumb_bob (r2 = x^2 + y^2; radial 1 + k1 r2 + k2 r2^2 + k3 r2^3; xd = x radial +
// 2 p1 x y + p2 (r2 + 2 x^2), yd = y radial + p1 (r2 + 2 y^2) + 2 p2 x y), the source pixel
// (round(fx xd + cx), round(fy yd + cy)) with K's fx fy cx cy, in double precision, computed
// once per camera; a source pixel outside the image is no measurement. The same CameraInfo
// always gives the same map, so the same input gives the same bytes. No map (an empty one)
// when there is no distortion and P's camera equals K's.
struct DepthCamera {
  CameraIntrinsics intrinsics;         // of the images handed out
  uint32_t sourceWidth = 0, sourceHeight = 0;
  std::vector<int64_t> sourcePixel;    // per output pixel, row-major: the source index, or -1
  std::string distortion;              // in words: "none", "plumb_bob (k1 ... k3), undistorted"
  bool remaps() const { return !sourcePixel.empty(); }
};
// `where` begins every Error (the file and camera_info topic, or the YAML file).
DepthCamera makeDepthCamera(const ros::CameraInfo& info, const std::string& where);

// The image the camera sees, undistorted when the camera remaps (in place; unchanged
// otherwise). The image must be the camera's size: an Error beginning with `where` otherwise.
void applyDepthCamera(const DepthCamera& camera, DepthImage& image, const std::string& where);

// Pixels deeper than `maxRange` metres (> 0) become no measurement: 0 in 16-bit images, NaN in
// float ones. Returns how many changed.
size_t applyMaxRange(DepthImage& image, double maxRange);

}  // namespace voxen::detail
