#include "pgm_pair.hpp"

#include <charconv>

#include "voxen/atomic_file/atomic_file.hpp"

namespace voxen::detail {

std::string shortestDecimal(double v) {
  if (v == 0.0) v = 0.0;
  char text[40];
  return std::string(text, std::to_chars(text, text + sizeof text, v).ptr);
}

std::vector<uint8_t> pgmBytes(const std::vector<uint8_t>& gridValues, uint32_t width, uint32_t height) {
  const std::string header = "P5\n# written by voxen\n" + std::to_string(width) + " " + std::to_string(height) + "\n255\n";
  std::vector<uint8_t> bytes(header.begin(), header.end());
  bytes.reserve(bytes.size() + size_t(width) * height);
  for (uint32_t row = 0; row < height; ++row) {
    const size_t y = size_t(height) - 1 - row;
    bytes.insert(bytes.end(), gridValues.begin() + std::ptrdiff_t(y * width), gridValues.begin() + std::ptrdiff_t((y + 1) * width));
  }
  return bytes;
}

void writeImageAndYaml(const std::filesystem::path& image, const std::vector<uint8_t>& pgm, const std::filesystem::path& yaml,
                       const std::string& yamlText) {
  AtomicFileWriter pgmOut(image, "PGM");
  AtomicFileWriter yamlOut(yaml, "YAML");
  pgmOut.write(pgm.data(), pgm.size());
  yamlOut.write(yamlText.data(), yamlText.size());
  pgmOut.commit();
  yamlOut.commit();
}

}  // namespace voxen::detail
