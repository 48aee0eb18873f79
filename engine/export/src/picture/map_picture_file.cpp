#include "voxen/export/map_picture_file.hpp"

#include <charconv>
#include <optional>
#include <system_error>

#include "voxen/host/error.hpp"
#include "voxen/export/png_writer.hpp"
#include "voxen/atomic_file/atomic_file.hpp"

namespace voxen::detail {

namespace {

// The shortest text that reads back as the same double ("0.025", not "0.025000000000000001").
std::string shortest(double v) {
  if (v == 0.0) v = 0.0;  // no "-0"
  char text[40];
  return std::string(text, std::to_chars(text, text + sizeof text, v).ptr);
}

}  // namespace

std::filesystem::path pictureYamlPath(const std::filesystem::path& png) {
  std::error_code error;
  const std::filesystem::file_status status = std::filesystem::status(png, error);
  if (std::filesystem::exists(status) && !std::filesystem::is_regular_file(status)) return {};
  std::filesystem::path yaml = png;
  if (png.extension() == ".yaml") return yaml += ".yaml";
  return yaml.replace_extension(".yaml");
}

std::string mapServerYaml(const FramedPicture& p, const std::string& imageName, const std::string& description) {
  const uint32_t right = p.plotLeft + p.plotWidth - 1, bottom = p.plotTop + p.plotHeight - 1;
  std::string text = "# written by voxen: " + description + "\n";
  text += "# ROS map_server form: the picture placed in the world. Pixel column c, row r (rows from the top) of the " +
          std::to_string(p.canvas.width()) + " x " + std::to_string(p.canvas.height()) +
          " pixels covers x from origin x + c * resolution, y from origin y + (" + std::to_string(p.canvas.height()) +
          " - 1 - r) * resolution (metres).\n";
  text += "# The map is drawn in columns " + std::to_string(p.plotLeft) + ".." + std::to_string(right) + ", rows " +
          std::to_string(p.plotTop) + ".." + std::to_string(bottom) + ": x " + shortest(p.world.minX) + " to " +
          shortest(p.world.maxX) + " m, y " + shortest(p.world.minY) + " to " + shortest(p.world.maxY) +
          " m; the margins around it hold the axes, the title and the legend.\n";
  text += "image: " + imageName + "\n";
  text += "resolution: " + shortest(p.metresPerPixel) + "\n";
  text += "origin: [" + shortest(p.originX) + ", " + shortest(p.originY) + ", 0.0]\n";
  text += "negate: 0\noccupied_thresh: 0.65\nfree_thresh: 0.196\n";
  return text;
}

std::filesystem::path writeMapPicture(const std::filesystem::path& png, const FramedPicture& picture,
                                      const std::string& description) {
  const Canvas& canvas = picture.canvas;
  std::vector<uint8_t> bytes;
  try {
    bytes = encodePng(canvas.width(), canvas.height(), canvas.rgb());
  } catch (const Error& e) {
    throw Error("cannot save PNG to '" + png.string() + "': " + e.what());
  }
  const std::filesystem::path yamlPath = pictureYamlPath(png);
  // Both temporary files exist before either target is touched: a refused or failed write
  // leaves the old PNG and YAML as they were.
  detail::AtomicFileWriter pngOut(png, "PNG");
  std::optional<detail::AtomicFileWriter> yamlOut;
  if (!yamlPath.empty()) yamlOut.emplace(yamlPath, "YAML");
  pngOut.write(bytes.data(), bytes.size());
  if (yamlOut) {
    const std::string yaml = mapServerYaml(picture, png.filename().string(), description);
    yamlOut->write(yaml.data(), yaml.size());
  }
  pngOut.commit();
  if (yamlOut) yamlOut->commit();
  return yamlPath;
}

}  // namespace voxen::detail
