#pragma once
// From a camera's colour messages and files to voxen::ColourImage (voxen/map/depth_image.hpp):
// raw sensor_msgs/Image of the encodings below, sensor_msgs/CompressedImage in PNG form, and
// PNG files (TUM RGB-D's rgb/*.png). Shared by the depth source (DepthSourceOptions::withColour),
// `voxen inspect`, the tests and the generators; and the pairing of colour images with depth
// images by their stamps. JPEG is refused: no JPEG decoder is among
// Voxen's dependencies (libpng is; depth_source.hpp says what to record instead).
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "voxen/input/depth_decode.hpp"
#include "voxen/input/image_messages.hpp"
#include "voxen/map/depth_image.hpp"

namespace voxen::detail {

// Image encodings read as colour: rgb8, bgr8, rgba8, bgra8 (alpha dropped), mono8 (grey in r, g, b).
bool isColourEncoding(const std::string& encoding);
// Those a colour topic is chosen by without being named: the four colour ones (mono8 topics
// are usually a camera's infrared streams).
bool isChosenColourEncoding(const std::string& encoding);
inline constexpr const char* kColourEncodings = "rgb8, bgr8, rgba8, bgra8, mono8";

// A raw image to RGB, rows of any step (the pixels are bytes: is_bigendian does not matter).
// Another encoding is an Error beginning with `where` that names it and lists kColourEncodings.
ColourImage decodeColourImage(const ros::Image& image, const std::string& where);

// What a CompressedImage's payload is: told by its first bytes (PNG's signature, JPEG's
// FF D8 FF), else by its format string ("png", "jpeg"/"jpg" in it); compressedDepth is Depth.
enum class CompressedColour { Png, Jpeg, Depth, Unknown };
CompressedColour compressedColourKind(const ros::CompressedImage& image);
// A PNG CompressedImage to RGB; JPEG and anything else are Errors beginning with `where` that
// name the format (JPEG's says no JPEG decoder is in Voxen's dependencies).
ColourImage decodeCompressedColour(const ros::CompressedImage& image, const std::string& where);

// Any 8-bit PNG (grey, grey+alpha, RGB, RGBA, palette) as RGB, row-major; 16-bit ones scaled
// to 8 bits (libpng's png_set_scale_16: rounded). `width`/`height` set. Error beginning with
// `where` (with libpng's words) for anything that does not decode.
std::vector<uint8_t> decodePngRgb8(std::span<const uint8_t> png, const std::string& where, uint32_t& width, uint32_t& height);
// An 8-bit RGB PNG of `rgb` (width x height x 3, row-major), for generators and tests.
std::vector<uint8_t> encodePngRgb8(std::span<const uint8_t> rgb, uint32_t width, uint32_t height);

// The depth camera's undistortion map applied to a colour image registered to its raw
// pixels (in place; unchanged when the camera does not remap). The image must be the camera's
// source size: an Error beginning with `where` otherwise. Pixels mapped from outside the image
// are black.
void applyDepthCamera(const DepthCamera& camera, ColourImage& image, const std::string& where);

// The index of the stamp nearest `t` within `tolerance` (|stamp - t| <= tolerance), ties to
// the earlier stamp and then the earlier index; nullopt when none is within it. Stamps in any
// order, in integer units (nanoseconds, microseconds) so that the tolerance is exact.
std::optional<size_t> nearestStamp(std::span<const int64_t> stamps, int64_t t, int64_t tolerance);

}  // namespace voxen::detail
