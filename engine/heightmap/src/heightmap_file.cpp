// The heightmap file and its NumPy arrays (voxen/heightmap/heightmap_file.hpp).
#include "voxen/heightmap/heightmap_file.hpp"

#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>

#include "voxen/atomic_file/atomic_file.hpp"
#include "voxen/host/error.hpp"

namespace voxen {

namespace {

using detail::AtomicFileWriter;

constexpr char kMagic[8] = {'V', 'X', 'H', 'E', 'I', 'G', 'H', 'T'};
constexpr uint32_t kVersion = 1;

struct Header {
  char magic[8];
  uint32_t version;
  int32_t gridX, gridY;
  uint32_t width, height;
  int32_t zLow, zHigh;
  uint32_t levels;
  double resolution;
  double robotHeight, maxSlopeDegrees, maxStep, clearanceMargin;
  uint32_t virtualSurfaces, reserved;
};
static_assert(sizeof(Header) == 88);

template <class T>
void put(AtomicFileWriter& out, const T& value) {
  out.write(&value, sizeof(T));
}

// One float32 array in NumPy's .npy format (version 1.0, little-endian, C order).
void writeNpy(const std::filesystem::path& path, const std::vector<float>& values, uint32_t levels, uint32_t rows,
              uint32_t columns) {
  std::ostringstream dict;
  dict << "{'descr': '<f4', 'fortran_order': False, 'shape': (" << levels << ", " << rows << ", " << columns << "), }";
  std::string header = dict.str();
  const size_t unpadded = 10 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header.push_back('\n');
  AtomicFileWriter out(path, "NumPy array");
  out.write("\x93NUMPY\x01\x00", 8);
  const uint16_t length = uint16_t(header.size());
  out.write(&length, 2);
  out.write(header.data(), header.size());
  out.write(values.data(), values.size() * sizeof(float));
  out.commit();
}

}  // namespace

void saveHeightmap(const Heightmap& hm, const std::filesystem::path& path) {
  Header h{};
  std::memcpy(h.magic, kMagic, 8);
  h.version = kVersion;
  const HeightmapGrid& g = hm.grid();
  h.gridX = g.gridX, h.gridY = g.gridY, h.width = g.width, h.height = g.height, h.zLow = g.zLow, h.zHigh = g.zHigh;
  h.levels = g.levels;
  h.resolution = g.resolution;
  const HeightmapOptions& o = hm.options();
  h.robotHeight = o.robotHeight, h.maxSlopeDegrees = o.maxSlopeDegrees, h.maxStep = o.maxStep;
  h.clearanceMargin = o.clearanceMargin.value_or(-1.0);
  h.virtualSurfaces = o.virtualSurfaces ? 1u : 0u;
  AtomicFileWriter out(path, "heightmap");
  put(out, h);
  out.write(hm.cells().data(), hm.cells().size() * sizeof(gpu::HeightmapCell));
  out.write(hm.columnFlags().data(), hm.columnFlags().size() * 4);
  out.commit();
}

bool isHeightmapFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  char magic[8] = {};
  return in.read(magic, 8) && std::memcmp(magic, kMagic, 8) == 0;
}

Heightmap loadHeightmap(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot open heightmap '" + path.string() + "'");
  const std::string name = "heightmap '" + path.string() + "'";
  Header h{};
  if (!in.read(reinterpret_cast<char*>(&h), sizeof h) || std::memcmp(h.magic, kMagic, 8) != 0)
    throw Error(name + ": not a heightmap file (it does not start with VXHEIGHT)");
  if (h.version != kVersion)
    throw Error(name + ": format version " + std::to_string(h.version) + ", this build reads version " + std::to_string(kVersion));
  if (h.levels == 0 || h.levels > gpu::kMaxHeightmapLevels || h.width == 0 || h.height == 0 || !(h.resolution > 0))
    throw Error(name + ": its header holds an impossible grid (levels, width, height or resolution)");
  HeightmapGrid g;
  g.gridX = h.gridX, g.gridY = h.gridY, g.width = h.width, g.height = h.height, g.zLow = h.zLow, g.zHigh = h.zHigh;
  g.levels = h.levels;
  g.resolution = h.resolution;
  HeightmapOptions o;
  o.robotHeight = h.robotHeight, o.maxSlopeDegrees = h.maxSlopeDegrees, o.maxStep = h.maxStep, o.levels = h.levels;
  if (h.clearanceMargin >= 0) o.clearanceMargin = h.clearanceMargin;
  o.virtualSurfaces = h.virtualSurfaces != 0;
  const uint64_t columns = uint64_t(g.width) * g.height;
  const uint64_t expected = sizeof(Header) + columns * g.levels * sizeof(gpu::HeightmapCell) + columns * 4;
  std::error_code error;
  const uint64_t size = std::filesystem::file_size(path, error);
  if (error || size != expected)
    throw Error(name + ": " + std::to_string(size) + " bytes where its grid needs " + std::to_string(expected) +
                " (truncated or not written by voxen heightmap)");
  Heightmap hm(g, o);
  in.read(reinterpret_cast<char*>(hm.cells().data()), std::streamsize(hm.cells().size() * sizeof(gpu::HeightmapCell)));
  in.read(reinterpret_cast<char*>(hm.columnFlags().data()), std::streamsize(hm.columnFlags().size() * 4));
  if (!in) throw Error(name + ": could not read all of it");
  return hm;
}

std::vector<std::filesystem::path> writeHeightmapArrays(const Heightmap& hm, const std::string& prefix) {
  const size_t count = hm.cells().size();
  std::vector<float> height(count), clearance(count), slope(count), cost(count);
  size_t i = 0;
  for (uint32_t level = 0; level < hm.levels(); ++level)
    for (uint32_t y = 0; y < hm.height(); ++y)
      for (uint32_t x = 0; x < hm.width(); ++x, ++i) {
        height[i] = float(hm.heightMetres(level, x, y));
        clearance[i] = float(hm.clearanceMetres(level, x, y));
        slope[i] = float(hm.slopeDegrees(level, x, y));
        cost[i] = float(hm.cell(level, x, y).cost);
      }
  std::vector<std::filesystem::path> written;
  const auto array = [&](const char* what, const std::vector<float>& values) {
    written.push_back(prefix + "-" + what + ".npy");
    writeNpy(written.back(), values, hm.levels(), hm.height(), hm.width());
  };
  array("height", height);
  array("clearance", clearance);
  array("slope", slope);
  array("cost", cost);
  std::ostringstream json;
  json.precision(17);
  json << "{\"origin_x\": " << hm.columnMinX(0) << ", \"origin_y\": " << hm.rowMinY(0) << ", \"resolution\": " << hm.resolution()
       << ", \"width\": " << hm.width() << ", \"height\": " << hm.height() << ", \"levels\": " << hm.levels() << "}\n";
  written.push_back(prefix + ".json");
  AtomicFileWriter meta(written.back(), "JSON");
  const std::string text = json.str();
  meta.write(text.data(), text.size());
  meta.commit();
  return written;
}

}  // namespace voxen
