// Raw and compressedDepth depth images to voxen::DepthImage, and the maximum range.
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#include "voxen/host/error.hpp"
#include "voxen/input/depth_decode.hpp"

namespace voxen::detail {

namespace {

template <typename T>
T loadLittle(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  if constexpr (std::endian::native == std::endian::big) {
    uint8_t b[sizeof v];
    std::memcpy(b, &v, sizeof v);
    for (size_t i = 0; i < sizeof v / 2; ++i) std::swap(b[i], b[sizeof v - 1 - i]);
    std::memcpy(&v, b, sizeof v);
  }
  return v;
}

template <typename T>
T load(const uint8_t* p, bool bigEndian) {
  T v;
  std::memcpy(&v, p, sizeof v);
  if (bigEndian != (std::endian::native == std::endian::big)) {
    uint8_t b[sizeof v];
    std::memcpy(b, &v, sizeof v);
    for (size_t i = 0; i < sizeof v / 2; ++i) std::swap(b[i], b[sizeof v - 1 - i]);
    std::memcpy(&v, b, sizeof v);
  }
  return v;
}

std::string trimmed(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t");
  if (a == std::string::npos) return {};
  return s.substr(a, s.find_last_not_of(" \t") - a + 1);
}

}  // namespace

DepthImage decodeDepthImage(const ros::Image& m, const std::string& where) {
  DepthImage out;
  const bool is16 = m.encoding == "16UC1", is32 = m.encoding == "32FC1";
  if (!is16 && !is32)
    throw Error(where + ": encoding '" + m.encoding + "' is not a depth encoding (16UC1, 32FC1)");
  out.width = m.width, out.height = m.height;
  const size_t n = out.pixels();
  if (is16) {
    out.encoding = DepthEncoding::Unsigned16;
    out.depthScale = 0.001;
    out.depth16.resize(n);
    for (uint32_t v = 0; v < m.height; ++v) {
      const uint8_t* row = m.data.data() + size_t(v) * m.step;
      for (uint32_t u = 0; u < m.width; ++u) out.depth16[size_t(v) * m.width + u] = load<uint16_t>(row + 2 * size_t(u), m.isBigEndian);
    }
  } else {
    out.encoding = DepthEncoding::Float32;
    out.depth32.resize(n);
    for (uint32_t v = 0; v < m.height; ++v) {
      const uint8_t* row = m.data.data() + size_t(v) * m.step;
      for (uint32_t u = 0; u < m.width; ++u) out.depth32[size_t(v) * m.width + u] = load<float>(row + 4 * size_t(u), m.isBigEndian);
    }
  }
  return out;
}

bool isCompressedDepthFormat(const std::string& format) { return format.find("compressedDepth") != std::string::npos; }

DepthImage decodeCompressedDepth(const ros::CompressedImage& m, const std::string& where) {
  // "ENCODING; compressedDepth png", as compressed_depth_image_transport's codec parses it.
  const size_t split = m.format.find(';');
  const std::string encoding = trimmed(m.format.substr(0, split));
  if (split != std::string::npos) {
    const std::string rest = m.format.substr(split);
    if (rest.find("compressedDepth rvl") != std::string::npos)
      throw Error(where + ": format '" + m.format + "': compressedDepth's RVL compression is not read, only its PNG form");
    const bool png = rest.find("compressedDepth png") != std::string::npos ||
                     (rest.find("compressedDepth") != std::string::npos && rest.find("compressedDepth ") == std::string::npos);
    if (!png)
      throw Error(where + ": format '" + m.format + "' is not a depth image's (compressed_depth_image_transport writes "
                  "'16UC1; compressedDepth png' or '32FC1; compressedDepth png')");
  }
  if (encoding != "16UC1" && encoding != "32FC1")
    throw Error(where + ": format '" + m.format + "': encoding '" + encoding + "' is not a depth encoding (16UC1, 32FC1)");
  constexpr size_t kConfigHeader = 12;  // int32 format, float32 depthParam[2]
  if (m.data.size() <= kConfigHeader)
    throw Error(where + ": compressedDepth data of " + std::to_string(m.data.size()) +
                " bytes holds no PNG after its 12-byte header");
  const float quantA = loadLittle<float>(m.data.data() + 4), quantB = loadLittle<float>(m.data.data() + 8);
  DepthImage out;
  const std::vector<uint16_t> values = decodePng16(m.data.subspan(kConfigHeader), where + ": compressedDepth", out.width, out.height);
  if (encoding == "16UC1") {
    out.encoding = DepthEncoding::Unsigned16;
    out.depthScale = 0.001;
    out.depth16 = values;
    return out;
  }
  out.encoding = DepthEncoding::Float32;
  out.depth32.resize(values.size());
  // As the transport's decoder, in float: a given message decodes to the same floats.
  for (size_t i = 0; i < values.size(); ++i)
    out.depth32[i] = values[i] != 0 ? quantA / (float(values[i]) - quantB) : std::numeric_limits<float>::quiet_NaN();
  return out;
}

size_t applyMaxRange(DepthImage& image, double maxRange) {
  size_t changed = 0;
  if (!(maxRange > 0)) return 0;
  if (image.encoding == DepthEncoding::Unsigned16) {
    for (uint16_t& d : image.depth16)
      if (d != 0 && double(d) * image.depthScale > maxRange) d = 0, ++changed;
  } else {
    for (float& d : image.depth32)
      if (double(d) > maxRange) d = std::numeric_limits<float>::quiet_NaN(), ++changed;
  }
  return changed;
}

}  // namespace voxen::detail
