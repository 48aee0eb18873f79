#pragma once
// What `voxen inspect` shows of depth images: a recording's depth topics with their cameras,
// and a TUM RGB-D folder.
#include <filesystem>

#include "recording/recording.hpp"
#include "voxen/input/recording_info.hpp"

namespace voxen::detail {

// Fills info.depthTopics: every depth image topic, its first image's size and its camera_info
// (or why it has none usable). Never throws for the recording's content: what cannot be read
// is said in the entry.
void describeDepthTopics(Recording& rec, RecordingInfo& info);

// A TUM RGB-D folder: its depth images, ground truth and colour list; Error naming the file
// for a depth.txt that does not read.
void inspectTumFolder(const std::filesystem::path& path, RecordingInfo& info);

}  // namespace voxen::detail
