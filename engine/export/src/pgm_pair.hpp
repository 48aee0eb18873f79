#pragma once
// What the map_server-style exports share (heightmap_export.cpp's Nav2 maps and costmaps,
// esdf_slice.cpp's ESDF slices): the P5 PGM, the shortest decimals in their YAML, and writing
// the image and its YAML as a pair.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace voxen::detail {

// The shortest text that reads back as the same double ("0.1", not "0.10000000000000001").
std::string shortestDecimal(double value);

// A P5 PGM of grid-order values (row 0 = the lowest y), written with row 0 = the largest y.
std::vector<uint8_t> pgmBytes(const std::vector<uint8_t>& gridValues, uint32_t width, uint32_t height);

// Writes both files atomically: both temporary copies exist before either target is touched,
// so a failed export leaves existing files as they were.
void writeImageAndYaml(const std::filesystem::path& image, const std::vector<uint8_t>& pgm, const std::filesystem::path& yaml,
                       const std::string& yamlText);

}  // namespace voxen::detail
