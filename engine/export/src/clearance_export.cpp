#include "voxen/export/clearance_export.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "export_helpers.hpp"
#include "voxen/host/error.hpp"
#include "voxen/host/setting_error.hpp"
#include "voxen/export/map_picture_file.hpp"
#include "voxen/export/plot_frame.hpp"
#include "voxen/export/png_writer.hpp"
#include "voxen/atomic_file/atomic_file.hpp"

namespace voxen {

using detail::appendLE;
using detail::sortedRegions;

namespace {

LayerId requireClearance(const OccupancyMap& map) {
  const std::optional<LayerId> id = findLayer("clearance");
  if (!id || !map.layout().has(*id))
    throw SettingError(SettingError::Kind::Change, "GpuClearance::compute", "GpuClearance::compute or computeClearanceCpu",
                       "the map has no clearance layer (it has " + map.layout().names() + "): compute it with {}");
  return *id;
}

}  // namespace

void clearanceColour(double t, uint8_t rgb[3]) {
  t = std::clamp(std::isfinite(t) ? t : 0.0, 0.0, 1.0);
  // red -> yellow -> green -> cyan -> blue, four equal steps
  const double stops[5][3] = {{220, 30, 30}, {240, 220, 40}, {40, 190, 60}, {40, 200, 220}, {40, 60, 220}};
  const double f = t * 4.0;
  const int i = std::min(3, int(f));
  const double u = f - i;
  for (int c = 0; c < 3; ++c) rgb[c] = uint8_t(std::lround(stops[i][c] + (stops[i + 1][c] - stops[i][c]) * u));
}

uint64_t exportClearancePly(const OccupancyMap& map, const std::filesystem::path& path, bool doublePrecision) {
  const LayerId layer = requireClearance(map);
  const std::vector<const Region*> regions = sortedRegions(map);
  uint64_t count = 0;
  for (const Region* r : regions)
    for (float v : r->occupancy()) count += isObserved(v);
  const char* coordType = doublePrecision ? "double" : "float";
  std::string header = "ply\nformat binary_little_endian 1.0\n";
  header += "comment written by voxen: observed voxel centres in metres with their clearance (metres to the nearest "
            "obstacle, 0 on obstacles, -1 for none within range)\n";
  header += "element vertex " + std::to_string(count) + "\n";
  for (const char* axis : {"x", "y", "z"}) header += std::string("property ") + coordType + " " + axis + "\n";
  header += "property float clearance\nend_header\n";
  detail::AtomicFileWriter out(path, "PLY");
  out.write(header.data(), header.size());
  detail::PlyRecords records(out, doublePrecision);
  for (const Region* r : regions) {
    const auto clearance = r->values<float>(layer);
    for (uint32_t i = 0; i < r->occupancy().size(); ++i) {
      if (!isObserved(r->occupancy()[i])) continue;
      records.centre(map.voxelCentre(map.voxelOf(r->key, i)));
      records.value(clearance[i]);
      records.endRecord();
    }
  }
  records.finish();
  out.commit();
  return count;
}

ClearanceImage renderClearanceImage(const OccupancyMap& map, int32_t z, uint32_t scale, double range) {
  const LayerId layer = requireClearance(map);
  ClearanceImage image;
  image.slice = renderSlice(map, z, scale);  // the bounds, the scale, the counts and the unknown background
  SliceImage& slice = image.slice;
  const int32_t n = map.regionSize();
  const int32_t regionZ = floorDiv(z, n), localZ = z - regionZ * n;
  // The voxels drawn: observed ones of layer z (unobserved voxels stay grey whatever their
  // clearance, so they do not set the scale either).
  auto forDrawn = [&](auto&& visit) {
    for (const auto& [key, region] : map.regions()) {
      if (key.z != regionZ) continue;
      const auto clearance = region.template values<float>(layer);
      for (int32_t y = 0; y < n; ++y)
        for (int32_t x = 0; x < n; ++x) {
          const size_t i = size_t(x + n * (y + n * localZ));
          if (!isObserved(region.occupancy()[i])) continue;
          visit(key.x * n + x, key.y * n + y, clearance[i]);
        }
    }
  };
  if (!(range > 0.0)) {  // the largest clearance drawn
    forDrawn([&](int32_t, int32_t, float c) { range = std::max(range, double(c)); });
    if (!(range > 0.0)) range = 1.0;
  }
  image.top = range;
  const uint32_t s = slice.scale;
  forDrawn([&](int32_t vx, int32_t vy, float c) {
    uint8_t colour[3] = {255, 255, 255};
    if (c == 0.0f) colour[0] = colour[1] = colour[2] = 0, ++image.obstacles;
    else if (c > 0.0f) clearanceColour(double(c) / range, colour), ++image.distances;
    else ++image.noneInRange;
    const size_t px = size_t(vx - slice.minX) * s, py = size_t(slice.maxY - vy) * s;
    for (uint32_t sy = 0; sy < s; ++sy)
      for (uint32_t sx = 0; sx < s; ++sx) std::memcpy(&slice.rgb[((py + sy) * slice.width + px + sx) * 3], colour, 3);
  });
  return image;
}

ClearanceImage exportClearancePng(const OccupancyMap& map, const std::filesystem::path& path, int32_t z, uint32_t scale,
                                  double range, const std::string& mapName) {
  ClearanceImage image;
  try {
    image = renderClearanceImage(map, z, scale, range);
  } catch (const SettingError&) {
    throw;
  } catch (const Error& e) {
    throw Error("cannot save PNG to '" + path.string() + "': " + e.what());
  }
  const std::string title = detail::titled(mapName, "clearance at " + detail::layerHeights(map, z));
  detail::PlotFrame frame(title, detail::worldOf(map, image.slice), image.slice.width, image.slice.height);
  frame.addColourBar(detail::ColourRange{0.0, image.top}, "clearance: distance to the nearest obstacle (m)", [](double t) {
    uint8_t c[3];
    clearanceColour(t, c);
    return detail::Rgb{c[0], c[1], c[2]};
  });
  frame.addSwatches({{detail::kBlack, "obstacle (" + std::to_string(image.obstacles) + ")"},
                     {detail::kWhite, "none within range (" + std::to_string(image.noneInRange) + ")"},
                     {{kSliceUnknownRgb[0], kSliceUnknownRgb[1], kSliceUnknownRgb[2]}, "unobserved"}});
  frame.addNote(detail::pixelNote(map, image.slice.scale, path));
  const detail::FramedPicture picture = frame.draw(image.slice.rgb);
  detail::placeSlice(image.slice, picture, detail::writeMapPicture(path, picture, title));
  return image;
}

}  // namespace voxen
