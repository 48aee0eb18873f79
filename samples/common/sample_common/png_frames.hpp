#pragma once
// The PNG frames a sample's headless mode writes: frame_00000.png, frame_00001.png, ... in
// one folder, each the sample's RGBA8 image as it came back from the device.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace voxen_samples {

// `dir`/frame_NNNNN.png (five digits or more).
std::filesystem::path framePath(const std::string& dir, uint64_t frame);

// Writes `pixels` (width x height, row-major, top row first; RGBA8 with red in the low byte)
// as an RGBA PNG, atomically (voxen::writePng).
void writeRgbaPng(const std::filesystem::path& path, uint32_t width, uint32_t height, const std::vector<uint32_t>& pixels);

}  // namespace voxen_samples
