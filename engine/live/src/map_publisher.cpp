// MapPublisher (voxen/live/map_publisher.hpp): the map's changed regions, the 2D map, the pose,
// the path and the status as the JSON messages docs/live.md describes.
#include "voxen/live/map_publisher.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <span>

#include "json_text.hpp"
#include "live_schemas.hpp"
#include "voxen/export/heightmap_export.hpp"

namespace voxen::live {

namespace {

using detail::base64;
using detail::number;
using detail::jsonString;
using detail::timeJson;

std::string regionKeyText(const RegionKey& k) {
  return std::to_string(k.x) + " " + std::to_string(k.y) + " " + std::to_string(k.z);
}

// Height to colour: blue (low), cyan, green, yellow, red (high), linear between the stops.
std::array<float, 3> heightColour(double t) {
  static constexpr float kStops[5][3] = {{0.23f, 0.30f, 0.75f}, {0.13f, 0.65f, 0.85f}, {0.35f, 0.80f, 0.35f},
                                         {0.95f, 0.80f, 0.20f}, {0.85f, 0.20f, 0.15f}};
  t = std::clamp(std::isfinite(t) ? t : 0.0, 0.0, 1.0) * 4.0;
  const int i = std::min(3, int(t));
  const float w = float(t - i);
  return {kStops[i][0] + (kStops[i + 1][0] - kStops[i][0]) * w, kStops[i][1] + (kStops[i + 1][1] - kStops[i][1]) * w,
          kStops[i][2] + (kStops[i + 1][2] - kStops[i][2]) * w};
}

std::string poseJson(const SensorPose& p) {
  return "{\"position\":{\"x\":" + number(p.position.x) + ",\"y\":" + number(p.position.y) +
         ",\"z\":" + number(p.position.z) + "},\"orientation\":{\"x\":" + number(p.orientation.x) +
         ",\"y\":" + number(p.orientation.y) + ",\"z\":" + number(p.orientation.z) + ",\"w\":" + number(p.orientation.w) + "}}";
}

// A voxen.MapRegion message (docs/live.md): the region's occupied voxels as base64 uint32 local
// indices; none (occupied_count 0) tells a client to remove the region.
std::string regionMessage(const std::string& time, const std::string& frame, const RegionKey& k, int32_t n, double voxel,
                          std::span<const uint32_t> indices, const std::string& rangeText) {
  std::vector<uint8_t> bytes(indices.size() * 4);
  for (size_t i = 0; i < indices.size(); ++i)
    for (int b = 0; b < 4; ++b) bytes[i * 4 + b] = uint8_t(indices[i] >> (8 * b));
  return "{\"timestamp\":" + time + ",\"frame_id\":" + frame + ",\"region\":[" + std::to_string(k.x) + "," +
         std::to_string(k.y) + "," + std::to_string(k.z) + "],\"region_size\":" + std::to_string(n) +
         ",\"voxel_size\":" + number(voxel) + ",\"origin\":[" + number(double(k.x) * n * voxel) + "," +
         number(double(k.y) * n * voxel) + "," + number(double(k.z) * n * voxel) + "],\"occupied_count\":" +
         std::to_string(indices.size()) + ",\"occupied\":\"" + base64(bytes) + "\",\"height_range\":" + rangeText + "}";
}

// A foxglove.SceneUpdate that deletes the entity `id` (a JSON string literal).
std::string sceneDeletion(const std::string& time, const std::string& id) {
  return "{\"deletions\":[{\"timestamp\":" + time + ",\"type\":0,\"id\":" + id + "}],\"entities\":[]}";
}

// A foxglove.SceneUpdate of one entity whose `kind` list ("cubes", "triangles") holds
// `primitives` (comma-separated JSON objects), every other primitive list empty.
std::string sceneEntity(const std::string& time, const std::string& frame, const std::string& id, const std::string& kind,
                        const std::string& primitives) {
  static const char* kKinds[] = {"arrows", "cubes", "spheres", "cylinders", "lines", "triangles", "texts", "models"};
  std::string lists;
  for (const char* k : kKinds) lists += std::string(",\"") + k + "\":[" + (kind == k ? primitives : std::string()) + "]";
  return "{\"deletions\":[],\"entities\":[{\"timestamp\":" + time + ",\"frame_id\":" + frame + ",\"id\":" + id +
         ",\"lifetime\":{\"sec\":0,\"nsec\":0},\"frame_locked\":false,\"metadata\":[]" + lists + "}]}";
}

// A foxglove.Grid over a heightmap's cells (row 0 at its lowest y): `cellStride` bytes per cell
// holding `fields` (PackedElementField JSON objects), `cells` row-major.
std::string gridMessage(const Heightmap& heightmap, uint64_t timeNs, const std::string& frameId, uint32_t cellStride,
                        const std::string& fields, std::span<const uint8_t> cells) {
  const SensorPose origin{glm::dvec3(heightmap.columnMinX(0), heightmap.rowMinY(0), 0.0), glm::dquat(1, 0, 0, 0)};
  const std::string r = number(heightmap.resolution());
  return "{\"timestamp\":" + timeJson(timeNs) + ",\"frame_id\":" + jsonString(frameId) + ",\"pose\":" + poseJson(origin) +
         ",\"column_count\":" + std::to_string(heightmap.width()) + ",\"cell_size\":{\"x\":" + r + ",\"y\":" + r +
         "},\"row_stride\":" + std::to_string(size_t(heightmap.width()) * cellStride) +
         ",\"cell_stride\":" + std::to_string(cellStride) + ",\"fields\":[" + fields + "],\"data\":\"" + base64(cells) + "\"}";
}

// The occupied voxels' local indices of a region.
std::vector<uint32_t> occupiedIndices(const OccupancyMap& map, const Region& region) {
  std::vector<uint32_t> out;
  const auto occupancy = region.occupancy();
  for (uint32_t i = 0; i < uint32_t(occupancy.size()); ++i)
    if (map.classify(occupancy[i]) == VoxelClass::Occupied) out.push_back(i);
  return out;
}

}  // namespace

MapPublisher::MapPublisher(FoxgloveServer& server, MapPublisherOptions options)
    : server_(server), options_(std::move(options)), heightRange_(options_.heightRange) {
  auto advertise = [&](const char* topic, std::string_view schemaName, std::string_view schema) {
    return server_.advertise({.topic = topic, .schemaName = std::string(schemaName), .schema = std::string(schema)});
  };
  regions_ = advertise("/voxen/map/regions", "voxen.MapRegion", detail::kMapRegionSchema);
  if (options_.sceneCubes) scene_ = advertise("/voxen/map/occupied", "foxglove.SceneUpdate", detail::kSceneUpdateSchema);
  grid_ = advertise("/voxen/map/grid", "foxglove.Grid", detail::kGridSchema);
  heightmap_ = advertise("/voxen/map/heightmap", "foxglove.Grid", detail::kGridSchema);
  mesh_ = advertise("/voxen/map/mesh", "foxglove.SceneUpdate", detail::kSceneUpdateSchema);
  pose_ = advertise("/voxen/sensor/pose", "foxglove.PoseInFrame", detail::kPoseInFrameSchema);
  pathChannel_ = advertise("/voxen/sensor/path", "foxglove.PosesInFrame", detail::kPosesInFrameSchema);
  status_ = advertise("/voxen/status", "voxen.Status", detail::kStatusSchema);
}

MapPublishStats MapPublisher::publishMap(const OccupancyMap& map, uint64_t timeNs) {
  MapPublishStats stats;
  const double voxel = map.model().resolution;
  const int32_t n = map.regionSize();
  // The colour scale: fixed at the first map with an occupied voxel.
  std::vector<std::pair<const Region*, std::vector<uint32_t>>> changed;
  for (const auto& [key, region] : map.regions()) {
    auto it = sent_.find(key);
    if (it != sent_.end() && it->second.stamp == region.occupiedSetStamp) continue;
    std::vector<uint32_t> indices = occupiedIndices(map, region);
    if (it == sent_.end() && indices.empty()) continue;  // nothing to show, nothing shown before
    changed.emplace_back(&region, std::move(indices));
  }
  if (!heightRange_) {
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (const auto& [region, indices] : changed)
      for (const uint32_t i : indices) {
        const double z = map.voxelCentre(map.voxelOf(region->key, i)).z;
        lo = std::min(lo, z), hi = std::max(hi, z);
      }
    if (lo <= hi) heightRange_ = std::array<double, 2>{lo, std::max(hi, lo + voxel)};
  }
  const std::array<double, 2> range = heightRange_.value_or(std::array<double, 2>{0.0, 1.0});
  const std::string time = timeJson(timeNs), frame = jsonString(options_.frameId);
  const std::string rangeText = "[" + number(range[0]) + "," + number(range[1]) + "]";
  for (const auto& [region, indices] : changed) {
    const RegionKey& k = region->key;
    const std::string key = regionKeyText(k);
    std::string message = regionMessage(time, frame, k, n, voxel, indices, rangeText);
    Sent& s = sent_[k];
    occupiedTotal_ = occupiedTotal_ - s.occupied + indices.size();
    s = Sent{region->occupiedSetStamp, uint32_t(indices.size())};
    if (indices.empty()) {
      server_.remove(regions_, key, timeNs, std::move(message));
      ++stats.regionsRemoved;
    } else {
      server_.publish(regions_, key, timeNs, std::move(message));
    }
    ++stats.regionsSent;
    stats.occupiedSent += indices.size();
    if (!options_.sceneCubes) continue;
    const std::string id = jsonString("region " + key);
    if (indices.empty()) {
      server_.remove(scene_, key, timeNs, sceneDeletion(time, id));
      continue;
    }
    std::string cubes;
    cubes.reserve(indices.size() * 200);
    char text[320];
    const std::string size = number(voxel);
    for (const uint32_t i : indices) {
      const glm::dvec3 c = map.voxelCentre(map.voxelOf(k, i));
      const std::array<float, 3> rgb = heightColour((c.z - range[0]) / (range[1] - range[0]));
      std::snprintf(text, sizeof text,
                    "%s{\"pose\":{\"position\":{\"x\":%.9g,\"y\":%.9g,\"z\":%.9g},\"orientation\":{\"x\":0,\"y\":0,\"z\":0,"
                    "\"w\":1}},\"size\":{\"x\":%s,\"y\":%s,\"z\":%s},\"color\":{\"r\":%.3f,\"g\":%.3f,\"b\":%.3f,\"a\":1}}",
                    cubes.empty() ? "" : ",", c.x, c.y, c.z, size.c_str(), size.c_str(), size.c_str(), rgb[0], rgb[1], rgb[2]);
      cubes += text;
    }
    server_.publish(scene_, key, timeNs, sceneEntity(time, frame, id, "cubes", cubes));
  }
  // Regions gone from the map (a local window, decay): deletions. A region paged out to the
  // map's store is still part of the map, and stays shown.
  for (auto it = sent_.begin(); it != sent_.end();) {
    const RegionKey key = it->first;
    const bool gone = !map.regions().contains(key) && !(map.regionSource() && map.regionSource()->holds(key));
    if (!gone || it->second.occupied == 0) {
      ++it;
      continue;
    }
    const std::string text = regionKeyText(key);
    server_.remove(regions_, text, timeNs, regionMessage(time, frame, key, n, voxel, {}, rangeText));
    if (options_.sceneCubes) server_.remove(scene_, text, timeNs, sceneDeletion(time, jsonString("region " + text)));
    occupiedTotal_ -= it->second.occupied;
    ++stats.regionsSent;
    ++stats.regionsRemoved;
    it = sent_.erase(it);
  }
  for (const auto& [key, s] : sent_) stats.regions += s.occupied > 0;
  stats.occupied = occupiedTotal_;
  return stats;
}

void MapPublisher::publishGrid(const Heightmap& heightmap, uint64_t timeNs) {
  if (heightmap.width() == 0 || heightmap.height() == 0) return;
  const std::vector<uint8_t> pixels = nav2TrinaryPixels(heightmap, {});
  const uint32_t w = heightmap.width(), h = heightmap.height();
  // The image's row 0 is the largest y; the grid's row 0 is at its origin, the smallest y.
  std::vector<uint8_t> cells(size_t(w) * h);
  for (uint32_t y = 0; y < h; ++y)
    for (uint32_t x = 0; x < w; ++x) {
      const uint8_t p = pixels[size_t(h - 1 - y) * w + x];
      cells[size_t(y) * w + x] = p == 0 ? uint8_t(100) : p == 254 ? uint8_t(0) : uint8_t(0xff);  // int8 -1: unknown
    }
  server_.publish(grid_, "", timeNs,
                  gridMessage(heightmap, timeNs, options_.frameId, 1, "{\"name\":\"occupancy\",\"offset\":0,\"type\":2}", cells));
}

void MapPublisher::publishHeightmap(const Heightmap& heightmap, uint64_t timeNs) {
  const uint32_t w = heightmap.width(), h = heightmap.height();
  if (w == 0 || h == 0) return;
  std::vector<uint8_t> cells(size_t(w) * h * 8);
  for (uint32_t y = 0; y < h; ++y)
    for (uint32_t x = 0; x < w; ++x) {
      const bool present = heightmap.present(0, x, y);
      const float values[2] = {present ? float(heightmap.heightMetres(0, x, y)) : std::numeric_limits<float>::quiet_NaN(),
                               present ? float(heightmap.clearanceMetres(0, x, y)) : std::numeric_limits<float>::quiet_NaN()};
      std::memcpy(cells.data() + (size_t(y) * w + x) * 8, values, 8);
    }
  server_.publish(heightmap_, "", timeNs,
                  gridMessage(heightmap, timeNs, options_.frameId, 8,
                              "{\"name\":\"height\",\"offset\":0,\"type\":7},{\"name\":\"headroom\",\"offset\":4,\"type\":7}",
                              cells));
}

void MapPublisher::publishMesh(const TsdfMesh& mesh, uint64_t timeNs) {
  constexpr size_t kTrianglesPerEntity = 20000;
  const std::string time = timeJson(timeNs), frame = jsonString(options_.frameId);
  float lo = std::numeric_limits<float>::infinity(), hi = -lo;
  for (const glm::vec3& p : mesh.positions) lo = std::min(lo, p.z), hi = std::max(hi, p.z);
  const bool coloured = !mesh.colours.empty();
  size_t entities = 0;
  char text[160];
  for (size_t first = 0; first < mesh.faces.size(); first += kTrianglesPerEntity, ++entities) {
    const size_t last = std::min(mesh.faces.size(), first + kTrianglesPerEntity);
    std::string points, colors;
    points.reserve((last - first) * 3 * 48);
    for (size_t f = first; f < last; ++f)
      for (int corner = 0; corner < 3; ++corner) {
        const uint32_t v = mesh.faces[f][corner];
        const glm::vec3& p = mesh.positions[v];
        std::snprintf(text, sizeof text, "%s{\"x\":%.7g,\"y\":%.7g,\"z\":%.7g}", points.empty() ? "" : ",", p.x, p.y, p.z);
        points += text;
        std::array<float, 3> rgb = coloured ? std::array<float, 3>{mesh.colours[v].r / 255.0f, mesh.colours[v].g / 255.0f,
                                                                   mesh.colours[v].b / 255.0f}
                                            : heightColour((p.z - lo) / std::max(1e-6f, hi - lo));
        std::snprintf(text, sizeof text, "%s{\"r\":%.3f,\"g\":%.3f,\"b\":%.3f,\"a\":1}", colors.empty() ? "" : ",", rgb[0],
                      rgb[1], rgb[2]);
        colors += text;
      }
    const std::string id = "mesh " + std::to_string(entities);
    server_.publish(mesh_, id, timeNs,
                    sceneEntity(time, frame, jsonString(id), "triangles",
                                "{\"pose\":" + poseJson({}) + ",\"points\":[" + points +
                                    "],\"color\":{\"r\":1,\"g\":1,\"b\":1,\"a\":1},\"colors\":[" + colors + "],\"indices\":[]}"));
  }
  // A smaller mesh than the last: its extra entities go.
  for (size_t e = entities; e < meshEntities_; ++e) {
    const std::string id = "mesh " + std::to_string(e);
    server_.remove(mesh_, id, timeNs, sceneDeletion(time, jsonString(id)));
  }
  meshEntities_ = entities;
}

void MapPublisher::publishPose(const SensorPose& pose, uint64_t timeNs) {
  const std::string time = timeJson(timeNs), frame = jsonString(options_.frameId);
  server_.publish(pose_, "", timeNs, "{\"timestamp\":" + time + ",\"frame_id\":" + frame + ",\"pose\":" + poseJson(pose) + "}");
  if (!path_.empty() && glm::length(pose.position - path_.back().position) < options_.pathStepMetres) return;
  path_.push_back(pose);
  // The poses' JSON grows with the path, so that a publication formats one pose, not all.
  pathJson_ += (pathJson_.empty() ? "" : ",") + poseJson(pose);
  // A long run's path: every other pose dropped once it holds 20,000 (the first and last kept).
  if (path_.size() > 20000) {
    std::vector<SensorPose> thinned;
    for (size_t i = 0; i < path_.size(); i += 2) thinned.push_back(path_[i]);
    if (thinned.back().position != path_.back().position) thinned.push_back(path_.back());
    path_ = std::move(thinned);
    pathJson_.clear();
    for (const SensorPose& p : path_) pathJson_ += (pathJson_.empty() ? "" : ",") + poseJson(p);
  }
  server_.publish(pathChannel_, "", timeNs, "{\"timestamp\":" + time + ",\"frame_id\":" + frame + ",\"poses\":[" + pathJson_ + "]}");
}

void MapPublisher::publishStatus(const LiveStatus& s, uint64_t timeNs) {
  server_.publish(status_, "", timeNs,
                  "{\"timestamp\":" + timeJson(timeNs) + ",\"state\":" + jsonString(s.state) + ",\"source\":" + jsonString(s.source) +
                      ",\"clouds\":" + std::to_string(s.clouds) + ",\"dropped_clouds\":" + std::to_string(s.droppedClouds) +
                      ",\"rays\":" + std::to_string(s.rays) + ",\"rays_per_second\":" + number(s.raysPerSecond) +
                      ",\"latency_ms\":{\"last\":" + number(s.latencyLastMs) + ",\"max\":" + number(s.latencyMaxMs) +
                      "},\"regions\":" + std::to_string(s.regions) + ",\"occupied_voxels\":" + std::to_string(s.occupiedVoxels) +
                      ",\"free_voxels\":" + std::to_string(s.freeVoxels) + ",\"resolution\":" + number(s.resolution) +
                      ",\"memory_mb\":" + number(s.memoryMb) + ",\"clients\":" + std::to_string(server_.counters().clients) +
                      "}");
}

}  // namespace voxen::live
