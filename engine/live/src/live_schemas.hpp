#pragma once
// The JSON schemas of the channels a MapPublisher advertises (docs/live.md): Foxglove's own
// message types by their schema names (foxglove.Grid, foxglove.SceneUpdate, ...), which
// Foxglove Studio draws without a plug-in, and Voxen's compact region and status messages.
// The schemas list the fields the messages carry; Studio takes the type from the name.
#include <string_view>

namespace voxen::live::detail {

inline constexpr std::string_view kTimeSchema =
    R"({"type":"object","properties":{"sec":{"type":"integer"},"nsec":{"type":"integer"}}})";

inline constexpr std::string_view kMapRegionSchema = R"({"title":"voxen.MapRegion","type":"object","properties":{
"timestamp":{"type":"object"},"frame_id":{"type":"string"},
"region":{"type":"array","items":{"type":"integer"}},"region_size":{"type":"integer"},"voxel_size":{"type":"number"},
"origin":{"type":"array","items":{"type":"number"}},"occupied_count":{"type":"integer"},
"occupied":{"type":"string","contentEncoding":"base64"},
"height_range":{"type":"array","items":{"type":"number"}}}})";

inline constexpr std::string_view kStatusSchema = R"({"title":"voxen.Status","type":"object","properties":{
"timestamp":{"type":"object"},"state":{"type":"string"},"source":{"type":"string"},
"clouds":{"type":"integer"},"dropped_clouds":{"type":"integer"},"rays":{"type":"integer"},
"rays_per_second":{"type":"number"},"latency_ms":{"type":"object"},"regions":{"type":"integer"},
"occupied_voxels":{"type":"integer"},"free_voxels":{"type":"integer"},"resolution":{"type":"number"},
"memory_mb":{"type":"number"},"clients":{"type":"integer"}}})";

inline constexpr std::string_view kSceneUpdateSchema = R"({"title":"foxglove.SceneUpdate","type":"object","properties":{
"deletions":{"type":"array","items":{"type":"object","properties":{"timestamp":{"type":"object"},"type":{"type":"integer"},"id":{"type":"string"}}}},
"entities":{"type":"array","items":{"type":"object","properties":{"timestamp":{"type":"object"},"frame_id":{"type":"string"},
"id":{"type":"string"},"lifetime":{"type":"object"},"frame_locked":{"type":"boolean"},"metadata":{"type":"array"},
"arrows":{"type":"array"},"cubes":{"type":"array"},"spheres":{"type":"array"},"cylinders":{"type":"array"},
"lines":{"type":"array"},"triangles":{"type":"array"},"texts":{"type":"array"},"models":{"type":"array"}}}}}})";

inline constexpr std::string_view kGridSchema = R"({"title":"foxglove.Grid","type":"object","properties":{
"timestamp":{"type":"object"},"frame_id":{"type":"string"},"pose":{"type":"object"},"column_count":{"type":"integer"},
"cell_size":{"type":"object"},"row_stride":{"type":"integer"},"cell_stride":{"type":"integer"},
"fields":{"type":"array"},"data":{"type":"string","contentEncoding":"base64"}}})";

inline constexpr std::string_view kPoseInFrameSchema = R"({"title":"foxglove.PoseInFrame","type":"object","properties":{
"timestamp":{"type":"object"},"frame_id":{"type":"string"},"pose":{"type":"object"}}})";

inline constexpr std::string_view kPosesInFrameSchema = R"({"title":"foxglove.PosesInFrame","type":"object","properties":{
"timestamp":{"type":"object"},"frame_id":{"type":"string"},"poses":{"type":"array"}}})";

}  // namespace voxen::live::detail
