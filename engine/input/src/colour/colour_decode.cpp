// Colour messages to voxen::ColourImage: raw Images of the colour encodings, PNG
// CompressedImages, and the depth camera's undistortion map applied to them.
#include <cstring>

#include "voxen/host/error.hpp"
#include "voxen/input/colour_decode.hpp"

namespace voxen::detail {

namespace {

bool contains(const std::string& text, const char* word) { return text.find(word) != std::string::npos; }

std::string lowered(std::string s) {
  for (char& c : s) c = char(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return s;
}

}  // namespace

bool isChosenColourEncoding(const std::string& e) { return e == "rgb8" || e == "bgr8" || e == "rgba8" || e == "bgra8"; }
bool isColourEncoding(const std::string& e) { return isChosenColourEncoding(e) || e == "mono8"; }

ColourImage decodeColourImage(const ros::Image& m, const std::string& where) {
  if (!isColourEncoding(m.encoding))
    throw Error(where + ": encoding '" + m.encoding + "' is not a colour encoding Voxen reads (" + kColourEncodings + ")");
  // Source byte of red, green, blue within a pixel, and the pixel's bytes.
  const std::string& e = m.encoding;
  const size_t bytes = e == "mono8" ? 1 : e == "rgb8" || e == "bgr8" ? 3 : 4;
  const bool bgr = e == "bgr8" || e == "bgra8";
  const size_t r = e == "mono8" ? 0 : bgr ? 2 : 0, g = e == "mono8" ? 0 : 1, b = e == "mono8" ? 0 : bgr ? 0 : 2;
  ColourImage out;
  out.width = m.width, out.height = m.height;
  out.rgb.resize(size_t(m.width) * m.height * 3);
  for (uint32_t v = 0; v < m.height; ++v) {
    const uint8_t* row = m.data.data() + size_t(v) * m.step;
    uint8_t* to = out.rgb.data() + size_t(v) * m.width * 3;
    if (e == "rgb8") {
      std::memcpy(to, row, size_t(m.width) * 3);
      continue;
    }
    for (uint32_t u = 0; u < m.width; ++u) {
      const uint8_t* p = row + size_t(u) * bytes;
      to[3 * size_t(u)] = p[r], to[3 * size_t(u) + 1] = p[g], to[3 * size_t(u) + 2] = p[b];
    }
  }
  return out;
}

CompressedColour compressedColourKind(const ros::CompressedImage& m) {
  static const uint8_t kPng[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  const std::string format = lowered(m.format);
  if (contains(m.format, "compressedDepth")) return CompressedColour::Depth;
  if (m.data.size() >= 8 && std::memcmp(m.data.data(), kPng, 8) == 0) return CompressedColour::Png;
  if (m.data.size() >= 3 && m.data[0] == 0xFF && m.data[1] == 0xD8 && m.data[2] == 0xFF) return CompressedColour::Jpeg;
  if (contains(format, "jpeg") || contains(format, "jpg")) return CompressedColour::Jpeg;
  if (contains(format, "png")) return CompressedColour::Png;
  return CompressedColour::Unknown;
}

ColourImage decodeCompressedColour(const ros::CompressedImage& m, const std::string& where) {
  switch (compressedColourKind(m)) {
    case CompressedColour::Png: break;
    case CompressedColour::Jpeg:
      throw Error(where + ": format '" + m.format + "' is JPEG, which Voxen does not read: no JPEG decoder is among its "
                  "dependencies; record the raw images (sensor_msgs/Image rgb8 or bgr8) or PNG (image_transport's "
                  "compressed plugin with format png)");
    case CompressedColour::Depth:
      throw Error(where + ": format '" + m.format + "' is a compressedDepth image, not colour");
    default:
      throw Error(where + ": format '" + m.format + "' is neither PNG nor JPEG: not a colour image Voxen reads (PNG)");
  }
  ColourImage out;
  out.rgb = decodePngRgb8(m.data, where, out.width, out.height);
  return out;
}

void applyDepthCamera(const DepthCamera& camera, ColourImage& image, const std::string& where) {
  if (image.width != camera.sourceWidth || image.height != camera.sourceHeight)
    throw Error(where + ": the colour image is " + std::to_string(image.width) + " x " + std::to_string(image.height) +
                ", its depth camera " + std::to_string(camera.sourceWidth) + " x " + std::to_string(camera.sourceHeight) +
                " (colour must be registered to the depth image; Voxen does not resize it)");
  if (!camera.remaps()) return;
  const size_t n = camera.sourcePixel.size();
  std::vector<uint8_t> out(n * 3, 0);
  for (size_t i = 0; i < n; ++i) {
    if (camera.sourcePixel[i] < 0) continue;
    std::memcpy(out.data() + 3 * i, image.rgb.data() + 3 * size_t(camera.sourcePixel[i]), 3);
  }
  image.rgb = std::move(out);
  image.width = camera.intrinsics.width, image.height = camera.intrinsics.height;
}

}  // namespace voxen::detail
