#include "colour/tum_colour.hpp"

#include <cmath>

#include "colour/colour_topics.hpp"
#include "colour/recording_colour.hpp"
#include "voxen/host/error.hpp"
#include "voxen/input/input_file.hpp"

namespace voxen::detail {

namespace {

int64_t micros(double seconds) { return std::llround(seconds * 1e6); }

}  // namespace

TumColour::TumColour(const std::filesystem::path& folder, const DepthSourceOptions& options, const DepthCamera& camera,
                     const std::filesystem::path& firstDepthImage)
    : folder_(folder), camera_(camera) {
  const std::string name = folder.string();
  if (!options.colourTopic.empty())
    throw Error(name + ": is a TUM RGB-D folder: its colour images are rgb.txt's, it has no colour topic (" +
                options.colourTopic + ")");
  toleranceMicros_ = (colourToleranceNs(options.colourMaxTimeDifference) + 500) / 1000;
  if (!std::filesystem::is_regular_file(folder / "rgb.txt"))
    throw Error(name + ": has no rgb.txt, so its depth images have no colour: a TUM RGB-D folder lists its colour "
                "images in rgb.txt ('timestamp filename' lines, e.g. '1305031102.175304 rgb/1305031102.175304.png')");
  images_ = readTumList(folder / "rgb.txt");
  if (images_.empty()) throw Error(name + "/rgb.txt: lists no colour image");
  for (const TumImage& image : images_) micros_.push_back(micros(image.time));
  // The first colour image is the depth camera's size: registered, never resized.
  const std::filesystem::path first = folder / images_.front().file;
  const std::vector<uint8_t> bytes = readInputFile(first, "colour image");
  uint32_t w = 0, h = 0;
  int bitDepth = 0, colourType = 0;
  if (!pngSize(bytes, w, h, bitDepth, colourType))
    throw Error((folder / "rgb.txt").string() + ":" + std::to_string(images_.front().line) + ": " + first.string() +
                ": is not a PNG (TUM RGB-D's colour images are 8-bit RGB PNGs)");
  if (w != camera.sourceWidth || h != camera.sourceHeight)
    throw Error(first.string() + ": the colour images are " + std::to_string(w) + " x " + std::to_string(h) + ", the depth "
                "images (" + firstDepthImage.string() + ") " + std::to_string(camera.sourceWidth) + " x " +
                std::to_string(camera.sourceHeight) + ": colour must be registered to the depth image, pixel for pixel, "
                "and Voxen does not resize it");
}

std::optional<ColourImage> TumColour::at(double time) const {
  const std::optional<size_t> k = nearestStamp(micros_, micros(time), toleranceMicros_);
  if (!k) return std::nullopt;
  const TumImage& entry = images_[*k];
  const std::filesystem::path file = folder_ / entry.file;
  const std::string at = (folder_ / "rgb.txt").string() + ":" + std::to_string(entry.line) + ": " + file.string();
  ColourImage image;
  image.rgb = decodePngRgb8(readInputFile(file, "colour image"), at, image.width, image.height);
  applyDepthCamera(camera_, image, at);
  return image;
}

void TumColour::describe(DepthSourceInfo& info) const {
  info.colourTopic = "rgb.txt";
  info.colourEncoding = "8-bit PNG";
  info.colourImages = images_.size();
}

}  // namespace voxen::detail
