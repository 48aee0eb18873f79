#pragma once
// Which of a recording's image topics holds the colour for the depth topic
// (DepthSourceOptions::colourTopic; the rules are depth_source.hpp's).
#include <cstdint>
#include <string>
#include <vector>

#include "depth/depth_topics.hpp"

namespace voxen::detail {

// The colour topic: the one named (SettingError naming DepthSourceOptions::colourTopic when it
// is missing, not an image topic or a depth topic, listing the colour topics), or the only
// candidate, or the one nearest the depth topic's namespace (Error when there is none,
// SettingError when several are as near).
const ImageTopic& chooseColourTopic(const Recording& rec, const std::vector<ImageTopic>& images, const std::string& depthTopic,
                                    const std::string& wanted);

// "/camera/color/image_raw (rgb8, 640 x 480), ..." or "none": the colour topics, for errors and inspect.
std::string colourTopicList(const Recording& rec, const std::vector<ImageTopic>& images);

}  // namespace voxen::detail
