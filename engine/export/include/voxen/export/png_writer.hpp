#pragma once
// PNG writing through libpng: 8-bit RGB or RGBA, no interlace, only the IHDR, IDAT and IEND
// chunks. libpng picks each row's filter, which keeps flat map images small.
#include <cstdint>
#include <filesystem>
#include <vector>

namespace voxen {

enum class PngFormat : uint8_t { Rgb8 = 3, Rgba8 = 4 };  // value: bytes per pixel

// The complete PNG file in memory. `pixels` holds rows top to bottom, each `width` pixels
// of 3 (RGB) or 4 (RGBA) bytes. Throws Error when the sizes disagree or are zero.
std::vector<uint8_t> encodePng(uint32_t width, uint32_t height, const std::vector<uint8_t>& pixels,
                               PngFormat format = PngFormat::Rgb8);

// Writes encodePng's bytes to `path` atomically (temporary file, then rename).
void writePng(const std::filesystem::path& path, uint32_t width, uint32_t height, const std::vector<uint8_t>& rgb);
void writePng(const std::filesystem::path& path, uint32_t width, uint32_t height, const std::vector<uint8_t>& pixels,
              PngFormat format);

}  // namespace voxen
