#pragma once
// TUM RGB-D's image lists (depth.txt, rgb.txt): 'timestamp filename' lines, '#' comments.
#include <filesystem>
#include <string>
#include <vector>

namespace voxen::detail {

struct TumImage {
  double time = 0.0;
  std::string file;  // relative to the folder
  size_t line = 0;   // in the list, from 1
};

// Error naming the file and line of a line that is not 'timestamp filename'.
std::vector<TumImage> readTumList(const std::filesystem::path& file);

}  // namespace voxen::detail
