#pragma once
// Writes a framed map picture (voxen/export/plot_frame.hpp) as a PNG with a sidecar YAML in ROS
// map_server's form beside it (OUT.png -> OUT.yaml: image, resolution, origin [x, y, yaw],
// negate, occupied_thresh, free_thresh), so the picture can be placed in the world: map_server
// puts the lower-left pixel's lower-left corner at the origin and reads rows top first. Both
// files are written atomically and only once both are complete, so a failed write leaves any
// existing files as they were. A PNG written to a stream (/dev/stdout, a pipe) gets no YAML.
#include <filesystem>
#include <string>

#include "voxen/export/plot_frame.hpp"

namespace voxen::detail {

// OUT.png -> OUT.yaml (OUT.yaml -> OUT.yaml.yaml); empty for a target that is not a regular
// file or a path to one (a character device, a FIFO, a socket).
std::filesystem::path pictureYamlPath(const std::filesystem::path& png);

// The YAML's text for a picture saved as `imageName`. `description` (one line) is a comment.
std::string mapServerYaml(const FramedPicture& picture, const std::string& imageName, const std::string& description);

// Writes the PNG and its YAML; returns the YAML's path (empty when none was written).
std::filesystem::path writeMapPicture(const std::filesystem::path& png, const FramedPicture& picture,
                                      const std::string& description);

}  // namespace voxen::detail
