#include "voxen/input/input_format.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <string_view>

#include "voxen/input/input_file.hpp"
#include "voxen/host/error.hpp"

namespace voxen {

namespace {

bool startsWith(std::string_view text, std::string_view prefix) { return text.substr(0, prefix.size()) == prefix; }

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return s;
}

bool hasFileWithExtension(const std::filesystem::path& folder, const std::string& extension) {
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(folder, ec)) {
    if (entry.is_regular_file(ec) && lower(entry.path().extension().string()) == extension) return true;
  }
  return false;
}

// The first bytes, printable, for an error: what the file starts with instead.
std::string shownBytes(std::string_view head) {
  std::string shown;
  for (const char c : head.substr(0, 16)) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isprint(u)) {
      shown += c;
    } else {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", u);
      shown += hex;
    }
  }
  return shown;
}

InputFormat detectFolder(const std::filesystem::path& path) {
  const std::string name = path.string();
  if (std::filesystem::is_directory(path / "velodyne") && hasFileWithExtension(path / "velodyne", ".bin"))
    return InputFormat::KittiSequence;
  if (hasFileWithExtension(path, ".pcd")) return InputFormat::PcdFolder;
  // A TUM RGB-D sequence: depth.txt (and rgb.txt, groundtruth.txt) beside depth/ and rgb/.
  if (std::filesystem::is_regular_file(path / "depth.txt") || std::filesystem::is_directory(path / "depth"))
    return InputFormat::TumRgbd;
  throw Error(name + ": is a directory holding no recording Voxen reads (expected *.pcd files, a KITTI odometry "
                     "sequence: velodyne/*.bin with poses.txt and calib.txt, or a TUM RGB-D folder: depth.txt)");
}

}  // namespace

const char* inputFormatName(InputFormat format) {
  switch (format) {
    case InputFormat::Ply: return "PLY";
    case InputFormat::Pcd: return "PCD";
    case InputFormat::PcdFolder: return "PCD folder";
    case InputFormat::KittiScan: return "KITTI velodyne scan";
    case InputFormat::KittiSequence: return "KITTI odometry sequence";
    case InputFormat::RosBag: return "ROS 1 bag";
    case InputFormat::Mcap: return "MCAP";
    case InputFormat::TumRgbd: return "TUM RGB-D folder";
  }
  return "unknown";
}

InputFormat detectInputFormat(const std::filesystem::path& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return detectFolder(path);
  std::ifstream in = detail::openInputFile(path, "recording");
  std::string head(64, '\0');
  in.read(head.data(), std::streamsize(head.size()));
  head.resize(size_t(in.gcount()));
  const std::string_view text = startsWith(head, "\xEF\xBB\xBF") ? std::string_view(head).substr(3) : std::string_view(head);
  if (startsWith(text, "ply\n") || startsWith(text, "ply\r\n")) return InputFormat::Ply;
  if (startsWith(head, "# .PCD") || startsWith(head, "VERSION")) return InputFormat::Pcd;
  if (startsWith(head, "#ROSBAG V2.0")) return InputFormat::RosBag;
  if (startsWith(head, std::string_view("\x89MCAP0\r\n", 8))) return InputFormat::Mcap;
  // A file named .ply that is none (empty, a bad first line): the PLY reader's error names the line.
  if (lower(path.extension().string()) == ".ply") return InputFormat::Ply;
  // KITTI scans have no header: only their name and their size of whole 16-byte points say so.
  const auto size = std::filesystem::file_size(path, ec);
  if (lower(path.extension().string()) == ".bin" && !ec) {
    if (size % 16 == 0) return InputFormat::KittiScan;
    throw Error(path.string() + ": a .bin file of " + std::to_string(size) + " bytes is no KITTI velodyne scan (" +
                "whose size is a multiple of 16: float32 x, y, z, reflectance per point)");
  }
  throw Error(path.string() + ": unknown recording format (it starts with \"" + shownBytes(head) +
              "\"; Voxen reads PLY, PCD and KITTI velodyne .bin files and folders of PCD files or KITTI sequences)");
}

}  // namespace voxen
