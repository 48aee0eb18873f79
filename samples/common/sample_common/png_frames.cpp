#include "sample_common/png_frames.hpp"

#include <cstdio>
#include <cstring>

#include "voxen/export/png_writer.hpp"

namespace voxen_samples {

std::filesystem::path framePath(const std::string& dir, uint64_t frame) {
  char name[32];
  std::snprintf(name, sizeof name, "frame_%05llu.png", (unsigned long long)frame);
  return std::filesystem::path(dir) / name;
}

void writeRgbaPng(const std::filesystem::path& path, uint32_t width, uint32_t height, const std::vector<uint32_t>& pixels) {
  std::vector<uint8_t> bytes(pixels.size() * 4);
  std::memcpy(bytes.data(), pixels.data(), bytes.size());  // RGBA8, red in the low byte: bytes R, G, B, A
  voxen::writePng(path, width, height, bytes, voxen::PngFormat::Rgba8);
}

}  // namespace voxen_samples
